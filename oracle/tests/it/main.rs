//! Integration tests of the oracle on real Delta tables and on tables written here.

mod cli;
mod rows;
mod support;
