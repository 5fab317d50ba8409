"""The cryptographic HFuse samples (blake2b.cu, blake256.cu): emulator output equals a
reference (hashlib's BLAKE2b; a pure-Python BLAKE-256 checked against published vectors),
and `cudafuse run` accepts their specs."""

import hashlib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cudafuse.cli import main
from cudafuse.runtime import load

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "hfuse"

# ---- BLAKE-256 reference (SHA-3 submission, 14 rounds, no salt), for any byte length ------

_B256_IV = (0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
            0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19)
_B256_C = (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344,
           0xA4093822, 0x299F31D0, 0x082EFA98, 0xEC4E6C89,
           0x452821E6, 0x38D01377, 0xBE5466CF, 0x34E90C6C,
           0xC0AC29B7, 0xC97C50DD, 0x3F84D5B5, 0xB5470917)
_SIGMA = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
    (14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3),
    (11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4),
    (7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8),
    (9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13),
    (2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9),
    (12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11),
    (13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10),
    (6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5),
    (10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0),
)
_M32 = 0xFFFFFFFF
# G_0..G_7: four columns, then four diagonals
_STEPS = ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15),
          (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14))


def _rotr32(x: int, n: int) -> int:
    return ((x >> n) | (x << (32 - n))) & _M32


def _blake256_compress(h: list[int], block: bytes, t: int) -> list[int]:
    m = [int.from_bytes(block[4 * i : 4 * i + 4], "big") for i in range(16)]
    t0, t1 = t & _M32, (t >> 32) & _M32
    v = list(h) + list(_B256_C[:4]) + [t0 ^ _B256_C[4], t0 ^ _B256_C[5],
                                        t1 ^ _B256_C[6], t1 ^ _B256_C[7]]
    for r in range(14):
        s = _SIGMA[r % 10]
        for i, (a, b, c, d) in enumerate(_STEPS):
            p, q = s[2 * i], s[2 * i + 1]
            v[a] = (v[a] + v[b] + (m[p] ^ _B256_C[q])) & _M32
            v[d] = _rotr32(v[d] ^ v[a], 16)
            v[c] = (v[c] + v[d]) & _M32
            v[b] = _rotr32(v[b] ^ v[c], 12)
            v[a] = (v[a] + v[b] + (m[q] ^ _B256_C[p])) & _M32
            v[d] = _rotr32(v[d] ^ v[a], 8)
            v[c] = (v[c] + v[d]) & _M32
            v[b] = _rotr32(v[b] ^ v[c], 7)
    return [h[i] ^ v[i] ^ v[i + 8] for i in range(8)]


def blake256(msg: bytes) -> bytes:
    """BLAKE-256 of a byte string: pad with a 1 bit, zeros to 447 mod 512 bits, a 1 bit and
    the 64-bit big-endian bit length; each block's counter is the number of message bits up
    to and including it, or 0 for a block holding no message bits."""
    nbits = 8 * len(msg)
    p = bytearray(msg) + b"\x80"
    while len(p) % 64 != 56:
        p.append(0)
    p[-1] |= 0x01
    p += nbits.to_bytes(8, "big")
    h = list(_B256_IV)
    for off in range(0, len(p), 64):
        end = min(len(msg), off + 64)
        t = 8 * end if end > off else 0
        h = _blake256_compress(h, bytes(p[off : off + 64]), t)
    return b"".join(x.to_bytes(4, "big") for x in h)


@pytest.mark.parametrize("msg,digest", [
    # the two vectors of the BLAKE specification (SHA-3 submission, appendix)
    (b"\x00", "0ce8d4ef4dd7cd8d62dfded9d4edb0a774ae6a41929a74da23109e8f11139c87"),
    (b"\x00" * 72, "d419bad32d504fb7d44d460c42c5593fe544fa4c135dec31e21bd9abdcc22d41"),
    # widely published reference-implementation outputs whose last block holds no message
    # bits (counter 0): the empty message and the 448-bit message, whose padding overflows
    (b"", "716f6e863f744b9ac22c97ec7b76ea5f5908bc5b2f67c61510bfc4751384ea7a"),
    (b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "adb13cb0da78463d36fcf40def3f291b3f0673e78127bdb70942cdd640b907b4"),
], ids=["8bit_zero", "576bit_zero", "empty", "448bit_abc"])
def test_blake256_reference_vectors(msg, digest):
    assert blake256(msg).hex() == digest


# ---- the samples under the emulator ----------------------------------------------------------


def test_blake2b_emu():
    rng = np.random.default_rng(5)
    n = 200  # not a multiple of the block: tail threads exit
    msgs = rng.integers(0, 2**64, n * 16, dtype=np.uint64)
    digests = np.zeros(n * 8, np.uint64)
    lib = load(SAMPLES / "blake2b.cu", backend="emu")
    lib.call("blake2b_run", msgs, digests, n)
    # message and digest words are little-endian 64-bit words
    raw = msgs.astype("<u8").tobytes()
    for i in range(n):
        ref = hashlib.blake2b(raw[128 * i : 128 * i + 128], digest_size=64).digest()
        got = digests[8 * i : 8 * i + 8].astype("<u8").tobytes()
        assert got == ref, i


def test_blake256_emu():
    rng = np.random.default_rng(6)
    n = 200
    msgs = rng.integers(0, 2**32, n * 16, dtype=np.uint64).astype(np.uint32)
    digests = np.zeros(n * 8, np.uint32)
    lib = load(SAMPLES / "blake256.cu", backend="emu")
    lib.call("blake256_run", msgs, digests, n)
    # message and digest words are big-endian 32-bit words
    raw = msgs.astype(">u4").tobytes()
    for i in range(n):
        ref = blake256(raw[64 * i : 64 * i + 64])
        got = digests[8 * i : 8 * i + 8].astype(">u4").tobytes()
        assert got == ref, i


@pytest.mark.parametrize("name", ["blake2b", "blake256"])
def test_crypto_spec_runs(name):
    res = CliRunner().invoke(main, ["run", str(SAMPLES / f"{name}.cu"),
                                    "--spec", str(SAMPLES / f"{name}.toml")],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "digests:" in res.output
