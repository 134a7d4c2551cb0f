#!/usr/bin/env bash
# The Prometheus rules of an on-sale night (ops/prometheus/): `promtool check rules` on the
# recording and alerting rules, then their unit tests (ops/prometheus/tests/), in which every
# alert fires and stays quiet at least once. Installs Debian's prometheus for promtool when it
# is missing, and keeps that package's own server off: only promtool is used.
# Usage: scripts/promtool.sh [--install]   (--install: only install promtool; scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
# Runs "$@" as root, through sudo when not root (as scripts/setup.sh installs packages).
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

if ! command -v promtool >/dev/null 2>&1; then
  say "installing Debian's prometheus (for promtool)"
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends prometheus >/dev/null
  # The package enables its server and starts it where services may start (with systemd, or
  # without a policy-rc.d that forbids it). update-rc.d disables both its init script and its
  # systemd unit.
  if [ -d /run/systemd/system ]; then
    as_root systemctl disable --now prometheus.service >/dev/null 2>&1
  else
    as_root /etc/init.d/prometheus stop >/dev/null
    as_root update-rc.d prometheus disable >/dev/null 2>&1
  fi
fi
[ "${1:-}" = "--install" ] && exit 0

promtool check rules ops/prometheus/recording.yml ops/prometheus/alerts.yml
promtool test rules ops/prometheus/tests/*.yml
