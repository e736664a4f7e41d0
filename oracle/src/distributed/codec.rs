//! How the matching job crosses the wire: the driver's logical plan to the scheduler (the
//! table, [`LogicalCodec`]) and the scheduler's stage to the executors (the scan,
//! [`PhysicalCodec`]). Both carry the job as JSON after a marker; every other node goes to
//! Ballista's own codecs, so the scheduler and executors of `delta-oracle-cluster` run any
//! other query as plain Ballista does.

use std::sync::Arc;

use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::catalog::TableProvider;
use datafusion::common::TableReference;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Extension, LogicalPlan};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};

use super::plan::{MatchExec, MatchJob, MatchTable};
use super::task::TableShare;

/// What starts an encoded job, the driver's table for the scheduler (Ballista's own encodings
/// are protobuf, which never start so).
const JOB: &[u8] = b"delta-oracle/match-job/1\n";
/// What starts an encoded matching node of a task's plan: what every task shares (each task's
/// files travel in its rows of the in-memory input below it).
const SHARE: &[u8] = b"delta-oracle/match-share/1\n";

fn encode<T: serde::Serialize>(marker: &[u8], value: &T, buf: &mut Vec<u8>) -> DfResult<()> {
    buf.extend_from_slice(marker);
    serde_json::to_writer(buf, value)
        .map_err(|e| DataFusionError::Internal(format!("cannot encode the matching: {e}")))
}

/// The value after `marker` in `buf`, if `buf` starts with it.
fn decode<T: serde::de::DeserializeOwned>(marker: &[u8], buf: &[u8]) -> Option<DfResult<Arc<T>>> {
    let json = buf.strip_prefix(marker)?;
    Some(
        serde_json::from_slice(json)
            .map(Arc::new)
            .map_err(|e| DataFusionError::Internal(format!("cannot decode the matching: {e}"))),
    )
}

/// The driver's and scheduler's logical codec: the matching table, else Ballista's.
#[derive(Debug, Default)]
pub struct LogicalCodec {
    ballista: BallistaLogicalExtensionCodec,
}

impl LogicalExtensionCodec for LogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> DfResult<Extension> {
        self.ballista.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> DfResult<()> {
        self.ballista.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: arrow::datatypes::SchemaRef,
        ctx: &TaskContext,
    ) -> DfResult<Arc<dyn TableProvider>> {
        match decode::<MatchJob>(JOB, buf) {
            Some(job) => Ok(Arc::new(MatchTable { job: job? })),
            None => self
                .ballista
                .try_decode_table_provider(buf, table_ref, schema, ctx),
        }
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> DfResult<()> {
        match node.downcast_ref::<MatchTable>() {
            Some(table) => encode(JOB, table.job.as_ref(), buf),
            None => self
                .ballista
                .try_encode_table_provider(table_ref, node, buf),
        }
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> DfResult<Arc<dyn FileFormatFactory>> {
        self.ballista.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> DfResult<()> {
        self.ballista.try_encode_file_format(buf, node)
    }
}

/// The scheduler's and executors' physical codec: the matching scan, else Ballista's.
#[derive(Debug, Default)]
pub struct PhysicalCodec {
    ballista: BallistaPhysicalExtensionCodec,
}

impl PhysicalExtensionCodec for PhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        match decode::<TableShare>(SHARE, buf) {
            Some(share) => {
                let [tasks] = inputs else {
                    return Err(DataFusionError::Internal(
                        "the matching node arrived without its task rows".into(),
                    ));
                };
                Ok(Arc::new(MatchExec::new(share?, tasks.clone())))
            }
            None => self.ballista.try_decode(buf, inputs, ctx, converter),
        }
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> DfResult<()> {
        match node.downcast_ref::<MatchExec>() {
            Some(scan) => encode(SHARE, scan.share.as_ref(), buf),
            None => self.ballista.try_encode(node, buf, converter),
        }
    }
}
