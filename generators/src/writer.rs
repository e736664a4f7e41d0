//! Writing a table: Parquet data files through the `parquet` crate, the JSON log and the
//! checkpoints written here (no Delta library involved). Every byte follows from the spec:
//! one seeded generator, fixed timestamps and ids, sorted JSON keys.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef};
use arrow::json::ReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use crate::spec::{
    Checkpoint, ColumnSpec, Hint, Kind, MappingMode, StringTruncation, TableSpec, Widening,
};
use crate::stats::file_stats;
use crate::values::{
    Cell, apply_quirks, arrow_type, column_cells, convert_cell, partition_value_text, to_array,
    window,
};

/// What was written: every data file with its cells, for tests and literal pools.
#[derive(Clone, Debug)]
pub struct WrittenTable {
    pub root: PathBuf,
    pub version: u64,
    pub files: Vec<WrittenFile>,
}

#[derive(Clone, Debug)]
pub struct WrittenFile {
    /// The path in the log (relative to the root).
    pub path: String,
    /// Partition values by column (`None`: NULL).
    pub partition: Vec<(String, Option<String>)>,
    /// The data columns' cells, in `TableSpec::data_columns` order.
    pub cells: Vec<Vec<Cell>>,
    pub stats: Option<String>,
    pub removed: bool,
}

/// Writer settings: uncompressed, and row groups of at most `rows_per_row_group` rows.
fn props(rows_per_row_group: Option<usize>) -> WriterProperties {
    let builder = WriterProperties::builder()
        .set_created_by("delta-explain generators".into())
        .set_compression(Compression::UNCOMPRESSED);
    match rows_per_row_group {
        Some(rows) => builder.set_max_row_group_row_count(Some(rows.max(1))),
        None => builder,
    }
    .build()
}

fn io(path: &Path, e: impl std::fmt::Display) -> String {
    format!("{}: {e}", path.display())
}

/// Which of a changing table's schemas a metaData action carries.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// The schema the table was written under: the names before [`Mapping::renamed`]'s
    /// rename, the kinds before [`Widening`]'s change.
    Before,
    /// The spec's names and kinds.
    After,
}

/// `spec` with the names and kinds its table carries at `version` (the written table's log:
/// version 0 holds the protocol and the first metaData, version 1 the first adds, and a
/// renamed or widened table's change is version 2, [`Widening::VERSION`]).
pub fn spec_at(spec: &TableSpec, version: u64) -> TableSpec {
    let mut at = spec.clone();
    if let Some(m) = spec
        .quirks
        .mapping
        .as_ref()
        .filter(|m| m.renamed && version < Widening::VERSION)
    {
        for c in &mut at.columns {
            c.name = m.name_before(spec, &c.name);
        }
    }
    if spec.quirks.widening.is_some() && version < Widening::VERSION {
        narrow_kinds(&mut at);
    }
    at
}

/// Every column of `spec` in its kind before a [`Widening`].
fn narrow_kinds(spec: &mut TableSpec) {
    let spec_widening = spec.quirks.widening.clone();
    for c in &mut spec.columns {
        c.kind = spec_widening
            .as_ref()
            .and_then(|w| w.before(c))
            .unwrap_or(c.kind);
    }
}

/// `written` as a reader of version `version` of `spec`'s table sees it: the files added by
/// then, their cells in that version's kinds ([`spec_at`]), NULL in a column added again
/// after them.
pub fn written_at(spec: &TableSpec, written: &WrittenTable, version: u64) -> WrittenTable {
    let at = spec_at(spec, version);
    let first_commit = first_commit_files(spec, written.files.len());
    let files = written
        .files
        .iter()
        .enumerate()
        .filter(|(i, _)| added_at(spec, i / first_commit) <= version)
        .map(|(i, f)| {
            let mut f = f.clone();
            if let Some(readded) = readded_column(spec)
                && version >= Widening::VERSION
                && i < first_commit
            {
                let at = spec.columns[..readded]
                    .iter()
                    .filter(|c| !c.partition)
                    .count();
                f.cells[at].iter_mut().for_each(|c| *c = Cell::Null);
            }
            for ((cells, wide), narrow) in f
                .cells
                .iter_mut()
                .zip(spec.data_columns())
                .zip(at.data_columns())
            {
                for cell in cells.iter_mut() {
                    *cell = convert_cell(wide.kind, narrow.kind, cell);
                }
            }
            f
        })
        .collect();
    WrittenTable {
        root: written.root.clone(),
        version: version.min(written.version),
        files,
    }
}

/// The version that adds the `k`-th commit of adds of `spec`'s table (after version 0's
/// protocol and metaData, and a renamed or widened table's change after the first).
fn added_at(spec: &TableSpec, k: usize) -> u64 {
    1 + k as u64 + u64::from(schema_changes(spec) && k >= 1)
}

/// Whether `spec`'s table changes its schema or its statistics settings after its first
/// commit of adds.
pub(crate) fn schema_changes(spec: &TableSpec) -> bool {
    let mapping = spec.quirks.mapping.as_ref();
    spec.quirks.widening.is_some()
        || spec.quirks.stats_before.is_some()
        || mapping.is_some_and(|m| m.renamed || m.readded)
}

/// The statistics policy in effect at `stage`.
fn policy_at(spec: &TableSpec, stage: Stage) -> &crate::spec::StatsPolicy {
    match (&spec.quirks.stats_before, stage) {
        (Some(before), Stage::Before) => before,
        _ => &spec.stats,
    }
}

