//! Integration tests of the oracle on real Delta tables and on tables written here.

mod ballista;
mod cli;
mod column_mapping;
mod damaged_logs;
mod engines;
mod fuzz;
mod literals;
mod remote;
mod rows;
mod support;
mod v2_checkpoint;
