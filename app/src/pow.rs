//! The hashing of the proof of work at join (API.md "Proof of work at join"), shared by the
//! server that checks a proof and every client that makes one (the WASM page, the load test),
//! so the two can never disagree: a proof for `challenge` is a `nonce` such that
//! SHA-256(challenge ":" nonce) starts with `bits` zero bits. Clients try nonces 0, 1, 2...
//! written in decimal; each try succeeds with probability 2^-bits, so a proof costs 2^bits
//! hashes on average, whoever makes it.

use sha2::{Digest, Sha256};

/// The most characters of a nonce the server reads: enough for any decimal `u64`.
pub const NONCE_MAX_LEN: usize = 64;

/// How many zero bits `digest` starts with.
pub fn leading_zero_bits(digest: &[u8]) -> u32 {
    let mut bits = 0;
    for byte in digest {
        bits += byte.leading_zeros();
        if *byte != 0 {
            break;
        }
    }
    bits
}

/// Whether `nonce` proves `bits` of work for `challenge`.
pub fn meets(challenge: &str, nonce: &str, bits: u32) -> bool {
    let digest = Sha256::new()
        .chain_update(challenge.as_bytes())
        .chain_update(b":")
        .chain_update(nonce.as_bytes())
        .finalize();
    leading_zero_bits(&digest) >= bits
}

/// The first nonce among `from..from + count` that proves `bits` of work, if any: a step of
/// the search, so that a browser can paint between steps.
pub fn search(challenge: &str, bits: u32, from: u64, count: u64) -> Option<u64> {
    // The challenge's part of the hash is the same for every nonce: hash it once.
    let mut prefix = Sha256::new();
    prefix.update(challenge.as_bytes());
    prefix.update(b":");
    let mut digits = itoa_buffer();
    (from..from.saturating_add(count)).find(|nonce| {
        let digest = prefix
            .clone()
            .chain_update(decimal(&mut digits, *nonce))
            .finalize();
        leading_zero_bits(&digest) >= bits
    })
}

/// The proof of `bits` of work for `challenge`: the first nonce that makes one.
pub fn solve(challenge: &str, bits: u32) -> String {
    let mut from = 0;
    loop {
        if let Some(nonce) = search(challenge, bits, from, 1 << 16) {
            return nonce.to_string();
        }
        from += 1 << 16;
    }
}

/// Room for a `u64` in decimal.
fn itoa_buffer() -> [u8; 20] {
    [0; 20]
}

/// `n` in decimal, written into the end of `buffer` without allocating.
fn decimal(buffer: &mut [u8; 20], mut n: u64) -> &[u8] {
    let mut at = buffer.len();
    loop {
        at -= 1;
        buffer[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buffer[at..];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_bits_are_counted_across_bytes() {
        assert_eq!(leading_zero_bits(&[0x80]), 0);
        assert_eq!(leading_zero_bits(&[0x00, 0x10]), 11);
        assert_eq!(leading_zero_bits(&[0x00, 0x00]), 16);
        assert_eq!(leading_zero_bits(&[0x01, 0x00]), 7);
    }

    #[test]
    fn a_solved_nonce_meets_its_challenge_and_no_smaller_one_does() {
        let nonce = solve("c", 12);
        assert!(meets("c", &nonce, 12));
        let n: u64 = nonce.parse().unwrap();
        assert!((0..n).all(|m| !meets("c", &m.to_string(), 12)));
        assert_eq!(
            search("c", 12, 0, n),
            None,
            "the search stops before the proof"
        );
    }

    #[test]
    fn decimal_writes_every_digit() {
        let mut buffer = itoa_buffer();
        for n in [0, 7, 10, 4_096, u64::MAX] {
            assert_eq!(decimal(&mut buffer, n), n.to_string().as_bytes());
        }
    }

    #[test]
    fn the_hash_is_sha256_of_challenge_colon_nonce() {
        // `printf 'abc:0' | sha256sum` starts 5f: one zero bit, then a one.
        assert!(meets("abc", "0", 1));
        assert!(!meets("abc", "0", 2));
        // `printf 'abc:3' | sha256sum` starts 0f: four zero bits, the first nonce with four.
        assert!(meets("abc", "3", 4));
        assert!(!meets("abc", "3", 5));
        assert_eq!(search("abc", 4, 0, 100), Some(3));
    }
}
