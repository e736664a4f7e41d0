//! The oracle's own log replay.

pub mod actions;
pub mod checkpoint;
pub mod replay;
pub mod segment;

pub use replay::{LiveFile, Snapshot};
