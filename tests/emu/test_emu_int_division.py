"""Integer division by zero in a kernel gives what an NVIDIA GPU gives (issue 27).

x86's DIV/IDIV trap (SIGFPE) and ended the run (a third-party aos.cu stopped there); a GPU's
integer divide gives all ones for / and % by zero and two's-complement wrap for MIN / -1, and
the kernel goes on (emu/guard.cpp). Each spelling below reaches the hardware divide in a
different encoding: registers of 8, 16, 32 and 64 bits, signed and unsigned, a divisor read
from memory, a device helper, a compound assignment, a loop.
"""

from __future__ import annotations

import numpy as np
import pytest

from cudafuse.runtime import load

PROGRAM = r"""
#include <climits>
__device__ long long quot(long long a, long long b) { return a / b; }

__global__ void divide(const int *a, const int *b, int *q, int *r, unsigned *uq, unsigned *ur,
                       long long *lq, long long *lr, unsigned long long *ulq, short *sq,
                       unsigned char *cq, int *acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  q[i] = a[i] / b[i];
  r[i] = a[i] % b[i];
  uq[i] = (unsigned)a[i] / (unsigned)b[i];
  ur[i] = (unsigned)a[i] % (unsigned)b[i];
  lq[i] = quot(a[i], b[i]);
  lr[i] = (long long)a[i] % b[i];
  ulq[i] = (unsigned long long)(long long)a[i] / (unsigned long long)(long long)b[i];
  volatile short sa = (short)a[i], sb = (short)b[i];
  sq[i] = (short)(sa / sb);
  volatile unsigned char ca = (unsigned char)a[i], cb = (unsigned char)b[i];
  cq[i] = (unsigned char)(ca / cb);
  int s = 0;
  for (int k = 0; k < 3; ++k) {
    int t = a[i] + k;
    t /= b[(i + k) % n];
    s += t;
  }
  acc[i] = s;
}

void run(const int *a, const int *b, int *q, int *r, unsigned *uq, unsigned *ur, long long *lq,
         long long *lr, unsigned long long *ulq, short *sq, unsigned char *cq, int *acc, int n) {
  int *da, *db, *dq, *dr, *dacc; unsigned *duq, *dur; long long *dlq, *dlr;
  unsigned long long *dulq; short *dsq; unsigned char *dcq;
  cudaMalloc(&da, n * 4); cudaMalloc(&db, n * 4); cudaMalloc(&dq, n * 4); cudaMalloc(&dr, n * 4);
  cudaMalloc(&duq, n * 4); cudaMalloc(&dur, n * 4); cudaMalloc(&dlq, n * 8);
  cudaMalloc(&dlr, n * 8); cudaMalloc(&dulq, n * 8); cudaMalloc(&dsq, n * 2);
  cudaMalloc(&dcq, n); cudaMalloc(&dacc, n * 4);
  cudaMemcpy(da, a, n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, n * 4, cudaMemcpyHostToDevice);
  divide<<<(n + 31) / 32, 32>>>(da, db, dq, dr, duq, dur, dlq, dlr, dulq, dsq, dcq, dacc, n);
  cudaMemcpy(q, dq, n * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(r, dr, n * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(uq, duq, n * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(ur, dur, n * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(lq, dlq, n * 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(lr, dlr, n * 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(ulq, dulq, n * 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(sq, dsq, n * 2, cudaMemcpyDeviceToHost);
  cudaMemcpy(cq, dcq, n, cudaMemcpyDeviceToHost);
  cudaMemcpy(acc, dacc, n * 4, cudaMemcpyDeviceToHost);
}
"""


def _trunc_div(a: np.ndarray, b: np.ndarray, ones: int, bits: int, signed: bool
               ) -> tuple[np.ndarray, np.ndarray]:
    """C's truncating / and % in `bits`-bit two's complement, with the GPU's values where C's
    are undefined: all ones by zero, MIN / -1 wrapping to MIN with remainder 0."""
    q, r = [], []
    for x, y in zip(a.tolist(), b.tolist(), strict=True):
        if y == 0:
            q.append(ones)
            r.append(ones)
            continue
        t = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
        rem = x - t * y
        if signed and t >= 1 << (bits - 1):
            t -= 1 << bits
        q.append(t)
        r.append(rem)
    return np.array(q, dtype=object), np.array(r, dtype=object)


