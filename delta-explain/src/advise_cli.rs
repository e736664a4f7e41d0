//! `delta-explain advise TABLE --predicates FILE [--sample ROWS] [--target-file-size BYTES]`:
//! the command's arguments and its run.

use clap::ValueEnum;

use explain_compiler::error::ExplainError;

/// The default of `--min-saving` (the advisor's own, checked by a test).
pub const MIN_SAVING_PCT: f64 = 10.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AdviseFormat {
    Text,
    Json,
    /// One self-contained page: the ranking and a chart per layout.
    Html,
}

/// The arguments of `delta-explain advise` (its help is `cli::Command::Advise`'s).
#[derive(Clone, Debug, clap::Args)]
pub struct AdviseArgs {
    /// The Delta table: a directory path or a URL (file://, s3://, s3a://, az://, abfs[s]://,
    /// gs://).
    pub table: String,
    /// The workload: one predicate per line (blank lines and `#` comments skipped; `-` reads
    /// standard input).
    #[arg(long, value_name = "FILE")]
    pub predicates: std::path::PathBuf,
    /// Read a uniform sample of about ROWS live rows (counts are scaled back up); every row by
    /// default.
    #[arg(long, value_name = "ROWS")]
    pub sample: Option<u64>,
    /// The size of a simulated file (`134217728`, `128MiB`, `1GB`); by default the table's mean
    /// file size, so every layout has about as many files as the table.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub target_file_size: Option<u64>,
    /// The seed of the sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Recommend a layout only if it saves the workload at least PCT percent of the bytes it
    /// reads now (a rewrite of the table costs more than a few percent).
    #[arg(long, value_name = "PCT", default_value_t = MIN_SAVING_PCT, value_parser = parse_saving)]
    pub min_saving: f64,
    /// Show the best N layouts in the text and HTML pages (the JSON has every one).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub top: usize,
    /// Advise on the table as of this version.
    #[arg(long, value_name = "N")]
    pub at_version: Option<u64>,
    #[arg(long, value_enum, default_value_t = AdviseFormat::Text)]
    pub format: AdviseFormat,
    #[command(flatten)]
    pub store: crate::inputs::StoreArgs,
}

/// `128MiB`, `1GB`, `4096`: bytes (binary units with `i`, decimal without).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size (say 134217728, 128MiB or 1GB)"))?;
    let factor: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" | "k" => 1e3,
        "mb" | "m" => 1e6,
        "gb" | "g" => 1e9,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        other => {
            return Err(format!(
                "`{other}` is not a unit of size (B, KB, MB, GB, KiB, MiB, GiB)"
            ));
        }
    };
    let bytes = number * factor;
    if !(1.0..=1e15).contains(&bytes) {
        return Err(format!("`{text}` is not a file size (1 byte to 1 PB)"));
    }
    Ok(bytes.round() as u64)
}

fn parse_saving(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.0..=100.0).contains(&v) => Ok(v),
        _ => Err(format!("`{text}` is not a percentage from 0 to 100")),
    }
}

/// Runs `advise`: without the `verify` feature there is no advisor (it reads rows with
/// DataFusion).
#[cfg(not(feature = "verify"))]
pub fn run(_args: &AdviseArgs) -> Result<String, ExplainError> {
    Err(ExplainError::Usage(
        "advise reads the rows with DataFusion, which this build leaves out (built without the `verify` feature)".into(),
    ))
}

/// Runs `advise`: the page on success.
#[cfg(feature = "verify")]
pub fn run(args: &AdviseArgs) -> Result<String, ExplainError> {
    use crate::render::{advice_html, advice_text};
    use explain_advise::{AdviseRequest, advise};
    let (shown, text) = crate::inputs::read_input(&args.predicates, true)?;
    let predicates: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    if predicates.is_empty() {
        return Err(ExplainError::Usage(format!(
            "{shown} holds no predicate (one per line)"
        )));
    }
    if args.sample == Some(0) {
        return Err(ExplainError::Usage(
            "--sample must be at least 1 row".into(),
        ));
    }
    let request = AdviseRequest {
        location: args.table.clone(),
        storage: args.store.options(),
        catalog: args.store.catalog(),
        version: args.at_version,
        predicates,
        sample: args.sample,
        target_file_size: args.target_file_size,
        seed: args.seed,
        workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
        min_saving_pct: args.min_saving,
    };
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let progress = |step: &str| {
        if terminal {
            eprintln!("advise: {step}");
        }
    };
    let advice = advise(&request, &progress)?;
    Ok(match args.format {
        AdviseFormat::Text => advice_text::to_text(&advice, args.top),
        AdviseFormat::Html => {
            advice_html::to_html(&advice, &advice_text::to_text(&advice, args.top), args.top)
        }
        AdviseFormat::Json => {
            serde_json::to_string_pretty(&advice)
                .map_err(|e| ExplainError::Output(e.to_string()))?
                + "\n"
        }
    })
}

#[cfg(test)]
mod tests {
    use super::parse_bytes;

    #[cfg(feature = "verify")]
    #[test]
    fn the_default_saving_is_the_advisors() {
        assert_eq!(super::MIN_SAVING_PCT, explain_advise::MIN_SAVING_PCT);
    }

    #[test]
    fn sizes_parse_with_their_units() {
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("128MiB"), Ok(128 << 20));
        assert_eq!(parse_bytes("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_bytes("1.5 KiB"), Ok(1536));
        assert!(parse_bytes("MB").is_err());
        assert!(parse_bytes("12 parsecs").is_err());
        assert!(parse_bytes("0").is_err());
    }
}
