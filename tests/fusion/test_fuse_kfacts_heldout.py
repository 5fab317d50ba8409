"""Kernel facts by meaning on the spellings of held-out programs (issue 25; the survey's
gs_shijiale_1thread and gs_shijiale_blocks), on programs/kfacts_heldout.cu, our own code:

  * one thread per block (`int i = blockIdx.x;` launched `<<<n, 1>>>`): where every launch
    in the file gives blocks of one thread, threadIdx is 0 and blockIdx.d is the usual
    coordinate (launchshape._as_one_thread); a 2-D kernel spelling the same otherwise
    (`threadIdx.x + blockIdx.x`, a `dim3 one(1, 1)` block) fuses too; launched with blocks
    of a run-time `threads`, it is refused, saying that the element is the block's index;
  * a store to a local that nothing reads afterwards (`tid += blockDim.x * gridDim.x;` left
    at the end of a guarded body, or `++x; y = ...; steps = gridDim.x;` in 2-D) is left out
    (respell/dead_stores.py); where the moved index is read again (a thread storing a second
    element, directly or through a reference) it stays, and the producer is refused at that
    read of the built-ins.

Each fused pipeline is compared with the original under the emulator, every element of
every buffer filled with garbage first, on odd sizes."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_with_api

PROGRAM = Path(__file__).parent / "programs" / "kfacts_heldout.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    return fuse_with_api(PROGRAM, tmp_path_factory.mktemp("kh"))


def _why(api, host: str) -> str:
    (edge,) = [e for e in api.result.edges if e.host == host]
    assert edge.refused
    return edge.why


def test_what_fuses_and_why_not(fused) -> None:
    _, api = fused
    groups = {g.host: g.kernels for g in api.result.groups}
    assert groups == {"kh_one": ["kh_lap", "kh_step"], "kh_one_2d": ["kh_box2", "kh_scale2"],
                      "kh_dead": ["kh_diff", "kh_add"],
                      "kh_dead_2d": ["kh_grad2", "kh_abs2"]}
    assert "'kh_lap3' cannot be recomputed: its thread-to-element mapping is its block's " \
        "index ('i' = blockIdx.x, line 59): each thread's own element only in blocks of " \
        "one thread" in _why(api, "kh_threads")
    assert "'kh_twice' cannot be recomputed: it reads 'blockDim' outside its coordinate " \
        "declarations (line 140)" in _why(api, "kh_live")
    notes = "\n".join(api.result.assumed)
    assert "kfacts_heldout.cu:8: kernel 'kh_lap' is launched with blocks of one thread" in notes
    assert "kernel 'kh_lap3' is launched with blocks of one thread" not in notes


def test_dead_stores_go_and_live_ones_stay(fused) -> None:
    out, _ = fused
    text = out.read_text()
    kernel = text.split("void kh_diff(")[1].split("\n}\n")[0]
    assert "gridDim" not in kernel and "l[tid] = m[tid]" in kernel
    grad = text.split("void kh_grad2(")[1].split("\n}\n")[0]
    assert "++x" not in grad and "gridDim" not in grad and "int steps = 0;" in grad
    for kernel in ("kh_twice", "kh_alias"):  # (read again, directly or through `at`)
        assert "tid += blockDim.x * gridDim.x;" in text.split(f"void {kernel}(")[1]
    # (each statement left out leaves its line: the kernel keeps the user's line numbers)
    original = PROGRAM.read_text().split("void kh_grad2(")[1].split("\n}\n")[0]
    assert grad.count("\n") == original.count("\n")


@pytest.mark.slow
@pytest.mark.parametrize(("entry", "sizes"), [
    ("kh_one", {"n": 37}), ("kh_one", {"n": 1}), ("kh_one_2d", {"w": 13, "h": 7}),
    ("kh_threads", {"n": 23, "threads": 1}), ("kh_dead", {"n": 53}),
    ("kh_dead_2d", {"w": 21, "h": 11}), ("kh_dead_2d", {"w": 3, "h": 5}),
    ("kh_live", {"n": 45}), ("kh_aliased", {"n": 45})])
def test_fused_equals_original(fused, entry: str, sizes: dict[str, int]) -> None:
    out, _ = fused
    compare_entry(PROGRAM, out, entry, sizes)
