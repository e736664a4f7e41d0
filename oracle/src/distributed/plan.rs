//! The matching as a DataFusion plan Ballista can distribute: a table ([`MatchTable`]) whose
//! scan ([`MatchExec`]) has one partition per task, each partition one task's answer. The
//! scheduler turns the partitions into a stage's tasks and spreads them over the executors;
//! `SELECT * FROM` the table collects every answer at the driver.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::TableType;
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use serde::{Deserialize, Serialize};

use super::task::{MatchTask, TableShare, output_schema};

/// Every task of one matching, and what they share.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchJob {
    pub share: TableShare,
    pub tasks: Vec<MatchTask>,
}

/// The job as a table: the driver registers it and selects everything from it.
#[derive(Debug)]
pub struct MatchTable {
    pub job: Arc<MatchJob>,
}

#[async_trait]
impl TableProvider for MatchTable {
    fn schema(&self) -> arrow::datatypes::SchemaRef {
        output_schema()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        _state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        // Every column of every file is the answer: a narrower scan would be a different job.
        let every: Vec<usize> = (0..output_schema().fields().len()).collect();
        if projection.is_some_and(|p| *p != every) {
            return Err(DataFusionError::Plan(
                "the matching table is read whole (SELECT *)".into(),
            ));
        }
        Ok(Arc::new(MatchExec::new(self.job.clone())))
    }
}

/// One partition per task; executing a partition reads that task's files.
#[derive(Debug)]
pub struct MatchExec {
    pub job: Arc<MatchJob>,
    properties: Arc<PlanProperties>,
}

impl MatchExec {
    pub fn new(job: Arc<MatchJob>) -> Self {
        let properties = PlanProperties::new(
            EquivalenceProperties::new(output_schema()),
            // A job of no files still has a partition: it answers nothing.
            Partitioning::UnknownPartitioning(job.tasks.len().max(1)),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        Self {
            job,
            properties: Arc::new(properties),
        }
    }
}

impl DisplayAs for MatchExec {
    fn fmt_as(&self, _format: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "DeltaOracleMatchExec: tasks={}", self.job.tasks.len())
    }
}

/// The stack of a task's thread: DataFusion plans the predicate recursively.
const TASK_STACK: usize = 256 << 20;

impl ExecutionPlan for MatchExec {
    fn name(&self) -> &str {
        "DeltaOracleMatchExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DfResult<TreeNodeRecursion>,
    ) -> DfResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(
        &self,
        partition: usize,
        _context: Arc<TaskContext>,
    ) -> DfResult<SendableRecordBatchStream> {
        let schema = output_schema();
        let Some(task) = self.job.tasks.get(partition).cloned() else {
            let none = futures::stream::empty();
            return Ok(Box::pin(RecordBatchStreamAdapter::new(schema, none)));
        };
        let share = self.job.share.clone();
        // The reader blocks on its own runtime (the oracle's store), so it runs on a thread of
        // its own, never on the executor's async workers.
        let (send, receive) = futures::channel::oneshot::channel();
        std::thread::Builder::new()
            .name(format!("delta-oracle-task-{partition}"))
            .stack_size(TASK_STACK)
            .spawn(move || {
                let _ = send.send(share.run(&task));
            })
            .map_err(|e| DataFusionError::Execution(format!("cannot start a task thread: {e}")))?;
        let answer = futures::stream::once(async move {
            match receive.await {
                Ok(Ok(batch)) => Ok(batch),
                Ok(Err(e)) => Err(DataFusionError::External(Box::new(e))),
                Err(_) => Err(DataFusionError::Execution(
                    "a task's thread stopped without an answer".into(),
                )),
            }
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, answer)))
    }
}
