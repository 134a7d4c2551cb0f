#!/usr/bin/env bash
# `make run`: set up, build the release site, create the demo event, serve on :3000.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build-site.sh
./target/release/anteroom demo
# Passkeys need a domain name: the operator's pages are on localhost (buyers may use either).
export ANTEROOM_PUBLIC_URL="${ANTEROOM_PUBLIC_URL:-http://localhost:3000}"
# The demo's operator (an enrolment link for a passkey, 15 minutes) and an admin API key.
./target/release/anteroom operators add --email demo-admin@example.org --name "Demo admin" --role admin
./target/release/anteroom keys add --name "make run" --expires-in 1d \
  --scope stats:read,rooms:write,events:write,payments:read,audit:read,admissions:done
echo "Open http://127.0.0.1:3000/events/demo, and http://127.0.0.1:3000/events/demo-opening for"
echo "the countdown, the pre-queue and the draw (created with the demo; stop with Ctrl-C)"
# --dev: plain-HTTP cookies on 127.0.0.1 and the fake payment provider in-process.
exec ./target/release/anteroom serve --dev
