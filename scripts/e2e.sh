#!/usr/bin/env bash
# The browser tests against the release build: a throwaway database and Redis prefix, the
# demo event, the server on a free port, then node's test runner over end2end/tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/throwaway.sh e2e
# The buyers' OpenID provider (oidc-provider from npm, the tests' one): accounts' sign-in.
oidc_port=$(free_port)
export ANTEROOM_OIDC_ISSUER="http://127.0.0.1:${oidc_port}"
export ANTEROOM_OIDC_CLIENT_SECRET="anteroom-test-secret"
export ANTEROOM_OIDC_SCOPES="openid profile groups"
# The operators' sign-in at the same provider: `crew-*` are operators, `*boss*` admins.
export ANTEROOM_OPERATOR_OIDC_ISSUER="$ANTEROOM_OIDC_ISSUER"
export ANTEROOM_OPERATOR_OIDC_CLIENT_ID="anteroom"
export ANTEROOM_OPERATOR_OIDC_CLIENT_SECRET="$ANTEROOM_OIDC_CLIENT_SECRET"
export ANTEROOM_OPERATOR_ROLES="onsale-team=operator,onsale-admins=admin"
log="end2end/artifacts/server.log"
mkdir -p end2end/artifacts

cleanup() {
  throwaway_cleanup e2e
  [ -n "${oidc:-}" ] && kill "$oidc" 2>/dev/null && wait "$oidc" 2>/dev/null || true
}
trap cleanup EXIT

(cd end2end && exec node oidc/provider.mjs "$oidc_port" "${ANTEROOM_URL}/auth/callback,${ANTEROOM_URL}/operator/callback") \
  >end2end/artifacts/oidc.log 2>&1 &
oidc=$!
./target/release/anteroom demo
# The tests' admin calls use an API key made from the command line, as a deploy script would;
# operators enrol passkeys from links `anteroom operators add` prints (tests/browser.js).
ANTEROOM_ADMIN_KEY="$(./target/release/anteroom keys add --name e2e \
  --scope stats:read,rooms:write,events:write,payments:read,audit:read,admissions:done \
  --expires-in 1d | tail -n 1)"
export ANTEROOM_ADMIN_KEY
export ANTEROOM_BIN="$PWD/target/release/anteroom"
# The ticketer's example site behind nginx in the gate's tests (tests/gate.test.js).
cargo build -q -p anteroom-verify --example origin
export ORIGIN_BIN="$PWD/target/debug/examples/origin"
# --dev: plain-HTTP cookies on 127.0.0.1 and the fake payment provider in-process.
./target/release/anteroom serve --dev >"$log" 2>&1 &
server=$!
(cd end2end && node --test --test-concurrency=1 "${@:-tests/}")
