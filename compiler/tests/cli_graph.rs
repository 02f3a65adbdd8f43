//! `canvasc graph`: on every DSL of the shared RAGFlow corpus, the built-in SVG is well-formed
//! XML whose text names every component, and the DOT and Mermaid texts name every component
//! too. Plus the parts of a picture a reader relies on: branch labels, dashed exception
//! routes, Loop bodies as clusters and checker findings on their nodes.

mod common;
use canvasc_frontend::analyze;
use common::fixture;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn canvasc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args(args)
        .output()
        .expect("canvasc runs")
}

/// `$CANVASC_SHARED` (or `../shared` beside the checkout) when it holds the corpus; a missing
/// corpus fails when `CANVASC_REQUIRE_SHARED` is set (CI), else the test says NOT RUN.
fn corpus() -> Option<Vec<PathBuf>> {
    let dir = std::env::var_os("CANVASC_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let root = dir.join("corpus/ragflow");
    if !root.is_dir() {
        assert!(
            std::env::var_os("CANVASC_REQUIRE_SHARED").is_none(),
            "the shared corpus is required but {} is missing",
            root.display()
        );
        eprintln!("cli_graph: NOT RUN: no shared corpus at {}", root.display());
        return None;
    }
    let mut files = Vec::new();
    for sub in ["dsl_examples", "go_testdata", "templates"] {
        for e in std::fs::read_dir(root.join(sub))
            .into_iter()
            .flatten()
            .flatten()
        {
            if e.path().extension().is_some_and(|x| x == "json") {
                files.push(e.path());
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no DSL under {}", root.display());
    Some(files)
}

/// Every component id of a canvas, as the front-end reads it.
fn component_ids(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("read");
    let analysis = analyze(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    analysis.ir.nodes.iter().map(|n| n.id.clone()).collect()
}

/// All text of an SVG document, after checking that it is well-formed XML.
fn svg_text(svg: &str, name: &str) -> String {
    let doc = roxmltree::Document::parse(svg)
        .unwrap_or_else(|e| panic!("{name}: the SVG is not well-formed XML: {e}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg", "{name}");
    doc.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_corpus_canvas_draws_as_valid_svg_naming_every_component() {
    let Some(files) = corpus() else { return };
    for path in &files {
        let name = path.display().to_string();
        let ids = component_ids(path);
        let svg = canvasc(&["graph", &name, "--format", "svg", "--engine", "builtin"]);
        assert_eq!(
            svg.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&svg.stderr)
        );
        let text = svg_text(&String::from_utf8_lossy(&svg.stdout), &name);
        for format in ["dot", "mermaid"] {
            let o = canvasc(&["graph", &name, "--format", format]);
            assert_eq!(o.status.code(), Some(0), "{name} {format}");
            let drawn = String::from_utf8_lossy(&o.stdout).into_owned();
            for id in &ids {
                assert!(
                    drawn.contains(id.as_str()),
                    "{name}: {format} does not name `{id}`"
                );
            }
        }
        for id in &ids {
            assert!(
                text.contains(id.as_str()),
                "{name}: the SVG does not name `{id}`"
            );
        }
    }
}

#[test]
fn branches_bodies_exception_routes_and_findings_are_drawn() {
    let switch = canvasc(&[
        "graph",
        &fixture("valid/switch-all-operators.json"),
        "--format",
        "dot",
    ]);
    let dot = String::from_utf8_lossy(&switch.stdout);
    assert!(dot.contains("label=\"case 1"), "{dot}");
    assert!(dot.contains("label=\"else\""), "{dot}");

    let categorize = canvasc(&[
        "graph",
        &fixture("valid/categorize-routing.json"),
        "--format",
        "mermaid",
    ]);
    let mermaid = String::from_utf8_lossy(&categorize.stdout);
    assert!(mermaid.starts_with("flowchart TD\n"), "{mermaid}");
    assert!(mermaid.contains("-->|"), "{mermaid}");

    let goto = canvasc(&[
        "graph",
        &fixture("valid/exception-goto.json"),
        "--format",
        "dot",
    ]);
    let dot = String::from_utf8_lossy(&goto.stdout);
    assert!(dot.contains("label=\"on error\", style=dashed"), "{dot}");

    let looped = canvasc(&[
        "graph",
        &fixture("valid/loop-with-iteration.json"),
        "--format",
        "dot",
    ]);
    let dot = String::from_utf8_lossy(&looped.stdout);
    assert!(dot.contains("subgraph cluster_"), "{dot}");
    assert!(dot.contains("style=dotted"), "{dot}");

    let broken = fixture("broken/unknown-component-message-ref.json");
    let o = canvasc(&["graph", &broken, "--format", "dot"]);
    assert_eq!(o.status.code(), Some(0));
    let dot = String::from_utf8_lossy(&o.stdout);
    let marked = dot
        .lines()
        .find(|l| l.contains("tooltip=\"error[unknown-component]"))
        .unwrap_or_else(|| panic!("no finding drawn for {broken}: {dot}"));
    assert!(
        marked.contains("✗ 1") && marked.contains("fillcolor=\"#f8d0d0\""),
        "{marked}"
    );
}

#[test]
fn the_picture_goes_to_the_file_out_names() {
    let dir = std::env::temp_dir().join(format!("canvasc-graph-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("diamond.svg");
    let o = canvasc(&[
        "graph",
        &fixture("valid/diamond-uneven.json"),
        "--engine",
        "builtin",
        "-o",
        out.to_str().expect("utf8"),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.stdout.is_empty());
    let svg = std::fs::read_to_string(&out).expect("written");
    svg_text(&svg, "diamond-uneven.json");
}

#[test]
fn the_form_follows_the_files_extension_png_included_and_others_are_refused() {
    let dir = std::env::temp_dir().join(format!("canvasc-graph-ext-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let canvas = fixture("valid/diamond-uneven.json");
    let draw = |file: &str, extra: &[&str]| {
        let out = dir.join(file);
        let mut args = vec!["graph", canvas.as_str(), "-o", out.to_str().expect("utf8")];
        args.extend_from_slice(extra);
        (canvasc(&args), out)
    };
    let (o, out) = draw("d.dot", &[]);
    assert_eq!(o.status.code(), Some(0));
    let dot = std::fs::read_to_string(&out).expect("written");
    assert!(dot.starts_with("digraph"), "{dot}");
    let (o, out) = draw("d.mmd", &[]);
    assert_eq!(o.status.code(), Some(0));
    let mermaid = std::fs::read_to_string(&out).expect("written");
    assert!(
        mermaid.starts_with("flowchart") || mermaid.starts_with("graph"),
        "{mermaid}"
    );
    // A PNG is a PNG: decoded, of the picture's size, not blank.
    let (o, out) = draw("d.png", &["--engine", "builtin"]);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let decoder = png::Decoder::new(std::fs::File::open(&out).expect("written"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).expect("its pixels");
    assert!(
        frame.width > 100 && frame.height > 50,
        "{}x{}",
        frame.width,
        frame.height
    );
    let first = &pixels[..4];
    assert!(
        pixels.chunks(4).any(|p| p != first),
        "the PNG has more than one colour"
    );
    // Another extension is refused by name, and nothing is written.
    let (o, out) = draw("d.jpg", &[]);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not .jpg"), "{stderr}");
    assert!(!out.exists());
    // A form that contradicts the name is refused too.
    let (o, _) = draw("e.svg", &["--format", "dot"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The names an Agent's tools are drawn with: each tool's `name` (else its kind), a
/// sub-agent's own tools in turn.
fn tool_names(params: &serde_json::Value, out: &mut Vec<String>) {
    for tool in params["tools"].as_array().into_iter().flatten() {
        let name = tool["name"]
            .as_str()
            .filter(|n| !n.trim().is_empty())
            .or_else(|| tool["component_name"].as_str())
            .unwrap_or_default();
        out.push(name.to_string());
        tool_names(&tool["params"], out);
    }
}

#[test]
fn an_agents_tools_and_sub_agents_are_drawn_tied_to_it() {
    let path = fixture("valid/agent-sub-agents.json");
    let dsl: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("the fixture")).expect("JSON");
    let mut names = Vec::new();
    for component in dsl["components"]
        .as_object()
        .into_iter()
        .flat_map(|c| c.values())
    {
        if component["obj"]["component_name"] == "Agent" {
            tool_names(&component["obj"]["params"], &mut names);
        }
    }
    assert!(
        names.len() >= 2,
        "the fixture has sub-agents with tools: {names:?}"
    );
    let o = canvasc(&["graph", &path, "--format", "dot"]);
    assert_eq!(o.status.code(), Some(0));
    let dot = String::from_utf8_lossy(&o.stdout);
    for name in &names {
        assert!(
            dot.contains(&format!("label=\"{name}\\n")),
            "{name} not drawn:\n{dot}"
        );
    }
    let tool_edges = dot.matches("arrowhead=none").count();
    assert_eq!(tool_edges, names.len(), "{dot}");
}
