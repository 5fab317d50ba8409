"""A producer reading, at its own element, a buffer the group's last kernel then updates there
(issue 25; the survey's gs_shijiale_blocks: diff_Matrix_A reads dev_A[tid], add2to1 does
dev_A[tid] += diff_A[tid]). Fused when each thread reads its own element before it stores
it (legality._read_before_update, by the evaluated accesses); refused, with the usual
reason, when the producer reads a neighbour's element, when the last kernel stores before it
reads the producer, or when it reads the producer at a neighbour's element (the producer
then runs at an element another thread may already have stored). Compared element by
element with the original under the emulator, on garbage, at odd sizes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import call_both, fuse_file

# Written for this test. The two fused spellings: a[i] = a[i] + d[i], and a read into a
# local, then a later store (another mapping spelling and guard form too).
PROGRAM = r"""
__global__ void lg_diff(const float *a, const float *b, float *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = 0.5f * a[i] - b[i] * a[i];
}

__global__ void lg_add(float *a, const float *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = a[i] + d[i];
}

__global__ void lg_add_local(float *a, const float *d, int n) {
    int i = threadIdx.x + blockDim.x * blockIdx.x;
    if (i >= n) return;
    float v = d[i];
    float old = a[i];
    a[i] = old + 2.0f * v;
}

__global__ void lg_diff_next(const float *a, float *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = a[min(i + 1, n - 1)] - a[i];
}

__global__ void lg_add_late(float *a, const float *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float old = a[i];
        a[i] = 0.0f;
        a[i] = old + d[i];
    }
}

__global__ void lg_add_shifted(float *a, const float *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = a[i] + d[max(i - 1, 0)];
}

void plain(float *a, const float *b, float *d, int n) {
    lg_diff<<<(n + 63) / 64, 64>>>(a, b, d, n);
    lg_add<<<(n + 63) / 64, 64>>>(a, d, n);
}

void local(float *a, const float *b, float *d, int n) {
    lg_diff<<<(n + 31) / 32, 32>>>(a, b, d, n);
    lg_add_local<<<(n + 31) / 32, 32>>>(a, d, n);
}

void neighbour(float *a, float *d, int n) {
    lg_diff_next<<<(n + 63) / 64, 64>>>(a, d, n);
    lg_add<<<(n + 63) / 64, 64>>>(a, d, n);
}

void late(float *a, const float *b, float *d, int n) {
    lg_diff<<<(n + 63) / 64, 64>>>(a, b, d, n);
    lg_add_late<<<(n + 63) / 64, 64>>>(a, d, n);
}

void shifted(float *a, const float *b, float *d, int n) {
    lg_diff<<<(n + 63) / 64, 64>>>(a, b, d, n);
    lg_add_shifted<<<(n + 63) / 64, 64>>>(a, d, n);
}
"""

REFUSED = {"neighbour": "lg_diff_next", "late": "lg_diff", "shifted": "lg_diff"}


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("legal_s11")
    src, out = folder / "own_element.cu", folder / "fused.cu"
    src.write_text(PROGRAM)
    return src, out, fuse_file(src, out, fuse_all=True, siblings="never")


@pytest.fixture(scope="module")
def fused_scratch(fused):
    """The same with 'd' dead after the group: the producer's value is then computed where
    the last kernel reads it, not first into a local for its store."""
    src, out, _ = fused
    scratch = out.with_name("scratch.cu")
    return src, scratch, fuse_file(src, scratch, frozenset({"d"}), fuse_all=True,
                                   siblings="never")


@pytest.mark.parametrize("which", ["fused", "fused_scratch"])
def test_own_element_reads_fuse(request: pytest.FixtureRequest, which: str) -> None:
    _, _, result = request.getfixturevalue(which)
    groups = {g.host: tuple(g.kernels) for g in result.groups}
    assert groups == {"plain": ("lg_diff", "lg_add"), "local": ("lg_diff", "lg_add_local")}
    for host in REFUSED:
        why = [e.why for e in result.edges if e.host == host and not e.fused]
        assert why == [f"not fused: '{REFUSED[host]}' reads 'a' from memory, which the fused "
                       "kernel writes"], host


def _differing(src: Path, out: Path, host: str, names: str) -> dict[str, int]:
    """How many elements of each buffer in `names` differ between the two programs, over
    garbage inputs of odd sizes (and of size 1)."""
    diff = dict.fromkeys(names, 0)
    for n in (37, 1, 129):
        rng = np.random.default_rng(n)
        a, b, d = (rng.random(n, dtype=np.float32) * 7.0 - 3.0 for _ in range(3))
        args = [a, d, n] if host == "neighbour" else [a, b, d, n]
        x, y = call_both(src, out, host, args)
        for name in names:
            at = 0 if name == "a" else len(args) - 2
            assert not np.array_equal(x[at], args[at])  # (it is written: the test can fail)
            diff[name] += int(np.count_nonzero(x[at] != y[at]))
    return diff


@pytest.mark.slow  # (emulated builds: ~25 CPU-s, shared 2-core VM, 2026-11-29)
@pytest.mark.parametrize("which", ["fused", "fused_scratch"])
@pytest.mark.parametrize("host", ["plain", "local"])
def test_fused_equals_original(request: pytest.FixtureRequest, which: str, host: str) -> None:
    src, out, _ = request.getfixturevalue(which)
    names = "ad" if which == "fused" else "a"  # (a dead 'd' need not be left as it was)
    assert _differing(src, out, host, names) == dict.fromkeys(names, 0)


@pytest.mark.slow  # (a third emulated build)
def test_the_refused_would_be_wrong(fused, monkeypatch: pytest.MonkeyPatch) -> None:
    """The refusals are needed: with the rule allowing any such read, the store-first and
    the neighbour's-value programs fused with 'd' dead compute other values. (The emulator
    runs threads in order, so a read of the next thread's element, a[i + 1], would not
    show.)"""
    from cudafuse.passes.vertical.plan.legality import Legality

    monkeypatch.setattr(Legality, "_read_before_update", lambda *_: None)
    src, out, _ = fused
    wrong = out.with_name("permissive.cu")
    result = fuse_file(src, wrong, frozenset({"d"}), fuse_all=True, siblings="never")
    assert {g.host for g in result.groups} == {"plain", "local", *REFUSED}
    for host in ("late", "shifted"):
        assert _differing(src, wrong, host, "a")["a"] > 0, host
