//! Differential tests: explain-core against the oracle on the shared fixtures.

mod replay_agreement;
