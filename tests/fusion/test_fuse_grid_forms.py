"""Grid sizes spelled other than `(w + b - 1) / b` (the survey's GRID cause): PolyBench's
`ceil((float)NX / (float)block.x)`, `ceil((double)n / b)`, `(n - 1) / b + 1`,
`n / b + (n % b != 0)`, `n / b + (n % b ? 1 : 0)`, cuda-samples' iDivUp (its body is read),
`div_up` helpers, `DIV_UP` macros, constexpr/const block sizes, grids held in locals.

Unit tests of coverage.covers on each spelling (covering and not), a numeric check of the float
bound (ceil(fl(n) / fl(b)) * b >= n for n <= 2^24, not beyond), and a differential test: the
pipelines of programs/grid_forms.cu fuse, and match the original element by element under
emulation at sizes that are not multiples of the block; the fused file compiles with nvcc."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from equivalence import fuse_file, run_both

from cudafuse.frontend import parse_file
from cudafuse.ir import nodes as n
from cudafuse.ir.program import TranslationUnit
from cudafuse.passes.vertical.host.coverage import Resolver, covers
from cudafuse.passes.vertical.host.hostview import host_locals

PROGRAMS = Path(__file__).parent / "programs"
SPELLINGS = PROGRAMS / "grid_spellings.cu"
PROGRAM = PROGRAMS / "grid_forms.cu"


@pytest.fixture(scope="module")
def spellings() -> TranslationUnit:
    return parse_file(str(SPELLINGS)).unit


def cover_note(unit: TranslationUnit, host: str) -> str | None:
    """covers() for the one launch in `host`, with the kernel's int parameters as bounds
    (x first: `k` is guarded by i < n, `k2` by j < nx and i < ny)."""
    fn = unit.function(host)
    assert fn is not None, host
    (launch,) = unit.launches[host]
    kernel = unit.function(launch.kernel)
    assert kernel is not None
    params = {p.decl: a for p, a in zip(kernel.params, launch.args, strict=True)}
    bounds: list[n.Expr] = [n.Ref(p.name, kind="param", decl=p.decl, type=p.type)
                            for p in kernel.params if not p.is_pointer]
    resolver = Resolver(host_locals(fn), unit=unit).with_params(params)
    return covers(resolver, launch.grid, launch.block, bounds)


COVERING = ["a_const_int", "a_constexpr", "a_macro", "a_minus_one", "a_plus_test",
            "a_plus_cond", "a_plus_greater", "a_cond_eq", "a_plus_one", "a_idivup",
            "a_div_up_member", "a_ceil_double", "a_std_ceil", "a_ceilf_short",
            "a_ceil_float_const", "a_local_blocks", "a_blockdim_name", "a_symbolic_block",
            "a_symbolic_idivup", "a_float_helper_const", "a_exact_const"]


@pytest.mark.parametrize("host", COVERING)
def test_covering_spellings_are_accepted(spellings: TranslationUnit, host: str) -> None:
    assert cover_note(spellings, host) is None


FLOAT = "rounds a quotient in float: it covers n only while n <= 16777216 (2^24), which " \
        "cudafuse cannot show"
DOWN = "its grid does not cover the iteration space in x: its x size "


@pytest.mark.parametrize(("host", "note"), [
    ("r_ceil_float", "its grid's x size (size_t)ceil((float)n / (float)block.x) " + FLOAT),
    ("r_ceilf", "its grid's x size (int)ceilf(n / (float)T) " + FLOAT),
    ("r_float_helper", "its grid's x size ceil_div_f(n, 32) " + FLOAT),
    ("r_ceil_double_long", "rounds a quotient in double: it covers big only while big <= "
     "9007199254740992 (2^53)"),
    ("r_floor", DOWN + "(rows * cols) / 1024 rounds down, leaving out the last "
     "(rows * cols) % 1024 elements whenever that is not 0"),
    ("r_gemver", DOWN + "ceil((float)n) / (float)block.x rounds down, leaving out the last "
     "n % block.x elements"),
    ("r_ceil_int_division", DOWN + "n / T rounds down"),
    ("r_div_down", DOWN + "n / T rounds down"),
    ("r_local_floor", DOWN + "n / T rounds down"),
    ("r_cond_swapped", DOWN + "n / T rounds down"),
    ("r_one_short", "grid * block can fall 1 short of the bound"),
    ("r_other_block", "it divides by something other than its block's size"),
    ("r_opaque", "it calls 'opaque_blocks', whose body is not one return"),
    ("r_const_grid", "its x size 4096 / 256 covers 4096 elements, a constant, and its bound n is "
     "not one"),
    ("r_not_exact_const", "grid * block can fall 232 short of the bound"),
])
def test_other_spellings_are_refused_with_the_reason(spellings: TranslationUnit, host: str,
                                                     note: str) -> None:
    why = cover_note(spellings, host)
    assert why is not None and note in why, why


NARROW = r"""
__global__ void k(int n, float *a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 1.0f;
}
void narrowed(int n, float *a) { k<<<(int)ceilf((float)(short)n / 64.0f), 64>>>(n, a); }
void literal(int n, float *a) { k<<<(int)ceil(n / 64.0), 64>>>(n, a); }
void fractional(int n, float *a) { k<<<(int)ceil(n / 64.5), 64>>>(n, a); }
int ceil(int a, int b) { return a / b; }
void own_ceil(int n, float *a) { k<<<ceil(n + 63, 64), 64>>>(n, a); }
"""


def test_casts_literals_and_a_ceil_of_this_file(tmp_path: Path) -> None:
    src = tmp_path / "narrow.cu"
    src.write_text(NARROW)
    unit = parse_file(str(src)).unit
    assert "narrows an integer to 'short'" in (cover_note(unit, "narrowed") or "")
    assert cover_note(unit, "literal") is None  # 64.0: an integer, exact
    assert "not integers converted" in (cover_note(unit, "fractional") or "")
    assert cover_note(unit, "own_ceil") is None  # a function named ceil: its body is read


def _float_grid_covers(n_values: np.ndarray, b: int) -> np.ndarray:
    grid = np.ceil(n_values.astype(np.float32) / np.float32(b)).astype(np.int64)
    return grid * b >= n_values


def test_float_ceil_covers_up_to_2_pow_24_and_not_beyond() -> None:
    """The bound gridsize.py states for `ceil((float)n / (float)b)`: every n <= 2^24 is
    covered, whatever the block; just above 2^24 every block size fails somewhere (the
    first n that fails is 2^24 + 1, for powers of two)."""
    near = np.arange(2 ** 24 - 2 ** 12, 2 ** 24 + 1, dtype=np.int64)
    rand = np.random.default_rng(0).integers(1, 2 ** 24 + 1, 20_000)
    above = np.arange(2 ** 24 + 1, 2 ** 24 + 2 ** 12, dtype=np.int64)
    blocks = [*range(1, 65), 96, 100, 127, 192, 255, 256, 257, 384, 500, 511, 512, 640,
              768, 999, 1000, 1023, 1024]
    for b in blocks:
        assert _float_grid_covers(near, b).all(), b
        assert _float_grid_covers(rand, b).all(), b
        fails = above[~_float_grid_covers(above, b)]
        assert len(fails), b
        if b & (b - 1) == 0:
            assert fails[0] == 2 ** 24 + 1
    # double over any 32-bit int: exact
    ints = np.random.default_rng(1).integers(1, 2 ** 32, 200_000)
    for b in (1, 3, 32, 255, 256, 1000, 1024):
        grid = np.ceil(ints.astype(np.float64) / np.float64(b)).astype(np.int64)
        assert (grid * b >= ints).all()


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gf") / "fused.cu"
    result = fuse_file(PROGRAM, out, fuse_all=True)
    assert sorted(g.kernels for g in result.groups) == sorted(
        [["scale2", "blur2"]] * 4 + [["scale1", "blur1"]] * 2)
    return out


@pytest.mark.parametrize(("entry", "sizes"), [
    ("gf_polybench", ((37, 19),)),
    ("gf_ceil_double", ((37, 19), (17, 5))),
    ("gf_minus_one", ((37, 19), (1, 9))),
    ("gf_helpers", ((37, 19), (65, 3))),
    ("gf_remainder", ((37, 19), (128, 1))),
    ("gf_locals", ((37, 19), (7, 1))),
])
def test_grid_form_pipelines_match(fused: Path, entry: str,
                                   sizes: tuple[tuple[int, int], ...]) -> None:
    for w, h in sizes:
        run_both(PROGRAM, fused, entry, w, h)


@pytest.mark.nvcc
def test_grid_forms_fused_compiles(fused: Path, tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(fused), "-o", str(tmp_path / "o.o")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
