#!/usr/bin/env bash
# Schemathesis (PyPI, pinned in scripts/schemathesis.txt) against the release server, from the
# server's own OpenAPI document (`GET /api/openapi.json`): every operation with generated and
# fuzzed inputs, and the stateful links between them. Checks: no 5xx, every answer's status
# documented and its body matching its schema. A throwaway database and Redis prefix, the
# demo event, a buyer session and an operator API key; the run is bounded in time.
# Usage: scripts/schemathesis.sh [--install]   (--install: only install; scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
venv="target/schemathesis-venv"
if [ ! -x "$venv/bin/schemathesis" ]; then
  printf '\033[1m==> %s\033[0m\n' "installing Schemathesis (PyPI) in $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r scripts/schemathesis.txt
fi
[ "${1:-}" = "--install" ] && exit 0
bin="${ANTEROOM_BIN:-./target/release/anteroom}"
source scripts/throwaway.sh st
url="$ANTEROOM_URL"
mkdir -p target/schemathesis
cleanup() { throwaway_cleanup st; }
trap cleanup EXIT
"$bin" demo >/dev/null
key="$("$bin" keys add --name schemathesis \
  --scope stats:read,rooms:write,events:write,payments:read,audit:read,admissions:done \
  --expires-in 1d | tail -n 1)"
"$bin" serve --dev >target/schemathesis/server.log 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf "$url/healthz" >/dev/null && break; sleep 0.1; done
# A buyer of the demo event, admitted: the buyer's operations run with their session and
# admission token, the operators' with the API key (a key cannot manage operators: those
# operations answer 403, as documented).
json() { python3 -c "import json,sys; print(json.load(sys.stdin).get('$1', ''))"; }
session="$(curl -sf -X POST -H 'content-type: application/json' -d '{}' "$url/api/session" | json token)"
curl -s -o /dev/null -X POST -H "authorization: Bearer $session" "$url/api/events/demo/queue"
admission=""
for _ in $(seq 100); do
  admission="$(curl -s -H "authorization: Bearer $session" "$url/api/events/demo/queue" | json admission_token)"
  [ -n "$admission" ] && break
  sleep 0.2
done
[ -n "$admission" ] || { echo "the demo buyer was not admitted" >&2; exit 1; }
run() {
  "$venv/bin/schemathesis" run "$url/api/openapi.json" \
    --url "$url" \
    --checks not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance \
    --max-examples "${SCHEMATHESIS_EXAMPLES:-25}" \
    --max-time "${SCHEMATHESIS_SECONDS:-150}" \
    --max-failures 50 \
    --request-timeout 10 \
    --seed "${SCHEMATHESIS_SEED:-20261203}" \
    --report junit --report-dir target/schemathesis \
    "$@"
}
# The buyer's run first, on the demo room as `anteroom demo` made it; then the operators', whose
# fuzzed changes to that room (paused, bound tokens, accounts only...) come after it. One seed
# (SCHEMATHESIS_SEED to change it), so that a run is the same run again.
status=0
printf '\033[1m==> %s\033[0m\n' "Schemathesis: the buyer's and the public API, with an admitted buyer's session"
run --exclude-tag admin --exclude-tag operators --header "Authorization: Bearer $session" \
  --header "Admission-Token: $admission" || status=1
printf '\033[1m==> %s\033[0m\n' "Schemathesis: the operators' API, with an API key"
run --include-tag admin --include-tag operators --header "Authorization: Bearer $key" || status=1
exit $status
