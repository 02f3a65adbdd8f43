//! canvasc runtime: the front-end every back-end shares, and (with the `exec` feature) the
//! runtime that executes canvases.

pub mod frontend;
