"""The check of a fused file (codegen/compile_check.parses_in_place) against errors the
front end tolerates. With a header it cannot find, the front end parses on and skips each
function holding an error; nvcc cannot judge such a file either. An error in the output that
the input's parse did not have is in what cudafuse wrote: exit 3, located in the output.
(Before, such a file was written with exit 0: a view type used before its declaration,
tests/fusion/test_fuse_read_before_update.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from cudafuse.codegen.compile_check import parses_in_place
from cudafuse.diagnostics import CudafuseError
from cudafuse.frontend import ParseOptions, parse_file

INPUT = b"""#include "not_in_this_folder.h"

__device__ float scale(ext_vec v) { return v.x * 2.0f; }

__global__ void twice(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = 2.0f * a[i];
}

void host(const float *a, float *b, int n) { twice<<<(n + 127) / 128, 128>>>(a, b, n); }
"""

# What a pass might add: a value function naming a type it never declares.
HELPER = b"""__device__ float cf_host_fused0_at(long long i, const float *a) {
  const cf_host_fused0_view v{a};
  return v[i];
}
"""


@pytest.fixture
def parsed(tmp_path: Path):
    src = tmp_path / "p.cu"
    src.write_bytes(INPUT)
    result = parse_file(str(src), ParseOptions())
    assert any("skipping 'scale'" in d.message for d in result.diagnostics)  # tolerated
    return src, result


def test_an_undeclared_type_in_the_output_is_cudafuses_bug(parsed) -> None:
    src, result = parsed
    output = INPUT.replace(b"\nvoid host", b"\n" + HELPER + b"\nvoid host")
    with pytest.raises(CudafuseError) as exc:
        parses_in_place(str(src), ParseOptions(), output, result.unit, result.diagnostics)
    assert exc.value.status == 3
    d = exc.value.diagnostics[0]
    line = output.decode().splitlines().index("  const cf_host_fused0_view v{a};") + 1
    assert (d.file, d.line, d.col) == (str(src), line, 9), d
    assert "unknown type name 'cf_host_fused0_view'" in d.message
    assert "internal error" in d.message and "nothing was written" in d.message


def test_the_inputs_own_tolerated_errors_are_not(parsed) -> None:
    src, result = parsed
    output = INPUT.replace(b"b[i] = 2.0f * a[i];", b"b[i] = a[i] + a[i];")  # (a pass's edit)
    parses_in_place(str(src), ParseOptions(), output, result.unit, result.diagnostics)
