//! The files that really match: every live row of every live file, decoded once
//! ([`LoadedTable::load`]), then any number of predicates evaluated by DataFusion's SQL planner
//! over those rows ([`LoadedTable::matching_rows`]). A file matches when at least one of its
//! live rows makes the predicate TRUE (NULL and FALSE rows do not match).

use std::ops::Range;
use std::sync::Arc;

use datafusion::scalar::ScalarValue;

use arrow::array::{ArrayRef, AsArray, RecordBatch, UInt32Array};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, UInt32Type};
use datafusion::common::DFSchema;
use datafusion::datasource::MemTable;
use datafusion::functions_aggregate::count::count_all;
use datafusion::logical_expr::{Expr, col};
use datafusion::prelude::{SessionConfig, SessionContext};

use crate::delta_schema::arrow_schema;
use crate::error::{OracleError, one_line};
use crate::log::replay::Snapshot;
use crate::planning::ScanPlan;
use crate::read::read_file;

/// The column that tags each row with the index of its file in `Snapshot::files`.
pub const FILE_COLUMN: &str = "__oracle_file";

/// Files larger than this are read as several byte ranges, in parallel.
pub const RANGE_BYTES: u64 = 128 * 1024 * 1024;

/// Splits `[0, size)` into contiguous ranges of at most `max` bytes (one range for a small
/// file; never none).
pub fn split_ranges(size: u64, max: u64) -> Vec<Range<u64>> {
    let max = max.max(1);
    if size <= max {
        return std::iter::once(0..size.max(1)).collect();
    }
    (0..size.div_ceil(max))
        .map(|k| k * max..((k + 1) * max).min(size))
        .collect()
}

/// Per live file: rows read and rows live after its deletion vector.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileRowCounts {
    pub physical_rows: u64,
    pub live_rows: u64,
}

/// A snapshot with every live row decoded and registered with DataFusion.
pub struct LoadedTable {
    pub snapshot: Snapshot,
    pub counts: Vec<FileRowCounts>,
    ctx: SessionContext,
    runtime: tokio::runtime::Runtime,
    logical: SchemaRef,
    /// The loaded rows (shared with the registered table), for the row-wise interpreter.
    batches: Vec<RecordBatch>,
}

/// A DataFusion session that reads column names as written (no lower-casing), as Delta
/// column names are, and numeric literals with a point as exact decimals.
pub fn session(target_partitions: usize) -> SessionContext {
    let mut config = SessionConfig::new().with_target_partitions(target_partitions.max(1));
    config.options_mut().sql_parser.enable_ident_normalization = false;
    // `1.23` is the exact decimal, as in SQL, not the nearest double: compared with a decimal
    // column it must not pick up a binary rounding error.
    config.options_mut().sql_parser.parse_float_as_decimal = true;
    // The respelled predicate nests as the user's did; see `respell::PARSER_RECURSION_LIMIT`.
    if let Ok(limit) = datafusion::common::config::ConfigNonZeroUsize::try_new(
        crate::respell::PARSER_RECURSION_LIMIT,
    ) {
        config.options_mut().sql_parser.recursion_limit = limit;
    }
    // No logical optimizer: its expression simplifier folds without SQL's NULL semantics
    // (`a IN (x) AND a NOT IN (x, x)` to FALSE, so `NOT (..)` matches the rows where `a` is
    // NULL). The analyzer (type coercion) still runs; the predicate is evaluated as written.
    let state = datafusion::execution::session_state::SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .with_optimizer_rules(Vec::new())
        .build();
    SessionContext::new_with_state(state)
}

/// What one read task leaves: the rows it read and their counts per file, or why not.
type TaskResult = Result<(Vec<RecordBatch>, FileRowCounts), OracleError>;

