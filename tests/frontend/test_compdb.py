"""-p BUILD_DIR: each input's flags from the build's compile_commands.json."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from cudafuse.diagnostics import CudafuseError
from cudafuse.frontend import ParseOptions, parse_file
from cudafuse.frontend.compdb import flags_of, lookup

KERNEL = """\
#include "params.h"
__global__ void scale(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= GAIN * EXTRA;
}
"""
PARAMS = '#pragma once\n#ifndef GAIN\n#error "GAIN must be defined"\n#endif\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "inc").mkdir()
    (tmp_path / "build").mkdir()
    (tmp_path / "src/k.cu").write_text(KERNEL)
    (tmp_path / "inc/params.h").write_text(PARAMS)
    (tmp_path / "inc/extra.h").write_text("#define EXTRA 3.0f\n")
    return tmp_path


def write_db(root: Path, entry: dict[str, object]) -> Path:
    db = root / "build/compile_commands.json"
    db.write_text(json.dumps([{"directory": str(root / "build"), "file": "../src/other.cu",
                               "command": "nvcc -DGAIN=99 -c ../src/other.cu"}, entry]))
    return db


def test_nvcc_spellings(project: Path) -> None:
    (project / "build/opts.txt").write_text("-DFROM_OPTIONS_FILE=1\n")
    entry = {"directory": str(project / "build"), "file": "../src/k.cu",
             "command": "/usr/local/cuda/bin/nvcc -I/usr/local/cuda/include "
                        "--include-path ../inc,../more -DGAIN=2.0f,OTHER --pre-include "
                        "../inc/extra.h -Xcompiler -Wall,-I../host -isystem ../sys "
                        "--options-file opts.txt --std c++20 -arch sm_90 -c ../src/k.cu "
                        "-o k.o"}
    flags = flags_of(entry)
    root = str(project)
    # The toolkit's own directory is left out: the front end has its own CUDA declarations.
    assert flags.include_dirs == (f"{root}/inc", f"{root}/more", f"{root}/host", f"{root}/sys")
    assert flags.defines == ("GAIN=2.0f", "OTHER", "FROM_OPTIONS_FILE=1")
    assert flags.forced_includes == (f"{root}/inc/extra.h",)
    assert flags.std == "c++20"


def test_gcc_spellings_with_arguments_and_a_response_file(project: Path) -> None:
    (project / "build/rsp").write_text("-DFROM_RSP -I../rsp\n")
    entry = {"directory": str(project / "build"), "file": str(project / "src/k.cu"),
             "arguments": ["clang++", "-x", "cuda", "-I", "../inc", "-D", "GAIN=1.5f",
                           "-include", "../inc/extra.h", "-std=gnu++17", "@rsp", "-I..,x",
                           "-c", "k.cu"]}
    flags = flags_of(entry)
    root = str(project)
    # Commas are nvcc's lists only: for clang++ "-I..,x" is one directory.
    assert flags.include_dirs == (f"{root}/inc", f"{root}/rsp", f"{root}/build/..,x")
    assert flags.defines == ("GAIN=1.5f", "FROM_RSP")
    assert flags.std == "gnu++17"


def test_parse_with_the_database(project: Path) -> None:
    write_db(project, {"directory": str(project / "build"), "file": "../src/k.cu",
                       "arguments": ["nvcc", "-I../inc", "-DGAIN=2.0f", "-include",
                                     "../inc/extra.h", "-c", "../src/k.cu"]})
    src = str(project / "src/k.cu")
    with pytest.raises(CudafuseError):  # without it, params.h is missing and GAIN unknown
        parse_file(src)
    result = parse_file(src, ParseOptions(compdb=str(project / "build")))
    assert result.diagnostics == []
    assert [k.name for k in result.unit.kernels] == ["scale"]
    # The command line's flags come after the database's (here: one more -D).
    result = parse_file(src, ParseOptions(defines=("UNUSED=1",),
                                          compdb=str(project / "build/compile_commands.json")))
    assert [k.name for k in result.unit.kernels] == ["scale"]


def test_file_without_an_entry_takes_the_nearest(project: Path) -> None:
    # The build compiles build/k.fused.cu, not src/k.cu: its flags are the ones to use.
    db = project / "build/compile_commands.json"
    db.write_text(json.dumps([
        {"directory": str(project), "file": "src/sibling.cu", "command": "nvcc -DSIBLING"},
        {"directory": str(project / "build"), "file": "k.fused.cu", "command": "nvcc -DFUSED"},
        {"directory": "/", "file": "far/away.cu", "command": "nvcc -DFAR"}]))
    src = str(project / "src/k.cu")
    flags, (note,) = lookup(str(db), src)
    assert flags.defines == ("FUSED",)
    assert note.message == f"no entry for this file in {db}; using the flags of " \
        f"{project / 'build/k.fused.cu'}"
    db.write_text(json.dumps([
        {"directory": "/", "file": "far/away.cu", "command": "nvcc -DFAR"},
        {"directory": str(project), "file": "src/sibling.cu", "command": "nvcc -DSIBLING"}]))
    assert lookup(str(db), src)[0].defines == ("SIBLING",)
    db.write_text("[]")
    flags, (warning,) = lookup(str(db), src)
    assert flags == type(flags)() and warning.message.startswith("no entry for this file in ")


def test_bad_databases(project: Path) -> None:
    src = str(project / "src/k.cu")
    with pytest.raises(CudafuseError) as info:
        parse_file(src, ParseOptions(compdb=str(project / "nothere")))
    assert "no compilation database" in str(info.value)
    bad = project / "build/compile_commands.json"
    bad.write_text('[{"directory": "/",\n  "file" "k.cu"}]')
    with pytest.raises(CudafuseError) as info:
        parse_file(src, ParseOptions(compdb=str(bad)))
    (d,) = info.value.diagnostics
    assert (d.file, d.line, d.col) == (str(bad), 2, 10)
    assert d.message.startswith("not a valid compilation database: Expecting ':'")
    bad.write_text('[{"directory": "/", "file": "k.cu"}]')
    with pytest.raises(CudafuseError) as info:
        parse_file(src, ParseOptions(compdb=str(bad)))
    assert "each with 'directory', 'file' and 'arguments' or 'command'" in str(info.value)


SPEC = """\
entry = "scale"
[launch]
grid = [1]
block = [64]
[[args]]
name = "p"
dtype = "float32"
count = 64
init = "ones"
role = "inout"
[[args]]
name = "n"
value = 50
"""


def test_cli_analyze_and_run_take_the_database(cudafuse_exe: str, project: Path) -> None:
    write_db(project, {"directory": str(project / "build"), "file": "../src/k.cu",
                       "command": "nvcc --include-path ../inc -DGAIN=2.0f --pre-include "
                                  "../inc/extra.h -c ../src/k.cu"})
    src = str(project / "src/k.cu")
    spec = project / "k.toml"
    spec.write_text(SPEC)
    out = subprocess.run([cudafuse_exe, "analyze", src, "-p", str(project / "build")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("kernel scale (line 2)")
    # run builds with the same flags: GAIN * EXTRA = 6 on the first 50 elements.
    save = project / "out.npz"
    out = subprocess.run([cudafuse_exe, "run", src, "--spec", str(spec), "-p",
                          str(project / "build"), "--save", str(save)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr

    p = np.load(save)["p"]
    assert (p[:50] == 6.0).all() and (p[50:] == 1.0).all()


def test_run_honours_forced_includes(cudafuse_exe: str, project: Path) -> None:
    # -include reaches the build, not only the parse (it was ignored there).
    src = str(project / "src/k.cu")
    spec = project / "k.toml"
    spec.write_text(SPEC)
    save = project / "out.npz"
    out = subprocess.run([cudafuse_exe, "run", src, "--spec", str(spec), "-I",
                          str(project / "inc"), "-D", "GAIN=0.5f", "-include",
                          str(project / "inc/extra.h"), "--save", str(save)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr

    p = np.load(save)["p"]
    assert (p[:50] == 1.5).all() and (p[50:] == 1.0).all()
