#!/usr/bin/env python3
"""Writes the canvases of the crash regression suite (`compiler/tests/cli_crash.rs`).

Only inputs are made here; what RAGFlow answers for each comes from the reference oracle
(`regen.sh`). `__HOST__` in a URL is replaced by the test's own server (the oracle runs used
`python3 -m http.server 18799` serving the same pages from `regen.sh`).
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))


def canvas(node_id, kind, params, env=None):
    globals_ = {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": [], "sys.history": []}
    variables = {}
    for k, v in (env or {}).items():
        globals_["env." + k] = v
        variables[k] = {"name": k, "type": "object" if isinstance(v, (list, dict)) else "string", "value": v}
    params = dict(params, outputs={"result": {"type": "string", "value": ""}})
    return {
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {"mode": "conversational", "prologue": "", "inputs": {}, "outputs": {}}},
                      "downstream": [node_id], "upstream": []},
            node_id: {"obj": {"component_name": kind, "params": params}, "downstream": ["Message:Out"], "upstream": ["begin"]},
            "Message:Out": {"obj": {"component_name": "Message", "params": {"content": ["done [{%s@result}]" % node_id]}},
                            "downstream": [], "upstream": [node_id]},
        },
        "globals": globals_, "variables": variables, "history": [], "path": [], "retrieval": [],
    }


def invoke(**over):
    p = {"url": "http://127.0.0.1:9/unreachable", "method": "get", "datatype": "json", "timeout": 5,
         "variables": [], "headers": "", "max_retries": 0, "delay_after_error": 0, "clean_html": False}
    p.update(over)
    return canvas("Invoke:Call", "Invoke", p)


def sort_list(items, **over):
    p = {"query": "env.l", "operations": "sort", "sort_method": "asc"}
    p.update(over)
    return canvas("ListOperations:Sort", "ListOperations", p, env={"l": items})


CASES = {
    # 1. JSON nesting: the JSON argument from sys.query (the query is 20,000 `[`), and the
    #    headers parameter nested as objects (the variant).
    "json-deep-argument": invoke(method="post", variables=[{"key": "q", "ref": "sys.query"}]),
    "json-deep-headers": invoke(headers='{"a": ' * 2000),
    # 2. HTML nesting: clean_html on 50,000 nested <div>, and a deep <span> chain in a <p>.
    "html-deep-div": invoke(url="http://__HOST__/deep-div", clean_html=True),
    "html-deep-span": invoke(url="http://__HOST__/deep-span", clean_html=True),
    # 3. Sorting 64+ items that Python cannot order.
    "sort-mixed-64": sort_list(list(range(70, 0, -1)) + ["a"]),
    "sort-mixed-dicts": sort_list([{"k": i} for i in range(100)] + [{"k": "z"}] + [{"k": i} for i in range(100)], sort_by="k", sort_method="desc"),
    # 4. Timeouts CPython cannot hold.
    "timeout-u64": invoke(url="http://__HOST__/ok", timeout=18446744073709551615),
    "timeout-int-ns-overflow": invoke(url="http://__HOST__/ok", timeout=9223372037),
    # 5. Delays CPython cannot sleep.
    "delay-1e300": invoke(delay_after_error=1e300, max_retries=1),
    "delay-u64": invoke(delay_after_error=18446744073709551615, max_retries=2),
    # max_retries + 1 must not wrap to zero attempts.
    "retries-u64": invoke(url="http://__HOST__/ok", max_retries=18446744073709551615),
}

if __name__ == "__main__":
    for name, c in CASES.items():
        with open(os.path.join(HERE, name + ".json"), "w") as f:
            json.dump(c, f, indent=1)
            f.write("\n")
