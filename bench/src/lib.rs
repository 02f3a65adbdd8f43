//! What the bench binaries (`src/bin`) share: a `canvasc serve` child process driven over HTTP
//! (`serve_child`) and what `/proc` tells about a server's process tree (`proc_tree`).

pub mod proc_tree;
pub mod serve_child;
