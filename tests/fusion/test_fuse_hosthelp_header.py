"""Host functions the program's header declares and its .cu defines (issue 25, session 11;
the survey's kltccp_sepconv). A call's declaration is then the header's prototype: the
helper is followed by its definition in the file, and its calls fuse as the file's own,
through helpers of helpers. The kernels read constant-memory taps through a pointer a
device helper returns (`&hh_taps[0]`): taking the address of constant memory is no write,
so no launch is kept apart for it. The fused kernels are written in the .cu; the header is
not touched (other translation units may include it). Fused and original programs are
compared element by element under emulation at odd sizes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from equivalence import run_both

from cudafuse.api import fuse

HERE = Path(__file__).parent / "programs" / "hosthelp_header"
PROGRAM = HERE / "hosthelp_header.cu"
HEADER = HERE / "taps.h"
GROUPS = {  # host -> its group's kernels (fuse-all)
    "hh_separable": ["hh_rows", "hh_cols"],  # two one-launch helpers
    "hh_smooth": ["hh_rows", "hh_cols"],  # two levels
    "hh_sharpen": ["hh_rows", "hh_cols"],  # two levels, then its own launch (not fusible)
    "hh_pipeline": ["hh_rows", "hh_cols"],  # three levels
}


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    where = tmp_path_factory.mktemp("hh")
    shutil.copy(HEADER, where / HEADER.name)  # (the fused file includes it as the .cu does)
    out = where / PROGRAM.name
    result = fuse(str(PROGRAM), fuse_all=True)
    out.write_text(result.text)
    return out, result


def test_helpers_declared_in_the_header_fuse(fused) -> None:
    out, result = fused
    assert {g.host: list(g.kernels) for g in result.result.groups} == GROUPS
    assert not [d for d in result.diagnostics if "writes global" in d.message]
    text = out.read_text()
    # the fused kernels are the .cu's; the header the fused file includes is as written
    assert text.count("__global__ void cf_") == len(GROUPS)
    assert '#include "taps.h"' in text
    assert (out.parent / HEADER.name).read_bytes() == HEADER.read_bytes()
    pipeline = text.split("void hh_pipeline(")[1].split("\n}\n")[0]
    assert pipeline.index("a copy of 'hh_sharpen'") < pipeline.index(
        "a copy of 'hh_separable'") < pipeline.index("a copy of 'hh_blur_cols'")


@pytest.mark.slow  # (the emulator builds both programs)
def test_fused_matches_original(fused) -> None:
    out, _ = fused
    for entry in ("hh_pipeline", "hh_smooth"):
        for w, h in ((37, 19), (5, 3), (1, 1)):
            run_both(PROGRAM, out, entry, w, h, garbage=True)


HEADER_HELPERS = """#pragma once
#include <cuda_runtime.h>
__global__ void st_scale(const float *in, float *out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}
__global__ void st_add(const float *a, const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
inline void st_two(const float *in, float *t, float *out, int n) {
  st_scale<<<(n + 127) / 128, 128>>>(in, t, 2.0f, n);
  st_add<<<(n + 127) / 128, 128>>>(t, in, out, n);
}
"""


def test_helper_defined_in_a_header_is_refused_with_why(tmp_path: Path) -> None:
    """A helper the header defines is lowered without its text (frontend/header_callees.py):
    its launches are seen, but no copy of it could be written, so its call splits the
    caller's sequence, saying so, and nothing is written (the header as it was)."""
    (tmp_path / "stages.cuh").write_text(HEADER_HELPERS)
    main = tmp_path / "main.cu"
    main.write_text('#include "stages.cuh"\n'
                    "void pipe(const float *a, float *t, float *u, float *b, int n) {\n"
                    "  st_two(a, t, u, n);\n"
                    "  st_scale<<<(n + 127) / 128, 128>>>(u, b, 0.5f, n);\n"
                    "}\n")
    result = fuse(str(main), fuse_all=True)
    assert not result.result.groups and result.text == main.read_text()
    notes = [d for d in result.diagnostics if d.line == 3]
    assert [d.message for d in notes] == [
        "launches in 'pipe' are not fused across this statement: its call to 'st_two' "
        "launches a kernel through a function cudafuse does not fuse across: 'st_two' is "
        "defined in the included 'stages.cuh' (line 11), whose text cudafuse does not hold: "
        "a copy of it cannot be written"]
