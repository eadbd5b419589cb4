//! `--format parquet`: hive-partitioned Parquet, one directory per protocol and message type
//! (`protocol=quake3/type=snapshot/part-0.parquet`, then `part-1`… every [`GROUPS_PER_FILE`]
//! row groups), zstd-compressed, with the schema the registry gives each message type: its
//! protocol's, narrowed to the fields the type can carry ([`schema`]).
//!
//! Memory stays within a fixed budget whatever the capture's length: each file's rows are
//! built in column buffers, handed to the encoder as a row group once they reach
//! [`ROW_GROUP_BYTES`], and when all open files together hold more than [`BUDGET_BYTES`] the
//! biggest is handed over first. Encoding and compression run on a thread of their own, fed
//! through a channel of one row group, while this thread decodes and builds the next rows;
//! rows are in frame order within each file, whatever the thread count.

pub mod columns;
pub mod events;
pub mod schema;

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use ::parquet::arrow::{ArrowSchemaConverter, ArrowWriter};
use ::parquet::basic::{Compression, Type as PhysicalType, ZstdLevel};
use ::parquet::file::properties::{EnabledStatistics, WriterProperties};
use arrow_array::RecordBatch;
use arrow_schema::Schema;

use crate::proto::{Meta, Protocol};
use crate::tree::Record;
use columns::{Misfits, NullArrays, Rows};
use schema::{ProtocolFields, ProtocolSchema};

/// A file's rows are handed over as a row group at this size.
pub const ROW_GROUP_BYTES: usize = 4 << 20;
/// All files' rows not yet handed over, together.
pub const BUDGET_BYTES: usize = 8 << 20;
/// Rows between two measures of a file's buffers (a measure walks its columns).
const MEASURE_EVERY: usize = 128;
/// Row groups in one file before the next part starts: the writer keeps every row group's
/// column metadata until the footer, so a file that grew with the capture would hold memory
/// that grew with it.
pub const GROUPS_PER_FILE: usize = 8;

/// What a run wrote.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Written {
    pub files: Vec<PathBuf>,
    pub rows: u64,
    pub row_groups: u64,
    pub misfits: Misfits,
}

/// Escapes a partition value as Hive does (`FileUtils.escapePathName`): the characters that
/// are unsafe in a path or in `key=value` become `%XX`; an empty value is Hive's default
/// partition.
pub fn hive_escape(value: &str) -> String {
    if value.is_empty() {
        return "__HIVE_DEFAULT_PARTITION__".into();
    }
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        let unsafe_char = matches!(
            c,
            '\u{1}'
                ..='\u{1f}'
                    | '"'
                    | '#'
                    | '%'
                    | '\''
                    | '*'
                    | '/'
                    | ':'
                    | '='
                    | '?'
                    | '\\'
                    | '\u{7f}'
                    | '{'
                    | '['
                    | ']'
                    | '^'
        ) || c == '\0';
        if unsafe_char {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Refuses a directory that already holds partitions (a previous run's files would mix with
/// this run's), and makes it when missing.
pub fn prepare_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    for entry in fs::read_dir(dir)? {
        let name = entry?.file_name();
        if name.to_string_lossy().starts_with("protocol=") {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} already holds {} from an earlier run: remove it or write elsewhere",
                    dir.display(),
                    name.to_string_lossy()
                ),
            ));
        }
    }
    Ok(())
}

/// One file being written.
struct Part {
    /// The schema of the part's message type.
    schema: Arc<ProtocolSchema>,
    rows: Rows,
    /// Bytes of `rows` at the last measure.
    held: usize,
    since_measure: usize,
    /// The directory of the partition.
    dir: PathBuf,
    /// The encoder's number for the open file, if one is.
    file: Option<usize>,
    /// Row groups in the open file.
    groups: usize,
    /// The number of the next file (`part-<n>.parquet`).
    next: usize,
}

/// Work for the encoding thread.
enum Job {
    Open(PathBuf, Arc<Schema>),
    RowGroup(usize, RecordBatch),
    /// Writes the file's footer.
    Close(usize),
}

