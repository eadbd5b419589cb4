//! `events --format parquet -w DIR`: one file set per (protocol, kind), hive-partitioned
//! (`protocol=quake3/kind=chat/part-0.parquet`), with the columns of `events -f json` (one
//! schema for every kind, docs/events.md). Events are few beside messages, so rows are encoded
//! on the calling thread, a row group every [`ROWS_PER_GROUP`] rows of a kind.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ::parquet::arrow::ArrowWriter;
use arrow_array::builder::{
    Float64Builder, MapBuilder, StringBuilder, TimestampNanosecondBuilder, UInt64Builder,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, TimeUnit};

use super::{GROUPS_PER_FILE, hive_escape, open_file, prepare_dir};
use crate::toolkit::facts::{Event, Label};

/// A kind's rows are written as a row group at this count, or at [`GROUP_BYTES`] of text,
/// whichever comes first (chat and print text from packets can be long).
pub const ROWS_PER_GROUP: usize = 65_536;
pub const GROUP_BYTES: usize = 4 << 20;

/// The columns of every event file, as `events -f json` names them; `protocol` and `kind` are
/// the partition directories.
pub fn event_schema() -> Arc<Schema> {
    let text = |name: &str| Field::new(name, DataType::Utf8, true);
    let details = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new())
        .finish()
        .data_type()
        .clone();
    Arc::new(Schema::new(vec![
        Field::new("capture", DataType::Utf8, false),
        Field::new("frame", DataType::UInt64, false),
        Field::new(
            "time",
            DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
            false,
        ),
        Field::new("rel", DataType::Float64, false),
        Field::new("flow", DataType::UInt64, false),
        text("who"),
        text("who_raw"),
        text("target"),
        text("target_raw"),
        text("text"),
        text("text_raw"),
        Field::new("details", details, false),
    ]))
}

/// The rows of one kind not yet written.
struct Rows {
    capture: StringBuilder,
    frame: UInt64Builder,
    time: TimestampNanosecondBuilder,
    rel: Float64Builder,
    flow: UInt64Builder,
    /// who, who_raw, target, target_raw, text, text_raw.
    labels: [StringBuilder; 6],
    details: MapBuilder<StringBuilder, StringBuilder>,
    len: usize,
    /// Text bytes appended since the last row group.
    text: usize,
}

impl Rows {
    fn new() -> Rows {
        Rows {
            capture: StringBuilder::new(),
            frame: UInt64Builder::new(),
            time: TimestampNanosecondBuilder::new().with_timezone("UTC"),
            rel: Float64Builder::new(),
            flow: UInt64Builder::new(),
            labels: std::array::from_fn(|_| StringBuilder::new()),
            details: MapBuilder::new(None, StringBuilder::new(), StringBuilder::new()),
            len: 0,
            text: 0,
        }
    }

    fn push(&mut self, capture: &str, e: &Event) -> io::Result<()> {
        self.capture.append_value(capture);
        self.frame.append_value(e.frame);
        // Nanoseconds since 1970 fit an i64 from 1677 to 2262; a time outside is not a
        // capture's, and is clamped.
        let ns = e.time.as_nanos().clamp(i64::MIN.into(), i64::MAX.into());
        self.time
            .append_value(i64::try_from(ns).unwrap_or_default());
        self.rel
            .append_value((e.time.as_nanos() - e.base.as_nanos()) as f64 / 1e9);
        self.flow.append_value(e.flow);
        let labels = [&e.who, &e.target, &e.text];
        for (pair, l) in self.labels.chunks_exact_mut(2).zip(labels) {
            for (b, text) in pair.iter_mut().zip([
                l.as_ref().map(|l: &Label| l.clean.as_str()),
                l.as_ref().map(|l| l.raw.as_str()),
            ]) {
                self.text += text.map_or(0, str::len);
                b.append_option(text);
            }
        }
        for (k, v) in &e.details {
            self.text += k.len() + v.len();
            self.details.keys().append_value(k);
            self.details.values().append_value(v);
        }
        self.details.append(true).map_err(io::Error::other)?;
        self.len += 1;
        Ok(())
    }

