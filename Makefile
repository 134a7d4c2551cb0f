.PHONY: run test bench
# Serve Anteroom with a demo event on http://127.0.0.1:3000 (installs what is missing first).
run:
	scripts/run.sh
# Everything CI checks: fmt, clippy, the Rust tests, the browser tests.
test:
	scripts/test.sh
# Throughput and latency of the hot paths beside raw Redis and Postgres (a command, not a test).
bench:
	scripts/setup.sh
	cargo build --release -p loadtest
	./target/release/bench line
	./target/release/bench holds
