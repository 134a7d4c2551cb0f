//! The join's proof-of-work search (`app::pow`) compiled to WebAssembly on its own, for `bench
//! pow` to time in V8, Chromium's engine: what a browser pays per hash, without a browser. Built
//! as the page's bundle is (`--profile wasm-release`, opt-level "z"):
//! `cargo build -p frontend --example pow_rate --target wasm32-unknown-unknown --profile wasm-release`.

/// The challenge the bench hashes: as long as a real one (a signed `bits.expiry.id.mac`).
const CHALLENGE: &str =
    "20.1796000000.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// The first nonce in `from..from + count` that proves `bits` of work, or `u64::MAX`.
#[unsafe(no_mangle)]
pub extern "C" fn pow_search(bits: u32, from: u64, count: u64) -> u64 {
    app::pow::search(CHALLENGE, bits, from, count).unwrap_or(u64::MAX)
}

fn main() {}
