//! Differential tests: explain-core against the oracle on the shared fixtures.

mod fixture_soundness;
mod phase_scans;
mod replay_agreement;
mod scaling;
mod writer_quirks;
