"""Stores read by the paths that run them (kernel/view._own_stores, kernel/channels.py).

Producers that store their element and then return (`if (border) { g[i] = 0; return; }
g[i] = ...;`, llm.c's causal mask), or return before any store: on every path at most one
store of an output runs (a branch that always leaves puts what follows the if on the other
branch, as evaluation walks it), so the value-at-element function returns that store's
value, and returns the element's contents in memory where the thread leaves without one.
Channels stored in the branches of an if/else, each channel once whichever branch runs,
get one function per channel as unconditional ones do. Fused and compared with the
originals under emulation, every element of every buffer (every channel), odd sizes,
garbage in every output buffer; a path that stores twice is refused, naming why, and a
channel only some paths store falls back to that channel of the element in memory."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file, run_both

from cudafuse.frontend import parse_file
from cudafuse.passes.vertical.kernel.recognise import build_view

PROGRAM = Path(__file__).parent / "programs" / "path_stores.cu"
CHANNELS = {"rgb": 3, "p": 3}


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("path_stores") / "fused.cu"
    return path, fuse_file(PROGRAM, path, fuse_all=True)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == [
        ("p_border", ("grad", "smooth")), ("p_clip", ("clip", "twice")),
        ("p_masked", ("masked", "twice")), ("p_pair", ("pair", "sum2")),
        ("p_planes", ("planes", "mix")), ("p_some", ("some", "luma")),
        ("p_tint", ("tint", "luma"))]
    why = {(e.host, e.dst): e.why for e in result.edges if e.refused}
    # t = 1.0f (line 100) then t = in[i] (line 102) when 0.3 < in[i] <= 0.6: the last counts.
    assert "it may store 't' twice at its element (lines 100 and 102)" in why[("p_both", "twice")]


def test_each_path_returns_its_value_or_memory(fused) -> None:
    path, _ = fused
    text = path.read_text()

    def function(name: str) -> str:
        fn = text[text.index(name):]
        return fn[:fn.index("\n}\n")]

    # the store on the border path returns its value; the `return;` after it became a
    # return of the element's contents (never reached there), and no `return;` is left
    grad = function("grad_g_xy")
    assert "return cf_round(0.0f);" in grad and "return;" not in grad
    clip = function("clip_t_xy")
    assert clip.count("return cf_round(") == 3 and "return;" not in clip
    # channel 1 of each branch returns, the other channels' stores are gone
    tint = function("tint_rgb_c1_xy")
    assert tint.count("return cf_round(") == 3 and tint.count("(void)0") == 6


@pytest.mark.parametrize("entry", ["p_border", "p_clip", "p_masked", "p_pair", "p_tint",
                                   "p_planes", "p_some"])
@pytest.mark.parametrize("w,h", [(37, 19), (1, 9), (13, 1), (2, 2)])
def test_fused_equals_original(fused, entry: str, w: int, h: int) -> None:
    path, _ = fused
    run_both(PROGRAM, path, entry, w, h, seed=w * 100 + h, garbage=True, sizes=CHANNELS)


ROWS = r"""
__global__ void rows(const float *in, float *att, int T, int NH) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < T * NH) {
    int h = idx % NH, t = idx / NH;
    for (int t2 = 0; t2 < T; t2++) att[h * T * T + t * T + t2] = in[t2];
    for (int k = 0; k < T; k++) att[h * T * T + t * T] = in[k];
  }
}
"""


@pytest.mark.parametrize("loop", [0, 1])
def test_a_row_stored_in_a_loop_is_named(tmp_path: Path, loop: int) -> None:
    """llm.c's softmax stores a row per thread at an index with `/` and `%` (no polynomial):
    what the index depends on still says whether the loop moves it."""
    lines = ROWS.splitlines()
    src = tmp_path / "k.cu"
    src.write_text("\n".join(ln for ln in lines if "for (int " not in ln or
                             ("t2" if loop == 0 else "k = 0") in ln))
    fn = parse_file(str(src)).unit.function("rows")
    assert fn is not None
    why = build_view(fn).producer_reason
    assert why is not None
    if loop == 0:
        assert "it may store several elements per thread: 'att[h * T * T + t * T + t2]' " \
            "in a loop (line 6) at an index that depends on 't2'" in why, why
    else:  # the same element every iteration: not several, but not evaluated either
        assert "at an index cudafuse cannot evaluate" in why, why
