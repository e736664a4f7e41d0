//! Integration tests: the `delta-explain` binary on real Delta tables.

mod errors;
mod features;
mod fixtures_sweep;
mod support;
mod taxi;
mod workspace;
