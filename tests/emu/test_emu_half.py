"""Half precision and bfloat16 on the emulator (programs/half_bf16.cu) against numpy: every
16-bit pattern converted to float and to integers, a sweep of floats (subnormals, ties,
overflow) in all four rounding modes, doubles and integers, arithmetic on scalars and pairs,
comparisons, warp sums with shuffles, and atomicAdd. numpy's float16 conversions round to
nearest even exactly; bfloat16 and the directed modes are computed here from the bits, and
results that float64 cannot hold exactly (fma) from fractions."""

from __future__ import annotations

import shutil
import subprocess
from fractions import Fraction

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load

PROGRAM = PROGRAMS / "half_bf16.cu"
F16, U16, F32, F64 = np.float16, np.uint16, np.float32, np.float64
NAN16 = 0x7FFF


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAM, opt="-O1", timeout=120) as built:
        yield built


def blocks(n: int, threads: int = 128) -> int:
    return (n + threads - 1) // threads


# ---- references -----------------------------------------------------------------------------
def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(F32)


def f32_to_bf16(x: np.ndarray, mode: str = "rn") -> np.ndarray:
    """float32 -> bfloat16 bits by bit manipulation; NaN -> 0x7fff as CUDA gives."""
    u = np.asarray(x, F32).view(np.uint32).astype(np.uint64)
    trunc = u >> 16
    low = u & 0xFFFF
    neg = (u >> 31).astype(bool)
    if mode == "rn":
        r = (u + 0x7FFF + (trunc & 1)) >> 16
    elif mode == "rz":
        r = trunc
    else:
        away = (neg if mode == "rd" else ~neg) & (low != 0)
        r = trunc + away
    r = r.astype(U16)
    r[np.isnan(np.asarray(x, F32))] = NAN16
    return r


def f64_to_bf16(x: np.ndarray) -> np.ndarray:
    """float64 -> bfloat16, round to nearest even: round to odd into float32 first (exact
    for a second rounding to 8 bits), then as above."""
    x = np.asarray(x, F64)
    with np.errstate(all="ignore"):
        f = x.astype(F32)
    inexact = np.isfinite(x) & (f.astype(F64) != x)
    even = (f.view(np.uint32) & 1) == 0
    fix = inexact & even
    toward = np.where(x > f.astype(F64), F32(np.inf), F32(-np.inf))
    f = np.where(fix, np.nextafter(f, toward), f)
    return f32_to_bf16(f)


def f16_directed(x: np.ndarray, mode: str) -> np.ndarray:
    """float32/float64 -> half bits in rz/ru/rd: the neighbours of numpy's nearest-even."""
    with np.errstate(all="ignore"):  # overflow to inf, (signalling) NaNs: handled below
        x = np.asarray(x, F64)
        rn = x.astype(F16)
        r64 = rn.astype(F64)
        lo = np.where(r64 > x, np.nextafter(rn, F16(-np.inf)), rn)
        hi = np.where(r64 < x, np.nextafter(rn, F16(np.inf)), rn)
    out = {"rd": lo, "ru": hi, "rz": np.where(x > 0, lo, hi)}[mode]
    bits = out.view(U16).copy()
    bits[np.isnan(x)] = NAN16
    return bits


def f16_rn(x) -> np.ndarray:
    with np.errstate(all="ignore"):
        x = np.asarray(x, F64)
        bits = x.astype(F16).view(U16).copy()
    bits[np.isnan(x)] = NAN16
    return bits


def to_int(v: np.ndarray, mode: str, dtype, nan) -> np.ndarray:
    f = {"rn": np.rint, "rz": np.trunc, "ru": np.ceil, "rd": np.floor}[mode]
    info = np.iinfo(dtype)
    with np.errstate(invalid="ignore"):
        t = f(v.astype(F64))
        r = np.where(np.abs(t) < 2.0**62, t, 0).astype(dtype)  # (exact below 2^62)
    r[t >= info.max] = info.max
    r[t <= info.min] = info.min
    r[np.isnan(v)] = nan
    return r


