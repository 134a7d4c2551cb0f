#!/usr/bin/env bash
# The release site, as `make run` and `make test` serve it: the server and the hydrated WASM
# split at its lazy pieces, every static file precompressed with brotli and gzip; then each
# gzip copy written again by zopfli when it is installed (scripts/setup.sh installs it).
# cargo-leptos's gzip (libflate) is about a sixth larger than `gzip -9`, zopfli's about 4%
# smaller (the README's "What goes over the wire" has the sizes): a browser that accepts gzip
# but not brotli downloads the smaller one. The files stay valid gzip; only the encoder changes.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/end2end/node_modules/.bin:$PATH"
cargo leptos build --release --precompress --split
if ! command -v zopfli >/dev/null 2>&1; then
  echo "zopfli not found: the .gz files stay as cargo-leptos wrote them (apt-get install zopfli)" >&2
  exit 0
fi
find target/site -name '*.gz' -print0 | while IFS= read -r -d '' gz; do
  zopfli -c "${gz%.gz}" > "$gz.tmp"
  mv "$gz.tmp" "$gz"
done