/// Writes records into hive-partitioned Parquet files under one directory.
pub struct ParquetSink {
    dir: PathBuf,
    capture: String,
    protocols: Vec<ProtocolFields>,
    parts: Vec<Part>,
    /// Per schema: the part of each message type.
    by_type: Vec<HashMap<String, usize>>,
    /// Bytes held by all parts at their last measures.
    held: usize,
    shared: NullArrays,
    written: Written,
    jobs: Option<SyncSender<Job>>,
    encoder: Option<JoinHandle<io::Result<u64>>>,
}

/// How every file is written: zstd; dictionary pages for text columns only (names, enum names,
/// addresses repeat; a dictionary encoder per numeric column cost 12 MiB of a run's peak and
/// zstd packs repeated numbers anyway); statistics per column chunk for numbers and times, none
/// for text (the min and max of names and summaries prune little, and comparing every string
/// took a tenth of the encoding); no page index.
fn properties(schema: &Schema) -> WriterProperties {
    let mut b = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_dictionary_enabled(false)
        // Min/max per column chunk: page-level statistics would add a column index per page to
        // the footer, for hundreds of mostly-null columns.
        .set_statistics_enabled(EnabledStatistics::Chunk)
        // No page index either: the writer keeps it for every column chunk until the footer.
        .set_offset_index_disabled(true)
        // Row groups are cut here, by bytes (ROW_GROUP_BYTES), not by the writer's row count.
        .set_max_row_group_row_count(None)
        .set_created_by(format!("gamedissect {}", env!("CARGO_PKG_VERSION")));
    if let Ok(parquet) = ArrowSchemaConverter::new().convert(schema) {
        for c in parquet.columns() {
            if c.physical_type() == PhysicalType::BYTE_ARRAY {
                b = b
                    .set_column_dictionary_enabled(c.path().clone(), true)
                    .set_column_statistics_enabled(c.path().clone(), EnabledStatistics::None);
            }
        }
    }
    b.build()
}

/// A new Parquet file at `path`, written as every file of ours is ([`properties`]).
pub(crate) fn open_file(
    path: &Path,
    schema: Arc<Schema>,
) -> io::Result<ArrowWriter<BufWriter<File>>> {
    let out = BufWriter::with_capacity(1 << 16, File::create(path)?);
    let props = properties(&schema);
    Ok(ArrowWriter::try_new(out, schema, Some(props))?)
}

/// The encoding thread: each job's file opened, each row group encoded and written; the
/// footers written at the end. Returns the row groups written.
fn encode(jobs: Receiver<Job>) -> io::Result<u64> {
    let mut files: Vec<Option<ArrowWriter<BufWriter<File>>>> = Vec::new();
    let mut groups = 0;
    for job in jobs {
        match job {
            Job::Open(path, schema) => files.push(Some(open_file(&path, schema)?)),
            Job::RowGroup(i, batch) => {
                let Some(Some(w)) = files.get_mut(i) else {
                    return Err(io::Error::other("row group for a file never opened"));
                };
                w.write(&batch)?;
                w.flush()?;
                groups += 1;
            }
            Job::Close(i) => {
                if let Some(w) = files.get_mut(i).and_then(Option::take) {
                    w.close()?;
                }
            }
        }
    }
    for w in files.into_iter().flatten() {
        w.close()?;
    }
    Ok(groups)
}

impl ParquetSink {
    /// A sink writing under `dir` (see [`prepare_dir`]), every row's `capture` column `capture`.
    pub fn new(dir: &Path, capture: &str, registry: &[&'static dyn Protocol]) -> io::Result<Self> {
        prepare_dir(dir)?;
        let protocols = ProtocolFields::all(registry);
        let (tx, rx) = sync_channel(1);
        let encoder = std::thread::Builder::new()
            .name("parquet".into())
            .spawn(move || encode(rx))?;
        Ok(ParquetSink {
            dir: dir.to_path_buf(),
            capture: capture.to_string(),
            by_type: protocols.iter().map(|_| HashMap::new()).collect(),
            protocols,
            parts: Vec::new(),
            held: 0,
            shared: NullArrays::default(),
            written: Written::default(),
            jobs: Some(tx),
            encoder: Some(encoder),
        })
    }

    fn send(&mut self, job: Job) -> io::Result<()> {
        let sent = self.jobs.as_ref().map(|tx| tx.send(job));
        match sent {
            Some(Ok(())) => Ok(()),
            // The encoder stopped: its error says why.
            _ => Err(self
                .stop_encoder()
                .err()
                .unwrap_or_else(|| io::Error::other("the Parquet encoder stopped"))),
        }
    }

    fn stop_encoder(&mut self) -> io::Result<u64> {
        self.jobs = None;
        match self.encoder.take().map(JoinHandle::join) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(io::Error::other("the Parquet encoder failed")),
            None => Ok(0),
        }
    }

