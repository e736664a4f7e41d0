//! Differential tests: explain-core against the oracle on the shared fixtures.

mod advise;
mod binary_partitions;
mod campaign;
mod checkpoint_hints;
mod conformance;
mod diff;
mod doctor;
mod engine_readings;
mod fixture_soundness;
mod histories;
mod one_path;
mod oracle_agreement;
mod oracle_semantics;
mod phase_scans;
mod remote_requests;
mod replay_agreement;
mod schema_history;
mod streaming;
mod tightness;
mod time_functions;
mod two_paths;
mod verify_funnel;
mod writer_quirks;