/// The statistics policy of the files written at `stage`, naming columns as those files do:
/// the policy names the spec's columns by their (logical) names; under column mapping the
/// files record statistics under the physical names, as a writer resolves
/// `delta.dataSkippingStatsColumns` through the schema.
pub(crate) fn policy_on_disk(spec: &TableSpec, stage: Stage) -> crate::spec::StatsPolicy {
    let mut policy = policy_at(spec, stage).clone();
    if spec.quirks.mapping.is_none() {
        return policy;
    }
    let physical = |name: &mut String| {
        if let Some(i) = spec.columns.iter().position(|c| c.name == *name) {
            *name = physical_name_at(spec, i, stage);
        }
    };
    policy.missing_columns.iter_mut().for_each(physical);
    if let Some(names) = policy.stats_columns.as_mut() {
        names.iter_mut().for_each(physical);
    }
    policy
}

/// How many of `files` files the first commit of adds holds.
fn first_commit_files(spec: &TableSpec, files: usize) -> usize {
    files.div_ceil(spec.log.commits.max(1)).max(1)
}

/// The physical name of the spec's `i`-th column under column mapping (Spark's are
/// `col-<uuid>`; these are as opaque, and reproducible from the seed).
fn physical_name(spec: &TableSpec, i: usize) -> String {
    let salt = (spec.seed as u32).wrapping_mul(0x9E37_79B1);
    format!(
        "col-{:08x}-{i}",
        salt ^ (i as u32).wrapping_mul(0x85EB_CA6B)
    )
}

/// The column [`Mapping::readded`] drops and adds again: the last data column that is not a
/// struct, past the first two (which a rename swaps).
fn readded_column(spec: &TableSpec) -> Option<usize> {
    spec.quirks.mapping.as_ref().filter(|m| m.readded)?;
    spec.columns
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.partition)
        .skip(2)
        .filter(|(_, c)| c.kind != Kind::Struct)
        .last()
        .map(|(i, _)| i)
}

/// Whether the `i`-th column at `stage` is the column added again (a new id and physical name).
fn is_readded(spec: &TableSpec, i: usize, stage: Stage) -> bool {
    stage == Stage::After && readded_column(spec) == Some(i)
}

/// The `delta.columnMapping.id` of the spec's `i`-th column at `stage`.
fn column_id(spec: &TableSpec, i: usize, stage: Stage) -> usize {
    if is_readded(spec, i, stage) {
        max_column_id(spec) + 1
    } else {
        i + 1
    }
}

/// The physical name of the spec's `i`-th column at `stage`.
fn physical_name_at(spec: &TableSpec, i: usize, stage: Stage) -> String {
    let name = physical_name(spec, i);
    if is_readded(spec, i, stage) {
        format!("{name}-r")
    } else {
        name
    }
}

/// The spec as the files written at `stage` name its columns: their physical names under
/// column mapping.
fn on_disk(spec: &TableSpec, stage: Stage) -> TableSpec {
    let mut disk = spec.clone();
    if spec.quirks.mapping.is_some() {
        for (i, c) in disk.columns.iter_mut().enumerate() {
            c.name = physical_name_at(spec, i, stage);
        }
    }
    disk
}

/// The largest `delta.columnMapping.id`: one per column, then one per struct field.
fn max_column_id(spec: &TableSpec) -> usize {
    spec.columns.len()
        + 2 * spec
            .columns
            .iter()
            .filter(|c| c.kind == Kind::Struct)
            .count()
}

/// The table's `schemaString` (its names after any rename).
pub fn schema_string(spec: &TableSpec) -> String {
    schema_string_at(spec, Stage::After)
}

fn schema_string_at(spec: &TableSpec, stage: Stage) -> String {
    let mapping = spec.quirks.mapping.as_ref();
    let mut nested_id = spec.columns.len();
    let fields: Vec<Value> = spec
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut meta = field_metadata(spec, c);
            let mut kind = c.kind.delta_type();
            let mut name = c.name.clone();
            if let Some(from) = spec.quirks.widening.as_ref().and_then(|w| w.before(c)) {
                match stage {
                    Stage::Before => kind = from.delta_type(),
                    Stage::After => {
                        meta["delta.typeChanges"] = json!([{
                            "tableVersion": Widening::VERSION,
                            "fromType": from.delta_type(),
                            "toType": c.kind.delta_type(),
                        }]);
                    }
                }
            }
            if let Some(m) = mapping {
                if stage == Stage::Before {
                    name = m.name_before(spec, &c.name);
                }
                meta["delta.columnMapping.id"] = json!(column_id(spec, i, stage));
                meta["delta.columnMapping.physicalName"] = json!(physical_name_at(spec, i, stage));
                if let Some(nested) = kind.get_mut("fields").and_then(Value::as_array_mut) {
                    for field in nested {
                        nested_id += 1;
                        let physical = field["name"].as_str().unwrap_or_default().to_string();
                        if stage == Stage::Before && m.renamed {
                            field["name"] = json!(format!("{physical}_v0"));
                        }
                        field["metadata"] = json!({
                            "delta.columnMapping.id": nested_id,
                            "delta.columnMapping.physicalName": physical,
                        });
                    }
                }
            }
            json!({"name": name, "type": kind, "nullable": true, "metadata": meta})
        })
        .collect();
    json!({"type": "struct", "fields": fields}).to_string()
}

/// A field's metadata: Spark's CHAR type and a collation, on string data columns under the
/// quirks that declare them.
fn field_metadata(spec: &TableSpec, column: &crate::spec::ColumnSpec) -> Value {
    let mut meta = serde_json::Map::new();
    if column.kind == Kind::String && !column.partition {
        if let Some(n) = spec.quirks.char_length {
            meta.insert(
                "__CHAR_VARCHAR_TYPE_STRING".into(),
                json!(format!("char({n})")),
            );
        }
        if let Some(c) = &spec.quirks.collation {
            meta.insert("__COLLATIONS".into(), json!({ column.name.clone(): c }));
        }
    }
    Value::Object(meta)
}