def odd_f64(exact: Fraction) -> float:
    f = float(exact)
    if Fraction(f) == exact or not np.isfinite(f):
        return f
    if int(np.array(f).view(np.uint64)) & 1:
        return f
    return float(np.nextafter(f, np.inf if exact > Fraction(f) else -np.inf))


ROUND = {"half": f16_rn, "bf16": f64_to_bf16}
TO_F64 = {"half": lambda b: b.view(F16).astype(F64), "bf16": lambda b: bf16_to_f32(b).astype(F64)}


# ---- conversions ----------------------------------------------------------------------------
def test_every_pattern_to_float_and_int(lib):
    bits = np.arange(65536, dtype=np.uint32).astype(U16)
    n = bits.size
    hf, bf = np.zeros(n, F32), np.zeros(n, F32)
    hi, bi = np.zeros(4 * n, np.int32), np.zeros(4 * n, np.int32)
    hs, hll = np.zeros(2 * n, np.int16), np.zeros(n, np.int64)
    lib.launch("from_bits", blocks(n, 256), 256, 0, (bits, hf, bf, hi, bi, hs, hll, n))
    want_h = bits.view(F16).astype(F32)
    np.testing.assert_array_equal(hf, want_h)  # NaNs compare equal by position
    # The sign and payload of a NaN survive the conversion (as numpy's do).
    nan = np.isnan(want_h)
    np.testing.assert_array_equal(hf[nan].view(np.uint32), want_h[nan].view(np.uint32))
    np.testing.assert_array_equal(bf.view(np.uint32), bf16_to_f32(bits).view(np.uint32))
    for k, mode in enumerate(("rn", "rz", "ru", "rd")):
        np.testing.assert_array_equal(hi[k::4], to_int(want_h, mode, np.int32, 0), mode)
        np.testing.assert_array_equal(bi[k::4], to_int(bf16_to_f32(bits), mode, np.int32, 0), mode)
    np.testing.assert_array_equal(hs[0::2], to_int(want_h, "rn", np.int16, 0))
    np.testing.assert_array_equal(hs[1::2], to_int(want_h, "rz", np.int16, 0))
    np.testing.assert_array_equal(hll, to_int(want_h, "rz", np.int64, np.iinfo(np.int64).min))


def float_sweep() -> np.ndarray:
    rng = np.random.default_rng(16)
    every_half = np.arange(65536, dtype=np.uint32).astype(U16).view(F16).astype(F64)
    every_half = every_half[np.isfinite(every_half)]
    ups = np.nextafter(every_half, np.inf)
    # Midpoints between neighbouring halves (ties), and floats just either side of them.
    mids = ((every_half[:-1] + np.roll(every_half, -1)[:-1]) / 2).astype(F32)
    sweep = [every_half.astype(F32), mids, np.nextafter(mids, F32(np.inf)),
             np.nextafter(mids, F32(-np.inf)), ups.astype(F32),
             # bfloat16 ties and neighbours, all exponents
             (rng.integers(0, 1 << 16, 20000, dtype=np.uint64) << 16 | 0x8000).astype(
                 np.uint32).view(F32),
             rng.integers(0, 1 << 32, 100000, dtype=np.uint64).astype(np.uint32).view(F32),
             np.array([65504, 65519.99, 65520, 65536, 1e10, 3.4e38, np.inf, -np.inf, np.nan,
                       -np.nan, 0.0, -0.0, 2.0**-24, 2.0**-25, 2.0**-25 * 1.0000001, 2.0**-26,
                       5.96e-8, 6.1e-5, 3.0e38, 3.3961776e38, 3.3961778e38], F32)]
    x = np.concatenate(sweep).astype(F32)
    return np.concatenate([x, -x])


