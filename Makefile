.PHONY: run test bench
# bash with pipefail, so that `cmd | tee file` fails when cmd fails.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
# Serve Anteroom with a demo event on http://127.0.0.1:3000 (installs what is missing first).
run:
	scripts/run.sh
# Everything CI checks: fmt, clippy, the alerting rules, the Rust tests, the API fuzzer
# (Schemathesis), the browser tests.
test:
	scripts/test.sh
# Throughput and latency of the hot paths beside raw Redis and Postgres, what rooms at rest
# cost (10, 100, 1,000 rooms on with nobody in line), what a line's polling costs Redis on the
# page's schedule against an ask every 3 s (lines of 1M and 10M), the draw of 1,000,000
# entrants at a sale's opening, then the night of the
# on-sale (20,000 buyers in 1 s, 2,000 seats, N = 300; hold and admission times compressed 60x),
# the same night with the automatic rate (N/10 to 4N), and with tokens bound to devices.
# A command, not a test: the figures land in bench-results/ (git-ignored).
bench:
	scripts/setup.sh
	mkdir -p bench-results
	cargo build --release -p loadtest
	cargo run -q --release -p loadtest --bin bench -- line | tee bench-results/line.txt
	cargo run -q --release -p loadtest --bin bench -- holds | tee bench-results/holds.txt
	# The same with every request's trace exported over OTLP (issue 36: what traces cost).
	cargo run -q --release -p loadtest --bin bench -- line --rounds 2 --traces | tee bench-results/line-traced.txt
	cargo run -q --release -p loadtest --bin bench -- holds --traces | tee bench-results/holds-traced.txt
	cargo run -q --release -p loadtest --bin bench -- line --rounds 2 --traces --trace-ratio 0.01 \
		| tee bench-results/line-sampled.txt
	cargo run -q --release -p loadtest --bin bench -- gated | tee bench-results/gated.txt
	cargo build -q --release -p anteroom-verify --example origin
	cargo run -q --release -p loadtest --bin bench -- gate | tee bench-results/gate.txt
	cargo run -q --release -p loadtest --bin bench -- inventory | tee bench-results/inventory.txt
	cargo run -q --release -p loadtest --bin bench -- rest | tee bench-results/rest.txt
	cargo run -q --release -p loadtest --bin bench -- polls | tee bench-results/polls.txt
	cargo build -p frontend --example pow_rate --target wasm32-unknown-unknown \
		--profile wasm-release
	cargo run -q --release -p loadtest --bin bench -- pow | tee bench-results/pow.txt
	cargo run -q --release -p loadtest --bin bench -- draw | tee bench-results/draw.txt
	cargo run -q --release -p loadtest --bin onsale -- --compress 60 \
		--out bench-results/night.json --svg bench-results/night.svg | tee bench-results/night.txt
	cargo run -q --release -p loadtest --bin onsale -- --compress 60 --no-hold-back \
		--out bench-results/night-plain.json | tee bench-results/night-plain.txt
	cargo run -q --release -p loadtest --bin onsale -- --compress 60 --auto-rate \
		--out bench-results/night-auto.json --svg bench-results/night-auto.svg \
		| tee bench-results/night-auto.txt
	cargo run -q --release -p loadtest --bin onsale -- --compress 60 --bind-tokens \
		--out bench-results/night-bound.json | tee bench-results/night-bound.txt
	# The estimate's and the outlook's check (issue 31): a crowd of 300 for 60 seats, all in
	# the first 2 s, polling every second, at N = 4 and N = 20; each twice in one house (the
	# second night starts from the first one's shares, app::estimate::History).
	# Each with the free seats holding admissions back for the buyers on the map, and without
	# (plain N a second while a seat is free: issue 64's comparison); the one-line figures of
	# every night side by side in bench-results/side-by-side.txt.
	for n in 4 20; do \
		cargo run -q --release -p loadtest --bin onsale -- --crowd --buyers 300 --seats 60 \
			--window 2 --poll-ms 1000 --compress 60 -n $$n --nights 2 \
			--out bench-results/crowd-$$n.json | tee bench-results/crowd-$$n.txt; \
		cargo run -q --release -p loadtest --bin onsale -- --crowd --buyers 300 --seats 60 \
			--window 2 --poll-ms 1000 --compress 60 -n $$n --nights 2 --no-hold-back \
			--out bench-results/crowd-$$n-plain.json | tee bench-results/crowd-$$n-plain.txt; \
	done
	grep -h "^side by side" bench-results/night.txt bench-results/night-plain.txt \
		bench-results/crowd-4.txt bench-results/crowd-4-plain.txt \
		bench-results/crowd-20.txt bench-results/crowd-20-plain.txt \
		| tee bench-results/side-by-side.txt