fn protocol(spec: &TableSpec) -> Value {
    if spec.quirks.collation.is_some() {
        return delta_commit::protocol(&[], &["collations-preview"]);
    }
    let mut features = Vec::new();
    if spec.columns.iter().any(|c| c.kind == Kind::TimestampNtz) {
        features.push("timestampNtz");
    }
    if matches!(spec.log.checkpoint, Checkpoint::V2Sidecars(_)) {
        features.push("v2Checkpoint");
    }
    if spec.quirks.mapping.is_some() {
        features.push("columnMapping");
    }
    if spec.quirks.widening.is_some() {
        features.push("typeWidening");
    }
    delta_commit::protocol(&features, &features)
}

fn metadata(spec: &TableSpec, stage: Stage) -> Value {
    let mut configuration = serde_json::Map::new();
    let stats = policy_at(spec, stage);
    if spec.quirks.widening.is_some() {
        configuration.insert("delta.enableTypeWidening".into(), json!("true"));
    }
    if let Some(m) = &spec.quirks.mapping {
        let mode = match m.mode {
            MappingMode::Name => "name",
            MappingMode::Id => "id",
        };
        configuration.insert("delta.columnMapping.mode".into(), json!(mode));
        configuration.insert(
            "delta.columnMapping.maxColumnId".into(),
            json!(
                (max_column_id(spec)
                    + usize::from(readded_column(spec).is_some() && stage == Stage::After))
                .to_string()
            ),
        );
    }
    if let Some(n) = stats.num_indexed_cols {
        configuration.insert(
            "delta.dataSkippingNumIndexedCols".into(),
            json!(n.to_string()),
        );
    }
    if let Some(names) = &stats.stats_columns {
        // Logical names, as they read at `stage` (a rename renames the property's entries, as
        // Delta Spark does).
        let names: Vec<String> = match (&spec.quirks.mapping, stage) {
            (Some(m), Stage::Before) => names.iter().map(|n| m.name_before(spec, n)).collect(),
            _ => names.clone(),
        };
        configuration.insert(
            "delta.dataSkippingStatsColumns".into(),
            json!(names.join(",")),
        );
    }
    if let Some(StringTruncation::SparkStyle(n) | StringTruncation::BarePrefix(n)) =
        stats.string_prefix
    {
        configuration.insert(
            "delta.dataSkippingStringPrefixLength".into(),
            json!(n.to_string()),
        );
    }
    if spec.log.checkpoint == Checkpoint::StructStatsOnly {
        configuration.insert("delta.checkpoint.writeStatsAsJson".into(), json!("false"));
        configuration.insert("delta.checkpoint.writeStatsAsStruct".into(), json!("true"));
    }
    let partition_columns: Vec<String> = spec
        .partition_columns()
        .iter()
        .map(|c| match (&spec.quirks.mapping, stage) {
            (Some(m), Stage::Before) => m.name_before(spec, &c.name),
            _ => c.name.clone(),
        })
        .collect();
    let partition_columns: Vec<&str> = partition_columns.iter().map(String::as_str).collect();
    delta_commit::metadata(
        &format!("generated-{}-{}", spec.name, spec.seed),
        &schema_string_at(spec, stage),
        &partition_columns,
        configuration,
    )
}

/// The Parquet schema of `disk`'s data columns at `stage`: under column mapping in `id` mode the
/// fields carry their ids (and, with `parquet_names`, names unlike the physical ones).
pub(crate) fn parquet_schema(logical: &TableSpec, disk: &TableSpec, stage: Stage) -> SchemaRef {
    let mapping = logical.quirks.mapping.as_ref();
    let field_ids = mapping.is_some_and(|m| m.mode == MappingMode::Id);
    let parquet_names = field_ids && mapping.is_some_and(|m| m.parquet_names);
    Arc::new(Schema::new(
        disk.columns
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.partition)
            .map(|(i, c)| {
                // Under `id` mode readers find a column by its field id, whatever its name.
                let name = if parquet_names {
                    format!("parquet_{i}")
                } else {
                    c.name.clone()
                };
                let field = Field::new(name, arrow_type(c.kind), true);
                if field_ids {
                    field.with_metadata(
                        [(
                            parquet::arrow::PARQUET_FIELD_ID_META_KEY.to_string(),
                            column_id(logical, i, stage).to_string(),
                        )]
                        .into(),
                    )
                } else {
                    field
                }
            })
            .collect::<Vec<_>>(),
    ))
}

/// The checkpoint `spec.log` asks for at `version`, of the `live` files.
fn write_last_checkpoint(
    logical: &TableSpec,
    spec: &TableSpec,
    log: &Path,
    version: u64,
    live: &[AddRow],
) -> Result<(), String> {
    let actions = [protocol(logical), metadata(logical, Stage::After)];
    match spec.log.checkpoint {
        Checkpoint::None => {}
        Checkpoint::Classic => write_checkpoint(log, version, &actions, live, 1)?,
        Checkpoint::MultiPart(parts) => write_checkpoint(log, version, &actions, live, parts)?,
        Checkpoint::StructStatsOnly => write_checkpoint_with(
            log,
            version,
            &actions,
            live,
            1,
            &CheckpointStats::StructOnly(stats_struct(spec)),
        )?,
        Checkpoint::V2Sidecars(sidecars) => {
            write_v2_checkpoint(log, version, &actions, live, sidecars, spec.seed)?
        }
    }
    Ok(())
}