    fn finish(&mut self, schema: &Arc<Schema>) -> io::Result<RecordBatch> {
        self.len = 0;
        self.text = 0;
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(self.capture.finish()),
            Arc::new(self.frame.finish()),
            Arc::new(self.time.finish()),
            Arc::new(self.rel.finish()),
            Arc::new(self.flow.finish()),
        ];
        columns.extend(
            self.labels
                .iter_mut()
                .map(|b| Arc::new(b.finish()) as ArrayRef),
        );
        columns.push(Arc::new(self.details.finish()));
        RecordBatch::try_new(schema.clone(), columns).map_err(io::Error::other)
    }
}

/// One (protocol, kind)'s rows and its open file.
struct KindFile {
    dir: PathBuf,
    rows: Rows,
    writer: Option<ArrowWriter<BufWriter<File>>>,
    groups: usize,
    next: usize,
}

/// Writes events into hive-partitioned Parquet files under one directory.
pub struct EventSink {
    dir: PathBuf,
    capture: String,
    schema: Arc<Schema>,
    kinds: HashMap<(&'static str, &'static str), KindFile>,
    files: Vec<PathBuf>,
    rows: u64,
}

impl EventSink {
    /// A sink writing under `dir` (refused when it holds an earlier run's partitions).
    pub fn new(dir: &Path, capture: &str) -> io::Result<EventSink> {
        prepare_dir(dir)?;
        Ok(EventSink {
            dir: dir.to_path_buf(),
            capture: capture.to_string(),
            schema: event_schema(),
            kinds: HashMap::new(),
            files: Vec::new(),
            rows: 0,
        })
    }

    /// The `capture` of the rows appended from now on.
    pub fn set_capture(&mut self, capture: &str) {
        capture.clone_into(&mut self.capture);
    }

    pub fn event(&mut self, e: &Event) -> io::Result<()> {
        let key = (e.protocol, e.kind);
        if !self.kinds.contains_key(&key) {
            let dir = self
                .dir
                .join(format!("protocol={}", hive_escape(e.protocol)))
                .join(format!("kind={}", hive_escape(e.kind)));
            fs::create_dir_all(&dir)?;
            let file = KindFile {
                dir,
                rows: Rows::new(),
                writer: None,
                groups: 0,
                next: 0,
            };
            self.kinds.insert(key, file);
        }
        let Some(k) = self.kinds.get_mut(&key) else {
            return Ok(());
        };
        k.rows.push(&self.capture, e)?;
        self.rows += 1;
        if k.rows.len >= ROWS_PER_GROUP || k.rows.text >= GROUP_BYTES {
            flush(k, &self.schema, &mut self.files)?;
        }
        Ok(())
    }

    /// Writes every kind's last rows and footer; the files written and the rows in them.
    pub fn finish(mut self) -> io::Result<(Vec<PathBuf>, u64)> {
        let mut kinds: Vec<_> = self.kinds.drain().collect();
        kinds.sort_by_key(|(key, _)| *key);
        for (_, mut k) in kinds {
            flush(&mut k, &self.schema, &mut self.files)?;
            if let Some(w) = k.writer.take() {
                w.close()?;
            }
        }
        Ok((self.files, self.rows))
    }
}

/// Writes a kind's rows as one row group, opening its next part file when none is open and
/// closing it after [`GROUPS_PER_FILE`] groups.
fn flush(k: &mut KindFile, schema: &Arc<Schema>, files: &mut Vec<PathBuf>) -> io::Result<()> {
    if k.rows.len == 0 {
        return Ok(());
    }
    let batch = k.rows.finish(schema)?;
    if k.writer.is_none() {
        let path = k.dir.join(format!("part-{}.parquet", k.next));
        k.next += 1;
        k.writer = Some(open_file(&path, schema.clone())?);
        files.push(path);
    }
    if let Some(w) = k.writer.as_mut() {
        w.write(&batch)?;
        w.flush()?;
    }
    k.groups += 1;
    if k.groups >= GROUPS_PER_FILE {
        k.groups = 0;
        if let Some(w) = k.writer.take() {
            w.close()?;
        }
    }
    Ok(())
}
