.PHONY: run test
# Serve Anteroom with a demo event on http://127.0.0.1:3000 (installs what is missing first).
run:
	scripts/run.sh
# Everything CI checks: fmt, clippy, the Rust tests, the browser tests.
test:
	scripts/test.sh
