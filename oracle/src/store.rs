//! The table's files, wherever they live: every read of the oracle (log listing, commits,
//! checkpoints, deletion vectors, data files) goes through one object store opened by the
//! `storage` crate, so a local directory, `s3://`, `az://` and `gs://` tables read the same way.
//! The oracle's own threads call in synchronously; one I/O runtime per table serves them.

use std::path::PathBuf;
use std::sync::Arc;

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::{FutureExt, TryFutureExt};
use object_store::path::Path as StorePath;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt};
use parquet::arrow::arrow_reader::ArrowReaderOptions;
use parquet::arrow::async_reader::{AsyncFileReader, MetadataSuffixFetch};
use parquet::errors::ParquetError;
use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader};
use storage::{StorageOptions, TableStore};

use crate::error::OracleError;

/// One table's store, the runtime its requests run on, and how to name its files in messages.
pub struct TableFiles {
    table: TableStore,
    runtime: tokio::runtime::Runtime,
    /// The table's directory, for a local table: messages then show file-system paths.
    local_root: Option<PathBuf>,
}

impl std::fmt::Debug for TableFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableFiles")
            .field("url", &self.table.url.as_str())
            .finish()
    }
}

impl TableFiles {
    /// Opens the store of the table at `location` (a directory or a URL).
    pub fn open(location: &str, options: &StorageOptions) -> Result<Arc<Self>, OracleError> {
        let table = storage::open(location, options).map_err(|e| storage_error(location, e))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("oracle-io")
            .enable_all()
            .build()
            .map_err(|e| OracleError::Table {
                table: location.into(),
                reason: format!("cannot start an I/O runtime: {e}"),
            })?;
        let local_root = table.url.to_file_path().ok();
        if local_root.is_none() {
            storage::check_log(&table).map_err(|e| storage_error(location, e))?;
        }
        Ok(Arc::new(TableFiles {
            table,
            runtime,
            local_root,
        }))
    }

    /// The table's URL, ending in `/`.
    pub fn url(&self) -> &url::Url {
        &self.table.url
    }

    /// A Parquet reader of the object at `path`: ranged reads, the footer by a suffix request
    /// (the object's own size, not the log's, decides where it is).
    pub fn parquet(&self, path: StorePath) -> StoreParquetReader {
        StoreParquetReader {
            store: self.table.store.clone(),
            path,
        }
    }

    /// Runs `future` to completion on the table's I/O runtime (callable from any thread).
    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    /// The path of a log file by name (`00000000000000000003.json`, `_sidecars/x.parquet`).
    pub fn log_file(&self, name: &str) -> StorePath {
        self.table.path(&format!("_delta_log/{name}"))
    }

    /// The path of a file the log names (URL-encoded relative path or absolute URL).
    pub fn resolve(&self, log_path: &str) -> Result<StorePath, OracleError> {
        self.table
            .resolve(log_path)
            .map_err(|e| OracleError::file(log_path, e))
    }

    /// The path of `relative` (plain, `/`-separated) under the table root.
    pub fn under_root(&self, relative: &str) -> StorePath {
        self.table.path(relative)
    }

    /// How `path` is named in messages: a file-system path for a local table, else its URL.
    pub fn shown(&self, path: &StorePath) -> String {
        match &self.local_root {
            Some(_) => format!("/{path}"),
            None => format!(
                "{}://{}/{path}",
                self.table.url.scheme(),
                self.table.url.authority()
            ),
        }
    }

    /// The names of the log directory's entries (one listing).
    pub fn list_log(&self) -> Result<Vec<String>, OracleError> {
        use futures::TryStreamExt;
        let dir = self.table.log_dir();
        let entries: Vec<_> = self
            .block_on(self.table.store.list(Some(&dir)).try_collect::<Vec<_>>())
            .map_err(|e| {
                OracleError::file(
                    self.shown(&dir),
                    format!("cannot list the log: {}", storage::describe(&e)),
                )
            })?;
        let prefix: Vec<_> = dir.parts().collect();
        Ok(entries
            .into_iter()
            .filter_map(|meta| {
                let parts: Vec<_> = meta.location.parts().collect();
                let rest = parts.get(prefix.len()..)?;
                // Direct entries only (sidecars and other folders are read by name).
                (rest.len() == 1).then(|| rest[0].as_ref().to_string())
            })
            .collect())
    }

    /// The whole content of `path`.
    pub fn read(&self, path: &StorePath) -> Result<Bytes, OracleError> {
        self.block_on(async { self.table.store.get(path).await?.bytes().await })
            .map_err(|e| OracleError::file(self.shown(path), storage::describe(&e)))
    }

    /// The content of `path`, or `None` when there is no such object.
    pub fn read_if_present(&self, path: &StorePath) -> Result<Option<Bytes>, OracleError> {
        match self.block_on(async { self.table.store.get(path).await?.bytes().await }) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(OracleError::file(self.shown(path), storage::describe(&e))),
        }
    }
}

/// Reads a Parquet file of the table's store for arrow's async Parquet reader.
#[derive(Clone)]
pub struct StoreParquetReader {
    store: Arc<dyn ObjectStore>,
    path: StorePath,
}

fn parquet_error(e: object_store::Error) -> ParquetError {
    ParquetError::External(Box::new(e))
}

impl AsyncFileReader for StoreParquetReader {
    fn get_bytes(
        &mut self,
        range: std::ops::Range<u64>,
    ) -> BoxFuture<'_, parquet::errors::Result<Bytes>> {
        self.store
            .get_range(&self.path, range)
            .map_err(parquet_error)
            .boxed()
    }

    fn get_byte_ranges(
        &mut self,
        ranges: Vec<std::ops::Range<u64>>,
    ) -> BoxFuture<'_, parquet::errors::Result<Vec<Bytes>>> {
        async move {
            self.store
                .get_ranges(&self.path, &ranges)
                .await
                .map_err(parquet_error)
        }
        .boxed()
    }

    fn get_metadata<'a>(
        &'a mut self,
        options: Option<&'a ArrowReaderOptions>,
    ) -> BoxFuture<'a, parquet::errors::Result<Arc<ParquetMetaData>>> {
        async move {
            let metadata = ParquetMetaDataReader::new()
                .with_arrow_reader_options(options)
                .load_via_suffix_and_finish(self)
                .await?;
            Ok(Arc::new(metadata))
        }
        .boxed()
    }
}

impl MetadataSuffixFetch for &mut StoreParquetReader {
    fn fetch_suffix(&mut self, suffix: usize) -> BoxFuture<'_, parquet::errors::Result<Bytes>> {
        let options = GetOptions {
            range: Some(GetRange::Suffix(suffix as u64)),
            ..Default::default()
        };
        async move {
            let got = self
                .store
                .get_opts(&self.path, options)
                .await
                .map_err(parquet_error)?;
            got.bytes().await.map_err(parquet_error)
        }
        .boxed()
    }
}

/// A storage error as the oracle reports it: bad options are bad input (exit 2), anything
/// else is the table's (exit 3).
fn storage_error(location: &str, e: storage::StorageError) -> OracleError {
    match e.exit_code() {
        2 => OracleError::Usage(e.to_string()),
        _ => OracleError::Table {
            table: location.into(),
            reason: match e {
                storage::StorageError::NoTable { reason, .. } => reason,
                other => other.to_string(),
            },
        },
    }
}
