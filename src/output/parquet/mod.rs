//! `--format parquet`: hive-partitioned Parquet with the schema the registry gives each
//! protocol ([`schema`]).

pub mod schema;