/// The table's commits: protocol and metadata, the adds over `spec.log.commits` commits (a
/// changing schema changed after the first, with the narrow checkpoint a widening may ask
/// for), then the removes. Returns the last version; marks the removed files.
fn write_commits(
    logical: &TableSpec,
    spec: &TableSpec,
    before: &TableSpec,
    root: &Path,
    first_commit: usize,
    files: &mut [WrittenFile],
) -> Result<u64, String> {
    let log = root.join("_delta_log");
    let changes = schema_changes(logical);
    let widening = logical.quirks.widening.as_ref();
    // Commit 0: protocol and metadata; then the adds over `commits` commits; then removes.
    // A renamed or widened table is written under its first schema, changed after its first
    // commit of adds (version 2, [`Widening::VERSION`]).
    let first = if changes { Stage::Before } else { Stage::After };
    let mut commits: Vec<Vec<Value>> = vec![vec![protocol(logical), metadata(logical, first)]];
    for (k, chunk) in files.chunks(first_commit).enumerate() {
        commits.push(
            chunk
                .iter()
                .map(|f| add_action(root, f))
                .collect::<Result<_, _>>()?,
        );
        if k == 0 && widening.is_some_and(|w| w.checkpoint_before) {
            // The narrow checkpoint of version 1: statistics as narrow `stats_parsed` only.
            let live = chunk
                .iter()
                .map(|f| add_row(root, f))
                .collect::<Result<Vec<_>, String>>()?;
            write_checkpoint_with(
                &log,
                1,
                &[protocol(logical), metadata(logical, Stage::Before)],
                &live,
                1,
                &CheckpointStats::StructOnly(stats_struct(before)),
            )?;
        }
        if k == 0 && changes {
            commits.push(vec![metadata(logical, Stage::After)]);
        }
    }
    let removed: Vec<usize> = spec
        .log
        .removed_files
        .iter()
        .copied()
        .filter(|i| *i < files.len())
        .collect();
    if !removed.is_empty() {
        commits.push(
            removed
                .iter()
                .map(|&i| delta_commit::remove(&files[i].path))
                .collect(),
        );
        for &i in &removed {
            files[i].removed = true;
        }
    }
    for (version, actions) in commits.iter().enumerate() {
        delta_commit::write_commit(&log, version as u64, actions)
            .map_err(|e| io(&delta_commit::commit_path(&log, version as u64), e))?;
    }
    Ok((commits.len() - 1) as u64)
}

/// The partition values of `slot` and the folder Spark and delta-rs name for them.
fn partition_of(
    spec: &TableSpec,
    partition_columns: &[&ColumnSpec],
    slot: usize,
) -> (Vec<(String, Option<String>)>, String) {
    // Slot 0 is the NULL partition when the spec asks for nulls.
    let null_partition = slot == 0 && spec.null_fraction > 0.0;
    let partition: Vec<(String, Option<String>)> = partition_columns
        .iter()
        .map(|c| {
            (
                c.name.clone(),
                (!null_partition).then(|| partition_value_text(spec, c.kind, slot)),
            )
        })
        .collect();
    // Folders named as Spark and delta-rs name them: each column's value, escaped, and
    // NULL as Hive's default partition (readers that take values from folder names read
    // what the log says).
    let dir: String = partition
        .iter()
        .map(|(name, value)| {
            let value = value
                .as_deref()
                .map_or_else(|| HIVE_DEFAULT_PARTITION.to_string(), escape_path_name);
            format!("{}={value}/", escape_path_name(name))
        })
        .collect();
    (partition, dir)
}

/// One Parquet file of `cells`, one column each, at `full` (its folders created).
pub(crate) fn write_parquet(
    full: &Path,
    schema: &SchemaRef,
    columns: &[&ColumnSpec],
    cells: &[Vec<Cell>],
    rows_per_row_group: Option<usize>,
) -> Result<(), String> {
    std::fs::create_dir_all(full.parent().unwrap_or(full)).map_err(|e| io(full, e))?;
    let arrays = columns
        .iter()
        .zip(cells)
        .map(|(c, cells)| to_array(c.kind, cells))
        .collect();
    let batch = RecordBatch::try_new(schema.clone(), arrays).map_err(|e| io(full, e))?;
    let file = std::fs::File::create(full).map_err(|e| io(full, e))?;
    let mut writer = ArrowWriter::try_new(file, schema.clone(), Some(props(rows_per_row_group)))
        .map_err(|e| io(full, e))?;
    writer.write(&batch).map_err(|e| io(full, e))?;
    writer.close().map_err(|e| io(full, e))?;
    Ok(())
}

