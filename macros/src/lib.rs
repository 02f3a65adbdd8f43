//! canvas! macro.
