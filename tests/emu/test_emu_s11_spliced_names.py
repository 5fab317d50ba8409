"""The text the emulator's build writes into a program (issue 27) spells only reserved names.

The rewrite splices launches, kernel registrations, bound checks, inline PTX translations and
null-pointer casts into the program's own text, and the emulator's device macros
(`__syncthreads`, `__shfl_down_sync`, `__reduce_add_sync`) expand there: all of it comes after
the program's -D macros (emu/defines.py moves those that the forced headers spell after
them). Any identifier there that a program may define (`launch`, `run`, `cudafuse_emu`,
`CUDAFUSE_KERNEL`, `a`) broke the build. The check reads the program as g++ reads it
(preprocessed, every macro expanded) and finds each identifier the program's own text does
not spell: each must be reserved, a keyword, or a name the CUDA toolkit's or C library's
headers declare. Then the program is built with the names the rewrite used to spell defined
as macros, and run (slow: a build).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest_emu import PROGRAMS, assert_nvcc_compiles

from cudafuse.emu.defines import code_identifiers
from cudafuse.emu.toolkit import toolkit_include
from cudafuse.runtime import load
from cudafuse.runtime.build import BuildOptions, _flags, prepare

PROGRAM = PROGRAMS / "s11" / "spliced.cu"

_KEYWORDS = frozenset(
    "alignas alignof asm auto bool break case catch char char16_t char32_t class const "
    "constexpr const_cast continue decltype default delete do double dynamic_cast else enum "
    "explicit extern false float for friend goto if inline int long mutable namespace new "
    "noexcept nullptr operator private protected public register reinterpret_cast return "
    "short signed sizeof static static_assert static_cast struct switch template this "
    "thread_local throw true try typedef typeid typename union unsigned using virtual void "
    "volatile wchar_t while".split())


def _reserved(name: str) -> bool:
    return name.startswith("__") or (name[0] == "_" and name[1:2].isupper())


def _expanded_program(tmp_path: Path) -> str:
    """The program's lines of the build's text after g++'s preprocessor (its own file only)."""
    prep = prepare(str(PROGRAM), "emu", BuildOptions())
    src = tmp_path / "program.cpp"
    src.write_text(prep.program)
    flags = [f for f in _flags(PROGRAM, "emu", BuildOptions())
             if not f.startswith(("-Wl", "-shared"))]
    out = subprocess.run(["g++", *flags, "-E", str(src)], capture_output=True, text=True,
                         check=True).stdout
    mine, keep = [], False
    marker = re.compile(r'^# \d+ "([^"]*)"')
    for line in out.splitlines():
        m = marker.match(line)
        if m:
            keep = Path(m.group(1)).name == PROGRAM.name
        elif keep:
            mine.append(line)
    return "\n".join(mine)


@pytest.mark.skipif(toolkit_include() is None, reason="no CUDA toolkit installed")
def test_the_text_after_the_programs_macros_spells_only_reserved_names(tmp_path):
    expanded = _expanded_program(tmp_path)
    assert "<<<" not in expanded and '"block_sum"' in expanded  # launches rewritten
    tk = toolkit_include()
    assert tk is not None
    public = set(_KEYWORDS)
    for f in [*tk.glob("*.h"), *(tk / "crt").glob("*.h")]:
        public |= code_identifiers(f.read_bytes())
    new = code_identifiers(expanded.encode()) - code_identifiers(PROGRAM.read_bytes())
    # printf, from the program's own CHECK: the C library's, declared by the toolkit's too
    assert sorted(n for n in new if not _reserved(n) and n not in public) == []


# What the rewrite and the device macros spelled before (issue 27), each a possible macro of a
# program's command line (the program spells none of them itself).
FORMER = ("cudafuse_emu launch launch_via run registered api_site nth_param_t null_constant "
          "CUDAFUSE_KERNEL CUDAFUSE_LAUNCH_BOUNDS CUDAFUSE_BOUNDS_OF CUDAFUSE_INSTANCE_BOUNDS "
          "CUDAFUSE_SMEM_REG CF_KREG_CAT bar_all bar_sync bar_sync_all bar_red_ptx bar_reduce "
          "warp_op call_with_args over_bounds bound_threads bound_reg instance_bound ptx set "
          "laneid mul_lo cf_arg_ cf_op0 cf_op1 cf_reg1 cf_cc a b").split()


@pytest.mark.slow  # a build under 36 -D macros (no precompiled header serves them)
def test_a_program_built_with_those_names_as_macros_runs_exactly():
    n = 1000
    x = np.random.default_rng(5).integers(-50, 50, n).astype(np.int32)
    blocks = (n + 127) // 128
    sums, scaled = np.zeros(blocks, np.int32), np.zeros(n, np.int32)
    total = np.zeros(1, np.int32)
    with load(PROGRAM, opt="-O0", defines={name: 1 for name in FORMER}, timeout=300) as lib:
        lib.call("spliced_entry", x, sums, scaled, total, n)
    padded = np.zeros(blocks * 128, np.int64)
    padded[:n] = x
    np.testing.assert_array_equal(sums, padded.reshape(blocks, 128).sum(axis=1))
    assert total[0] == x.sum()
    np.testing.assert_array_equal(scaled, x * 15)  # scale<3>, then scale<5> (cudaLaunchKernel)


@pytest.mark.nvcc
def test_program_compiles_with_nvcc(tmp_path):
    assert_nvcc_compiles(PROGRAM, tmp_path)
