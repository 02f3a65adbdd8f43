"""RAGFlow's own `sanitize_filename` on the names the tests use: the function is taken from
agent/component/docs_generator.py of the oracle's RAGFlow export (by its syntax tree, without
importing the module's service dependencies) and run on every input; the results go to
filenames.json. Run: $RAGFLOW_PY filenames.py [$RAGFLOW_SRC]"""
import ast, json, os, re, sys

src_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/ragflow-ref/src")
source = open(os.path.join(src_dir, "agent/component/docs_generator.py")).read()
fn = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == "sanitize_filename")
scope = {"re": re, "os": os}
exec(compile(ast.Module(body=[fn], type_ignores=[]), "docs_generator.py", "exec"), scope)
inputs = [
    ("", "pdf"), ("report.md", "pdf"), ("a/b\\c?d#e%f*g:h|i<j>k\"l", "docx"),
    ("  ..My   Report..  ", "txt"), ("???", "html"), ("a\tb\nc", "md"), (".hidden", "pdf"),
    ("x" * 300, "pdf"), ("报告 2024.v1", "pdf"), ("../reports/Q3: \"final\" <v2>?.md", "pdf"),
    ("Quarterly report", "docx"), ("name.with.dots.tar.gz", "txt"), ("\u3000全角\u3000", "md"),
    ("a" * 179 + " b.txt", "pdf"), ("...", "pdf"), ("trailing. ", "html"),
]
out = [{"name": n, "extension": e, "sanitized": scope["sanitize_filename"](n, e)} for n, e in inputs]
json.dump(out, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "filenames.json"), "w"), ensure_ascii=False, indent=1)
print(len(out), "names")

# Message._strip_thinking (a static method of agent/component/message.py's Message), which
# DocGenerator applies to its content: results to strip_thinking.json.
msg = ast.parse(open(os.path.join(src_dir, "agent/component/message.py")).read())
cls = next(n for n in msg.body if isinstance(n, ast.ClassDef) and n.name == "Message")
st = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "_strip_thinking")
st.decorator_list = []
exec(compile(ast.Module(body=[st], type_ignores=[]), "message.py", "exec"), scope)
texts = [
    "", "plain", "<think>reasoning</think>Answer", "a<think>x\ny</think>b<think>c</think>d",
    "before <think>never closed\nmore", "stray </think> tag <think>", "x\n\n\n\ny",
    "  <think>a</think>\n\n\n# Title\n\nBody  ", "<THINK>upper</THINK>",
]
json.dump([{"content": t, "stripped": scope["_strip_thinking"](t)} for t in texts],
          open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "strip_thinking.json"), "w"),
          ensure_ascii=False, indent=1)
print(len(texts), "texts")
