"""The emulator's DPX intrinsics (emu/include/cudafuse_emu_dpx.h) against the toolkit's own:
CUDA 12+ defines them as host and device functions, so nvcc builds a host program that runs
NVIDIA's versions with no GPU (programs/dpx.cu with CF_DPX_MAIN), on the same rows as the
emulated kernel: signs, 16-bit halves, wrapping sums and ties included."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load

N = 44  # results a row


@pytest.mark.nvcc
def test_dpx_matches_the_toolkits_host_versions(tmp_path: Path) -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not on PATH")
    rng = np.random.default_rng(11)
    special = [0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x80017FFF,
               0x7FFF8001, 0x00010001]
    rows = [(a, b, c) for a in special for b in special[::2] for c in special[::3]]
    rows += [tuple(r) for r in rng.integers(0, 2**32, (300, 3), dtype=np.uint64).tolist()]
    rows += [(a, a, c) for a, _, c in rows[-40:]]  # ties: which operand the predicate names
    abc = np.array(rows, np.uint32).reshape(-1)
    n = len(rows)
    exe = tmp_path / "dpx_host"
    done = subprocess.run(["nvcc", "-arch=sm_90", "-DCF_DPX_MAIN", "-x", "cu",
                           str(PROGRAMS / "dpx.cu"), "-o", str(exe)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    want = np.frombuffer(subprocess.run([str(exe)], input=abc.tobytes(), capture_output=True,
                                        check=True).stdout, np.uint32)
    out = np.zeros(N * n, np.uint32)
    with load(PROGRAMS / "dpx.cu", opt="-O1") as lib:
        lib.launch("dpx_all", (n + 127) // 128, 128, 0, (abc, out, n))
    assert want.shape == out.shape
    bad = np.flatnonzero(want != out)
    assert not bad.size, [(rows[i // N], i % N, hex(out[i]), hex(want[i])) for i in bad[:5]]
