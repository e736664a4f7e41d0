//! `delta-oracle-cluster scheduler|executor`: the processes of a Ballista cluster that can run
//! the oracle's matching (`delta-oracle --engine ballista`). They are Ballista's scheduler and
//! executor with the oracle's codecs; docs/distributed.md says how to start them.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use oracle::distributed::cluster::{
    ExecutorRequest, SchedulerRequest, run_executor, run_scheduler,
};

/// A scheduler or an executor of a cluster for `delta-oracle --engine ballista`.
#[derive(Debug, Parser)]
#[command(name = "delta-oracle-cluster", version, about)]
struct Args {
    #[command(subcommand)]
    role: Role,
}

#[derive(Debug, Subcommand)]
enum Role {
    /// The scheduler: takes jobs from drivers and hands their tasks to executors.
    Scheduler {
        /// The address to listen on (and to tell executors).
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        #[arg(long, default_value_t = 50050)]
        port: u16,
        /// Seconds without a heartbeat before an executor is taken as lost and its tasks are
        /// run on the others.
        #[arg(long, default_value_t = 180)]
        executor_timeout: u64,
    },
    /// An executor: runs the tasks its scheduler hands it.
    Executor {
        /// The address to listen on and to advertise.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// The Arrow Flight port (the driver fetches answers from it).
        #[arg(long, default_value_t = 50051)]
        port: u16,
        #[arg(long, default_value_t = 50052)]
        grpc_port: u16,
        #[arg(long, default_value = "127.0.0.1")]
        scheduler_host: String,
        #[arg(long, default_value_t = 50050)]
        scheduler_port: u16,
        /// Tasks run at once (default: the cores).
        #[arg(long)]
        concurrent_tasks: Option<usize>,
        /// Seconds between heartbeats.
        #[arg(long, default_value_t = 60)]
        heartbeat: u64,
    },
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            print!("{e}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!(
                "delta-oracle-cluster: {}",
                oracle::error::one_line(&e.to_string())
            );
            return ExitCode::from(2);
        }
    };
    let outcome = match args.role {
        Role::Scheduler {
            host,
            port,
            executor_timeout,
        } => run_scheduler(&SchedulerRequest {
            host,
            port,
            executor_timeout_seconds: executor_timeout,
        }),
        Role::Executor {
            host,
            port,
            grpc_port,
            scheduler_host,
            scheduler_port,
            concurrent_tasks,
            heartbeat,
        } => run_executor(&ExecutorRequest {
            host,
            port,
            grpc_port,
            scheduler_host,
            scheduler_port,
            concurrent_tasks: concurrent_tasks
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
            heartbeat_seconds: heartbeat,
        }),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("delta-oracle-cluster: {e}");
            ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(3))
        }
    }
}
