#!/usr/bin/env bash
# `make run`: set up, build the release site, create the demo event, serve on :3000.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build-site.sh
./target/release/anteroom demo
echo "Open http://127.0.0.1:3000/events/demo, and http://127.0.0.1:3000/events/demo-opening for"
echo "the countdown, the pre-queue and the draw (created with the demo; stop with Ctrl-C)"
# --dev: plain-HTTP cookies on 127.0.0.1 and the fake payment provider in-process.
exec ./target/release/anteroom serve --dev
