//! Counting the object-store client's retries: object_store reports each retry of a request
//! after a transient failure (a 5xx answer, a dropped connection) as a tracing event of its
//! retry module. A binary installs [`count_retries`] once and reads the count at the end, so
//! `--verbose` can say how often the store had to be asked again.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};

/// Where object_store's retry events come from.
const RETRY_TARGET: &str = "object_store::client::retry";

/// A subscriber that counts retry events and ignores everything else.
struct RetryCounter(Arc<AtomicU64>);

fn is_retry(metadata: &Metadata<'_>) -> bool {
    metadata.is_event() && metadata.target().starts_with(RETRY_TARGET)
}

impl Subscriber for RetryCounter {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if is_retry(metadata) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        is_retry(metadata)
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        if is_retry(event.metadata()) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

/// Installs the process-wide retry counter and returns it; `None` if another subscriber was
/// installed first (then retries go uncounted).
pub fn count_retries() -> Option<Arc<AtomicU64>> {
    let count = Arc::new(AtomicU64::new(0));
    tracing::subscriber::set_global_default(RetryCounter(count.clone()))
        .ok()
        .map(|_| count)
}
