"""The nvcc backend: its generated source compiles here (marker `nvcc`); on a GPU (marker
`gpu`) every emulator program gives the same outputs as the hardware."""

from __future__ import annotations

import ctypes
import subprocess

import numpy as np
import pytest
from conftest_runtime import EMU_PROGRAMS, PROGRAMS

from cudafuse.runtime import load
from cudafuse.runtime.build import BuildOptions, build, prepare
from cudafuse.runtime.trampoline import parse_manifest


@pytest.mark.nvcc
@pytest.mark.parametrize("program", ["images.cu", "barriers.cu"])
def test_trampolines_compile_with_nvcc(tmp_path, program):
    src = tmp_path / program
    src.write_text(prepare(str(EMU_PROGRAMS / program), "nvcc", BuildOptions()).text)
    proc = subprocess.run(["nvcc", "-c", "-arch=sm_90", "-std=c++17", "-I", str(EMU_PROGRAMS),
                           str(src), "-o", str(tmp_path / "out.o")], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    symbols = subprocess.run(["nm", str(tmp_path / "out.o")], capture_output=True,
                             text=True).stdout
    assert " T cudafuse_manifest" in symbols
    assert " T cudafuse_h_smooth_twice" in symbols or " T cudafuse_k_two_parts" in symbols


@pytest.mark.nvcc
def test_trampolines_compile_after_a_programs_min_max_macros(tmp_path):
    """C code's function-like `min`/`max` macros (ccminer's miner.h) must not reach the
    standard headers the trampolines include after the program."""
    src = tmp_path / "minmax.cu"
    src.write_text("#define min(a, b) ((a) < (b) ? (a) : (b))\n"
                   "#define max(a, b) ((a) > (b) ? (a) : (b))\n"
                   "__global__ void clampk(int *p, int n) {\n"
                   "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "  if (i < n) p[i] = max(0, min(p[i], 9));\n}\n")
    out = tmp_path / "gen.cu"
    out.write_text(prepare(str(src), "nvcc", BuildOptions()).text)
    proc = subprocess.run(["nvcc", "-c", "-arch=sm_90", "-std=c++17", str(out), "-o",
                           str(tmp_path / "out.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.nvcc
def test_nvcc_library_reports_the_same_signatures_as_emu():
    built = build(str(PROGRAMS / "api.cu"), "nvcc", BuildOptions(opt="-O0"))
    lib = ctypes.CDLL(str(built.library))  # loads without a GPU; nothing is called on it
    lib.cudafuse_manifest.restype = ctypes.c_char_p
    gpu = parse_manifest(lib.cudafuse_manifest().decode(),
                         {e.sym: e.name for e in built.entries})
    assert "overloaded(float)" in gpu
    with load(PROGRAMS / "api.cu", opt="-O1") as emu:
        # main is an entry only under the emulator (there exit() returns to the caller)
        assert gpu == {k: v for k, v in emu.signatures.items() if k != "main"}


def _cases():
    rng = np.random.default_rng(0)
    f = rng.random(1000, dtype=np.float32)
    ints = rng.integers(-5000, 5000, 300).astype(np.int32)
    bytes_ = rng.integers(0, 256, 5000).astype(np.uint8)
    img = rng.random(37 * 21, dtype=np.float32)
    p = rng.integers(0, 2, 128).astype(np.int32)
    weights = np.array([1, 2, 1, 0, -1, 3, 0.5, 0.25, -2], np.float32)
    yield "reductions.cu", "block_sum_shfl", (8, 128, 0), lambda: (f, np.zeros(8, np.float32),
                                                                   1000)
    yield "reductions.cu", "block_max_dynamic", (8, 128, 512), lambda: (
        ints[:300].repeat(4)[:1000], np.zeros(8, np.int32), 1000)
    yield "reductions.cu", "shuffles", (2, 64, 0), lambda: (
        ints[:128].copy(), *(np.zeros(128, np.int32) for _ in range(4)))
    yield "reductions.cu", "votes", (2, 64, 0), lambda: (
        p, np.zeros(128, np.uint32), *(np.zeros(128, np.int32) for _ in range(5)))
    yield "atomics.cu", "histogram", (7, 128, 1024), lambda: (bytes_, np.zeros(256, np.uint32),
                                                              5000, 256)
    yield "atomics.cu", "atomics_int", (3, 128, 0), lambda: (
        ints, np.array([10, 10, 1 << 30, -(1 << 30), -1, 0, 0, 0, 0], np.int32), 300)
    for mode in range(5):
        yield "images.cu", ("set_weights", "stencil3x3"), (((3, 3), (16, 8), 0), mode), \
            lambda mode=mode: ((weights,), (img, np.zeros_like(img), 37, 21, mode, 0.5))
    yield "barriers.cu", "two_parts", (1, 128, 0), lambda: (
        np.arange(64, dtype=np.int32), np.arange(64, dtype=np.int32) * 3,
        np.zeros(64, np.int32), np.zeros(64, np.int32))


CASES = list(_cases())


def _run(backend, program, name, cfg, make):
    with load(EMU_PROGRAMS / program, backend) as lib:
        if isinstance(name, tuple):  # a host call, then a launch
            (grid, block, shared), _ = cfg
            setup, args = make()
            lib.call(name[0], *setup)
            lib.launch(name[1], grid, block, shared, args)
        else:
            args = make()
            lib.launch(name, *cfg, args=args)
    return [a for a in args if isinstance(a, np.ndarray)]


@pytest.mark.gpu
@pytest.mark.parametrize("case", range(len(CASES)))
def test_emu_matches_gpu(case):
    program, name, cfg, make = CASES[case]
    emu = _run("emu", program, name, cfg, make)
    gpu = _run("nvcc", program, name, cfg, make)
    if name == "atomics_int":  # the CAS chain depends on how the GPU serialises lanes
        emu[-1][7] = gpu[-1][7] = 0
    for e, g in zip(emu, gpu, strict=True):
        if e.dtype.kind == "f":
            np.testing.assert_allclose(g, e, rtol=2e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(g, e)


@pytest.mark.nvcc
def test_nvcc_trampolines_of_host_constructs_match_the_emulators():
    """References, overloads, a name libm also declares, a function no trampoline can call:
    the nvcc build names and leaves out the same functions as the emu build."""
    program = EMU_PROGRAMS / "host_constructs.cu"
    built = build(str(program), "nvcc", BuildOptions(opt="-O0"))
    assert {e.name for e in built.entries if e.typed} == {"scale(int)", "scale(float)", "round"}
    assert list(built.uncallable) == ["pinned_value"]
    assert "main" not in {e.name for e in built.entries}  # emu only