/// Writes `spec` into `root` (created if needed; must hold no table yet).
pub fn write_table(spec: &TableSpec, root: &Path) -> Result<WrittenTable, String> {
    let log = root.join("_delta_log");
    std::fs::create_dir_all(&log).map_err(|e| io(&log, e))?;
    if std::fs::read_dir(&log)
        .map_err(|e| io(&log, e))?
        .next()
        .is_some()
    {
        return Err(format!("{} already holds a Delta log", root.display()));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    // The files, statistics and partition values name columns as `disk` does; the log's
    // metaData actions as `spec` does.
    let logical = spec;
    let disk = on_disk(spec, Stage::After);
    let spec = &disk;
    let data_columns = spec.data_columns();
    let partition_columns = spec.partition_columns();
    // A table whose schema changes after its first commit of adds writes that commit's files
    // as its first schema says: the kinds before a widening, the physical names before a
    // column is added again.
    let widening = logical.quirks.widening.as_ref();
    let changes = schema_changes(logical);
    let mut before = on_disk(logical, Stage::Before);
    if widening.is_some() {
        narrow_kinds(&mut before);
    }
    let before_columns = before.data_columns();
    let schema = parquet_schema(logical, &disk, Stage::After);
    let before_schema = parquet_schema(logical, &before, Stage::Before);
    let slots = if partition_columns.is_empty() {
        1
    } else {
        spec.partition_values.max(1)
    };
    let total_files = slots * spec.files_per_partition.max(1);
    let first_commit = first_commit_files(spec, total_files);
    let mut files = Vec::with_capacity(total_files);
    for slot in 0..slots {
        let (partition, dir) = partition_of(spec, &partition_columns, slot);
        for f in 0..spec.files_per_partition.max(1) {
            let index = files.len();
            let (columns, schema) = if changes && index < first_commit {
                (&before_columns, &before_schema)
            } else {
                (&data_columns, &schema)
            };
            let cells: Vec<Vec<Cell>> = columns
                .iter()
                .map(|c| {
                    let w = window(spec.layout, index, total_files, &mut rng);
                    let mut cells = column_cells(
                        c.kind,
                        spec.rows_per_file,
                        w,
                        spec.null_fraction,
                        spec.special_values,
                        &mut rng,
                    );
                    apply_quirks(c.kind, &mut cells, &spec.quirks);
                    if spec.quirks.null_files && f == 0 {
                        cells.iter_mut().for_each(|cell| *cell = Cell::Null);
                    }
                    cells
                })
                .collect();
            // The log names the file by a URI (its `%` and spaces encoded).
            let local = format!("{dir}part-{index:05}-{f}.parquet");
            let path = uri_encode(&local);
            write_parquet(
                &root.join(&local),
                schema,
                columns,
                &cells,
                spec.rows_per_row_group,
            )?;
            let stage = if changes && index < first_commit {
                Stage::Before
            } else {
                Stage::After
            };
            let stats = file_stats(
                index,
                columns,
                &cells,
                spec.rows_per_file,
                &policy_on_disk(logical, stage),
            );
            // Cells are recorded in the spec's kinds.
            let cells = cells
                .iter()
                .zip(columns.iter().zip(&data_columns))
                .map(|(cells, (was, is))| {
                    cells
                        .iter()
                        .map(|c| convert_cell(was.kind, is.kind, c))
                        .collect()
                })
                .collect();
            files.push(WrittenFile {
                path,
                partition: partition.clone(),
                cells,
                stats,
                removed: false,
            });
        }
    }
    let version = write_commits(logical, spec, &before, root, first_commit, &mut files)?;
    let live: Vec<AddRow> = files
        .iter()
        .filter(|f| !f.removed)
        .map(|f| add_row(root, f))
        .collect::<Result<_, String>>()?;
    write_last_checkpoint(logical, spec, &log, version, &live)?;
    write_hint(&log, version, spec.log.hint)?;
    // The written files' partition values under the spec's (logical) names.
    for f in &mut files {
        for (name, _) in &mut f.partition {
            if let Some(i) = disk.columns.iter().position(|c| &c.name == name) {
                *name = logical.columns[i].name.clone();
            }
        }
    }
    Ok(WrittenTable {
        root: root.to_path_buf(),
        version,
        files,
    })
}

/// `f` as a checkpoint's add row.
fn add_row(root: &Path, f: &WrittenFile) -> Result<AddRow, String> {
    let full = local_file(root, &f.path);
    Ok(AddRow {
        path: f.path.clone(),
        partition_values: f.partition.clone(),
        size: std::fs::metadata(&full).map_err(|e| io(&full, e))?.len() as i64,
        stats: f.stats.clone(),
    })
}

/// The folder name of a NULL partition value (Hive's, which Spark and delta-rs write).
const HIVE_DEFAULT_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";

/// `text` as a partition folder name, as Spark escapes it (`escapePathName`): the characters
/// a path or Hive treats specially, and control characters, as `%XX`.
fn escape_path_name(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let special = matches!(
            c,
            '"' | '#'
                | '%'
                | '\''
                | '*'
                | '/'
                | ':'
                | '='
                | '?'
                | '\\'
                | '\u{7F}'
                | '{'
                | '['
                | ']'
                | '^'
        ) || (c as u32) < 0x20;
        if special {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// A relative path as the log names it: a URI, so `%`, spaces and characters outside ASCII's
/// printable range are percent-encoded (as Spark's `Path.toUri` and delta-rs write them).
fn uri_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if c.is_ascii_graphic()
            && !matches!(
                c,
                '%' | '"' | '<' | '>' | '\\' | '^' | '`' | '{' | '|' | '}' | '#' | '?'
            )
        {
            out.push(c);
        } else {
            let mut bytes = [0u8; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// The local file a log path (a relative URI) names.
fn local_file(root: &Path, log_path: &str) -> PathBuf {
    let bytes = log_path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    root.join(String::from_utf8_lossy(&out).as_ref())
}

pub(crate) fn add_action(root: &Path, f: &WrittenFile) -> Result<Value, String> {
    let full = local_file(root, &f.path);
    let size = std::fs::metadata(&full).map_err(|e| io(&full, e))?.len();
    Ok(delta_commit::add(
        &f.path,
        &f.partition,
        size,
        f.stats.as_deref(),
        Default::default(),
    ))
}

/// How a checkpoint records each add's statistics.
pub enum CheckpointStats {
    /// The JSON string `add.stats`, as most writers do.
    Json,
    /// Only the typed struct `add.stats_parsed` of this type; no `add.stats` column.
    StructOnly(DataType),
}

/// The type of `add.stats_parsed` for `spec`: `numRecords`, and per data column its bounds in
/// the column's own type and its null count (a struct column's per field). Booleans carry no
/// bounds, as in the writers' statistics.
fn stats_struct(spec: &TableSpec) -> DataType {
    let data: Vec<_> = spec.columns.iter().filter(|c| !c.partition).collect();
    let bounds: Vec<Field> = data
        .iter()
        .filter(|c| c.kind != Kind::Boolean)
        .map(|c| Field::new(&c.name, arrow_type(c.kind), true))
        .collect();
    let null_counts: Vec<Field> = data
        .iter()
        .map(|c| match arrow_type(c.kind) {
            DataType::Struct(fields) => Field::new(
                &c.name,
                DataType::Struct(
                    fields
                        .iter()
                        .map(|f| Field::new(f.name(), DataType::Int64, true))
                        .collect(),
                ),
                true,
            ),
            _ => Field::new(&c.name, DataType::Int64, true),
        })
        .collect();
    DataType::Struct(Fields::from(vec![
        Field::new("numRecords", DataType::Int64, true),
        Field::new("minValues", DataType::Struct(bounds.clone().into()), true),
        Field::new("maxValues", DataType::Struct(bounds.into()), true),
        Field::new("nullCount", DataType::Struct(null_counts.into()), true),
    ]))
}

/// The checkpoint schema the generator writes: the actions replay needs.
fn checkpoint_schema(stats: &CheckpointStats) -> SchemaRef {
    let string_map = || {
        DataType::Map(
            Arc::new(Field::new(
                "key_value",
                DataType::Struct(Fields::from(vec![
                    Field::new("key", DataType::Utf8, false),
                    Field::new("value", DataType::Utf8, true),
                ])),
                false,
            )),
            false,
        )
    };
    let add = Field::new(
        "add",
        DataType::Struct(Fields::from(vec![
            Field::new("path", DataType::Utf8, true),
            Field::new("partitionValues", string_map(), true),
            Field::new("size", DataType::Int64, true),
            Field::new("modificationTime", DataType::Int64, true),
            Field::new("dataChange", DataType::Boolean, true),
            match stats {
                CheckpointStats::Json => Field::new("stats", DataType::Utf8, true),
                CheckpointStats::StructOnly(parsed) => {
                    Field::new("stats_parsed", parsed.clone(), true)
                }
            },
        ])),
        true,
    );
    let metadata = Field::new(
        "metaData",
        DataType::Struct(Fields::from(vec![
            Field::new("id", DataType::Utf8, true),
            Field::new(
                "format",
                DataType::Struct(Fields::from(vec![
                    Field::new("provider", DataType::Utf8, true),
                    Field::new("options", string_map(), true),
                ])),
                true,
            ),
            Field::new("schemaString", DataType::Utf8, true),
            Field::new(
                "partitionColumns",
                DataType::List(Arc::new(Field::new("element", DataType::Utf8, true))),
                true,
            ),
            Field::new("configuration", string_map(), true),
            Field::new("createdTime", DataType::Int64, true),
        ])),
        true,
    );
    let protocol = Field::new(
        "protocol",
        DataType::Struct(Fields::from(vec![
            Field::new("minReaderVersion", DataType::Int32, true),
            Field::new("minWriterVersion", DataType::Int32, true),
            Field::new(
                "readerFeatures",
                DataType::List(Arc::new(Field::new("element", DataType::Utf8, true))),
                true,
            ),
            Field::new(
                "writerFeatures",
                DataType::List(Arc::new(Field::new("element", DataType::Utf8, true))),
                true,
            ),
        ])),
        true,
    );
    Arc::new(Schema::new(vec![add, metadata, protocol]))
}

/// One add action of a checkpoint.
#[derive(Clone, Debug)]
pub struct AddRow {
    pub path: String,
    pub partition_values: Vec<(String, Option<String>)>,
    pub size: i64,
    pub stats: Option<String>,
}

/// The add rows as a checkpoint batch (the other action columns NULL), built column by column:
/// a million adds take seconds, not the minutes a JSON round trip would.
fn adds_batch(schema: &SchemaRef, adds: &[AddRow]) -> Result<RecordBatch, String> {
    use arrow::array::{
        Array, ArrayRef, BooleanArray, Int64Array, MapBuilder, StringArray, StringBuilder,
        StructArray, new_null_array,
    };
    let DataType::Struct(add_fields) = schema.field(0).data_type() else {
        return Err("add is a struct".into());
    };
    let mut partitions = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new());
    for add in adds {
        for (k, v) in &add.partition_values {
            partitions.keys().append_value(k);
            partitions.values().append_option(v.as_deref());
        }
        partitions.append(true).map_err(|e| e.to_string())?;
    }
    let partitions = partitions.finish();
    let DataType::Map(entries, _) = add_fields[1].data_type() else {
        return Err("partitionValues is a map".into());
    };
    // The builder names its entries differently; rebuild with the schema's field names.
    let partitions = arrow::array::MapArray::try_new(
        entries.clone(),
        partitions.offsets().clone(),
        StructArray::try_new(
            match entries.data_type() {
                DataType::Struct(f) => f.clone(),
                _ => return Err("map entries".into()),
            },
            vec![partitions.keys().clone(), partitions.values().clone()],
            None,
        )
        .map_err(|e| e.to_string())?,
        partitions.nulls().cloned(),
        false,
    )
    .map_err(|e| e.to_string())?;
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(
            adds.iter().map(|a| a.path.as_str()),
        )),
        Arc::new(partitions),
        Arc::new(Int64Array::from_iter_values(adds.iter().map(|a| a.size))),
        Arc::new(Int64Array::from_iter_values(adds.iter().map(|_| 0))),
        Arc::new(BooleanArray::from(vec![true; adds.len()])),
        match add_fields[5].data_type() {
            DataType::Utf8 => Arc::new(
                adds.iter()
                    .map(|a| a.stats.as_deref())
                    .collect::<StringArray>(),
            ),
            parsed => parsed_stats(parsed, adds)?,
        },
    ];
    let add = StructArray::try_new(add_fields.clone(), columns, None).map_err(|e| e.to_string())?;
    RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(add),
            new_null_array(schema.field(1).data_type(), adds.len()),
            new_null_array(schema.field(2).data_type(), adds.len()),
        ],
    )
    .map_err(|e| e.to_string())
}

