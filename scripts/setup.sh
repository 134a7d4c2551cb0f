#!/usr/bin/env bash
# Everything `make run` and `make test` need, installed only when missing, so a second run
# takes seconds: the wasm target, cargo-leptos, wasm-bindgen-cli at Cargo.lock's version,
# npm packages (wasm-opt, playwright-core, oidc-provider: the tests' OpenID provider), PyJWT (the verifier in docs/), zopfli (the site's
# gzip copies), Chromium, nginx and promtool (tests only), and Redis and Postgres
# started if they are installed but down.
# Usage: scripts/setup.sh [--browser]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/end2end/node_modules/.bin:$PATH"

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
# Debian's package $1, as root or through sudo.
apt_install() {
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq "$1" >/dev/null
  else sudo apt-get update -qq && sudo apt-get install -y -qq "$1" >/dev/null; fi
}
need() { command -v "$1" >/dev/null 2>&1 || { echo "missing: $1 ($2)" >&2; exit 1; }; }

need cargo "install Rust with rustup: https://rustup.rs"
need npm "install Node.js 20 or later"
need python3 "apt-get install python3 python3-pip"

if [ -z "${ANTEROOM_SETUP_QUIET:-}" ]; then
  echo "setup: for Debian and Ubuntu (apt-get). What is missing is installed, once: with root (or"
  echo "  sudo) Debian's zopfli$([ "${1:-}" = "--browser" ] && echo ", chromium, fonts-ipafont-gothic, nginx-light, prometheus"); as you: rustup's"
  echo "  wasm32 target, cargo-leptos and wasm-bindgen-cli (~/.cargo/bin), npm packages (end2end/),"
  echo "  PyJWT and cryptography (pip --user)$([ "${1:-}" = "--browser" ] && echo ", Schemathesis and localstripe (target/*-venv)")."
fi

# First what no script can install for you: Redis and Postgres, reachable with the configured
# URLs (started here if installed but down), and a Postgres that lets the configured role in.
# Checked before the builds, which take half an hour on a new machine.
if [ -z "${ANTEROOM_REDIS_CLUSTER_NODES:-}" ] && ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  need redis-server "apt-get install redis-server"
  say "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 50); do redis-cli ping >/dev/null 2>&1 && break; sleep 0.1; done
fi

if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  need pg_ctlcluster "apt-get install postgresql"
  say "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
  for _ in $(seq 50); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 0.2; done
fi

# The configured Redis (REDIS_URL) answers.
redis_url="${REDIS_URL:-redis://127.0.0.1:6379}"
if [ -z "${ANTEROOM_REDIS_CLUSTER_NODES:-}" ] \
  && [ "$(redis-cli -u "$redis_url" ping 2>&1)" != PONG ]; then
  echo "setup: Redis does not answer at REDIS_URL=$redis_url: start it (apt-get install" >&2
  echo "  redis-server), or set REDIS_URL to one that runs (redis://[:password@]host:port)" >&2
  exit 1
fi

# The configured Postgres (DATABASE_URL) lets its role in; the server creates the database
# itself, so the check connects to the role's `postgres` database.
db_url="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/anteroom}"
need psql "apt-get install postgresql-client"
db_query=""; case "$db_url" in *\?*) db_query="?${db_url#*\?}" ;; esac
db_admin="${db_url%%\?*}"; db_admin="${db_admin%/*}/postgres${db_query}"
if ! db_error="$(PGCONNECT_TIMEOUT=5 psql "$db_admin" -Atqc 'select 1' 2>&1 </dev/null)"; then
  cat >&2 <<MSG
setup: Postgres refused DATABASE_URL=$db_url:
  ${db_error}
Anteroom connects with DATABASE_URL (default postgres://postgres@127.0.0.1:5432/anteroom), as a
role that may create its database. Either put a role's password in it
  (export DATABASE_URL=postgres://USER:PASSWORD@127.0.0.1:5432/anteroom),
or create such a role
  sudo -u postgres psql -c "create role $(id -un) login createdb password 'choose-one'"
or let local connections in without a password ('trust' for 127.0.0.1/32 in pg_hba.conf).
MSG
  exit 1
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

LEPTOS_VERSION=0.3.10
if ! cargo leptos --version 2>/dev/null | grep -q " $LEPTOS_VERSION"; then
  say "installing cargo-leptos $LEPTOS_VERSION (the longest step of a first run, once)"
  # Its own release profile asks for fat LTO in one codegen unit: a quarter of an hour on 2
  # cores for a tool that runs a few seconds a build. Thin local LTO in 16 units instead.
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install cargo-leptos --version "$LEPTOS_VERSION" --locked
fi

# cargo-leptos runs whichever wasm-bindgen is on PATH; it must match the crate exactly.
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3 }' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WB_VERSION"; then
  say "installing wasm-bindgen-cli $WB_VERSION (about 5 minutes, once)"
  # Not --locked: its lockfile names a crate version the registry lacks.
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install wasm-bindgen-cli --version "$WB_VERSION"
fi

if [ ! -x end2end/node_modules/.bin/wasm-opt ] || [ ! -d end2end/node_modules/playwright-core ] \
  || [ ! -f end2end/node_modules/axe-core/axe.min.js ] \
  || [ ! -d end2end/node_modules/oidc-provider ]; then
  say "installing npm packages (wasm-opt from binaryen, playwright-core, axe-core, oidc-provider)"
  (cd end2end && npm ci --no-audit --no-fund)
fi

# The example verifier of bound tokens for other services (docs/), which a test runs.
if ! python3 -c 'import jwt, cryptography' 2>/dev/null; then
  need python3 "apt-get install python3 python3-pip"
  say "installing PyJWT and cryptography for docs/verify_bound_token.py"
  python3 -m pip install -q --user pyjwt cryptography 2>/dev/null \
    || python3 -m pip install -q --break-system-packages --user pyjwt cryptography
fi

if [ "${1:-}" = "--browser" ] && [ ! -x /usr/bin/chromium ]; then
  say "installing Debian's Chromium"
  apt_install chromium
fi

# A Japanese font, so that the languages' screenshots (end2end/tests/languages.test.js) show
# Japanese as a buyer sees it rather than empty boxes; Arabic is in Chromium's own fonts.
if [ "${1:-}" = "--browser" ] && [ ! -d /usr/share/fonts/opentype/ipafont-gothic ]; then
  say "installing Debian's IPA Gothic font (Japanese)"
  apt_install fonts-ipafont-gothic
fi

# The reverse proxy of the gate's tests (end2end/gate/): Debian's nginx, run by the tests on a
# loopback port with their own configuration (the package's own server is not used).
if [ "${1:-}" = "--browser" ] && [ ! -x /usr/sbin/nginx ]; then
  say "installing Debian's nginx"
  apt_install nginx-light
fi

# promtool checks and unit-tests the alerting rules (ops/prometheus/): Debian's prometheus,
# whose own server is kept off. scripts/promtool.sh installs it (and says so), as `make test`
# runs it.
if [ "${1:-}" = "--browser" ] && ! command -v promtool >/dev/null 2>&1; then
  scripts/promtool.sh --install
fi

# Schemathesis fuzzes the API from its OpenAPI document in `make test`: from PyPI, pinned in
# scripts/schemathesis.txt, in a virtualenv of its own under target/.
if [ "${1:-}" = "--browser" ]; then
  scripts/schemathesis.sh --install
fi

# localstripe, a Stripe-compatible server, takes the payment tests' cards (testkit::stripe):
# from PyPI, pinned in scripts/localstripe.txt, in a virtualenv of its own under target/.
if [ "${1:-}" = "--browser" ] && [ ! -x target/localstripe-venv/bin/localstripe ]; then
  say "installing localstripe (PyPI) in target/localstripe-venv"
  mkdir -p target && python3 -m venv target/localstripe-venv
  target/localstripe-venv/bin/pip install -q -r scripts/localstripe.txt
fi

# zopfli writes the site's gzip copies (scripts/build-site.sh): smaller than cargo-leptos's.
if ! command -v zopfli >/dev/null 2>&1; then
  say "installing Debian's zopfli"
  apt_install zopfli
fi
