//! The matching as a DataFusion plan Ballista can distribute: a table ([`MatchTable`]) whose
//! scan is [`MatchExec`] over an in-memory source of one partition per task, each partition a
//! row holding its task (the task's files). The scheduler turns the partitions into a stage's
//! tasks and hands each executor's task only its own partitions: Ballista restricts the
//! in-memory source it knows to the task's slice (a leaf it does not know would arrive whole,
//! and every task would run every partition). `MatchExec` runs each task row it reads and
//! answers a row per file; `SELECT * FROM` the table collects every answer at the driver.

use std::fmt;
use std::sync::Arc;

use arrow::array::{AsArray, RecordBatch, StringArray};
use arrow::compute::concat_batches;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::TableType;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::TryStreamExt;
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
        let partitions = self
            .job
            .tasks
            .iter()
            .map(|task| task_rows(task).map(|batch| vec![batch]))
            .collect::<DfResult<Vec<_>>>()?;
        let tasks = MemorySourceConfig::try_new_exec(&partitions, task_schema(), None)?;
        Ok(Arc::new(MatchExec::new(
            Arc::new(self.job.share.clone()),
            tasks,
        )))
    }
}

/// The in-memory source's rows: a task each, as JSON.
fn task_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new("task", DataType::Utf8, false)]))
}

fn task_rows(task: &MatchTask) -> DfResult<RecordBatch> {
    let json = serde_json::to_string(task)
        .map_err(|e| DataFusionError::Internal(format!("cannot encode a task: {e}")))?;
    RecordBatch::try_new(task_schema(), vec![Arc::new(StringArray::from(vec![json]))])
        .map_err(DataFusionError::from)
}

/// The tasks in the rows of `batch`.
fn tasks_of(batch: &RecordBatch) -> DfResult<Vec<MatchTask>> {
    let column = batch
        .column(0)
        .as_string_opt::<i32>()
        .ok_or_else(|| DataFusionError::Internal("a task row is not text".into()))?;
    column
        .iter()
        .map(|json| {
            let json = json.ok_or_else(|| DataFusionError::Internal("an empty task row".into()))?;
            serde_json::from_str(json)
                .map_err(|e| DataFusionError::Internal(format!("cannot decode a task: {e}")))
        })
        .collect()
}

/// Reads each task row of its input and answers a row per file of the task; its partitions
/// are its input's (a task each, as many as the scheduler left this executor's task).
#[derive(Debug)]
pub struct MatchExec {
    pub share: Arc<TableShare>,
    pub tasks: Arc<dyn ExecutionPlan>,
    properties: Arc<PlanProperties>,
}

impl MatchExec {
    pub fn new(share: Arc<TableShare>, tasks: Arc<dyn ExecutionPlan>) -> Self {
        let partitions = tasks.properties().output_partitioning().partition_count();
        let properties = PlanProperties::new(
            EquivalenceProperties::new(output_schema()),
            Partitioning::UnknownPartitioning(partitions),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        Self {
            share,
            tasks,
            properties: Arc::new(properties),
        }
    }
}

impl DisplayAs for MatchExec {
    fn fmt_as(&self, _format: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "DeltaOracleMatchExec")
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
        vec![&self.tasks]
    }

    /// A task row is a whole task: spreading the rows over more partitions gains nothing.
    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DfResult<TreeNodeRecursion>,
    ) -> DfResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        let [tasks] = children.as_slice() else {
            return Err(DataFusionError::Internal(format!(
                "the matching has one input, not {}",
                children.len()
            )));
        };
        Ok(Arc::new(MatchExec::new(self.share.clone(), tasks.clone())))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> DfResult<SendableRecordBatchStream> {
        let rows = self.tasks.execute(partition, context)?;
        let share = self.share.clone();
        let answers = rows.and_then(move |batch| {
            let share = share.clone();
            async move {
                let tasks = tasks_of(&batch)?;
                // The reader blocks on its own runtime (the oracle's store), so it runs on a
                // thread of its own, never on the executor's async workers.
                let (send, receive) = futures::channel::oneshot::channel();
                std::thread::Builder::new()
                    .name(format!("delta-oracle-task-{partition}"))
                    .stack_size(TASK_STACK)
                    .spawn(move || {
                        let answers: Result<Vec<RecordBatch>, _> =
                            tasks.iter().map(|task| share.run(task)).collect();
                        let _ = send.send(answers);
                    })
                    .map_err(|e| {
                        DataFusionError::Execution(format!("cannot start a task thread: {e}"))
                    })?;
                match receive.await {
                    Ok(Ok(answers)) => {
                        concat_batches(&output_schema(), &answers).map_err(DataFusionError::from)
                    }
                    Ok(Err(e)) => Err(DataFusionError::External(Box::new(e))),
                    Err(_) => Err(DataFusionError::Execution(
                        "a task's thread stopped without an answer".into(),
                    )),
                }
            }
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            output_schema(),
            answers,
        )))
    }
}