/// The adds' JSON statistics read into the struct `parsed` (`stats_parsed`): a file without
/// statistics gets a null struct.
fn parsed_stats(parsed: &DataType, adds: &[AddRow]) -> Result<arrow::array::ArrayRef, String> {
    use arrow::array::{Array, StructArray};
    use arrow::buffer::NullBuffer;
    let DataType::Struct(fields) = parsed else {
        return Err("stats_parsed is a struct".into());
    };
    let text: String = adds
        .iter()
        .map(|a| a.stats.as_deref().unwrap_or("{}").to_string() + "\n")
        .collect();
    let reader = ReaderBuilder::new(Arc::new(Schema::new(fields.clone())))
        .with_batch_size(adds.len().max(1))
        .build(Cursor::new(text.into_bytes()))
        .map_err(|e| e.to_string())?;
    let mut batches = Vec::new();
    for batch in reader {
        batches.push(batch.map_err(|e| format!("statistics as stats_parsed: {e}"))?);
    }
    let schema = Arc::new(Schema::new(fields.clone()));
    let all = arrow::compute::concat_batches(&schema, &batches).map_err(|e| e.to_string())?;
    let present = NullBuffer::from(adds.iter().map(|a| a.stats.is_some()).collect::<Vec<_>>());
    let array = StructArray::try_new(fields.clone(), all.columns().to_vec(), Some(present))
        .map_err(|e| e.to_string())?;
    debug_assert_eq!(array.len(), adds.len());
    Ok(Arc::new(array))
}

