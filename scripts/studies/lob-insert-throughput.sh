#!/usr/bin/env bash
# Preset "LOB insert throughput": N rows of one 4,402-byte CLOB (the BasicFile/SecureFile study) on
# every engine available here and each of its storage variants: SQLite (bind, zeroblob + blob_write),
# PostgreSQL (bytea EXTENDED pglz / lz4, EXTERNAL, MAIN, COPY, pipeline, text, large object) when
# BLOBBENCH_PG_CONNINFO is set, Firebird (BLOB, VARCHAR; IBatch reported not in effect) when
# BLOBBENCH_FB_DATABASE is set (user and password from BLOBBENCH_FB_USER / BLOBBENCH_FB_PASSWORD).
# Reduced size by default (10,000 rows, commit every 1,000); the full study is FULL=1 (100,000 rows):
#   FULL=1 scripts/studies/lob-insert-throughput.sh /var/tmp/bb-insert
# Environment: BLOBBENCH_CLI, ROWS (overrides the row count), COMMIT_EVERY (default 1000; 0 = one
# transaction), OUT (directory for the JSON files). Extra arguments go to every run.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cli="${BLOBBENCH_CLI:-$(command -v blobbench-cli || echo "$here/build/ci/app/blobbench-cli")}"
work="${1:-${TMPDIR:-/tmp}/blobbench-lob-insert}"
rows="${ROWS:-$([ "${FULL:-0}" = 1 ] && echo 100000 || echo 10000)}"
every="${COMMIT_EVERY:-1000}"
[ "$every" -gt "$rows" ] && every="$rows"
out="${OUT:-$work}"
mkdir -p "$work" "$out"
status=0
echo "## LOB insert throughput: $rows rows x 4402 bytes, commit every $every"
"$cli" storage insert "sqlite:$work" --rows "$rows" --commit-every "$every" --json "$out/insert-sqlite.json" "${@:2}" || status=1
if [ -n "${BLOBBENCH_PG_CONNINFO:-}" ]; then
  "$cli" storage insert "$BLOBBENCH_PG_CONNINFO" --rows "$rows" --commit-every "$every" --json "$out/insert-postgres.json" "${@:2}" || status=1
else
  echo "PostgreSQL: not run (set BLOBBENCH_PG_CONNINFO)"
fi
if [ -n "${BLOBBENCH_FB_DATABASE:-}" ]; then
  ISC_USER="${BLOBBENCH_FB_USER:-${ISC_USER:-}}" ISC_PASSWORD="${BLOBBENCH_FB_PASSWORD:-${ISC_PASSWORD:-}}" \
    "$cli" storage insert "$BLOBBENCH_FB_DATABASE" --rows "$rows" --commit-every "$every" --json "$out/insert-firebird.json" "${@:2}" || status=1
else
  echo "Firebird: not run (set BLOBBENCH_FB_DATABASE)"
fi
exit $status
