//! Generated tables against both readers, their statistics against their data, determinism,
//! and predicates both front ends accept.

mod determinism;
mod predicates;
mod tables;
