//! A table's store that holds no `_delta_log/_last_checkpoint`: the protocol calls that file a
//! hint, and a reader that finds it naming a checkpoint the log does not hold (a crashed or
//! cleaned-up writer) reads the log by listing instead. Every other object, and every write,
//! passes through unchanged; the hint reads as not found.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures::stream::BoxStream;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions, Result,
};

use crate::TableStore;

/// `table`'s store without the checkpoint hint of its log.
pub fn without_checkpoint_hint(table: &TableStore) -> Arc<dyn ObjectStore> {
    Arc::new(Hintless {
        inner: Arc::clone(&table.store),
        hint: table.path("_delta_log/_last_checkpoint"),
    })
}

#[derive(Debug)]
struct Hintless {
    inner: Arc<dyn ObjectStore>,
    hint: Path,
}

impl Hintless {
    fn hidden(&self, location: &Path) -> Option<object_store::Error> {
        (location == &self.hint).then(|| object_store::Error::NotFound {
            path: location.to_string(),
            source: "the checkpoint hint names a checkpoint the log does not hold".into(),
        })
    }
}

impl fmt::Display for Hintless {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (without the checkpoint hint)", self.inner)
    }
}

#[async_trait]
#[deny(clippy::missing_trait_methods)]
impl ObjectStore for Hintless {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        match self.hidden(location) {
            Some(e) => Err(e),
            None => self.inner.get_opts(location, options).await,
        }
    }

    async fn get_ranges(&self, location: &Path, ranges: &[Range<u64>]) -> Result<Vec<Bytes>> {
        match self.hidden(location) {
            Some(e) => Err(e),
            None => self.inner.get_ranges(location, ranges).await,
        }
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        let hint = self.hint.clone();
        Box::pin(futures::StreamExt::filter(
            self.inner.list(prefix),
            move |m| std::future::ready(m.as_ref().map_or(true, |m| m.location != hint)),
        ))
    }

    fn list_with_offset(
        &self,
        prefix: Option<&Path>,
        offset: &Path,
    ) -> BoxStream<'static, Result<ObjectMeta>> {
        let hint = self.hint.clone();
        Box::pin(futures::StreamExt::filter(
            self.inner.list_with_offset(prefix, offset),
            move |m| std::future::ready(m.as_ref().map_or(true, |m| m.location != hint)),
        ))
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        let mut listed = self.inner.list_with_delimiter(prefix).await?;
        listed.objects.retain(|m| m.location != self.hint);
        Ok(listed)
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await
    }

    async fn rename_opts(&self, from: &Path, to: &Path, options: RenameOptions) -> Result<()> {
        self.inner.rename_opts(from, to, options).await
    }
}

#[cfg(test)]
mod tests {
    use object_store::ObjectStoreExt;

    use super::*;

    #[test]
    fn the_hint_reads_as_not_found_and_the_rest_as_written() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(hint_reads_as_not_found());
    }

    async fn hint_reads_as_not_found() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("_delta_log");
        std::fs::create_dir_all(&log).unwrap();
        std::fs::write(log.join("_last_checkpoint"), br#"{"version":9,"size":1}"#).unwrap();
        std::fs::write(log.join("00000000000000000000.json"), b"{}\n").unwrap();
        let table = crate::open(&dir.path().to_string_lossy(), &Default::default()).unwrap();
        let store = without_checkpoint_hint(&table);
        let hint = table.path("_delta_log/_last_checkpoint");
        assert!(matches!(
            store.get(&hint).await,
            Err(object_store::Error::NotFound { .. })
        ));
        assert!(
            table.store.get(&hint).await.is_ok(),
            "the table is unchanged"
        );
        let commit = table.path("_delta_log/00000000000000000000.json");
        let bytes = store.get(&commit).await.unwrap().bytes().await.unwrap();
        assert_eq!(&bytes[..], b"{}\n");
        let log_dir = table.log_dir();
        let listed: Vec<ObjectMeta> =
            futures::TryStreamExt::try_collect(store.list(Some(&log_dir)))
                .await
                .unwrap();
        assert_eq!(listed.len(), 1, "{listed:?}");
        assert_eq!(listed[0].location, commit);
    }
}
