//! What every command reads besides its flags of its own: how to reach the table's store, and
//! files of predicates (or standard input).

use explain_core::error::ExplainError;

/// How to reach the table's object store: the flags of every command that opens a table
/// (`delta-explain`, `delta-explain advise`), declared once.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct StoreArgs {
    /// A storage option for the table's object store, KEY=VALUE (repeatable): credentials,
    /// `endpoint`, `profile`, `allow_http`, ... (object_store's names for the store).
    #[arg(long = "storage-option", visible_alias = "option", value_name = "KEY=VALUE", value_parser = storage::StorageOptions::parse_pair)]
    pub storage_options: Vec<(String, String)>,
    /// The S3 region of the table's bucket (over AWS_REGION and the profile's).
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,
    /// Unsigned requests, for public buckets.
    #[arg(long)]
    pub anonymous: bool,
}

impl StoreArgs {
    /// The store's options as the library takes them.
    pub fn options(&self) -> storage::StorageOptions {
        storage::StorageOptions {
            options: self.storage_options.clone(),
            region: self.region.clone(),
            anonymous: self.anonymous,
        }
    }
}

/// The text of a file of predicates or a budget (`-`: standard input, where allowed), with the
/// name its messages give it.
pub fn read_input(path: &std::path::Path, stdin: bool) -> Result<(String, String), ExplainError> {
    let (shown, read) = if stdin && path == std::path::Path::new("-") {
        let mut text = String::new();
        let read = std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map(|_| text);
        ("standard input".to_string(), read)
    } else {
        (path.display().to_string(), std::fs::read_to_string(path))
    };
    let text = read.map_err(|e| ExplainError::Usage(format!("cannot read {shown}: {e}")))?;
    Ok((shown, text))
}
