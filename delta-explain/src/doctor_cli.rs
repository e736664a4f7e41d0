//! `delta-explain doctor TABLE [-w PREDICATE ...] [--predicates FILE]`: why the table does not
//! skip, from its log alone ([`explain_core::doctor`]); the command's arguments and its run.

use clap::ValueEnum;

use explain_compiler::error::ExplainError;
use explain_core::explain_request::{ExplainRequest, Options};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DoctorFormat {
    Text,
    Json,
    /// One self-contained page: a chart of each column's statistics and the text page.
    Html,
}

/// The arguments of `delta-explain doctor` (its help is `cli::Command::Doctor`'s).
#[derive(Clone, Debug, clap::Args)]
pub struct DoctorArgs {
    /// The Delta table: a directory path or a URL, or a catalog's name with --catalog.
    pub table: String,
    /// A predicate of the workload (repeatable).
    #[arg(short = 'w', long = "where", value_name = "PREDICATE")]
    pub predicates: Vec<String>,
    /// The workload: one predicate per line (blank lines and `#` comments skipped; `-` reads
    /// standard input).
    #[arg(long = "predicates", value_name = "FILE")]
    pub predicates_file: Option<std::path::PathBuf>,
    /// The table as of this version.
    #[arg(long, value_name = "N")]
    pub at_version: Option<u64>,
    /// The instant `current_date()`, `current_timestamp()` and `now()` in the workload are
    /// bound to (`yyyy-mm-dd` or a timestamp, UTC unless it says otherwise); the time of the
    /// run when unset.
    #[arg(long, value_name = "TIMESTAMP")]
    pub now: Option<String>,
    #[arg(long, value_enum, default_value_t = DoctorFormat::Text)]
    pub format: DoctorFormat,
    #[command(flatten)]
    pub store: crate::inputs::StoreArgs,
}

/// Runs `doctor`: the page.
pub fn run(args: &DoctorArgs) -> Result<String, ExplainError> {
    let mut predicates = args.predicates.clone();
    if let Some(path) = &args.predicates_file {
        let (_, text) = crate::inputs::read_input(path, true)?;
        predicates.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_string),
        );
    }
    let request = ExplainRequest::new(&args.table)
        .storage(args.store.options())
        .catalog(args.store.catalog())
        .version(args.at_version)
        .predicates(
            predicates
                .into_iter()
                .map(|p| {
                    (
                        p,
                        Options {
                            now: args.now.clone(),
                            ..Options::default()
                        },
                    )
                })
                .collect(),
        );
    let doctor = explain_core::doctor::doctor(&request)?;
    Ok(match args.format {
        DoctorFormat::Text => crate::render::doctor_text::to_text(&doctor),
        DoctorFormat::Html => crate::render::doctor_html::to_html(
            &doctor,
            &crate::render::doctor_text::to_text(&doctor),
        ),
        DoctorFormat::Json => {
            serde_json::to_string_pretty(&doctor)
                .map_err(|e| ExplainError::Output(e.to_string()))?
                + "\n"
        }
    })
}
