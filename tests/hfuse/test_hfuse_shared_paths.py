"""Shared memory reached outside a kernel's body (programs/shared_paths.cu): cuda-samples'
SharedMemory<T>, a getPointer() member, helpers (transitively), a macro, a namespace-scope
extern __shared__ array, static arrays in a member function. Both parts use dynamic shared
memory; each fused kernel (thread and block mode) is compared with the `--mode sequential`
launcher (the two original kernels, unchanged) on the same inputs, in thread order and in
a seeded random order. Before this, part 2's arrays stayed at offset 0 and overlapped part
1's in thread mode."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hfuse_helpers import PROGRAMS, hfuse, library

SRC = PROGRAMS / "shared_paths.cu"
N = 1000
B1, B2 = 128, 64


def _fused(tmp_path: Path, kernels: str, mode: str) -> Path:
    out = tmp_path / f"{mode}.cu"
    res = hfuse(str(SRC), "--kernels", kernels, "--block1", str(B1), "--block2", str(B2),
                "--mode", mode, "-o", str(out))
    assert res.exit_code == 0, res.output
    return out


def _inputs(dtypes: tuple[type, type]) -> list[tuple]:
    rng = np.random.default_rng(5)
    out = []
    for dt, blocks in zip(dtypes, (B1, B2), strict=True):
        x = rng.integers(-40, 40, N).astype(dt)
        out.append((x, np.zeros(N, dt), N))
        del blocks
    return out


def _run(path: Path, launcher: str, args: list[tuple], smem: tuple[int, int],
         seed: int | None) -> list[np.ndarray]:
    copies = [tuple(a.copy() if isinstance(a, np.ndarray) else a for a in side)
              for side in args]
    grids = ((N + B1 - 1) // B1, (N + B2 - 1) // B2)
    library(path, seed).call(launcher, *copies[0], *copies[1], grids[0], grids[1], *smem, None)
    return [side[1] for side in copies]


PAIRS = [
    # kernels, element types, each part's dynamic shared memory in bytes
    ("reduce<float>,reduce<double>", (np.float32, np.float64), (B1 * 4 + 4, B2 * 8)),
    ("reverse_sm,rotate_ptr", (np.float32, np.int32), (B1 * 4, B2 * 4)),
    ("shift_helper,shift_global", (np.float32, np.float32), (B1 * 4 + 8, B2 * 4)),
    ("rotate_ptr,macro_helper", (np.int32, np.int32), (B1 * 4, B2 * 4)),
    ("reverse_macro,reverse_sm", (np.float64, np.float32), (B1 * 8, B2 * 4)),
    ("cached_sum,cached_diff", (np.int32, np.int32), (0, 0)),
]


@pytest.fixture(scope="module")
def sequential(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """The `--mode sequential` launcher of a pair, emitted (and built) once per module for
    both modes' tests: it does not depend on the mode."""
    made: dict[str, Path] = {}

    def get(kernels: str) -> Path:
        if kernels not in made:
            made[kernels] = _fused(tmp_path_factory.mktemp("sequential"), kernels,
                                   "sequential")
        return made[kernels]

    return get


# Thread mode (where part 2's shared memory is offset, through a different redirection for
# each way of reaching it) runs every pair in `make test`. Block mode redirects nothing (both
# regions start at offset 0: test_part_2_gets_its_own_copies), the same path for every pair:
# `make test` runs it on the first pair (SharedMemory<T> of two element types, two dynamic
# sizes), `make test-slow` on the other five (issue 27).
CASES = [pytest.param(*p, mode, id=f"{p[0]}-{mode}",
                      marks=pytest.mark.slow if mode == "block" and i >= 1 else ())
         for mode in ("thread", "block") for i, p in enumerate(PAIRS)]