impl LoadedTable {
    /// Reads every live file, `plan.partitions` at a time.
    pub fn load(snapshot: Snapshot, plan: &ScanPlan) -> Result<LoadedTable, OracleError> {
        let logical = arrow_schema(&snapshot.fields);
        let mut tagged_fields: Vec<Field> = logical
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        tagged_fields.push(Field::new(FILE_COLUMN, DataType::UInt32, false));
        let tagged = Arc::new(Schema::new(tagged_fields));

        // One task per file, or per byte range of a large file; ranges own whole row groups
        // (see read.rs), so their rows add up to the file's.
        let tasks: Vec<(usize, Option<Range<u64>>)> = snapshot
            .files
            .iter()
            .enumerate()
            .flat_map(|(i, f)| {
                let size = u64::try_from(f.size).unwrap_or(0);
                let ranges = split_ranges(size, RANGE_BYTES);
                let whole = ranges.len() <= 1;
                ranges.into_iter().map(move |r| (i, (!whole).then_some(r)))
            })
            .collect();
        let results: Vec<TaskResult> = workers::map(
            tasks.iter().collect(),
            plan.partitions,
            crate::DEEP_STACK,
            |(i, range)| {
                let file = &snapshot.files[*i];
                read_file(&snapshot, file, range.clone()).and_then(|rows| {
                    let counts = FileRowCounts {
                        physical_rows: rows.physical_rows,
                        live_rows: rows.live_rows,
                    };
                    let tag = u32::try_from(*i).map_err(|_| OracleError::log("too many files"))?;
                    let batches = rows
                        .batches
                        .into_iter()
                        .map(|b| {
                            let mut columns: Vec<ArrayRef> = b.columns().to_vec();
                            columns.push(Arc::new(UInt32Array::from(vec![tag; b.num_rows()])));
                            RecordBatch::try_new(tagged.clone(), columns)
                                .map_err(|e| OracleError::file(file.path.clone(), e))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok((batches, counts))
                })
            },
        );
        let mut batches = Vec::new();
        let mut counts = vec![FileRowCounts::default(); snapshot.files.len()];
        for ((i, _), result) in tasks.iter().zip(results) {
            let (task_batches, task_counts) = result?;
            batches.extend(task_batches);
            counts[*i].physical_rows += task_counts.physical_rows;
            counts[*i].live_rows += task_counts.live_rows;
        }
        let ctx = session(plan.partitions);
        let rows = batches.clone();
        let table = MemTable::try_new(tagged, vec![batches])
            .map_err(|e| OracleError::log(e.to_string()))?;
        ctx.register_table("t", Arc::new(table))
            .map_err(|e| OracleError::log(e.to_string()))?;
        // Multi-threaded so several threads may evaluate predicates on one loaded table at once.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(plan.partitions.max(1))
            // The workers evaluate the predicate: a long AND or OR recurses deeply.
            .thread_stack_size(crate::DEEP_STACK)
            .build()
            .map_err(|e| OracleError::log(format!("cannot start the runtime: {e}")))?;
        Ok(LoadedTable {
            snapshot,
            counts,
            ctx,
            runtime,
            logical,
            batches: rows,
        })
    }

    /// Parses `predicate` with DataFusion's SQL parser against the table's logical schema.
    pub fn parse_predicate(&self, predicate: &str) -> Result<Expr, OracleError> {
        parse_predicate(&self.ctx, &self.logical, predicate)
    }

    /// Per live file, the number of live rows for which `predicate` is TRUE under `semantics`,
    /// decided row by row by the oracle's own interpreter (interpret.rs), not by DataFusion's
    /// evaluation. The inner error names a construct the interpreter does not evaluate.
    pub fn matching_rows_under(
        &self,
        predicate: &str,
        semantics: crate::interpret::Semantics,
    ) -> Result<Result<Vec<u64>, crate::interpret::Unsupported>, OracleError> {
        if predicate.trim().is_empty() {
            return Err(OracleError::Predicate("the predicate is empty".into()));
        }
        let df_schema = DFSchema::try_from(self.logical.as_ref().clone())
            .map_err(|e| OracleError::Predicate(e.to_string()))?;
        // Parsed only: no coercion, no simplification; the interpreter reads the literals.
        let fields: Vec<String> = self
            .logical
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        let expr = self
            .ctx
            .parse_sql_expr(&crate::respell::respell(predicate, &fields)?, &df_schema)
            .map_err(|e| OracleError::Predicate(one_line(&e.to_string())))?;
        let mut out = vec![0u64; self.snapshot.files.len()];
        for batch in &self.batches {
            let files = batch
                .column_by_name(FILE_COLUMN)
                .map(|c| c.as_primitive::<UInt32Type>().clone())
                .ok_or_else(|| OracleError::log("loaded rows carry no file column"))?;
            for row in 0..batch.num_rows() {
                match crate::interpret::eval_row(&expr, batch, row, semantics) {
                    Ok(Some(true)) => out[files.value(row) as usize] += 1,
                    Ok(_) => {}
                    Err(unsupported) => return Ok(Err(unsupported)),
                }
            }
        }
        Ok(Ok(out))
    }

    /// The loaded rows: the table's logical columns and [`FILE_COLUMN`], each row's file.
    pub fn rows(&self) -> &[RecordBatch] {
        &self.batches
    }

    /// Per live file, the number of live rows for which `predicate` is TRUE in DataFusion as
    /// its users run it: the text as written (no respelling), a session with DataFusion's
    /// defaults (identifiers lower-cased unless quoted, numbers with a point or an exponent
    /// read as doubles, its optimizer on). The inner error is DataFusion's refusal.
    pub fn matching_rows_as_written(
        &self,
        predicate: &str,
    ) -> Result<Result<Vec<u64>, String>, OracleError> {
        let ctx = SessionContext::new();
        let table = MemTable::try_new(
            self.batches
                .first()
                .map(|b| b.schema())
                .unwrap_or_else(|| self.tagged_schema()),
            vec![self.batches.clone()],
        )
        .map_err(|e| OracleError::log(e.to_string()))?;
        ctx.register_table("t", Arc::new(table))
            .map_err(|e| OracleError::log(e.to_string()))?;
        let sql = format!("SELECT \"{FILE_COLUMN}\", count(*) FROM t WHERE {predicate} GROUP BY 1");
        let answer = self
            .runtime
            .block_on(async { ctx.sql(&sql).await?.collect().await });
        Ok(match answer {
            Ok(batches) => Ok(self.per_file(batches)),
            Err(e) => Err(one_line(&e.to_string())),
        })
    }

    /// The loaded rows' schema: the logical columns and [`FILE_COLUMN`].
    pub fn tagged_schema(&self) -> SchemaRef {
        let mut fields: Vec<Field> = self
            .logical
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        fields.push(Field::new(FILE_COLUMN, DataType::UInt32, false));
        Arc::new(Schema::new(fields))
    }

    /// Per live file, the number of live rows for which `predicate` is TRUE.
    pub fn matching_rows(&self, predicate: &str) -> Result<Vec<u64>, OracleError> {
        let expr = self.parse_predicate(predicate)?;
        let invalid = |e: datafusion::error::DataFusionError| {
            OracleError::Predicate(one_line(&e.to_string()))
        };
        let batches = self.runtime.block_on(async {
            let df = self.ctx.table("t").await?;
            let df = df
                .filter(expr)?
                .aggregate(vec![col(FILE_COLUMN)], vec![count_all().alias("n")])?;
            df.collect().await
        });
        Ok(self.per_file(batches.map_err(invalid)?))
    }

    /// Matching rows per live file from the batches of `(file, count)` a grouped query gives.
    fn per_file(&self, batches: Vec<RecordBatch>) -> Vec<u64> {
        let mut out = vec![0u64; self.snapshot.files.len()];
        for batch in batches {
            let files = batch.column(0).as_primitive::<UInt32Type>();
            let counts = batch
                .column(1)
                .as_primitive::<arrow::datatypes::Int64Type>();
            for row in 0..batch.num_rows() {
                out[files.value(row) as usize] = u64::try_from(counts.value(row)).unwrap_or(0);
            }
        }
        out
    }
}

/// `predicate` over the logical columns of `snapshot` as DataFusion's physical expression:
/// parsed as [`parse_predicate`] parses it, types coerced, nothing simplified (see
/// [`session`]). What the streamed matching evaluates and the statistics pruning plans.
pub fn physical_predicate(
    snapshot: &Snapshot,
    predicate: &str,
) -> Result<Arc<dyn datafusion::physical_plan::PhysicalExpr>, OracleError> {
    let schema = arrow_schema(&snapshot.fields);
    let ctx = session(1);
    let expr = parse_predicate(&ctx, &schema, predicate)?;
    let df_schema = DFSchema::try_from(schema.as_ref().clone())
        .map_err(|e| OracleError::Predicate(e.to_string()))?;
    ctx.create_physical_expr(expr, &df_schema)
        .map_err(|e| OracleError::Predicate(one_line(&e.to_string())))
}

/// Parses a predicate into a DataFusion expression over `schema`; it must be boolean.
pub fn parse_predicate(
    ctx: &SessionContext,
    schema: &SchemaRef,
    predicate: &str,
) -> Result<Expr, OracleError> {
    if predicate.trim().is_empty() {
        return Err(OracleError::Predicate("the predicate is empty".into()));
    }
    let df_schema = DFSchema::try_from(schema.as_ref().clone())
        .map_err(|e| OracleError::Predicate(e.to_string()))?;
    let fields: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let expr = ctx
        .parse_sql_expr(&crate::respell::respell(predicate, &fields)?, &df_schema)
        .map_err(|e| OracleError::Predicate(one_line(&e.to_string())))?;
    let expr = coalesce_as_case(expr)?;
    let expr = decimal_literals_as_floats_beside_floats(expr, &df_schema)?;
    let expr = crate::timestamps::far_timestamps_in_column_units(expr, &df_schema)?;
    use datafusion::logical_expr::ExprSchemable;
    let data_type = expr
        .get_type(&df_schema)
        .map_err(|e| OracleError::Predicate(one_line(&e.to_string())))?;
    if !matches!(data_type, DataType::Boolean | DataType::Null) {
        return Err(OracleError::Predicate(format!(
            "`{predicate}` is a {data_type}, not a boolean"
        )));
    }
    Ok(expr)
}

/// `coalesce(a, b, .., z)` as `CASE WHEN a IS NOT NULL THEN a WHEN b IS NOT NULL THEN b ..
/// ELSE z END`: the session runs no optimizer (see [`session`]), and DataFusion's physical
/// planner expects the simplifier to have rewritten `coalesce` so (it fails otherwise).
fn coalesce_as_case(expr: Expr) -> Result<Expr, OracleError> {
    use datafusion::common::tree_node::{Transformed, TreeNode};
    expr.transform_up(|e| {
        Ok(match e {
            Expr::ScalarFunction(f) if f.name() == "coalesce" && !f.args.is_empty() => {
                let mut args = f.args;
                let last = args.pop().unwrap_or_else(|| {
                    datafusion::logical_expr::lit(datafusion::scalar::ScalarValue::Null)
                });
                if args.is_empty() {
                    Transformed::yes(last)
                } else {
                    let mut case: Option<
                        datafusion::logical_expr::conditional_expressions::CaseBuilder,
                    > = None;
                    for a in args {
                        let cond = a.clone().is_not_null();
                        case = Some(match case {
                            None => datafusion::logical_expr::when(cond, a),
                            Some(mut c) => c.when(cond, a),
                        });
                    }
                    match case {
                        Some(mut c) => Transformed::yes(c.otherwise(last)?),
                        None => Transformed::yes(last),
                    }
                }
            }
            other => Transformed::no(other),
        })
    })
    .map(|t| t.data)
    .map_err(|e| OracleError::Predicate(one_line(&e.to_string())))
}

/// Literals with a point parse as exact decimals (see [`session`]); beside anything that is not
/// a decimal (a float column, arithmetic on one) they become the nearest double, which is what
/// SQL compares a float with. Left as decimals there, DataFusion would cast the float column
/// to a decimal and fail on NaN and infinities.
fn decimal_literals_as_floats_beside_floats(
    expr: Expr,
    schema: &DFSchema,
) -> Result<Expr, OracleError> {
    use datafusion::common::tree_node::{Transformed, TreeNode};
    use datafusion::logical_expr::{Between, BinaryExpr};

    let typing = Typing { schema };
    let expr = whole_exponent_literals(expr)?;
    expr.transform_down(|e| {
        Ok(match e {
            Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
                let (l, r) = typing.comparison(*left, *right);
                Transformed::yes(Expr::BinaryExpr(BinaryExpr {
                    left: Box::new(l),
                    op,
                    right: Box::new(r),
                }))
            }
            Expr::Between(Between {
                expr,
                negated,
                low,
                high,
            }) => Transformed::yes(typing.between(*expr, negated, *low, *high)),
            Expr::InList(list) => match typing.in_list(list) {
                Ok(rewritten) => Transformed::yes(rewritten),
                Err(list) => Transformed::no(Expr::InList(list)),
            },
            other => Transformed::no(other),
        })
    })
    .map(|t| t.data)
    .map_err(|e| OracleError::Predicate(one_line(&e.to_string())))
}

/// The types of a predicate's parts against one schema, and the rewrites of
/// [`decimal_literals_as_floats_beside_floats`]: one method per operator, the reason beside
/// each rewrite.
struct Typing<'a> {
    schema: &'a DFSchema,
}

