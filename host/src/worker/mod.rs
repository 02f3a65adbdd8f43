//! Compiled programs a server runs without carrying them: program bundles (binaries
//! `canvasc build` made) found in a directory while the server runs, each run in a worker
//! process of its own that the server talks to over pipes. A compiled program so runs without
//! a restart of the server, and one that crashes takes only its own turns down. The worker's
//! own side is the `worker` command of a built binary (`crate::cli::worker`).

pub mod bundles;
pub mod process;
pub mod protocol;
