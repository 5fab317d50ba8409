"""`-isystem`, `-iquote`, `-idirafter` and `-imacros` reach the emulator's and nvcc's builds of
`cudafuse run`/`verify`, not only the front end (issue 31): a program whose headers are
found only through them, and whose macro only -imacros defines, builds and runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from cudafuse.cli import main
from cudafuse.runtime.build import BuildOptions, build
from cudafuse.runtime.library import search_flags

PROGRAM = """#include "quoted_only.h"
#include <system_only.h>
#include <after_only.h>
__global__ void shift(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * FROM_QUOTE + FROM_SYSTEM + FROM_AFTER + FROM_MACROS;
}
void entry(int *v, int n) { shift<<<(n + 63) / 64, 64>>>(v, n); }
"""
SPEC = """entry = "entry"
[[args]]
name = "v"
dtype = "int32"
count = 100
init = "ramp"
role = "inout"
[[args]]
name = "n"
value = 100
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for folder, name, text in (("q", "quoted_only.h", "#define FROM_QUOTE 3\n"),
                               ("s", "system_only.h", "#define FROM_SYSTEM 100\n"),
                               ("a", "after_only.h", "#define FROM_AFTER 1000\n"),
                               ("m", "macros.h", "#define FROM_MACROS 10000\n")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / name).write_text(text)
    (tmp_path / "p.cu").write_text(PROGRAM)
    (tmp_path / "p.toml").write_text(SPEC)
    monkeypatch.chdir(tmp_path)
    return tmp_path


FLAGS = ["-iquote", "q", "-isystems", "-idirafter=a", "-imacros", "m/macros.h"]


def test_search_flags_are_taken_in_every_spelling_with_absolute_paths(work: Path) -> None:
    got = search_flags(["-std=c++17", *FLAGS, "-UNDEBUG", "-U", "X", "-fno-exceptions"])
    assert got == ("-iquote", str(work / "q"), "-isystem", str(work / "s"),
                   "-idirafter", str(work / "a"), "-imacros", str(work / "m" / "macros.h"),
                   "-U", "NDEBUG", "-U", "X")


def test_the_parse_and_both_compilers_get_them(work: Path) -> None:
    # without a compile: the front end's parse reads the headers only they find, and the
    # emulator's g++ and nvcc are given them (the run below compiles; slow)
    from cudafuse.runtime.build import _flags, prepare

    opts = BuildOptions(search=search_flags(FLAGS))
    read = {Path(p).name: Path(p) for p in prepare(str(work / "p.cu"), "emu", opts).includes}
    assert read["quoted_only.h"] == work / "q" / "quoted_only.h"
    assert read["system_only.h"] == work / "s" / "system_only.h"
    assert read["after_only.h"] == work / "a" / "after_only.h"
    emu = _flags(work / "p.cu", "emu", opts)
    assert " ".join(opts.search) in " ".join(emu)
    nvcc = _flags(work / "p.cu", "nvcc", opts)
    assert ["-isystem", str(work / "s")] == nvcc[nvcc.index("-isystem"):][:2]
    assert f"-iquote,{work / 'q'}" in nvcc and f"-imacros,{work / 'm' / 'macros.h'}" in nvcc


@pytest.mark.slow  # a build and a run: about 5 CPU-s
def test_run_builds_with_them_under_the_emulator(work: Path) -> None:
    out = work / "out.npz"
    result = CliRunner().invoke(main, ["run", "p.cu", "--spec", "p.toml", "--save", str(out),
                                       *FLAGS])
    assert result.exit_code == 0, result.output
    import numpy as np

    np.testing.assert_array_equal(np.load(out)["v"], np.arange(100) * 3 + 11100)


@pytest.mark.nvcc
@pytest.mark.slow  # nvcc's 5-8 s
def test_nvcc_build_takes_them(work: Path) -> None:
    # nvcc has -isystem itself; the others reach the host compiler's preprocessor, which
    # its device pass uses too (without them: 'quoted_only.h: No such file').
    build(str(work / "p.cu"), "nvcc", BuildOptions(search=search_flags(FLAGS)))