impl Typing<'_> {
    fn type_of(&self, e: &Expr) -> Option<DataType> {
        use datafusion::logical_expr::ExprSchemable;
        e.get_type(self.schema).ok()
    }

    fn is_decimal(&self, e: &Expr) -> bool {
        matches!(
            self.type_of(e),
            Some(DataType::Decimal128(..) | DataType::Decimal256(..))
        )
    }

    /// A decimal expression that is not a literal: a column or arithmetic on one.
    fn is_decimal_column(&self, e: &Expr) -> bool {
        self.is_decimal(e) && !matches!(e, Expr::Literal(..))
    }

    fn is_integer(&self, e: &Expr) -> bool {
        matches!(
            self.type_of(e),
            Some(
                DataType::Int8
                    | DataType::Int16
                    | DataType::Int32
                    | DataType::Int64
                    | DataType::UInt8
                    | DataType::UInt16
                    | DataType::UInt32
                    | DataType::UInt64
            )
        )
    }

    /// A double or float expression that is not a literal.
    fn is_double(&self, e: &Expr) -> bool {
        !matches!(e, Expr::Literal(..))
            && matches!(self.type_of(e), Some(DataType::Float64 | DataType::Float32))
    }

    /// Neither a decimal nor a literal: beside it a decimal literal becomes a double.
    fn is_floaty(&self, other: &Expr) -> bool {
        !self.is_decimal(other) && !matches!(other, Expr::Literal(..))
    }

    /// A number beyond a decimal column's range (`w >= 1e40` on decimal(38, 18)): DataFusion
    /// would cast it to the column's type and fail; as doubles the comparison decides the same.
    fn beyond_decimal_column(&self, literal: &Expr, column: &Expr) -> bool {
        let Some(DataType::Decimal128(p, s) | DataType::Decimal256(p, s)) = self.type_of(column)
        else {
            return false;
        };
        if matches!(column, Expr::Literal(..)) {
            return false;
        }
        let integer_digits = i32::from(p) - i32::from(s);
        match literal {
            // Doubles reach here only from numbers too large for a 128-bit decimal.
            Expr::Literal(ScalarValue::Float64(Some(v)), _) => {
                v.abs() >= 2.0 * 10f64.powi(integer_digits)
            }
            other => literal_decimal_text(other).is_some_and(|t| {
                // Exactly: the digits before the point (an exponent form is plain for scale <= 0).
                let t = t.trim_start_matches('-');
                let (int, exponent) = match t.split_once('e') {
                    Some((m, e)) => (m.to_string(), e.parse::<usize>().unwrap_or(0)),
                    None => (t.split_once('.').map_or(t, |(i, _)| i).to_string(), 0),
                };
                let int = int.trim_start_matches('0');
                let digits = if int.is_empty() {
                    0
                } else {
                    int.len() + exponent
                };
                i32::try_from(digits).unwrap_or(i32::MAX) > integer_digits
            }),
        }
    }

    /// Both sides of a comparison (or any binary operator), each rewritten beside the other.
    fn comparison(&self, l: Expr, r: Expr) -> (Expr, Expr) {
        // An integral decimal literal beside an integer expression becomes a 64-bit integer:
        // DataFusion otherwise compares the pair as doubles, where distinct 64-bit integers
        // compare equal.
        let (l, r) = if self.is_integer(&l) && matches!(r, Expr::Literal(..)) {
            (l, as_int(r))
        } else if self.is_integer(&r) && matches!(l, Expr::Literal(..)) {
            (as_int(l), r)
        } else {
            (l, r)
        };
        if self.is_decimal_column(&l) && self.is_double(&r) {
            // A decimal column against a double (a number with an exponent): Spark and DuckDB
            // compare the two as doubles; DataFusion would cast the double to the column's
            // decimal type.
            (as_float(l), r)
        } else if self.is_double(&l) && self.is_decimal_column(&r) {
            (l, as_float(r))
        } else if self.is_floaty(&l) {
            (l, to_float(r))
        } else if self.is_floaty(&r) {
            (to_float(l), r)
        } else if self.beyond_decimal_column(&r, &l) {
            (as_float(l), to_float(r))
        } else if self.beyond_decimal_column(&l, &r) {
            (to_float(l), as_float(r))
        } else {
            (l, r)
        }
    }

    /// BETWEEN as SQL defines it, so each comparison coerces its own two sides (the
    /// comparison rewrite then takes floats and bounds beyond a decimal's range): DataFusion
    /// coerces `x BETWEEN -0.5 AND 9223372036854775806` on a 64-bit integer to doubles, where
    /// distinct integers compare equal.
    fn between(&self, x: Expr, negated: bool, mut low: Expr, mut high: Expr) -> Expr {
        // ... but a text bound beside a number bound on a FLOAT column takes the common type
        // of all three first, as DataFusion's coercion of BETWEEN does (measured: `y BETWEEN
        // -1e300 AND '1e300'` reads `'1e300'` as the double 1e300, where `y <= '1e300'` alone
        // reads it as a FLOAT, infinity).
        if matches!(self.type_of(&x), Some(DataType::Float32)) {
            let text = |e: &Expr| match e {
                Expr::Literal(ScalarValue::Utf8(Some(t)), _) => t.parse::<f64>().ok(),
                _ => None,
            };
            // A number: a literal, negated or cast (`1e300` is the text cast to a double), of
            // a numeric type.
            let number = |e: &Expr| {
                e.column_refs().is_empty() && self.type_of(e).is_some_and(|t| t.is_numeric())
            };
            if let (Some(t), true) = (text(&low), number(&high)) {
                low = datafusion::logical_expr::lit(ScalarValue::Float64(Some(t)));
            } else if let (true, Some(t)) = (number(&low), text(&high)) {
                high = datafusion::logical_expr::lit(ScalarValue::Float64(Some(t)));
            }
        }
        if negated {
            x.clone().lt(low).or(x.gt(high))
        } else {
            x.clone().gt_eq(low).and(x.lt_eq(high))
        }
    }

    /// An IN list rewritten as its items and its expression need, or given back unchanged.
    fn in_list(
        &self,
        in_list: datafusion::logical_expr::expr::InList,
    ) -> Result<Expr, datafusion::logical_expr::expr::InList> {
        use datafusion::logical_expr::expr::InList;
        let InList {
            expr,
            list,
            negated,
        } = in_list;
        let has_decimal_item = list.iter().any(|l| {
            matches!(
                l,
                Expr::Literal(ScalarValue::Decimal128(..) | ScalarValue::Decimal256(..), _)
            )
        });
        if self.is_integer(&expr) && has_decimal_item {
            // DataFusion coerces an integer column and a list mixing integers and decimals to
            // doubles, where distinct 64-bit integers compare equal. A decimal item that is an
            // integer becomes one; any other equals no integer and leaves the list.
            let items: Vec<Expr> = list
                .into_iter()
                .filter_map(|l| match literal_decimal_text(&l) {
                    None => Some(l),
                    Some(text) => integral_i64(&text)
                        .map(|v| datafusion::logical_expr::lit(ScalarValue::Int64(Some(v)))),
                })
                .collect();
            let x = *expr;
            return Ok(if items.is_empty() {
                // `x IN ()` is FALSE where x is set and NULL where it is NULL; dually NOT IN.
                if negated {
                    x.clone().eq(x)
                } else {
                    x.clone().not_eq(x)
                }
            } else {
                Expr::InList(InList::new(Box::new(x), items, negated))
            });
        }
        if list.iter().any(|l| self.beyond_decimal_column(l, &expr)) {
            // No value of the column equals a number beyond its range: such items leave the
            // list (exact); a list of nothing else is decided as doubles.
            let inside: Vec<Expr> = list
                .iter()
                .filter(|l| !self.beyond_decimal_column(l, &expr))
                .cloned()
                .collect();
            return Ok(Expr::InList(if inside.is_empty() {
                InList::new(
                    Box::new(as_float(*expr)),
                    list.into_iter().map(to_float).collect(),
                    negated,
                )
            } else {
                InList::new(expr, inside, negated)
            }));
        }
        if self.is_decimal_column(&expr) && list.iter().any(|l| self.is_double(l)) {
            return Ok(Expr::InList(InList::new(
                Box::new(as_float(*expr)),
                list.into_iter().map(to_float).collect(),
                negated,
            )));
        }
        if self.is_floaty(&expr) {
            return Ok(Expr::InList(InList::new(
                expr,
                list.into_iter().map(to_float).collect(),
                negated,
            )));
        }
        Err(InList::new(expr, list, negated))
    }
}

