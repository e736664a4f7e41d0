//! The scheduler and executor processes of a cluster that can run the matching
//! (`delta-oracle-cluster scheduler|executor`): Ballista's own, with the oracle's codecs
//! installed so the matching job can be planned and run. Each call runs until its process is
//! stopped.

use std::net::SocketAddr;
use std::sync::Arc;

use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;

use super::codec::{LogicalCodec, PhysicalCodec};
use crate::error::OracleError;

/// Where a scheduler listens, and how soon it gives up on a silent executor.
#[derive(Clone, Debug)]
pub struct SchedulerRequest {
    pub host: String,
    pub port: u16,
    /// Seconds without a heartbeat before an executor is taken as lost and its tasks are run
    /// elsewhere.
    pub executor_timeout_seconds: u64,
}

/// An executor: where it listens, its scheduler, and how many tasks it runs at once.
#[derive(Clone, Debug)]
pub struct ExecutorRequest {
    pub host: String,
    /// The Arrow Flight port (results are fetched from it) and the gRPC port.
    pub port: u16,
    pub grpc_port: u16,
    pub scheduler_host: String,
    pub scheduler_port: u16,
    pub concurrent_tasks: usize,
    /// Seconds between heartbeats to the scheduler.
    pub heartbeat_seconds: u64,
}

fn runtime() -> Result<tokio::runtime::Runtime, OracleError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // The executors evaluate the predicate: a long AND or OR recurses deeply.
        .thread_stack_size(crate::DEEP_STACK)
        .build()
        .map_err(|e| OracleError::Cluster(format!("cannot start a runtime: {e}")))
}

/// Runs a scheduler with the oracle's codecs until the process is stopped.
pub fn run_scheduler(request: &SchedulerRequest) -> Result<(), OracleError> {
    let address: SocketAddr = format!("{}:{}", request.host, request.port)
        .parse()
        .map_err(|e| OracleError::Usage(format!("not an address to listen on: {e}")))?;
    let config = SchedulerConfig {
        bind_host: request.host.clone(),
        external_host: request.host.clone(),
        bind_port: request.port,
        executor_timeout_seconds: request.executor_timeout_seconds,
        no_executors_grace_period_seconds: request.executor_timeout_seconds,
        expire_dead_executor_interval_seconds: request.executor_timeout_seconds.clamp(1, 15) / 2
            + 1,
        override_logical_codec: Some(Arc::new(LogicalCodec::default())),
        override_physical_codec: Some(Arc::new(PhysicalCodec::default())),
        ..SchedulerConfig::default()
    };
    runtime()?.block_on(async move {
        let cluster = BallistaCluster::new_from_config(&config)
            .await
            .map_err(|e| OracleError::Cluster(format!("cannot start the scheduler: {e}")))?;
        start_server(cluster, address, Arc::new(config))
            .await
            .map_err(|e| OracleError::Cluster(format!("the scheduler stopped: {e}")))
    })
}

/// Runs an executor with the oracle's codecs until the process is stopped.
pub fn run_executor(request: &ExecutorRequest) -> Result<(), OracleError> {
    let config = ExecutorProcessConfig {
        bind_host: request.host.clone(),
        external_host: Some(request.host.clone()),
        port: request.port,
        grpc_port: request.grpc_port,
        scheduler_host: request.scheduler_host.clone(),
        scheduler_port: request.scheduler_port,
        vcores: request.concurrent_tasks.max(1),
        executor_heartbeat_interval_seconds: request.heartbeat_seconds.max(1),
        override_logical_codec: Some(Arc::new(LogicalCodec::default())),
        override_physical_codec: Some(Arc::new(PhysicalCodec::default())),
        ..ExecutorProcessConfig::default()
    };
    runtime()?.block_on(async move {
        start_executor_process(Arc::new(config))
            .await
            .map_err(|e| OracleError::Cluster(format!("the executor stopped: {e}")))
    })
}