/// Writes a checkpoint of `head` (protocol, metadata) and `adds` at `version`, in `parts`
/// Parquet files (a classic checkpoint when 1), and `_last_checkpoint`.
pub fn write_checkpoint(
    log: &Path,
    version: u64,
    head: &[Value],
    adds: &[AddRow],
    parts: usize,
) -> Result<(), String> {
    write_checkpoint_with(log, version, head, adds, parts, &CheckpointStats::Json)
}

/// [`write_checkpoint`], with the statistics recorded as `stats` says.
pub fn write_checkpoint_with(
    log: &Path,
    version: u64,
    head: &[Value],
    adds: &[AddRow],
    parts: usize,
    stats: &CheckpointStats,
) -> Result<(), String> {
    let schema = checkpoint_schema(stats);
    let parts = parts.clamp(1, adds.len().max(1));
    let per_part = adds.len().div_ceil(parts).max(1);
    let chunks: Vec<&[AddRow]> = if adds.is_empty() {
        vec![&[]]
    } else {
        adds.chunks(per_part).collect()
    };
    let n = chunks.len();
    for (i, chunk) in chunks.iter().enumerate() {
        let name = if n == 1 {
            format!("{version:020}.checkpoint.parquet")
        } else {
            format!("{version:020}.checkpoint.{:010}.{n:010}.parquet", i + 1)
        };
        let path = log.join(name);
        let file = std::fs::File::create(&path).map_err(|e| io(&path, e))?;
        let mut writer = ArrowWriter::try_new(file, schema.clone(), Some(props(None)))
            .map_err(|e| io(&path, e))?;
        if i == 0 {
            // Protocol and metadata go in the first part.
            let text: String = head.iter().map(|r| r.to_string() + "\n").collect();
            let reader = ReaderBuilder::new(schema.clone())
                .build(Cursor::new(text.into_bytes()))
                .map_err(|e| io(&path, e))?;
            for batch in reader {
                writer
                    .write(&batch.map_err(|e| io(&path, e))?)
                    .map_err(|e| io(&path, e))?;
            }
        }
        for rows in chunk.chunks(100_000) {
            writer
                .write(&adds_batch(&schema, rows).map_err(|e| io(&path, e))?)
                .map_err(|e| io(&path, e))?;
        }
        writer.close().map_err(|e| io(&path, e))?;
    }
    let mut hint = json!({"version": version, "size": head.len() + adds.len()});
    if n > 1 {
        hint["parts"] = json!(n);
    }
    let path = log.join("_last_checkpoint");
    std::fs::write(&path, hint.to_string()).map_err(|e| io(&path, e))
}

