//! The `delta-explain` command: its arguments, the runs they ask for, and the pages people read.
//! The work is the libraries' (explain-compiler, explain-core, explain-advise); this crate
//! parses, renders, gates and reports progress.

pub mod advise_cli;
pub mod budget;
pub mod check_cli;
pub mod cli;
pub mod diff_cli;
pub mod doctor_cli;
pub mod inputs;
pub mod progress;
pub mod render;
