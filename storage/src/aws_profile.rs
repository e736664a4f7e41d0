//! AWS shared configuration files: the static credentials, region and endpoint of a profile,
//! read from `~/.aws/credentials` and `~/.aws/config` (or `AWS_SHARED_CREDENTIALS_FILE` and
//! `AWS_CONFIG_FILE`), as the AWS CLI and SDKs read them. Profiles that obtain credentials by
//! running something (SSO, `credential_process`, an assumed role) are refused with the command
//! that exports their credentials: this tool runs no credential helpers.

use std::path::PathBuf;

use ini::{Ini, ParseOption};
use object_store::aws::AmazonS3ConfigKey;

use crate::StorageError;

/// The settings of `profile` (else `default`), as object_store configuration. Credentials are
/// included only when `with_keys` (the environment does not already hold keys). A profile named
/// explicitly must exist; the default profile may be absent.
pub fn settings(
    profile: Option<&str>,
    with_keys: bool,
) -> Result<Vec<(AmazonS3ConfigKey, String)>, StorageError> {
    settings_from(&credentials_file(), &config_file(), profile, with_keys)
}

/// [`settings`] from the given files.
fn settings_from(
    credentials_path: &std::path::Path,
    config_path: &std::path::Path,
    profile: Option<&str>,
    with_keys: bool,
) -> Result<Vec<(AmazonS3ConfigKey, String)>, StorageError> {
    let name = profile.unwrap_or("default");
    let credentials = read(credentials_path)?;
    let config = read(config_path)?;
    let in_credentials = credentials.as_ref().and_then(|i| i.section(Some(name)));
    let config_section = if name == "default" {
        "default".to_string()
    } else {
        format!("profile {name}")
    };
    let in_config = config
        .as_ref()
        .and_then(|i| i.section(Some(config_section.as_str())));
    if in_credentials.is_none() && in_config.is_none() {
        return match profile {
            Some(p) => Err(StorageError::BadOption(format!(
                "AWS profile '{p}' not found in {} or {}",
                credentials_path.display(),
                config_path.display()
            ))),
            None => Ok(Vec::new()),
        };
    }
    let get = |key: &str| {
        in_credentials
            .and_then(|s| s.get(key))
            .or_else(|| in_config.and_then(|s| s.get(key)))
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    let mut out = Vec::new();
    if let Some(region) = get("region") {
        out.push((AmazonS3ConfigKey::Region, region.to_string()));
    }
    if let Some(endpoint) = get("endpoint_url") {
        out.push((AmazonS3ConfigKey::Endpoint, endpoint.to_string()));
    }
    if with_keys {
        match (get("aws_access_key_id"), get("aws_secret_access_key")) {
            (Some(id), Some(secret)) => {
                out.push((AmazonS3ConfigKey::AccessKeyId, id.to_string()));
                out.push((AmazonS3ConfigKey::SecretAccessKey, secret.to_string()));
                if let Some(token) = get("aws_session_token") {
                    out.push((AmazonS3ConfigKey::Token, token.to_string()));
                }
            }
            _ => {
                let helper = [
                    "sso_session",
                    "sso_start_url",
                    "credential_process",
                    "role_arn",
                ]
                .into_iter()
                .find(|k| get(k).is_some());
                if let Some(helper) = helper {
                    return Err(StorageError::BadOption(format!(
                        "AWS profile '{name}' gets its credentials through {helper}, which this tool does not run; export them first: eval \"$(aws configure export-credentials --profile {name} --format env)\""
                    )));
                }
            }
        }
    }
    Ok(out)
}

fn home() -> PathBuf {
    std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from)
}

fn credentials_file() -> PathBuf {
    std::env::var_os("AWS_SHARED_CREDENTIALS_FILE")
        .map_or_else(|| home().join(".aws/credentials"), PathBuf::from)
}

fn config_file() -> PathBuf {
    std::env::var_os("AWS_CONFIG_FILE").map_or_else(|| home().join(".aws/config"), PathBuf::from)
}

/// The file, parsed; `None` when it does not exist.
fn read(path: &std::path::Path) -> Result<Option<Ini>, StorageError> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(None);
    };
    let options = ParseOption {
        enabled_quote: false,
        enabled_escape: false,
        enabled_indented_mutiline_value: false,
        // Nested settings (`s3 =` then indented keys) keep their indent, so an indented
        // `endpoint_url` of another service is not taken for the profile's own.
        enabled_preserve_key_leading_whitespace: true,
    };
    Ini::load_from_str_opt(&text, options)
        .map(Some)
        .map_err(|e| {
            StorageError::BadOption(format!(
                "{}: not an AWS configuration file (line {})",
                path.display(),
                e.line
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(credentials: &str, config: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let (c, f) = (dir.path().join("credentials"), dir.path().join("config"));
        std::fs::write(&c, credentials).unwrap();
        std::fs::write(&f, config).unwrap();
        (dir, c, f)
    }

    fn keys(settings: &[(AmazonS3ConfigKey, String)]) -> Vec<(String, &str)> {
        settings
            .iter()
            .map(|(k, v)| (format!("{k:?}"), v.as_str()))
            .collect()
    }

    #[test]
    fn a_named_profile_gives_its_keys_region_and_endpoint() {
        let (_d, c, f) = files(
            "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n\n[dev]\naws_access_key_id = AK\naws_secret_access_key = SK\naws_session_token = T\n",
            "[profile dev]\nregion = eu-west-3\nendpoint_url = http://127.0.0.1:9000\ns3 =\n  endpoint_url = http://elsewhere\n",
        );
        let got = settings_from(&c, &f, Some("dev"), true).unwrap();
        assert_eq!(
            keys(&got),
            vec![
                ("Region".into(), "eu-west-3"),
                ("Endpoint".into(), "http://127.0.0.1:9000"),
                ("AccessKeyId".into(), "AK"),
                ("SecretAccessKey".into(), "SK"),
                ("Token".into(), "T"),
            ]
        );
        // Keys in the environment win: the profile then gives only region and endpoint.
        assert_eq!(settings_from(&c, &f, Some("dev"), false).unwrap().len(), 2);
        // Without a name, the default profile.
        assert_eq!(
            keys(&settings_from(&c, &f, None, true).unwrap()),
            vec![
                ("AccessKeyId".into(), "D"),
                ("SecretAccessKey".into(), "DS")
            ]
        );
    }

    #[test]
    fn a_missing_profile_is_refused_only_when_named() {
        let (_d, c, f) = files("", "");
        assert!(settings_from(&c, &f, None, true).unwrap().is_empty());
        let e = settings_from(&c, &f, Some("nope"), true).unwrap_err();
        assert!(
            e.to_string().contains("AWS profile 'nope' not found"),
            "{e}"
        );
        let none = std::path::Path::new("/no/such/file");
        assert!(settings_from(none, none, None, true).unwrap().is_empty());
    }

    #[test]
    fn a_profile_that_runs_a_helper_says_how_to_export_its_credentials() {
        let (_d, c, f) = files(
            "",
            "[profile sso]\nsso_session = corp\nregion = us-east-2\n",
        );
        let e = settings_from(&c, &f, Some("sso"), true).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string()
                .contains("aws configure export-credentials --profile sso"),
            "{e}"
        );
    }
}