def test_float_to_16_all_modes(lib):
    x = float_sweep()
    n = x.size
    h, b = np.zeros(5 * n, U16), np.zeros(5 * n, U16)
    lib.launch("to_bits", blocks(n, 256), 256, 0, (x, h, b, n))
    np.testing.assert_array_equal(h[0::5], f16_rn(x), "half rn")
    np.testing.assert_array_equal(h[4::5], f16_rn(x), "half constructor")
    for k, mode in ((1, "rz"), (2, "ru"), (3, "rd")):
        np.testing.assert_array_equal(h[k::5], f16_directed(x, mode), f"half {mode}")
    for k, mode in ((0, "rn"), (1, "rz"), (2, "ru"), (3, "rd"), (4, "rn")):
        np.testing.assert_array_equal(b[k::5], f32_to_bf16(x, mode), f"bf16 {mode}")


def test_double_and_integers_to_16(lib):
    rng = np.random.default_rng(5)
    # Doubles that a detour through float would round twice: just above a tie.
    ties = np.array([1 + 2.0**-11 + 2.0**-40, 1 + 2.0**-8 + 2.0**-40, -(1 + 2.0**-11 + 2.0**-40),
                     2049.0000001, 1e300, -1e300, 2.0**-30, np.nan])
    x = np.concatenate([ties, rng.standard_normal(3000) * 10.0 ** rng.integers(-9, 9, 3000)])
    v = np.concatenate([[0, 1, -1, 2049, 2051, 4097, 65504, 65519, 65520, 70000, 2**31 - 1,
                         -2**31], rng.integers(-2**31, 2**31, x.size - 12)]).astype(np.int32)
    w = np.concatenate([[2**63 - 1, -2**63, 2**40 + 1, 257, 0, -257, 2**24 + 1, 3],
                        rng.integers(-2**62, 2**62, x.size - 8)]).astype(np.int64)
    n = x.size
    h, b = np.zeros(9 * n, U16), np.zeros(9 * n, U16)
    lib.launch("wide_to_bits", blocks(n), 128, 0, (x, v, w, h, b, n))
    np.testing.assert_array_equal(h[0::9], f16_rn(x))
    np.testing.assert_array_equal(b[0::9], f64_to_bf16(x))
    assert h[0] == 0x3C01 and b[9] == 0x3F81  # not the tie's even neighbour
    for k, mode in enumerate(("rn", "rz", "ru", "rd")):
        # Integers are exact in float64 up to 2^53; the large ones round through Fraction.
        ref_v = f16_rn(v) if mode == "rn" else f16_directed(v.astype(F64), mode)
        np.testing.assert_array_equal(h[1 + k::9], ref_v, f"int->half {mode}")
        wq = np.array([odd_f64(Fraction(int(t))) for t in w])
        ref_w = f16_rn(wq) if mode == "rn" else f16_directed(wq, mode)
        np.testing.assert_array_equal(h[5 + k::9], ref_w, f"ll->half {mode}")
        bv = f32_to_bf16(np.array([np.float32(odd32(int(t))) for t in v]), mode)
        np.testing.assert_array_equal(b[1 + k::9], bv, f"int->bf16 {mode}")
        bw = f32_to_bf16(np.array([np.float32(odd32(int(t))) for t in w]), mode)
        np.testing.assert_array_equal(b[5 + k::9], bw, f"ll->bf16 {mode}")


def odd32(i: int) -> np.float32:
    """The integer i as a float32 rounded to odd (exact for a later rounding to bfloat16)."""
    f = np.float32(i)
    if int(f) == i:
        return f
    if int(np.array(f).view(np.uint32)) & 1:
        return f
    return np.nextafter(f, np.float32(np.inf) if i > int(f) else np.float32(-np.inf))


