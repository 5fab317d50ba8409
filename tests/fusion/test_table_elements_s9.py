"""Tables of device buffers read at run-time positions (issue 25; programs/table_levels_s9.cu,
host/table_elements.py): a pyramid's levels in a local `float *levels[N]` allocated in a
loop (or a `std::vector<float *>` sized first, read with `lv[l - 1]`, `lv.back()`, a
range-for; or C-style, malloc'd, its loop variable and level count assigned once), and
per-level sums in a host global `float **` another function allocates (Rodinia's scan),
read as `levels[l]` / `levels[l + 1]` and `g_sums[level]` / `g_sums[level - 1]`: each
position a buffer of its own, so the launches fuse (2, 3, 2 and 3 kernels). Positions of
two different variables (`levels[a]`, `levels[c]`: maybe one buffer; `lv[0]` and a loop
clearing `lv[j]` between two launches) and a level allocated again between the launches
stay unfollowed: the launches split, as before. The plan is read in the default suite;
the differential run under the emulator (every element of every buffer, garbage inputs,
odd sizes) is slow."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.frontend.parse import parse_file
from cudafuse.ir import nodes as n
from cudafuse.passes.vertical.host.table_elements import _form, _render, with_table_elements

PROGRAM = Path(__file__).parent / "programs" / "table_levels_s9.cu"
FUSED = {"p_levels": ("scale", "mix"), "run_level": ("scale", "plus", "mix"),
         "p_levels_vector": ("scale", "plus", "mix"), "p_levels_c89": ("plus", "mix")}
UNFUSED = {"p_levels_cleared": "'lv[0]' and 'lv[j]' are not provably one element of 'lv' or "
                               "two",
           "p_levels_two_vars": "'levels[a]' and 'levels[c]' are not provably one element of "
                                "'levels' or two",
           "p_levels_realloc": "'levels' is not followed as a table of allocations: an element "
                               "is allocated at line 148, after a launch or in a loop around "
                               "one"}
SIZES = ({"w": 37, "h": 19}, {"w": 2, "h": 3})


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("tables_s9") / "fused.cu"
    return path, fuse_file(PROGRAM, path)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(FUSED.items())
    for host, why in UNFUSED.items():
        notes = [x.why for x in result.launches if x.host == host]
        assert notes and any(why in x for x in notes), (host, notes)
    edges = {(e.src, e.dst, tuple(e.buffers)) for e in result.edges
             if e.host == "run_level"}
    assert ("plus", "mix", ("g_sums[level-1]",)) in edges, edges


def test_positions_by_their_linear_form() -> None:
    """`l + 1`, `1 + l` and `(l + 2) - 1` are one position; `2 * l - l` is `l`."""
    unit = with_table_elements(parse_file(str(PROGRAM)).unit)
    fn = unit.function("p_levels")
    assert fn is not None and fn.body is not None
    names = sorted({x.name for x in fn.body.walk() if isinstance(x, n.Ref) and "[" in x.name})
    assert names == ["levels[l+1]", "levels[l]"]
    l_ = n.Ref(name="l", kind="local", decl="l@x:1")
    one, two = n.IntLit(value=1), n.IntLit(value=2)
    forms = {_form(n.Binary(op="+", lhs=l_, rhs=one)), _form(n.Binary(op="+", lhs=one, rhs=l_)),
             _form(n.Binary(op="-", lhs=n.Binary(op="+", lhs=l_, rhs=two), rhs=one))}
    assert len(forms) == 1 and _render(forms.pop()) == "l+1"  # type: ignore[arg-type]
    twice = n.Binary(op="-", lhs=n.Binary(op="*", lhs=two, rhs=l_), rhs=l_)
    assert _render(_form(twice)) == "l"  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.parametrize("entry", sorted(["p_levels", "p_levels_vector", "p_levels_c89",
                                          "p_global_sums", *UNFUSED]))
def test_fused_equals_original(fused, entry: str) -> None:
    path, _ = fused
    for sizes in SIZES:
        compare_entry(PROGRAM, path, entry, sizes)
