#!/usr/bin/env bash
# The newcomer's path, as `make test` checks it (issue 62): the README's run command, `make
# run`, with nothing set but what moves it aside: a data folder that does not exist yet, a
# database and a Redis prefix of its own, a free port. It passes when the demo event's page
# answers 200 and the API key `make run` printed reads the demo's stats; then the server is
# stopped and what it made is dropped. Usage: scripts/newcomer.sh [seconds to wait, 900]
set -euo pipefail
cd "$(dirname "$0")/.."
wait_for="${1:-900}"
stamp="$(date +%s)_$$"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
tmp="$(mktemp -d)"
db="anteroom_newcomer_${stamp}"
prefix="newcomer${stamp}"
log="$tmp/make-run.log"
base="http://127.0.0.1:${port}"

cleanup() {
  [ -n "${run:-}" ] && kill -TERM -- "-$run" 2>/dev/null && wait "$run" 2>/dev/null || true
  psql -h 127.0.0.1 -U postgres -qc "drop database if exists ${db} with (force)" postgres >/dev/null 2>&1 || true
  redis-cli --scan --pattern "${prefix}:*" | xargs -r redis-cli del >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# A newcomer's shell: none of this one's ANTEROOM_* or other settings, only where the tools are.
setsid env -i PATH="$PATH" HOME="$HOME" TERM=dumb \
  ${CARGO_HOME:+CARGO_HOME="$CARGO_HOME"} ${RUSTUP_HOME:+RUSTUP_HOME="$RUSTUP_HOME"} \
  ANTEROOM_ADDR="127.0.0.1:${port}" ANTEROOM_METRICS_ADDR="127.0.0.1:0" \
  ANTEROOM_DATA_DIR="$tmp/data" ANTEROOM_REDIS_PREFIX="$prefix" \
  DATABASE_URL="postgres://postgres@127.0.0.1:5432/${db}" \
  make run </dev/null >"$log" 2>&1 &
run=$!

fail() {
  echo "newcomer: $*" >&2
  echo "--- the last lines of make run:" >&2
  tail -n 40 "$log" >&2
  exit 1
}

deadline=$((SECONDS + wait_for))
until [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/events/demo")" = 200 ]; do
  kill -0 "$run" 2>/dev/null || fail "make run stopped before serving"
  [ "$SECONDS" -lt "$deadline" ] || fail "the demo's page did not answer 200 within ${wait_for} s"
  sleep 1
done
echo "newcomer: $base/events/demo answers 200"

grep -q 'enrol a passkey within 15 minutes' "$log" || fail "no operator enrolment link printed"
key="$(grep -A1 'shown this once:' "$log" | tail -n 1)"
[ -n "$key" ] || fail "no API key printed"
stats="$(curl -s -w '\n%{http_code}' -H "Authorization: Bearer ${key}" \
  "$base/api/admin/events/demo/stats")"
[ "$(tail -n 1 <<<"$stats")" = 200 ] || fail "the printed key's stats: $stats"
grep -q '"queue_length"' <<<"$stats" || fail "the stats have no queue_length: $stats"
echo "newcomer: the printed API key reads the demo's stats"
[ -s "$tmp/data/session_secret" ] || fail "no session secret in the fresh data folder"
echo "newcomer: passed"
