#!/usr/bin/env bash
# The Spark recipe of docs/scale.md in local mode: a folder of captures is distributed to
# executors, each runs `gamedissect dissect --format parquet` on one file, and Spark SQL queries
# the Parquet they wrote. Its answers are checked against DuckDB on the same files and against
# `gamedissect stats` of each capture.
#
#   pip install pyspark duckdb         # once; Spark also needs a Java runtime (Debian: default-jre)
#   bash scripts/spark-recipe.sh       # exit 0 and "ok" when every check holds
#   bash scripts/spark-recipe.sh DIR   # on your own folder of captures instead of the made one
#
# Without DIR the folder is made from the shipped captures: the big ones cut into pieces of
# consecutive frames (each piece a capture that starts mid-session) until there are 100.
# Not part of `cargo test`: it needs Spark. GAMEDISSECT names the binary (default: a release
# build, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${GAMEDISSECT:-target/release/gamedissect}
[ -x "$BIN" ] || cargo build --release --quiet
BIN=$(realpath "$BIN")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [ $# -ge 1 ]; then
    CAPTURES=$(realpath "$1")
else
    CAPTURES="$WORK/captures"
    python3 scripts/split-captures.py --count 100 --out "$CAPTURES" captures/*.pcap
fi
export BIN CAPTURES WORK
start=$(date +%s)
python3 - <<'PY'
import json, os, subprocess, sys
from collections import Counter
from pyspark.sql import SparkSession

BIN, CAPTURES, WORK = os.environ["BIN"], os.environ["CAPTURES"], os.environ["WORK"]
OUT = os.path.join(WORK, "parquet")
files = sorted(os.path.join(CAPTURES, f) for f in os.listdir(CAPTURES))
assert files, "no captures"

# `time` is TIMESTAMP(NANOS): Spark reads nanosecond timestamps only as integers, and only when
# asked to (the column is not used here; DuckDB reads it as TIMESTAMPTZ_NS).
spark = (SparkSession.builder.master("local[2]").appName("gamedissect")
         .config("spark.ui.enabled", "false")
         .config("spark.sql.legacy.parquet.nanosAsLong", "true").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")

def decode(task):
    """One executor task: one capture into its own folder of hive-partitioned Parquet."""
    i, path = task
    out = os.path.join(OUT, f"task={i:05d}")
    done = subprocess.run([BIN, "dissect", "--quiet", "--format", "parquet", "-w", out, path],
                          capture_output=True)
    return (path, out, done.returncode)

results = (spark.sparkContext
           .parallelize(list(enumerate(files)), numSlices=len(files))
           .map(decode).collect())
bad = [(p, rc) for p, _, rc in results if rc != 0]
assert not bad, f"gamedissect failed: {bad[:5]}"

# Every task wrote protocol=…/type=… below a folder task=N of its own: one table, partitioned by
# task, protocol and type. The columns asked for are in every message type's schema.
df = spark.read.option("mergeSchema", "false").parquet(OUT).select("capture", "protocol", "type", "length")
df.createOrReplaceTempView("messages")
spark_rows = spark.sql("""
    SELECT protocol, type, count(*) AS messages, sum(length) AS bytes
    FROM messages GROUP BY protocol, type
""").collect()
spark_counts = {(r.protocol, r.type): (r.messages, r.bytes) for r in spark_rows}
spark_captures = spark.sql("SELECT count(DISTINCT capture) AS n FROM messages").collect()[0].n
spark.stop()

# The same question to DuckDB, over the same files.
import duckdb
duck_counts = {(p, t): (m, b) for p, t, m, b in duckdb.sql(f"""
    SELECT protocol, type, count(*), sum(length)
    FROM read_parquet('{OUT}/**/*.parquet', hive_partitioning = true, union_by_name = true)
    GROUP BY ALL""").fetchall()}

# And to `gamedissect stats`, capture by capture.
stats_counts = Counter()
decoded_captures = 0
for path in files:
    stats = json.loads(subprocess.run([BIN, "stats", "--quiet", "-f", "json", path],
                                      capture_output=True, check=False).stdout)
    seen = False
    for protocol, types in stats.get("message_types", {}).items():
        for ty, c in types.items():
            stats_counts[(protocol, ty)] += c["messages"]
            stats_counts[(protocol, ty, "bytes")] += c["bytes"]
            seen = True
    decoded_captures += seen
stats_counts = {k: (v, stats_counts[k + ("bytes",)]) for k, v in stats_counts.items() if len(k) == 2}

games = lambda d: {k: v for k, v in d.items() if k[0] != "udp"}
assert games(spark_counts) == stats_counts, (sorted(set(games(spark_counts).items()) ^ set(stats_counts.items())))[:10]
assert spark_counts == duck_counts, sorted(set(spark_counts.items()) ^ set(duck_counts.items()))[:10]
messages = sum(m for m, _ in spark_counts.values())
print(f"{len(files)} captures, {spark_captures} with records, {messages} messages in "
      f"{len(spark_counts)} (protocol, type) pairs: Spark = DuckDB = stats")
PY
echo "ok ($(( $(date +%s) - start )) s)"
