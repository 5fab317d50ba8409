"""What an emulator build costs (issue 27), kept without changing what it builds: kernels
called from Python share one instantiation of the emulator's launch code (trampoline.py),
and the link goes through gold where it is installed, errors still read from ld.bfd
(build.py)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

import cudafuse.runtime.build as emu_build
from cudafuse.diagnostics import CudafuseError
from cudafuse.runtime import load

# Three kernels of three signatures, none launched by the program: each is reached only
# through its trampoline. A by-value struct, const and by-value scalars of several widths.
PROGRAM = r"""
struct Affine { float a, b; };
__global__ void affine(float *x, Affine f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = f.a * x[i] + f.b;
}
__global__ void widen(const unsigned char *in, double *out, const double scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * scale;
}
__global__ void count(long long *hits, short step) {
  atomicAdd((unsigned long long *)hits, (unsigned long long)step);
}
"""


def test_kernels_called_from_python_share_one_launch_instantiation(tmp_path) -> None:
    src = tmp_path / "three.cu"
    src.write_text(PROGRAM)
    # Launch and note_argument are names the kernels' trampolines spell: a program's macro
    # of either is set aside while they are read.
    with load(src, opt="-O0", defines={"Launch": 1, "note_argument": 2}) as lib:
        x = np.arange(37, dtype=np.float32)
        lib.launch("affine", 2, 32, 0, (x, np.array([2.0, -1.0], np.float32).tobytes(),
                                        np.int32(37)))
        np.testing.assert_array_equal(x, 2 * np.arange(37, dtype=np.float32) - 1)
        raw = np.arange(50, dtype=np.uint8)
        out = np.zeros(50)
        lib.launch("widen", 4, 16, 0, (raw, out, np.float64(0.5), np.int32(50)))
        np.testing.assert_array_equal(out, np.arange(50) * 0.5)
        hits = np.zeros(1, np.int64)
        lib.launch("count", 3, 5, 0, (hits, np.int16(3)))
        assert hits[0] == 3 * 5 * 3
        library = lib.built.library
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm not on PATH")
    symbols = subprocess.run([nm, "-D", "-C", "--defined-only", str(library)],
                             capture_output=True, text=True, check=True).stdout
    runs = [s for s in symbols.splitlines() if "cudafuse_emu::Launch::run<" in s]
    # One per kernel signature before (Launch::run<void (*)(float*, Affine, int), ...>).
    assert runs and not [s for s in runs if "(*)(" in s], runs


def test_gold_links_unless_missing_or_turned_off(monkeypatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.delenv("CUDAFUSE_EMU_LD", raising=False)
    assert emu_build.FAST_LINK in emu_build._link_flags()
    monkeypatch.setenv("CUDAFUSE_EMU_LD", "bfd")
    assert emu_build._link_flags() == ["-pipe"]
    monkeypatch.delenv("CUDAFUSE_EMU_LD")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert emu_build._link_flags() == ["-pipe"]


@pytest.mark.slow  # three failed builds (~6 CPU-s); the default suite's undefined-reference
# tests (test_runtime_api, test_emu_runtime_api) link with gold first too
@pytest.mark.skipif(not shutil.which("ld.gold"), reason="no ld.gold")
def test_an_undefined_reference_reads_as_ld_bfd_says_it(tmp_path) -> None:
    """gold names a caller as `function f: error: ...`, which the reports do not read: a link
    it refuses is done again with ld.bfd, whose `in function 'f'` locates the caller."""
    src = tmp_path / "u.cu"
    src.write_text("__device__ float helper(float x);\n"
                   "__global__ void k(float *a) { a[0] = helper(a[0]); }\n")
    messages = []
    for linker in ("gold", "bfd"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("CUDAFUSE_EMU_LD", linker)
            with pytest.raises(CudafuseError) as info:
                load(src, opt="-O0")
        messages.append(str(info.value))
    assert "undefined reference to helper(float)" in messages[0]
    assert messages[0] == messages[1]