/// A decimal literal as the nearest double; anything else as it is.
fn to_float(e: Expr) -> Expr {
    match literal_decimal_text(&e) {
        Some(text) => datafusion::logical_expr::lit(ScalarValue::Float64(text.parse().ok())),
        None => e,
    }
}

/// An integral decimal literal as a 64-bit integer; anything else as it is.
fn as_int(lit: Expr) -> Expr {
    match literal_decimal_text(&lit).and_then(|t| integral_i64(&t)) {
        Some(v) => datafusion::logical_expr::lit(ScalarValue::Int64(Some(v))),
        None => lit,
    }
}

/// A decimal read as the nearest double, rounded once, as Spark and DuckDB read it: through
/// its exact text. Arrow's decimal-to-double cast divides the integer, already rounded to a
/// double, by a power of ten, and can land one double away (measured: on a decimal(38,18)
/// column `w = 651.932285632937066571e0` matches the row holding that value in Spark and
/// DuckDB, and no row through that cast).
fn as_float(e: Expr) -> Expr {
    let cast =
        |e: Expr, to: DataType| Expr::Cast(datafusion::logical_expr::Cast::new(Box::new(e), to));
    cast(cast(e, DataType::Utf8), DataType::Float64)
}

/// The exact decimal text of a decimal literal of either width and any scale (a negative
/// scale is an exponent: `1e1` parses as 1 at scale -1), `None` for anything else.
fn literal_decimal_text(e: &Expr) -> Option<String> {
    use datafusion::scalar::ScalarValue;
    let (digits, negative, scale) = match e {
        Expr::Literal(ScalarValue::Decimal128(Some(v), _, scale), _) => {
            (v.unsigned_abs().to_string(), *v < 0, *scale)
        }
        Expr::Literal(ScalarValue::Decimal256(Some(v), _, scale), _) => {
            let text = v.to_string();
            match text.strip_prefix('-') {
                Some(t) => (t.to_string(), true, *scale),
                None => (text, false, *scale),
            }
        }
        _ => return None,
    };
    let sign = if negative { "-" } else { "" };
    Some(if scale <= 0 {
        format!("{sign}{digits}e{}", -i32::from(scale))
    } else {
        let width = usize::try_from(scale).unwrap_or(0) + 1;
        let padded = format!("{digits:0>width$}");
        let (int, frac) = padded.split_at(padded.len() - width + 1);
        format!("{sign}{int}.{frac}")
    })
}

