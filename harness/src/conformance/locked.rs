//! The versions this build links, read from the workspace's lock file: a reader's version in
//! the report, and the exact versions a reproduction crate pins.

/// The version of the package `name` in the workspace's `Cargo.lock`; `None` where it is not
/// locked.
pub fn locked_version(name: &str) -> Option<&'static str> {
    let lock = include_str!("../../../Cargo.lock");
    let header = format!("name = \"{name}\"\n");
    lock.split("[[package]]")
        .find(|package| package.contains(&header))
        .and_then(|package| package.lines().find_map(|l| l.strip_prefix("version = ")))
        .map(|v| v.trim_matches('"'))
}

#[cfg(test)]
mod tests {
    use super::locked_version;

    #[test]
    fn the_lock_file_names_the_readers_versions() {
        assert_eq!(
            locked_version("datafusion"),
            Some(datafusion::DATAFUSION_VERSION)
        );
        let kernel = locked_version("delta_kernel").expect("delta_kernel is locked");
        assert!(
            kernel.split('.').all(|p| p.parse::<u32>().is_ok()),
            "{kernel}"
        );
        assert_eq!(locked_version("no-such-package"), None);
    }
}
