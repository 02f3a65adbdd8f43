//! Compile the synthetic benchmark canvases with canvasc's code generator, as `canvasc build`
//! would, into `$OUT_DIR/compiled.rs` (included by the benchmark).

// The front-end benchmark shapes (diamonds, graph forms) are not compiled here.
#[allow(dead_code)]
#[path = "../tests/src/synthetic.rs"]
mod synthetic;

use canvasc::codegen;
use canvasc_frontend::analyze;
use std::fmt::Write;

fn main() {
    println!("cargo:rerun-if-changed=../tests/src/synthetic.rs");
    let canvases = [
        ("chain_10", synthetic::chain(10)),
        ("chain_100", synthetic::chain(100)),
        ("chain_1000", synthetic::chain(1000)),
        ("constant_chain_1000", synthetic::constant_chain(1000)),
        ("fan_1000", synthetic::fan(1000)),
        ("iteration_1000", synthetic::iteration(1000)),
    ];
    // `CANVASC_BENCH_ONLY=chain_1000,fan_1000` compiles only those canvases (faster rebuilds
    // while profiling).
    println!("cargo:rerun-if-env-changed=CANVASC_BENCH_ONLY");
    let only = std::env::var("CANVASC_BENCH_ONLY").ok();
    let mut out = String::new();
    let mut arms = String::new();
    for (name, text) in canvases {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|o| o == name))
        {
            continue;
        }
        let analysis = analyze(&text).expect("synthetic canvases load");
        assert!(!analysis.has_errors(), "{name} checks clean");
        let module = codegen::canvas_module(&format!("synthetic/{name}.json"), &analysis);
        let _ = writeln!(out, "pub mod {name} {{ {module} }}");
        let _ = writeln!(
            arms,
            "\"{name}\" => Some(v.visit(std::sync::Arc::new({name}::Canvas::new()))),"
        );
    }
    let _ = writeln!(
        out,
        "/// The compiled program named `shape_n` (`chain_100`), handed to `v`.\n\
         pub fn visit<V: canvasc_engine::ProgramVisitor>(name: &str, v: V) -> Option<V::Output> {{\n\
         match name {{ {arms} _ => None }} }}"
    );
    let dir = std::env::var("OUT_DIR").expect("OUT_DIR");
    std::fs::write(format!("{dir}/compiled.rs"), out).expect("written");
}
