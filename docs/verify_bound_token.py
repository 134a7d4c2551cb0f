"""How another service checks an Anteroom admission token bound to a device.

Anteroom's gate does this itself; a service behind it (a seat-map CDN worker, a partner's
checkout) that receives the buyer's requests directly does the same, offline, with the JWKS:

  1. Verify the admission token with the JWKS key its `kid` names, EdDSA only, audience
     "anteroom", not expired; check `evt` is the event asked about.
  2. If the token has `cnf.jkt`, the request must carry a `DPoP` header: a JWT with header
     typ "dpop+jwt", alg "ES256" and the public P-256 `jwk` (no private "d").
  3. Verify the proof's signature with that jwk, and check its claims: `htm` is the request's
     method, `htu` its URL without query or fragment, `iat` within 60 s of your clock, `ath`
     is base64url(SHA-256(the admission token)), and `jti` not seen before (keep the jtis of
     the last two minutes, e.g. in a Redis set per minute).
  4. The RFC 7638 thumbprint of the proof's jwk must equal `cnf.jkt`.

Requires PyJWT and cryptography (`pip install pyjwt cryptography`).
Usage: verify(jwks, token, proof, method, url, event_id, seen_jtis) -> claims, or raises.
"""

import base64
import hashlib
import json
import time

import jwt
from jwt.algorithms import ECAlgorithm, OKPAlgorithm


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def thumbprint(jwk: dict) -> str:
    """RFC 7638: the required members in lexicographic order, no blanks, SHA-256."""
    canonical = json.dumps(
        {"crv": jwk["crv"], "kty": jwk["kty"], "x": jwk["x"], "y": jwk["y"]},
        separators=(",", ":"),
        sort_keys=True,
    )
    return b64url(hashlib.sha256(canonical.encode()).digest())


def verify(jwks, token, proof, method, url, event_id, seen_jtis):
    # 1. The admission token, with the key its kid names; EdDSA only.
    kid = jwt.get_unverified_header(token)["kid"]
    key = next(k for k in jwks["keys"] if k["kid"] == kid)
    claims = jwt.decode(
        token,
        OKPAlgorithm.from_jwk(json.dumps(key)),
        algorithms=["EdDSA"],
        audience="anteroom",
    )
    if claims["evt"] != event_id:
        raise ValueError("a token for another event")
    jkt = claims.get("cnf", {}).get("jkt")
    if jkt is None:
        return claims  # not bound: a bearer token, as in rooms that do not bind

    # 2. The proof's header.
    if proof is None:
        raise ValueError("a bound token needs a DPoP proof")
    header = jwt.get_unverified_header(proof)
    if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256":
        raise ValueError("a DPoP proof is typ dpop+jwt, alg ES256")
    jwk = header["jwk"]
    if "d" in jwk or jwk.get("kty") != "EC" or jwk.get("crv") != "P-256":
        raise ValueError("a DPoP proof carries a public P-256 key")

    # 3. Its signature and claims.
    proven = jwt.decode(
        proof,
        ECAlgorithm.from_jwk(json.dumps(jwk)),
        algorithms=["ES256"],
        options={"verify_aud": False, "verify_iat": False},
    )
    if proven["htm"] != method:
        raise ValueError("a proof for another method")
    if proven["htu"] != url.split("?")[0].split("#")[0]:
        raise ValueError("a proof for another URL")
    if abs(proven["iat"] - time.time()) > 60:
        raise ValueError("a proof more than 60 s off our clock")
    if proven.get("ath") != b64url(hashlib.sha256(token.encode()).digest()):
        raise ValueError("a proof for another token")
    if proven["jti"] in seen_jtis:
        raise ValueError("a replayed proof")
    seen_jtis.add(proven["jti"])

    # 4. The key that made it is the one the token is bound to.
    if thumbprint(jwk) != jkt:
        raise ValueError("a proof from another device")
    return claims


if __name__ == "__main__":
    # A harness: a JSON file with jwks, token, proof, method, url, event_id. Verifies the
    # request twice (the second is a replay) and prints what each check said.
    import sys

    case = json.load(open(sys.argv[1]))
    seen = set()
    args = [case[k] for k in ("jwks", "token", "proof", "method", "url", "event_id")]
    for attempt in ("first", "again"):
        try:
            print(attempt, "accepted", verify(*args, seen)["sub"])
        except ValueError as e:
            print(attempt, "refused:", e)
