# Sourced by scripts/e2e.sh and scripts/schemathesis.sh: a server of the release build's own on
# a free port, with a throwaway database and Redis prefix (named after `$1`, e.g. e2e), the
# per-address and per-network limits lifted (every simulated client is 127.0.0.1), a fresh
# session secret and data directory. `throwaway_cleanup` drops them again.
stamp="$(date +%s)_$$"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/anteroom_${1}_${stamp}"
export ANTEROOM_REDIS_PREFIX="${1}${stamp}"
export ANTEROOM_ADDR="127.0.0.1:${port}"
export ANTEROOM_METRICS_ADDR="127.0.0.1:0"
export ANTEROOM_SESSIONS_PER_MINUTE=100000
export ANTEROOM_JOINS_PER_NETWORK_PER_MINUTE=100000
export ANTEROOM_PLACES_PER_NETWORK=100000
# At least 32 random bytes, or the server refuses to start.
export ANTEROOM_SESSION_SECRET="$(head -c 32 /dev/urandom | base64 | tr '+/' '-_')"
export ANTEROOM_DATA_DIR="$(mktemp -d)"
export ANTEROOM_URL="http://127.0.0.1:${port}"

throwaway_cleanup() {
  [ -n "${server:-}" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  psql -h 127.0.0.1 -U postgres -qc "drop database if exists anteroom_${1}_${stamp} with (force)" postgres >/dev/null 2>&1 || true
  redis-cli --scan --pattern "${ANTEROOM_REDIS_PREFIX}:*" | xargs -r redis-cli del >/dev/null 2>&1 || true
  rm -rf "$ANTEROOM_DATA_DIR"
}