# ---- arithmetic -----------------------------------------------------------------------------
def operands(kind: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "half":
        mag = rng.integers(0, 0x7C00, n)  # finite, subnormals included
    else:
        mag = np.where(rng.random(n) < 0.8, rng.integers(0x3000, 0x5000, n),
                       rng.integers(0, 0x7F80, n))
    return (mag | (rng.integers(0, 2, n) << 15)).astype(U16)


def reference(kind, a, b, c):
    fa, fb, fc = TO_F64[kind](a), TO_F64[kind](b), TO_F64[kind](c)
    rnd = ROUND[kind]

    def exact(f):
        # In fractions; an exact zero takes its sign from float64 (exact there: IEEE's rules).
        def one(x, y, z):
            if not np.isfinite(x * y + z):
                return f(x, y, z)
            r = f(Fraction(x), Fraction(y), Fraction(z))
            return odd_f64(r) if r else f(x, y, z)
        return np.array([one(x, y, z) for x, y, z in zip(fa, fb, fc, strict=True)])

    def div(x, y):
        with np.errstate(all="ignore"):
            return x / y  # float64 quotient: rounding it again to <= 11 bits is exact

    with np.errstate(all="ignore"):
        out = {
            0: rnd(exact(lambda x, y, z: x + y)), 1: rnd(exact(lambda x, y, z: x - y)),
            2: rnd(fa * fb), 3: rnd(div(fa, fb)), 4: rnd(exact(lambda x, y, z: x * y + z)),
            5: rnd(np.sqrt(np.abs(fa))),
        }
        prod = TO_F64[kind](rnd(fa * fb))
        out[6] = rnd(np.array([odd_f64(Fraction(p) + Fraction(z)) if np.isfinite(p) and p + z
                               else p + z for p, z in zip(prod, fc, strict=True)]))
        out[7] = np.where(fa >= fb, a, b)
        out[7] = np.where((fa == fb) & (a >> 15 == 1), b, out[7])
        out[8] = np.where(fa <= fc, a, c)
        out[8] = np.where((fa == fc) & (c >> 15 == 1), c, out[8])
        out[9] = rnd(exact(lambda x, y, z: x * z + x))
        out[10] = rnd(exact(lambda x, y, z: y * x + y))
        q = np.where(fa < fb, TO_F64[kind](rnd(div(fa, fc))), TO_F64[kind](rnd(div(fb, fa))))
        s = np.where(fa < fb, np.clip(TO_F64[kind](rnd(exact(lambda x, y, z: x + z))), 0, 1),
                     np.clip(TO_F64[kind](rnd(exact(lambda x, y, z: y + x))), 0, 1))
        out[11] = rnd(q - s)  # q and s have <= 11 bits: their float64 difference is exact
    return out


@pytest.mark.parametrize("kind", ["half", "bf16"])
def test_arithmetic(lib, kind):
    n = 3000
    a, b, c = operands(kind, n, 1), operands(kind, n, 2), operands(kind, n, 3)
    a[:4] = [0x3C00, 0x0001, 0x8000, 0x7BFF] if kind == "half" else [0x3F80, 0x0001, 0x8000, 0x7F7F]
    b[:4] = [0x3C00, 0x0001, 0x0000, 0x7BFF] if kind == "half" else [0x3F80, 0x0001, 0x0000, 0x7F7F]
    out = np.zeros(12 * n, U16)
    lib.launch(f"arith_{kind}", blocks(n), 128, 0, (a, b, c, out, n))
    ref = reference(kind, a, b, c)
    names = ["add", "sub", "mul", "div", "fma", "sqrt", "a*b+c", "hmax", "hmin_nan", "hfma2.x",
             "hfma2.y", "pairs"]
    for k, name in enumerate(names):
        got, want = out[k::12], np.asarray(ref[k]).astype(U16)
        nan_got = TO_F64[kind](got) != TO_F64[kind](got)
        nan_want = TO_F64[kind](want) != TO_F64[kind](want)
        np.testing.assert_array_equal(nan_got, nan_want, f"{kind} {name} NaN")
        assert (got[nan_got] == NAN16).all(), f"{kind} {name}: NaN is canonical"
        np.testing.assert_array_equal(got[~nan_got], want[~nan_got], f"{kind} {name}")


def test_comparisons(lib):
    vals = np.array([0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x7BFF],
                    U16)
    a, b = (g.ravel() for g in np.meshgrid(vals, vals))
    n = a.size
    out = np.zeros(n, np.uint32)
    lib.launch("compare", 1, 128, 0, (a, b, out, n))
    x, y = a.view(F16).astype(F64), b.view(F16).astype(F64)
    unordered = np.isnan(x) | np.isnan(y)
    want = [x == y, (x != y) & ~unordered, x < y, x <= y, x > y, x >= y, (x == y) | unordered,
            x != y, (x < y) | unordered, x == y, x != y, x < y, np.isnan(x), np.isinf(x),
            x == y, (x == y)]
    for k, w in enumerate(want):
        np.testing.assert_array_equal((out >> k) & 1, w.astype(np.uint32), f"bit {k}")


# ---- shuffles and atomics -------------------------------------------------------------------
def warp_tree(v: np.ndarray, add, xor: bool) -> np.ndarray:
    """Each warp's lane-0 sum by shfl_down (lanes past the end keep their own value) or by a
    shfl_xor butterfly, element-wise rounding with `add`."""
    v = v.reshape(-1, 32).copy()
    for off in (16, 8, 4, 2, 1):
        lanes = np.arange(32)
        src = lanes ^ off if xor else np.where(lanes + off < 32, lanes + off, lanes)
        v = add(v, v[:, src])
    return v[:, 0]


def bf16_add(x, y):
    return f64_to_bf16(bf16_to_f32(x).astype(F64) + bf16_to_f32(y).astype(F64))


def test_warp_sums_with_shuffles(lib):
    rng = np.random.default_rng(9)
    n = 512
    x = (rng.standard_normal(n) * 4).astype(F16)
    out = np.zeros(n // 32, F16)
    lib.launch("warp_sum_half", n // 128, 128, 0, (x, out))
    np.testing.assert_array_equal(out, warp_tree(x, lambda p, q: p + q, False))
    x2 = (rng.standard_normal(2 * n) * 4).astype(F16)
    out2 = np.zeros(2 * (n // 32), F16)
    lib.launch("warp_sum_half2", n // 128, 128, 0, (x2, out2))
    pairs = x2.reshape(-1, 2)
    np.testing.assert_array_equal(out2[0::2], warp_tree(pairs[:, 0], lambda p, q: p + q, True))
    np.testing.assert_array_equal(out2[1::2], warp_tree(pairs[:, 1], lambda p, q: p + q, True))
    xb = f32_to_bf16((rng.standard_normal(n) * 100).astype(F32))
    outb = np.zeros(n // 32, U16)
    lib.launch("warp_sum_bf16", n // 128, 128, 0, (xb, outb))
    np.testing.assert_array_equal(outb, warp_tree(xb, bf16_add, False))


def test_atomic_add(lib):
    n = 1024
    h, h2 = np.zeros(4, F16), np.zeros(4, F16)
    b, b2 = np.zeros(4, U16), np.zeros(2, U16)
    old = np.zeros(n, F32)
    lib.launch("atomics", n // 128, 128, 0, (h, h2, b, b2, old, n))
    np.testing.assert_array_equal(h, [256] * 4)
    np.testing.assert_array_equal(h2, [512, 256, 512, 256])
    np.testing.assert_array_equal(bf16_to_f32(b), [256] * 4)
    np.testing.assert_array_equal(np.sort(old), np.repeat(np.arange(256, dtype=F32), 4))
    acc = np.zeros(2, U16)
    for _ in range(n):  # the same value each time: the result does not depend on the order
        acc = bf16_add(acc, f32_to_bf16(np.array([0.25, 2.0], F32)))
    np.testing.assert_array_equal(b2, acc)


# nvcc checks this test's own program, no cudafuse code: its verdict changes only with the
# program or the toolkit, so `make test-slow` runs it (about 2-11 CPU-s; issue 27).
@pytest.mark.nvcc
@pytest.mark.slow
def test_compiles_with_nvcc(tmp_path):
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(PROGRAM), "-o", str(tmp_path / "h.o")],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
