#!/usr/bin/env bash
# `make run`: check and install what is missing, build the release site, create the demo's
# secrets and events, add its operator and API key, serve. It honours the settings a newcomer
# may need to move it aside (as the CI check of it, scripts/newcomer.sh, does):
# ANTEROOM_ADDR (127.0.0.1:3000), ANTEROOM_PUBLIC_URL (http://localhost:<port>), DATABASE_URL,
# REDIS_URL, ANTEROOM_REDIS_PREFIX and ANTEROOM_DATA_DIR (.anteroom): every command below reads
# the same ones, so the secrets `anteroom demo` keeps in the data folder are the ones the
# commands after it and the server use.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build-site.sh
export ANTEROOM_ADDR="${ANTEROOM_ADDR:-127.0.0.1:3000}"
port="${ANTEROOM_ADDR##*:}"
# Passkeys need a domain name: the operator's pages are on localhost (buyers may use either).
export ANTEROOM_PUBLIC_URL="${ANTEROOM_PUBLIC_URL:-http://localhost:${port}}"
./target/release/anteroom demo
# The demo's operator (an enrolment link for a passkey, 15 minutes) and an admin API key.
./target/release/anteroom operators add --email demo-admin@example.org --name "Demo admin" --role admin
./target/release/anteroom keys add --name "make run" --expires-in 1d \
  --scope stats:read,rooms:write,events:write,payments:read,audit:read,admissions:done
echo "Open http://${ANTEROOM_ADDR}/events/demo, and http://${ANTEROOM_ADDR}/events/demo-opening for"
echo "the countdown, the pre-queue and the draw (created with the demo; stop with Ctrl-C)"
# --dev: plain-HTTP cookies on 127.0.0.1 and the fake payment provider in-process.
exec ./target/release/anteroom serve --dev
