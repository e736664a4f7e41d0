//! Generators: the cases no fixture covers, deterministic from a seed (same seed, same bytes,
//! same predicates), so every failure replays.
//!
//! - [`spec`]: table specifications as data; [`catalog`]: the named specs;
//! - [`values`], [`stats`], [`writer`]: Parquet files, the JSON log, checkpoints and
//!   statistics under a declared policy, written here without any Delta library;
//! - [`predicates`]: proptest strategies and arbtest entry points over a table's columns;
//! - [`variants`]: metamorphic variants of a predicate.

pub mod catalog;
pub mod compaction;
pub mod deletes;
pub mod history;
pub mod predicates;
pub mod rewrite;
pub mod spec;
pub mod stats;
pub mod values;
pub mod variants;
pub mod writer;
