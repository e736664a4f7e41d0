//! Integration tests: the `delta-explain` binary on real Delta tables.

mod action;
mod advise;
mod budget;
mod conventions;
mod damaged_logs;
mod diagnoses;
mod errors;
mod features;
mod fixtures_sweep;
mod front_end_bounds;
mod fuzz;
mod html_page;
mod layers;
mod peer_contract;
mod peer_validation;
mod pinned;
mod pitfalls;
mod predicates_file;
mod progress;
mod remote;
mod schema;
mod support;
mod taxi;
mod verify;
mod workspace;
