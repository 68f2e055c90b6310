//! A loop through the crate root (`http -> crate -> http`) is a cycle: the
//! fixture crate in `tests/fixtures/root_loop` has one and must fail.

use std::path::Path;

#[test]
fn a_crate_whose_root_loops_through_a_module_fails() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/root_loop");
    let graph = capicua_modgraph::analyze(&dir.join("src/lib.rs"), |p| std::fs::read_to_string(p).ok())
        .expect("the fixture's root is readable");
    assert!(graph.missing.is_empty(), "{:?}", graph.missing);
    let cycles: Vec<String> = graph.cycles.iter().map(|c| c.modules.join(" -> ")).collect();
    assert_eq!(cycles, ["crate -> http"], "{graph}");
    let shown = graph.cycles[0].to_string();
    assert!(shown.contains("root_loop/src/http.rs:1 (crate::State)"), "{shown}");
    assert!(shown.contains("root_loop/src/lib.rs:9 (http::router)"), "{shown}");
}
