//! Helpers the CLI test binaries share.

use std::path::Path;

/// A file under the repository's `fixtures/`, as a path argument for the binary.
pub fn fixture(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(rel)
        .to_string_lossy()
        .into_owned()
}
