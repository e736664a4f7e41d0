//! What a command-line tool is expected to offer: help with examples, a version naming the
//! commit, shell completions and a man page generated from the same definition as the flags.

use crate::support::run;

#[test]
fn help_version_completions_and_man_page() {
    let help = run(&["--help"]);
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("Examples:"), "{}", help.stdout);
    assert!(help.stdout.contains("--storage-option"), "{}", help.stdout);
    assert!(help.stdout.contains("Exit codes: 0 ok, 1 a gate failed"));
    // `advise` is a command of the same definition: the help, the completions and the man
    // page name it.
    assert!(help.stdout.contains("advise  Simulates"), "{}", help.stdout);

    let version = run(&["--version"]);
    assert_eq!(version.code, 0);
    let line = version.stdout.trim();
    assert!(line.starts_with("delta-explain 0."), "{line}");
    let commit = line
        .split("(commit ")
        .nth(1)
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("a commit in {line}"));
    assert!(
        commit == "unknown" || commit.chars().all(|c| c.is_ascii_hexdigit()),
        "{commit}"
    );

    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run(&["--completions", shell]);
        assert_eq!(out.code, 0, "{shell}: {}", out.stderr);
        assert!(out.stdout.contains("where"), "{shell} completes --where");
        assert!(
            out.stdout.contains("min-files"),
            "{shell} completes --min-files"
        );
        assert!(
            out.stdout.contains("target-file-size"),
            "{shell} completes advise's --target-file-size"
        );
    }
    let man = run(&["--man"]);
    assert_eq!(man.code, 0);
    assert!(
        man.stdout.contains(".TH delta-explain 1"),
        "{}",
        &man.stdout[..200]
    );
    assert!(
        man.stdout.contains("min\\-pruning"),
        "the man page lists the gates"
    );
    assert!(
        man.stdout.contains("advise"),
        "the man page lists the advise command"
    );

    // Alone, or not at all; and without them a table is required.
    testkit::assert_error(
        &run(&["--man", "../t"]),
        "--man with a table",
        2,
        "cannot be used with",
    );
    testkit::assert_error(
        &run(&[]),
        "no table",
        2,
        "the following required arguments were not provided: <TABLE>",
    );
}