/// Writes a V2 checkpoint of `head` (protocol, metadata) and `adds` at `version`: the adds in
/// `sidecars` Parquet files under `_delta_log/_sidecars/`, and a UUID-named JSON manifest
/// holding the checkpoint metadata, `head` and a sidecar action per file (the UUID drawn
/// from `seed`); then `_last_checkpoint`.
pub fn write_v2_checkpoint(
    log: &Path,
    version: u64,
    head: &[Value],
    adds: &[AddRow],
    sidecars: usize,
    seed: u64,
) -> Result<(), String> {
    let schema = checkpoint_schema(&CheckpointStats::Json);
    let folder = log.join("_sidecars");
    std::fs::create_dir_all(&folder).map_err(|e| io(&folder, e))?;
    let per_file = adds.len().div_ceil(sidecars.max(1)).max(1);
    let mut manifest = vec![json!({"checkpointMetadata": {"version": version}})];
    manifest.extend(head.iter().cloned());
    for (i, chunk) in adds.chunks(per_file).enumerate() {
        let name = format!("{:08x}-0000-4000-8000-{:012x}.parquet", seed as u32, i + 1);
        let path = folder.join(&name);
        let file = std::fs::File::create(&path).map_err(|e| io(&path, e))?;
        let mut writer = ArrowWriter::try_new(file, schema.clone(), Some(props(None)))
            .map_err(|e| io(&path, e))?;
        writer
            .write(&adds_batch(&schema, chunk).map_err(|e| io(&path, e))?)
            .map_err(|e| io(&path, e))?;
        writer.close().map_err(|e| io(&path, e))?;
        let size = std::fs::metadata(&path).map_err(|e| io(&path, e))?.len();
        manifest.push(json!({"sidecar": {"path": name, "sizeInBytes": size,
            "modificationTime": 0}}));
    }
    let uuid = format!("{:08x}-1111-4000-8000-{version:012x}", seed as u32);
    let path = log.join(format!("{version:020}.checkpoint.{uuid}.json"));
    let text: String = manifest.iter().map(|a| a.to_string() + "\n").collect();
    std::fs::write(&path, text).map_err(|e| io(&path, e))?;
    let hint = json!({"version": version, "size": manifest.len()});
    let path = log.join("_last_checkpoint");
    std::fs::write(&path, hint.to_string()).map_err(|e| io(&path, e))
}

/// Leaves `_last_checkpoint` as `hint` says, over a log whose last commit is `version` (its
/// checkpoint, if any, written with an accurate hint already).
fn write_hint(log: &Path, version: u64, hint: Hint) -> Result<(), String> {
    let path = log.join("_last_checkpoint");
    match hint {
        Hint::Accurate => Ok(()),
        Hint::Absent => match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(&path, e)),
            _ => Ok(()),
        },
        // A write torn after its first bytes.
        Hint::Unreadable => std::fs::write(&path, "{\"version\": ").map_err(|e| io(&path, e)),
        Hint::Ahead(k) => std::fs::write(
            &path,
            json!({"version": version + k.max(1), "size": 2}).to_string(),
        )
        .map_err(|e| io(&path, e)),
    }
}

/// A table of `files` files with statistics and no data (for benchmarks of log replay and
/// pruning). Columns `id` (each file holds a disjoint range) and `value`; partitioned by `p`
/// over `partitions` values when `partitions > 0`. With `checkpoint`, commit 0 holds protocol
/// and metadata and a checkpoint at version 1 holds every add; without, the adds are spread
/// over JSON commits of `files_per_commit` adds.
pub fn write_metadata_only(
    root: &Path,
    files: usize,
    partitions: usize,
    checkpoint: bool,
    files_per_commit: usize,
) -> Result<u64, String> {
    let log = root.join("_delta_log");
    std::fs::create_dir_all(&log).map_err(|e| io(&log, e))?;
    let mut columns = vec![
        json!({"name": "id", "type": "long", "nullable": true, "metadata": {}}),
        json!({"name": "value", "type": "double", "nullable": true, "metadata": {}}),
    ];
    if partitions > 0 {
        columns.push(json!({"name": "p", "type": "string", "nullable": true, "metadata": {}}));
    }
    let head = [
        delta_commit::protocol(&[], &[]),
        delta_commit::metadata(
            &format!("metadata-only-{files}"),
            &delta_commit::schema_string(&columns),
            if partitions > 0 { &["p"] } else { &[] },
            Default::default(),
        ),
    ];
    let add = |i: usize| {
        let lo = i as i64 * 1000;
        AddRow {
            path: format!("part-{i:07}.parquet"),
            partition_values: if partitions > 0 {
                vec![("p".into(), Some(format!("p{}", i % partitions)))]
            } else {
                vec![]
            },
            size: 1_000_000,
            stats: Some(format!(
                "{{\"numRecords\":1000,\"minValues\":{{\"id\":{lo},\"value\":{}}},\"maxValues\":{{\"id\":{},\"value\":{}}},\"nullCount\":{{\"id\":0,\"value\":0}}}}",
                (i % 97) as f64,
                lo + 999,
                (i % 97) as f64 + 100.0
            )),
        }
    };
    let write_commit = |version: usize, lines: &[Value]| {
        delta_commit::write_commit(&log, version as u64, lines)
            .map(|_| ())
            .map_err(|e| io(&delta_commit::commit_path(&log, version as u64), e))
    };
    write_commit(0, &head)?;
    if checkpoint {
        let adds: Vec<AddRow> = (0..files).map(add).collect();
        write_checkpoint(&log, 1, &head, &adds, 1)?;
        return Ok(1);
    }
    let mut version = 0;
    for start in (0..files).step_by(files_per_commit.max(1)) {
        version += 1;
        let end = (start + files_per_commit.max(1)).min(files);
        let lines: Vec<Value> = (start..end)
            .map(|i| {
                let a = add(i);
                let partition: serde_json::Map<String, Value> =
                    a.partition_values.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                json!({"add": {"path": a.path, "partitionValues": partition, "size": a.size, "modificationTime": 0,
                    "dataChange": true, "stats": a.stats}})
            })
            .collect();
        write_commit(version, &lines)?;
    }
    Ok(version as u64)
}
