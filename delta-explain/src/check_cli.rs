//! `delta-explain check TABLE -w PREDICATE`: the explainer checked against itself on the
//! table, reading no row ([`explain_core::check`]); the command's arguments and its run.

use clap::ValueEnum;

use explain_compiler::error::ExplainError;
use explain_core::explain_request::ExplainRequest;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
}

/// The arguments of `delta-explain check` (its help is `cli::Command::Check`'s).
#[derive(Clone, Debug, clap::Args)]
pub struct CheckArgs {
    /// The Delta table: a directory path or a URL (file://, s3://, s3a://, az://, abfs[s]://,
    /// gs://), or a catalog's name with --catalog.
    pub table: String,
    /// The predicate to check (a SQL WHERE clause).
    #[arg(short = 'w', long = "where", value_name = "PREDICATE")]
    pub predicate: String,
    /// Check the table as of this version.
    #[arg(long, value_name = "N")]
    pub at_version: Option<u64>,
    /// The instant `current_date()`, `current_timestamp()` and `now()` are bound to.
    #[arg(long, value_name = "TIMESTAMP")]
    pub now: Option<String>,
    /// Check delta_kernel alone (the predicate lowered as written, none of the explainer's
    /// guards, one scan) instead of the explainer.
    #[arg(long)]
    pub kernel: bool,
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    #[command(flatten)]
    pub store: crate::inputs::StoreArgs,
}

/// Runs `check`: the page, and whether every check held.
pub fn run(args: &CheckArgs) -> Result<(String, bool), ExplainError> {
    let request = ExplainRequest::new(&args.table)
        .storage(args.store.options())
        .catalog(args.store.catalog())
        .version(args.at_version)
        .predicate(Some(args.predicate.clone()))
        .options(explain_core::explain_request::Options {
            now: args.now.clone(),
            ..Default::default()
        });
    let subject = if args.kernel {
        explain_core::check::Subject::Kernel
    } else {
        explain_core::check::Subject::Explainer
    };
    let report = explain_core::check::check(&request, subject)?;
    let page = match args.format {
        CheckFormat::Text => crate::render::check_text::to_text(&report),
        CheckFormat::Json => {
            serde_json::to_string_pretty(&report)
                .map_err(|e| ExplainError::Output(e.to_string()))?
                + "\n"
        }
    };
    Ok((page, report.passed))
}
