"""Producers that store their element and then return (`if (border) { g[i] = 0; return; }
g[i] = ...;`, llm.c's causal mask), or return before any store: on every path at most one
store of an output runs (control flow evaluated: a branch that always leaves puts what
follows the if on the other branch), so the value-at-element function returns that store's
value, and returns the element's contents in memory where the thread leaves without one.
Fused and compared with the originals under emulation, every element of every buffer, odd
sizes, garbage in every buffer; a path that stores twice is refused, naming its stores."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file
from test_fuse_partial_domains import run_garbage

PROGRAM = Path(__file__).parent / "programs" / "early_exit_stores.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("early_exit") / "fused.cu"
    return path, fuse_file(PROGRAM, path, fuse_all=True)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == [
        ("p_border", ("grad", "smooth")), ("p_clip", ("clip", "twice")),
        ("p_masked", ("masked", "twice")), ("p_pair", ("pair", "sum2"))]
    why = {(e.host, e.dst): e.why for e in result.edges if e.refused}
    # t = 1.0f (line 99) then t = in[i] (line 101) when 0 < in[i] <= 1: the last counts.
    assert "it may store 't' twice at its element (lines 99 and 101)" in why[("p_both", "twice")]


def test_each_exit_returns_its_value_or_memory(fused) -> None:
    path, _ = fused
    text = path.read_text()
    fn = text[text.index("grad_g_xy"):]
    fn = fn[:fn.index("\n}\n")]
    # the store on the border path returns its value; the `return;` after it became a
    # return of the element's contents (never reached there), and no `return;` is left
    assert "return cf_round(0.0f);" in fn and "return;" not in fn
    fn = text[text.index("clip_t_xy"):]
    fn = fn[:fn.index("\n}\n")]
    assert fn.count("return cf_round(") == 3 and "return;" not in fn


@pytest.mark.parametrize("entry", ["p_border", "p_clip", "p_masked", "p_pair"])
@pytest.mark.parametrize("w,h", [(37, 19), (1, 9), (13, 1), (2, 2)])
def test_fused_equals_original(fused, entry: str, w: int, h: int) -> None:
    path, _ = fused
    run_garbage(PROGRAM, path, entry, w, h)