@pytest.mark.parametrize("kernels,dtypes,smem,mode", CASES)
def test_fused_matches_sequential(tmp_path: Path, kernels: str, dtypes: tuple[type, type],
                                  smem: tuple[int, int], mode: str,
                                  sequential: Callable[[str], Path]) -> None:
    fused, seq = _fused(tmp_path, kernels, mode), sequential(kernels)
    launcher = next(line.split("(")[0].split()[-1] for line in fused.read_text().splitlines()
                    if line.startswith("void ") and "_launch(" in line)
    args = _inputs(dtypes)
    want = _run(seq, launcher, args, smem, None)
    for seed in (None, 3):
        got = _run(fused, launcher, args, smem, seed)
        for w, g in zip(want, got, strict=True):
            assert np.array_equal(w, g), (seed, np.flatnonzero(w != g)[:10])


def test_reduce_originals_against_numpy(tmp_path: Path) -> None:
    # The emulator builds SharedMemory<T> (extern __shared__ inside member functions) and
    # the original kernels compute block sums: the oracle above is itself right.
    seq = _fused(tmp_path, "reduce<float>,reduce<double>", "sequential")
    x1, x2 = _inputs((np.float32, np.float64))[0][0], _inputs((np.float32, np.float64))[1][0]
    got = _run(seq, "reduce_reduce_hfused_launch", [(x1, np.zeros(N, np.float32), N),
                                                    (x2, np.zeros(N, np.float64), N)],
               (B1 * 4, B2 * 8), None)
    g1, g2 = -(-N // B1), -(-N // B2)
    assert np.array_equal(got[0][:g1], np.add.reduceat(x1, np.arange(0, N, B1)))
    assert np.array_equal(got[1][:g2], np.add.reduceat(x2, np.arange(0, N, B2)))


def test_part_2_gets_its_own_copies(tmp_path: Path) -> None:
    text = _fused(tmp_path, "reduce<float>,reduce<double>", "thread").read_text()
    tail = text[text.index("generated by cudafuse hfuse"):]
    assert "namespace cf_part2 {" in tail and "using cf_part2::SharedMemory;" in tail
    assert "if (cf_tid == 0) cf_smem_off2_s = cf_smem_off2;" in tail
    assert "extern __shared__ int __smem[]" not in tail  # every copy points into the region
    # Part 1's region starts at offset 0, where the original classes already point.
    assert tail.count("using cf_part2::SharedMemory;") == 1
    block = _fused(tmp_path, "reduce<float>,reduce<double>", "block").read_text()
    assert "cf_part2" not in block  # both regions at offset 0: nothing to redirect


# nvcc compiles every pair's thread-mode file (each redirects its part 2 differently) and
# the first pair's block-mode file (nothing redirected, the same for every pair) in `make
# test`; `make test-slow` the other block-mode files (about 2 CPU-s each; issue 27).
@pytest.mark.nvcc
@pytest.mark.parametrize("kernels,mode", [
    pytest.param(p[0], mode, id=f"{p[0]}-{mode}",
                 marks=pytest.mark.slow if mode == "block" and i >= 1 else ())
    for mode in ("thread", "block") for i, p in enumerate(PAIRS)])
def test_emitted_files_compile(tmp_path: Path, kernels: str, mode: str) -> None:
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    out = _fused(tmp_path, kernels, mode)
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(out), "-o",
                          str(tmp_path / f"{mode}.o")], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


