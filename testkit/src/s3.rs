//! An S3-compatible server on 127.0.0.1 for storage tests: s3s over its file-system backend,
//! in process, on a thread of its own, with SigV4 authentication, a request counter and an
//! optional delay per request (to measure what latency does to a reader). Buckets are
//! directories of its root; a table is uploaded by copying its files under a bucket.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder as ConnBuilder;
use s3s::auth::SimpleAuth;
use s3s::service::S3ServiceBuilder;

/// The keys the server accepts.
pub const ACCESS_KEY: &str = "testkit-access-key";
pub const SECRET_KEY: &str = "testkit-secret-key";

/// A running server; it stops when dropped.
pub struct S3Server {
    pub addr: SocketAddr,
    root: tempfile::TempDir,
    requests: Arc<AtomicU64>,
    delay_ms: Arc<AtomicU64>,
    failures: Arc<AtomicU64>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl S3Server {
    /// Starts a server on a free port of 127.0.0.1.
    pub fn start() -> Self {
        let root = tempfile::tempdir().expect("a server root");
        let requests = Arc::new(AtomicU64::new(0));
        let delay_ms = Arc::new(AtomicU64::new(0));
        let failures = Arc::new(AtomicU64::new(0));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready, addr) = std::sync::mpsc::channel();
        let fs = s3s_fs::FileSystem::new(root.path()).expect("s3s-fs over the root");
        let hooks = Hooks {
            requests: requests.clone(),
            delay_ms: delay_ms.clone(),
            failures: failures.clone(),
        };
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a server runtime");
            runtime.block_on(serve(fs, hooks, stopped, ready));
        });
        let addr = addr.recv().expect("the server's address");
        S3Server {
            addr,
            root,
            requests,
            delay_ms,
            failures,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// The endpoint URL.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Creates an empty bucket.
    pub fn create_bucket(&self, bucket: &str) {
        std::fs::create_dir_all(self.root.path().join(bucket)).expect("a bucket directory");
    }

    /// Uploads every file under `source` to `bucket` under `prefix` (keys keep their relative
    /// paths, byte for byte, including names with `%` or spaces as the log spells them on disk).
    pub fn upload(&self, bucket: &str, prefix: &str, source: &Path) {
        let target = self.root.path().join(bucket).join(prefix);
        crate::copy_tree(source, &target);
    }

    /// Requests served so far.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    /// Delays every later request by `delay` before answering it.
    pub fn set_delay(&self, delay: Duration) {
        self.delay_ms
            .store(delay.as_millis() as u64, Ordering::SeqCst);
    }

    /// Answers the next `n` requests with `503 Slow Down`, as a throttling store does.
    pub fn fail_next(&self, n: u64) {
        self.failures.store(n, Ordering::SeqCst);
    }

    /// Storage options that reach this server with its keys.
    pub fn options(&self) -> Vec<(String, String)> {
        vec![
            ("endpoint".into(), self.endpoint()),
            ("access_key_id".into(), ACCESS_KEY.into()),
            ("secret_access_key".into(), SECRET_KEY.into()),
            ("region".into(), "us-east-1".into()),
        ]
    }

    /// [`options`](Self::options) as command-line arguments (`--storage-option K=V` each).
    pub fn option_args(&self) -> Vec<String> {
        self.options()
            .into_iter()
            .flat_map(|(k, v)| ["--storage-option".to_string(), format!("{k}={v}")])
            .collect()
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What the tests can do to the server's answers.
#[derive(Clone)]
struct Hooks {
    requests: Arc<AtomicU64>,
    delay_ms: Arc<AtomicU64>,
    failures: Arc<AtomicU64>,
}

async fn serve(
    fs: s3s_fs::FileSystem,
    hooks: Hooks,
    mut stopped: tokio::sync::oneshot::Receiver<()>,
    ready: std::sync::mpsc::Sender<SocketAddr>,
) {
    let mut builder = S3ServiceBuilder::new(fs);
    builder.set_auth(SimpleAuth::from_single(ACCESS_KEY, SECRET_KEY));
    let service = builder.build();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .expect("a port on 127.0.0.1");
    ready
        .send(listener.local_addr().expect("a bound address"))
        .expect("the test waits for the address");
    let http = ConnBuilder::new(TokioExecutor::new());
    loop {
        let socket = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((socket, _)) => socket,
                Err(_) => continue,
            },
            _ = &mut stopped => break,
        };
        let (service, hooks) = (service.clone(), hooks.clone());
        let counted = hyper::service::service_fn(move |request| {
            hooks.requests.fetch_add(1, Ordering::SeqCst);
            let delay = Duration::from_millis(hooks.delay_ms.load(Ordering::SeqCst));
            let fail = hooks
                .failures
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok();
            let service = service.clone();
            async move {
                if !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                if fail {
                    let mut busy = s3s::HttpResponse::new(s3s::Body::from(
                        "<Error><Code>SlowDown</Code></Error>".to_string(),
                    ));
                    *busy.status_mut() = hyper::StatusCode::SERVICE_UNAVAILABLE;
                    return Ok(busy);
                }
                hyper::service::Service::call(&service, request).await
            }
        });
        let connection = http
            .serve_connection(TokioIo::new(socket), counted)
            .into_owned();
        tokio::spawn(async move {
            let _ = connection.await;
        });
    }
}