    /// The part for this record's protocol and type, opened on first use.
    fn part_of(&mut self, rec: &Record) -> io::Result<Option<usize>> {
        let Some(s) = self
            .protocols
            .iter()
            .position(|s| s.protocol == rec.protocol)
        else {
            return Ok(None);
        };
        if let Some(&p) = self.by_type[s].get(rec.msg_type.as_ref()) {
            return Ok(Some(p));
        }
        let dir = self
            .dir
            .join(format!("protocol={}", hive_escape(rec.protocol)))
            .join(format!("type={}", hive_escape(&rec.msg_type)));
        fs::create_dir_all(&dir)?;
        let schema = Arc::new(self.protocols[s].schema_of(&rec.msg_type));
        self.parts.push(Part {
            rows: Rows::new(&schema.arrow),
            schema,
            held: 0,
            since_measure: 0,
            dir,
            file: None,
            groups: 0,
            next: 0,
        });
        let p = self.parts.len() - 1;
        self.by_type[s].insert(rec.msg_type.to_string(), p);
        Ok(Some(p))
    }

    /// The `capture` of the rows appended from now on (several captures into one directory).
    pub fn set_capture(&mut self, capture: &str) {
        capture.clone_into(&mut self.capture);
    }

    /// Appends one record to its file.
    pub fn record(&mut self, meta: &Meta<'_>, rec: &Record) -> io::Result<()> {
        let Some(p) = self.part_of(rec)? else {
            self.written.misfits.dropped += 1;
            return Ok(());
        };
        let part = &mut self.parts[p];
        part.rows.push(
            &self.capture,
            meta,
            rec,
            &part.schema,
            &mut self.written.misfits,
        );
        self.written.rows += 1;
        part.since_measure += 1;
        if part.since_measure < MEASURE_EVERY {
            return Ok(());
        }
        part.since_measure = 0;
        let bytes = part.rows.bytes();
        self.held = self.held - part.held + bytes;
        part.held = bytes;
        if bytes >= ROW_GROUP_BYTES {
            self.flush(p)?;
        }
        while self.held > BUDGET_BYTES {
            let biggest = (0..self.parts.len()).max_by_key(|&i| self.parts[i].held);
            match biggest {
                Some(b) if self.parts[b].held > 0 => self.flush(b)?,
                _ => break,
            }
        }
        Ok(())
    }

    /// Hands a part's rows to the encoder as one row group.
    fn flush(&mut self, p: usize) -> io::Result<()> {
        let part = &mut self.parts[p];
        if part.rows.is_empty() {
            return Ok(());
        }
        let batch = part
            .rows
            .finish(&part.schema.arrow, &mut self.shared)
            .map_err(io::Error::other)?;
        self.held -= part.held;
        part.held = 0;
        part.since_measure = 0;
        let file = match part.file {
            Some(f) => f,
            None => {
                let path = part.dir.join(format!("part-{}.parquet", part.next));
                part.next += 1;
                let f = self.written.files.len();
                part.file = Some(f);
                self.written.files.push(path.clone());
                let schema = part.schema.arrow.clone();
                self.send(Job::Open(path, schema))?;
                f
            }
        };
        self.send(Job::RowGroup(file, batch))?;
        let part = &mut self.parts[p];
        part.groups += 1;
        if part.groups < GROUPS_PER_FILE {
            return Ok(());
        }
        part.groups = 0;
        part.file = None;
        self.send(Job::Close(file))
    }

    /// Writes every file's last rows and footer; what was written.
    pub fn finish(mut self) -> io::Result<Written> {
        for p in 0..self.parts.len() {
            self.flush(p)?;
        }
        self.written.row_groups = self.stop_encoder()?;
        Ok(std::mem::take(&mut self.written))
    }
}