REFUSALS = PROGRAMS / "shared_refusals.cu"
REFUSED = [
    # part 2's kernel, where (a line's text), what the message says
    ("from_header", "float *s = HeaderSmem<float>();", "which declares __shared__ memory that "
     "cudafuse cannot see into"),
    ("qualified", "float *s = ::Smem<float>();", "is named with a qualifier"),
    ("via_typedef", "typedef AliasedSmem<float> FloatSmem;", "is named at namespace scope"),
    ("lane_member", "return __lsmem + threadIdx.x;", "'LaneSmem::mine' (reached from the "
     "kernel) reads threadIdx"),
    ("outer_class", "__device__ float *get() { return Smem<float>(); }",
     "'Outer::get' uses 'Smem', which reaches shared memory itself"),
    ("out_of_line", "__device__ int *OutOfLine::get() {", "is defined outside its class"),
    ("two_in_macro", "  TWO_DECLS;", "inside a macro expansion"),
    ("qualified_macro", "#define QUALIFIED_PTR(T)", "is named with a qualifier in macro "
     "'QUALIFIED_PTR', which the kernel uses"),
    ("alias_macro", "typedef SMEM_TYPE IntSmem;", "is named at namespace scope (alias "
     "'IntSmem')"),
    ("signature_class", "__device__ float *by_value(Smem<float> s)", "'by_value' names "
     "'Smem' in its signature"),
]


def _line(pattern: str) -> int:
    lines = REFUSALS.read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if pattern in text)


@pytest.mark.parametrize("kernel,where,what", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_in_thread_mode_accepted_in_block_mode(tmp_path: Path, kernel: str,
                                                        where: str, what: str) -> None:
    out = tmp_path / "out.cu"
    args = (str(REFUSALS), "--kernels", f"plain,{kernel}", "--block1", "64", "--block2", "64",
            "-o", str(out))
    res = hfuse(*args)
    assert res.exit_code == 1, res.output
    assert f"{REFUSALS}:{_line(where)}:" in res.output and ": error: " in res.output, \
        res.output
    assert what in res.output, res.output
    assert not out.exists()
    # Block mode: both parts' dynamic regions start at offset 0 and a block runs one part.
    assert hfuse(*args, "--mode", "block").exit_code == 0


def test_explain_and_report_name_the_path(tmp_path: Path) -> None:
    out, rep = tmp_path / "f.cu", tmp_path / "r.json"
    res = hfuse(str(SRC), "--kernels", "rotate_ptr,reverse_sm", "--block1", "128", "--block2",
                "64", "-o", str(out), "--report", str(rep), "--explain")
    assert res.exit_code == 0, res.output
    assert "dynamic shared memory at offset 0 (reached through 'SmemBuf::getPointer')" \
        in res.output
    assert "dynamic shared memory at offset align16(smem1) (reached through " \
        "'SharedMemory::operator T *'" in res.output
    assert "class(es) SharedMemory copied for the part" in res.output
    assert [p["dynamic_shared"] for p in json.loads(rep.read_text())["parts"]] == [True, True]


def test_two_files_each_with_its_shared_memory_class(tmp_path: Path) -> None:
    # The second file's SharedMemory is renamed apart (cf_in2_SharedMemory), and part 2's
    # copy of it then lives under the next free prefix.
    text = SRC.read_text()
    second = tmp_path / "b.cu"
    second.write_text(text[:text.index("template <class T> struct SmemBuf")] +
                      text[text.index("// cuda-samples' reduce"):
                           text.index("// Each block reverses")].replace("reduce(", "reduce_b("))
    smem, args = (B1 * 4 + 4, B2 * 8), _inputs((np.float32, np.float64))
    outs = {}
    for mode in ("thread", "block", "sequential"):
        outs[mode] = tmp_path / f"{mode}.cu"
        res = hfuse(str(SRC), str(second), "--kernels", "reduce<float>,reduce_b<double>",
                    "--block1", str(B1), "--block2", str(B2), "--mode", mode, "-o",
                    str(outs[mode]))
        assert res.exit_code == 0, res.output
    assert "using cf1_part2::cf_in2_SharedMemory;" in outs["thread"].read_text()
    want = _run(outs["sequential"], "reduce_reduce_b_hfused_launch", args, smem, None)
    for mode in ("thread", "block"):
        got = _run(outs[mode], "reduce_reduce_b_hfused_launch", args, smem, 3)
        for w, g in zip(want, got, strict=True):
            assert np.array_equal(w, g), mode
