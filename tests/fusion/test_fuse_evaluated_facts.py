"""Kernel facts by evaluation (issue 25): a store's element is the thread's own when its
index EVALUATES to y * S + x (guardmeaning.own_row_stride), whatever locals spell it:
copies of the coordinates (`int r = p.y, c = p.x; out[r * w + c]`), a row offset computed
once (`out[rowStart + c]`), the terms in another order; and a coordinate is any expression
of the built-ins that evaluates to blockIdx * blockDim + threadIdx (`__umul24(blockIdx.x,
blockDim.x) + threadIdx.x`, view.coordinate); a kernel that only swaps its own copies of two
pointers touches no memory (evaluate.inert_pointers), so launches fuse across it. A local
written after its
declaration is not followed (its stores are refused, with why). Every pipeline of
programs/evaluated_facts.cu is fused and checked against the original under the emulator,
every byte of every buffer, inputs and outputs pre-filled with garbage."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_with_api

PROGRAM = Path(__file__).parent / "programs" / "evaluated_facts.cu"
SIZES = {"numCols": 21, "numRows": 11, "filterWidth": 3}


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    return fuse_with_api(PROGRAM, tmp_path_factory.mktemp("ef"))


def test_copied_coordinates_fuse_and_match(fused) -> None:
    out, api = fused
    groups = {g.host: g.kernels for g in api.result.groups}
    assert groups["ef_copies"] == ["ef_split", "ef_box", "ef_mix"]
    compare_entry(PROGRAM, out, "ef_copies", SIZES, extra={"rgb": 3 * 21 * 11})


def test_a_reassigned_index_local_is_not_read_as_the_element(fused) -> None:
    out, api = fused
    assert "ef_reassigned" not in {g.host for g in api.result.groups}
    (edge,) = [e for e in api.result.edges if e.host == "ef_reassigned"]
    assert edge.refused and "'ef_moved' cannot be recomputed: it stores no value at the " \
        "thread's own element" in edge.why, edge.why
    compare_entry(PROGRAM, out, "ef_reassigned", SIZES)


def test_24_bit_multiplies_are_coordinates(fused) -> None:
    out, api = fused
    groups = {g.host: g.kernels for g in api.result.groups}
    assert groups["ef_mul24"] == ["ef_scale24", "ef_shift24"]
    compare_entry(PROGRAM, out, "ef_mul24", {"n": 300})


def test_launches_fuse_across_a_kernel_that_touches_nothing(fused) -> None:
    out, api = fused
    groups = {g.host: g.kernels for g in api.result.groups}
    assert groups["ef_swapped"] == ["ef_scale24", "ef_shift24"]
    body = out.read_text().split("void ef_swapped(")[1].split("\n}\n")[0]
    assert "ef_swap<<<1, 1>>>(t, other);" in body
    compare_entry(PROGRAM, out, "ef_swapped", {"n": 300})
