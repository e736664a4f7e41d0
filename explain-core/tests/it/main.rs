//! Integration tests: the `delta-explain` binary on real Delta tables.

mod diagnoses;
mod errors;
mod features;
mod fixtures_sweep;
mod front_end_bounds;
mod layers;
mod pitfalls;
mod predicates_file;
mod progress;
mod schema;
mod support;
mod taxi;
mod workspace;