@pytest.mark.parametrize("opt", ["-O0", pytest.param("-O2", marks=pytest.mark.slow)])
def test_integer_division_by_zero_gives_the_gpus_values_and_goes_on(tmp_path, capfd, opt):
    src = tmp_path / "divide.cu"
    src.write_text(PROGRAM)
    a = np.array([7, -7, 100, 5, -2**31, -2**31, 0, 12, 255, -9, 40000, 3], np.int32)
    b = np.array([2, 2, 0, 0, -1, 3, 0, 5, 0, -4, 7, 0], np.int32)
    n = len(a)
    out = {k: np.zeros(n, t) for k, t in (("q", np.int32), ("r", np.int32), ("uq", np.uint32),
                                          ("ur", np.uint32), ("lq", np.int64), ("lr", np.int64),
                                          ("ulq", np.uint64), ("sq", np.int16), ("cq", np.uint8),
                                          ("acc", np.int32))}
    with load(src, opt=opt) as lib:
        lib.call("run", a, b, *out.values(), n)
    q, r = _trunc_div(a, b, -1, 32, True)
    np.testing.assert_array_equal(out["q"], q)
    np.testing.assert_array_equal(out["r"], r)
    ua, ub = a.astype(np.uint32).astype(np.int64), b.astype(np.uint32).astype(np.int64)
    uq, ur = _trunc_div(ua, ub, 2**32 - 1, 32, False)
    np.testing.assert_array_equal(out["uq"], uq.astype(np.uint32))
    np.testing.assert_array_equal(out["ur"], ur.astype(np.uint32))
    lq, lr = _trunc_div(a.astype(np.int64), b.astype(np.int64), -1, 64, True)
    np.testing.assert_array_equal(out["lq"], lq)
    np.testing.assert_array_equal(out["lr"], lr)
    wa = [int(x) % 2**64 for x in a.tolist()]  # sign-extended to 64 bits, as unsigned
    wb = [int(x) % 2**64 for x in b.tolist()]
    ulq, _ = _trunc_div(np.array(wa, dtype=object), np.array(wb, dtype=object), 2**64 - 1, 64,
                        False)
    np.testing.assert_array_equal(out["ulq"], np.array(ulq.tolist(), np.uint64))
    # short and unsigned char operands are promoted to int: a 32-bit divide, truncated
    sa, sb = a.astype(np.int16).astype(np.int64), b.astype(np.int16).astype(np.int64)
    sq = [(int(v) + 2**15) % 2**16 - 2**15 for v in _trunc_div(sa, sb, -1, 32, True)[0]]
    np.testing.assert_array_equal(out["sq"], np.array(sq, np.int16))
    ca, cb = a.astype(np.uint8).astype(np.int64), b.astype(np.uint8).astype(np.int64)
    cq = [int(v) % 256 for v in _trunc_div(ca, cb, -1, 32, True)[0]]
    np.testing.assert_array_equal(out["cq"], np.array(cq, np.uint8))
    acc = [sum(int(_trunc_div(np.array([int(a[i]) + k]), np.array([int(b[(i + k) % n])]), -1,
                              32, True)[0][0]) for k in range(3)) for i in range(n)]
    np.testing.assert_array_equal(out["acc"], np.array(acc, np.int64).astype(np.int32))
    err = capfd.readouterr().err
    assert "kernel 'divide'" in err and "divides an integer by zero" in err, err
    assert "divides the most negative integer by -1" in err, err
    # once per dividing instruction, not once per thread (five threads divide by zero)
    lines = [x for x in err.splitlines() if "divides an integer by zero" in x]
    assert 0 < len(lines) < 5 * 10, err
