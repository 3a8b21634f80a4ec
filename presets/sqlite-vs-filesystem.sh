#!/usr/bin/env bash
# Preset "SQLite vs filesystem": keyed reads (SQL, blob API, mmap; ascending and random), random-order
# rewrites with WAL and with the journal off, and the disk footprint, against one file per BLOB.
# Reduced size by default (10,000 values); the full study is FULL=1 (100,000 x 10 kB +- 2 kB):
#   FULL=1 presets/sqlite-vs-filesystem.sh /var/tmp/bb-storage
# Environment: BLOBBENCH_CLI (default: blobbench-cli on PATH, else build/ci/app/blobbench-cli),
# COUNT (overrides the value count), OUT (directory for the JSON files; default the work directory).
# Project files (model/Project.h) hold query and scalar scenarios only, so this preset is a script.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cli="${BLOBBENCH_CLI:-$(command -v blobbench-cli || echo "$here/build/ci/app/blobbench-cli")}"
work="${1:-${TMPDIR:-/tmp}/blobbench-sqlite-vs-files}"
count="${COUNT:-$([ "${FULL:-0}" = 1 ] && echo 100000 || echo 10000)}"
out="${OUT:-$work}"
mkdir -p "$out"
echo "## SQLite vs filesystem: $count values of 10 kB +- 2 kB in $work"
"$cli" storage keyed-read "$work/wal" --count "$count" --journal wal --json "$out/keyed-wal.json" "${@:2}"
"$cli" storage keyed-read "$work/off" --count "$count" --journal off --order random --json "$out/keyed-journal-off.json" "${@:2}"
"$cli" storage footprint "$work/footprint" --count "$count" --json "$out/footprint.json" "${@:2}"
