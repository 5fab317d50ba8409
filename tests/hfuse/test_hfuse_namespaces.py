"""Kernels named with their namespaces (`--kernels a::k`), inline namespaces reopened as
inline, and a name that several namespaces define is an error listing them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hfuse_helpers import hfuse

SRC = r"""
namespace a {
inline namespace v1 {
__global__ void k(float *x) { x[threadIdx.x] += 1.0f; }
}  // namespace v1
}  // namespace a
namespace b {
__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }
}  // namespace b
__global__ void other(int *y) { y[threadIdx.x] = 3; }
"""


def _run(tmp_path: Path, kernels: str):
    src = tmp_path / "k.cu"
    src.write_text(SRC)
    out = tmp_path / "f.cu"
    return hfuse(str(src), "--kernels", kernels, "--block1", "32", "--block2", "32", "-o",
                 str(out)), out


@pytest.mark.parametrize("name", ["a::k", "a::v1::k", "::a::k", "v1::k"])
def test_qualified_names_inline_namespaces_may_be_left_out(tmp_path: Path, name: str) -> None:
    res, out = _run(tmp_path, f"{name},other")
    assert res.exit_code == 0, res.output
    text = out.read_text()
    # The fused kernel is a member of a::v1, reopened inline as it was declared.
    assert "namespace a {\ninline namespace v1 {\n__global__ void __launch_bounds__(64) " \
        "k_other_hfused(" in text


def test_an_ambiguous_name_lists_the_kernels(tmp_path: Path) -> None:
    res, out = _run(tmp_path, "k,other")
    assert res.exit_code == 2 and not out.exists()
    assert "'k' names 2 kernels (a::v1::k, b::k); qualify it" in res.output
    res, _ = _run(tmp_path, "c::k,other")
    assert res.exit_code == 2 and "no kernel named 'c::k'" in res.output


def test_two_kernels_of_sibling_namespaces(tmp_path: Path) -> None:
    res, out = _run(tmp_path, "b::k,a::k")
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "using namespace ::a::v1;" in text and "::a::v1::cf_pt2_0 cf_p2_x" in text
