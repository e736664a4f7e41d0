//! `delta-explain diff TABLE --from-version A [--to-version B] -w PREDICATE`: one predicate
//! explained at two versions (or on two tables, `--to-table`) side by side
//! ([`explain_core::diff`]); the command's arguments and its run.

use clap::ValueEnum;

use explain_compiler::error::ExplainError;
use explain_core::explain_request::{ExplainRequest, Options};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    Text,
    Json,
    /// One self-contained page: the files and bytes each phase keeps, before and after, and
    /// the text page.
    Html,
}

/// The arguments of `delta-explain diff` (its help is `cli::Command::Diff`'s).
#[derive(Clone, Debug, clap::Args)]
pub struct DiffArgs {
    /// The Delta table: a directory path or a URL, or a catalog's name with --catalog.
    pub table: String,
    /// The predicate explained on both sides (a SQL WHERE clause).
    #[arg(short = 'w', long = "where", value_name = "PREDICATE")]
    pub predicate: String,
    /// The version before (the table's latest when absent).
    #[arg(long, value_name = "N")]
    pub from_version: Option<u64>,
    /// The version after (the latest when absent).
    #[arg(long, value_name = "N")]
    pub to_version: Option<u64>,
    /// Compare with another table (a copy rewritten another way) rather than another version.
    #[arg(long, value_name = "TABLE")]
    pub to_table: Option<String>,
    /// Explain both sides with --strict.
    #[arg(long)]
    pub strict: bool,
    /// Exit 1 when the share of bytes pruned fell by more than --tolerance points.
    #[arg(long)]
    pub fail_if_worse: bool,
    /// How many points of percent of the bytes pruned may be lost before skipping counts as
    /// worse.
    #[arg(long, value_name = "PCT", default_value_t = 0.0)]
    pub tolerance: f64,
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    #[command(flatten)]
    pub store: crate::inputs::StoreArgs,
}

/// Runs `diff`: the page, and whether the gate (if asked) holds.
pub fn run(args: &DiffArgs) -> Result<(String, bool), ExplainError> {
    if args.from_version.is_none() && args.to_version.is_none() && args.to_table.is_none() {
        return Err(ExplainError::Usage(
            "diff needs two sides: --from-version, --to-version or --to-table".into(),
        ));
    }
    let side = |table: &str, version: Option<u64>| {
        ExplainRequest::new(table)
            .storage(args.store.options())
            .catalog(args.store.catalog())
            .version(version)
            .predicate(Some(args.predicate.clone()))
            .options(Options {
                strict: args.strict,
                ..Options::default()
            })
    };
    let from = side(&args.table, args.from_version);
    let to = side(
        args.to_table.as_deref().unwrap_or(&args.table),
        args.to_version,
    );
    let diff = explain_core::diff::diff(&from, &to, args.tolerance)?;
    let page = match args.format {
        DiffFormat::Text => crate::render::diff_text::to_text(&diff),
        DiffFormat::Html => {
            crate::render::diff_html::to_html(&diff, &crate::render::diff_text::to_text(&diff))
        }
        DiffFormat::Json => {
            serde_json::to_string_pretty(&diff).map_err(|e| ExplainError::Output(e.to_string()))?
                + "\n"
        }
    };
    Ok((page, !(args.fail_if_worse && diff.worse)))
}
