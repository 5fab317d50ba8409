"""Kernels defined in files the main file #includes (Rodinia's `#include "x_kernel.cu"`,
cuda-samples' `x_kernel.cuh`): analysed and fused as the main file's own. The fused kernels
are emitted in the main file, bodies read from the file that defines them; the included
files are never modified. Compared with the original element by element under emulation,
and compiled with nvcc; what cannot be done exactly is refused with a note at the kernel."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from equivalence import run_both

from cudafuse import api
from cudafuse.frontend import ParseOptions, parse_file
from cudafuse.passes.vertical.driver import FuseOptions, fuse_unit

PROGRAMS = Path(__file__).parent / "programs"
PROGRAM = PROGRAMS / "included_kernels.cu"
INCLUDED = [PROGRAMS / "included_kernels_image.cuh", PROGRAMS / "included_kernels_step.cu"]
SIZES = ((37, 19), (16, 8), (1, 1), (130, 3))


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> Path:
    before = [p.read_bytes() for p in INCLUDED]
    out = tmp_path_factory.mktemp("ik") / "fused.cu"
    for p in INCLUDED:  # the fused file includes them from its own directory
        shutil.copy(p, out.parent / p.name)
    unit = parse_file(str(PROGRAM), ParseOptions(included_kernels=True)).unit
    result = fuse_unit(unit, FuseOptions(fuse_all=True))
    assert sorted(g.kernels for g in result.groups) == [
        ["ik_brighten", "ik_blur", "ik_square"], ["step_scale", "step_smooth", "ik_offset"]]
    out.write_bytes(result.output)
    assert [p.read_bytes() for p in INCLUDED] == before
    return out


@pytest.mark.parametrize("entry", ["ik_image", "ik_step"])
def test_included_kernel_pipelines_match(fused: Path, entry: str) -> None:
    for w, h in SIZES:
        run_both(PROGRAM, fused, entry, w, h)


def test_fused_code_is_in_the_main_file_only(fused: Path) -> None:
    text = fused.read_text()
    head, _, rest = text.partition('#include "included_kernels_step.cu"\n')
    assert "cf_" not in head and "cf_ik_image_fused0" in rest.split("void ik_image(")[0]
    # The originals stay where they are: in their files, not copied here.
    assert "__global__ void ik_blur" not in text and "__global__ void step_scale" not in text
    assert "ik_clamp(" in text  # the stencil's helper, called from the fused kernel


def test_cli_reports_the_included_files_and_leaves_them(tmp_path: Path) -> None:
    before = [p.read_bytes() for p in INCLUDED]
    result = api.fuse(str(PROGRAM), fuse_all=True)
    assert not [d for d in result.diagnostics if "not analysed" in d.message]
    assert {str(p) for p in INCLUDED} <= {str(Path(p).resolve()) for p in result.inputs}
    assert "edge ik_brighten -> ik_blur [a] in ik_image: fused" in result.explain
    assert [p.read_bytes() for p in INCLUDED] == before


def test_analyze_lists_included_kernels() -> None:
    report = api.analyze(str(PROGRAM)).report
    names = {k["name"] for k in report["kernels"]}
    assert {"ik_brighten", "ik_blur", "ik_square", "step_scale", "step_smooth",
            "ik_offset"} <= names


@pytest.mark.nvcc
def test_included_kernels_fused_compiles(fused: Path, tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    res = subprocess.run([nvcc, "-arch=sm_90", "-I", str(PROGRAMS), "-c", str(fused), "-o",
                          str(tmp_path / "o.o")], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


REFUSED_HEADER = """\
#define MAKE_KERNEL(name, op) \\
  __global__ void name(const float *a, float *b, int n) { \\
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = a[i] op; }
MAKE_KERNEL(by_macro, * 2.0f)
template <int K> __global__ void templ(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * K;
}
#define SHIFT 1.0f
__global__ void shifted(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] + SHIFT;
}
__global__ void plain(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] - 1.0f;
}
"""

REFUSED_MAIN = """\
#include "r.cuh"
#undef SHIFT
#define SHIFT 2.0f
void run(const float *x, float *y, float *z, int n) {
  by_macro<<<(n + 127) / 128, 128>>>(x, y, n);
  plain<<<(n + 127) / 128, 128>>>(y, z, n);
  shifted<<<(n + 127) / 128, 128>>>(z, y, n);
  templ<3><<<(n + 127) / 128, 128>>>(y, z, n);
}
"""


def test_what_cannot_be_done_exactly_is_refused_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "r.cuh").write_text(REFUSED_HEADER)
    main = tmp_path / "r.cu"
    main.write_text(REFUSED_MAIN)
    result = parse_file(str(main), ParseOptions(included_kernels=True))
    notes = {d.message.split(" of the included file")[0]: (d.message, d.file, d.line)
             for d in result.diagnostics if "of the included file" in d.message}
    assert notes["kernel 'by_macro'"][0].endswith("its text comes from a macro expansion")
    assert notes["kernel 'by_macro'"][1:] == (str(tmp_path / "r.cuh"), 4)
    assert notes["kernel 'templ'"][0].endswith("it is a template")
    assert "macro 'SHIFT' it uses is defined or undefined again" in notes["kernel 'shifted'"][0]
    assert [f.name for f in result.unit.kernels] == ["plain"]
    warning = next(d for d in result.diagnostics if d.message.startswith("kernels defined"))
    assert warning.message.endswith("r.cuh are not analysed (see the notes at them, if any; "
                                    "a kernel the preprocessor left out has none): 'templ', "
                                    "'shifted'; analyse (or fuse) the file that defines them")
    fused = fuse_unit(result.unit, FuseOptions(fuse_all=True))
    assert not fused.groups and fused.output == main.read_bytes()


def test_a_file_included_twice_is_refused(tmp_path: Path) -> None:
    (tmp_path / "twice.cuh").write_text(
        "#ifdef SECOND\n__global__ void k2(float *p, int n) { if (threadIdx.x < n) "
        "p[threadIdx.x] = 2; }\n#else\n__global__ void k1(float *p, int n) { if (threadIdx.x "
        "< n) p[threadIdx.x] = 1; }\n#endif\n")
    main = tmp_path / "t.cu"
    main.write_text('#include "twice.cuh"\n#define SECOND\n#include "twice.cuh"\n'
                    "void run(float *p, int n) { k1<<<1, 32>>>(p, n); k2<<<1, 32>>>(p, n); }\n")
    result = parse_file(str(main), ParseOptions(included_kernels=True))
    assert not result.unit.kernels
    assert sum("is included 2 times" in d.message for d in result.diagnostics) == 2


def test_other_commands_keep_the_main_files_kernels_only() -> None:
    unit = parse_file(str(PROGRAM)).unit
    assert [f.name for f in unit.kernels] == ["ik_offset"] and not unit.sources
