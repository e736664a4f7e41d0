//! What every command reads besides its flags of its own: how to reach the table's store, and
//! files of predicates (or standard input).

use explain_compiler::error::ExplainError;

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
    /// Read TABLE as a name in this catalog: `unity` resolves `catalog.schema.table` through
    /// Unity Catalog's REST API (DATABRICKS_HOST and DATABRICKS_TOKEN, or a profile of
    /// ~/.databrickscfg) and reads it with the credentials the catalog vends.
    #[arg(long, value_enum, value_name = "CATALOG")]
    pub catalog: Option<Catalog>,
    /// The catalog's endpoint (over DATABRICKS_HOST and the profile's `host`).
    #[arg(long, value_name = "URL", requires = "catalog")]
    pub catalog_url: Option<String>,
    /// The profile of ~/.databrickscfg to read the endpoint and token from (over
    /// DATABRICKS_CONFIG_PROFILE; DEFAULT otherwise).
    #[arg(long, value_name = "NAME", requires = "catalog")]
    pub catalog_profile: Option<String>,
    /// Ask the catalog for new credentials this many seconds before the vended ones expire
    /// (60 by default).
    #[arg(long, value_name = "SECONDS", requires = "catalog")]
    pub catalog_refresh_before: Option<u64>,
}

/// The catalogs a table can be named in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Catalog {
    /// Unity Catalog (Databricks, or the open-source server).
    Unity,
}

impl StoreArgs {
    /// The store's options as the library takes them.
    pub fn options(&self) -> storage::StorageOptions {
        storage::StorageOptions {
            options: self.storage_options.clone(),
            region: self.region.clone(),
            anonymous: self.anonymous,
            vended: None,
        }
    }

    /// The catalog TABLE is named in, as the library takes it (the library resolves the name
    /// and vends the credentials).
    pub fn catalog(&self) -> Option<storage::Catalog> {
        let Catalog::Unity = self.catalog?;
        Some(storage::Catalog::Unity(storage::unity::CatalogOptions {
            host: self.catalog_url.clone(),
            profile: self.catalog_profile.clone(),
            refresh_before: self
                .catalog_refresh_before
                .map(std::time::Duration::from_secs),
        }))
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
