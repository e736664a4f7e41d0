//! Differential tests: explain-core against the oracle on the shared fixtures.

mod fixture_soundness;
mod replay_agreement;
mod phase_scans;
mod scaling;
