#!/usr/bin/env bash
# Preset "SQLite vs filesystem": keyed reads (SQL, blob API, mmap; ascending and random), random-order
# rewrites with WAL and with the journal off, and the disk footprint, against one file per BLOB.
# Reduced size by default (10,000 values); the full study is FULL=1 (100,000 x 10,000 +- 2,000 bytes,
# one flat folder: the article's):
#   FULL=1 scripts/studies/sqlite-vs-filesystem.sh /var/tmp/bb-storage
# The reads follow kvtest's method (docs/storage.md, "Method"): one transaction around each pass
# (TRANSACTION=per-read: one per value), the timed pass on a connection opened for it (MAPPING=warm:
# on the warm-up's, mapping already faulted in), values read in place, cache_size 1,000 pages, each
# timed pass after an untimed warm-up; the header of each run says so. Figures: docs/storage.md.
# Environment: BLOBBENCH_CLI (default: blobbench-cli on PATH, else build/ci/app/blobbench-cli),
# COUNT (overrides the value count), OUT (directory for the JSON files; default the work directory),
# TRANSACTION (loop | per-read), MAPPING (cold | warm).
# The same study as a project (workbench, blobbench-cli run): resources/presets/sqlite-vs-filesystem.blobbench.json.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cli="${BLOBBENCH_CLI:-$(command -v blobbench-cli || echo "$here/build/ci/app/blobbench-cli")}"
work="${1:-${TMPDIR:-/tmp}/blobbench-sqlite-vs-files}"
count="${COUNT:-$([ "${FULL:-0}" = 1 ] && echo 100000 || echo 10000)}"
out="${OUT:-$work}"
mkdir -p "$out"
transaction="${TRANSACTION:-loop}"
mapping="${MAPPING:-cold}"
echo "## SQLite vs filesystem: $count values of 10,000 +- 2,000 bytes in $work (transaction $transaction, mapping $mapping)"
"$cli" storage keyed-read "$work/wal" --count "$count" --journal wal --transaction "$transaction" --mapping "$mapping" \
  --json "$out/keyed-wal.json" "${@:2}"
"$cli" storage keyed-read "$work/off" --count "$count" --journal off --order random --json "$out/keyed-journal-off.json" "${@:2}"
"$cli" storage footprint "$work/footprint" --count "$count" --json "$out/footprint.json" "${@:2}"
