//! What the bench binaries (`src/bin`) share: a `canvasc serve` child process driven over HTTP
//! (`serve_child`), what `/proc` tells about a server's process tree (`proc_tree`), and the
//! corpus templates they run (`templates`).

pub mod proc_tree;
pub mod serve_child;
pub mod templates;
