use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use delta_explain::cli::{Args, Command, run};

/// The one line of a clap error: its message and tip, without its prefix, usage block or
/// pointer to --help.
fn clap_line(e: &clap::Error) -> String {
    let rendered = e.to_string();
    let message: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:"))
        .filter(|l| !l.is_empty())
        .collect();
    let mut line = String::new();
    for part in message {
        if !line.is_empty() {
            line.push_str(if line.ends_with(':') { " " } else { "; " });
        }
        line.push_str(part);
    }
    line.trim_start_matches("error: ").to_string()
}

/// Parsed arguments, or the exit code after `--help` or `--version` was printed (0) or a bad
/// argument was said on one line after `prefix` (2).
fn parsed<T>(result: Result<T, clap::Error>, prefix: &str) -> Result<T, ExitCode> {
    match result {
        Ok(args) => Ok(args),
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            let _ = e.print();
            Err(ExitCode::SUCCESS)
        }
        Err(e) => {
            // One line: clap's message and its tip (`tip: a similar argument exists: '--where'`).
            eprintln!("{prefix}: {}", clap_line(&e));
            Err(ExitCode::from(2))
        }
    }
}

/// `delta-explain advise`.
fn advise(args: delta_explain::advise_cli::AdviseArgs) -> ExitCode {
    subcommand("delta-explain advise", move || {
        delta_explain::advise_cli::run(&args).map(|page| (page, true))
    })
}

/// `delta-explain check`: exit 1 where a check failed.
fn check(args: delta_explain::check_cli::CheckArgs) -> ExitCode {
    subcommand("delta-explain check", move || {
        delta_explain::check_cli::run(&args)
    })
}

/// `delta-explain diff`: exit 1 where skipping got worse under --fail-if-worse.
fn diff(args: delta_explain::diff_cli::DiffArgs) -> ExitCode {
    subcommand("delta-explain diff", move || {
        delta_explain::diff_cli::run(&args)
    })
}

/// `delta-explain doctor`.
fn doctor(args: delta_explain::doctor_cli::DoctorArgs) -> ExitCode {
    subcommand("delta-explain doctor", move || {
        delta_explain::doctor_cli::run(&args).map(|page| (page, true))
    })
}

/// A subcommand run on a thread with the deep stack: its page on standard output, exit 0
/// where it holds, 1 where not (a failed check), else the error's code, said in one line.
fn subcommand(
    name: &str,
    run: impl FnOnce() -> Result<(String, bool), explain_compiler::error::ExplainError> + Send + 'static,
) -> ExitCode {
    let worker = std::thread::Builder::new()
        .stack_size(explain_core::DEEP_STACK)
        .spawn(run);
    match worker.map(|h| h.join()) {
        Ok(Ok(Ok((page, holds)))) => {
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = stdout
                .write_all(page.as_bytes())
                .and_then(|_| stdout.flush())
                && e.kind() != std::io::ErrorKind::BrokenPipe
            {
                eprintln!("{name}: cannot write the report: {e}");
                return ExitCode::from(3);
            }
            if holds {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Ok(Ok(Err(e))) => {
            eprintln!("{name}: {e}");
            ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(3))
        }
        Ok(Err(_)) | Err(_) => ExitCode::from(3),
    }
}

fn main() -> ExitCode {
    // A panic is a bug; even then the user gets one line, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        eprintln!("delta-explain: internal error: {msg}");
    }));
    // A bad argument of `delta-explain advise` is told as that command's.
    let prefix = match std::env::args_os().nth(1) {
        Some(a) if a == "advise" => "delta-explain advise",
        Some(a) if a == "check" => "delta-explain check",
        Some(a) if a == "diff" => "delta-explain diff",
        Some(a) if a == "doctor" => "delta-explain doctor",
        _ => "delta-explain",
    };
    let mut args = match parsed(Args::try_parse(), prefix) {
        Ok(args) => args,
        Err(code) => return code,
    };
    match args.command.take() {
        Some(Command::Advise(advise_args)) => return advise(advise_args),
        Some(Command::Check(check_args)) => return check(check_args),
        Some(Command::Diff(diff_args)) => return diff(diff_args),
        Some(Command::Doctor(doctor_args)) => return doctor(doctor_args),
        None => {}
    }
    if let Some(text) = delta_explain::cli::generated_docs(&args) {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(&text).and_then(|_| stdout.flush());
        return ExitCode::SUCCESS;
    }
    // Retries after transient store failures are counted, and told under --verbose.
    let retries = storage::retries::count_retries();
    let verbose = args.verbose;
    let worker = std::thread::Builder::new()
        .stack_size(explain_core::DEEP_STACK)
        .spawn(move || run(&args))
        .map_err(|_| ());
    let outcome = match worker {
        Ok(handle) => handle.join().map_err(|_| ()),
        Err(()) => Err(()),
    };
    match outcome {
        Ok(Ok(outcome)) => {
            let mut stdout = std::io::stdout().lock();
            // A reader that closed the pipe early (`| head`) is not an error of ours.
            if let Err(e) = stdout
                .write_all(outcome.stdout.as_bytes())
                .and_then(|_| stdout.flush())
                && e.kind() != std::io::ErrorKind::BrokenPipe
            {
                eprintln!("delta-explain: cannot write the report: {e}");
                return ExitCode::from(3);
            }
            for warning in &outcome.warnings {
                eprintln!("delta-explain: warning: {warning}");
            }
            if !outcome.stderr.is_empty() {
                eprintln!("delta-explain: {}", outcome.stderr);
            }
            let retried = retries.map_or(0, |r| r.load(std::sync::atomic::Ordering::Relaxed));
            if verbose && retried > 0 {
                eprintln!(
                    "delta-explain: the store answered {retried} request(s) only when asked again (transient failures, retried)"
                );
            }
            ExitCode::from(u8::try_from(outcome.exit_code).unwrap_or(1))
        }
        Ok(Err(e)) => {
            eprintln!("delta-explain: {e}");
            ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(3))
        }
        Err(()) => ExitCode::from(3),
    }
}