/// A decimal literal with a negative scale (`1e1`, `5E+1`) becomes the same number at scale 0
/// (`10`, `50`): DataFusion's comparisons of such a decimal with an integer column read it
/// without its exponent. One too large for a 128-bit decimal becomes the nearest double, which
/// still orders it against every integer and decimal column.
fn whole_exponent_literals(expr: Expr) -> Result<Expr, OracleError> {
    use datafusion::common::tree_node::{Transformed, TreeNode};
    use datafusion::scalar::ScalarValue;
    expr.transform_up(|e| {
        Ok(match e {
            // `-9223372036854775808` parses as the negation of a literal one past the 64-bit
            // range; the negated literal is the number written.
            Expr::Negative(inner)
                if matches!(
                    inner.as_ref(),
                    Expr::Literal(
                        ScalarValue::Decimal128(Some(_), _, _) | ScalarValue::Int64(Some(_)),
                        _
                    )
                ) =>
            {
                match *inner {
                    Expr::Literal(ScalarValue::Decimal128(Some(v), p, s), _) => Transformed::yes(
                        datafusion::logical_expr::lit(ScalarValue::Decimal128(Some(-v), p, s)),
                    ),
                    Expr::Literal(ScalarValue::Int64(Some(v)), _) if v != i64::MIN => {
                        Transformed::yes(datafusion::logical_expr::lit(ScalarValue::Int64(Some(
                            -v,
                        ))))
                    }
                    other => Transformed::no(Expr::Negative(Box::new(other))),
                }
            }
            Expr::Literal(ScalarValue::Decimal128(Some(v), _, scale), _) if scale < 0 => {
                let shifted = 10i128
                    .checked_pow(u32::from(scale.unsigned_abs()))
                    .and_then(|m| v.checked_mul(m));
                Transformed::yes(match shifted {
                    Some(x) => {
                        let precision = u8::try_from(x.unsigned_abs().to_string().len())
                            .unwrap_or(38)
                            .clamp(1, 38);
                        datafusion::logical_expr::lit(ScalarValue::Decimal128(
                            Some(x),
                            precision,
                            0,
                        ))
                    }
                    None => datafusion::logical_expr::lit(ScalarValue::Float64(
                        format!("{v}e{}", -i32::from(scale)).parse().ok(),
                    )),
                })
            }
            other => Transformed::no(other),
        })
    })
    .map(|t| t.data)
    .map_err(|e| OracleError::Predicate(one_line(&e.to_string())))
}

/// The 64-bit integer a decimal literal's exact text (from [`literal_decimal_text`]) denotes,
/// `None` when it has a fraction or does not fit.
fn integral_i64(text: &str) -> Option<i64> {
    if let Some((mantissa, exponent)) = text.split_once('e') {
        let shift = u32::try_from(exponent.parse::<i64>().ok()?).ok()?;
        return mantissa
            .parse::<i64>()
            .ok()?
            .checked_mul(10i64.checked_pow(shift)?);
    }
    match text.split_once('.') {
        Some((int, frac)) if frac.bytes().all(|b| b == b'0') => int.parse().ok(),
        Some(_) => None,
        None => text.parse().ok(),
    }
}
