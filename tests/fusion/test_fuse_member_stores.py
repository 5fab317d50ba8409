"""Stores through a member of a pointer's element (p[i].r = v, p[i].x += v on float2,
(p + i)->g = v, an element passed to a helper's `px &` parameter) are writes: the launch
reading the buffer next depends on the one writing it, so they are not siblings, and a
kernel writing part of an element is refused as a producer with a note; one storing every
member of its element (ms_paint: px's r and g) stores the whole element, and is fused
(respell/member_stores.py; test_fuse_whole_struct_stores.py). Programs fused with
the model's choices and with --fuse-all are compared element by element with the original
under emulation."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from equivalence import fuse_file, library

PROGRAM = Path(__file__).parent / "programs" / "member_stores.cu"
PAD = 16
# entry -> per parameter: ("in" | "out", floats per element) or None for n
ENTRIES = {
    "struct_pair": (("in", 1), ("out", 2), ("out", 1), None),
    "vector_pair": (("in", 1), ("out", 2), ("out", 1), None),
    "helper_pair": (("in", 1), ("out", 2), ("out", 1), None),
    "write_after_read": (("in+out", 2), ("scratch", 1), ("out", 1), None),
    "producer_member": (("in", 1), ("out", 2), ("scratch", 1), ("out", 1), None),
    "producer_helper": (("in", 1), ("out", 2), ("scratch", 1), ("out", 1), None),
}


@pytest.fixture(scope="module", params=["auto", "fuse_all"])
def fused(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("members") / "fused.cu"
    result = fuse_file(PROGRAM, tmp, scratch=frozenset({"t"}),
                       fuse_all=request.param == "fuse_all")
    # Both modes may give the same program: name it by its contents, so it is built once.
    digest = hashlib.sha256(result.output).hexdigest()[:16]
    out = tmp_path_factory.getbasetemp() / f"member_stores_{digest}.cu"
    if not out.exists():
        out.write_bytes(result.output)
    return out, result


def _run(path: Path, entry: str, n: int) -> list:
    rng = np.random.default_rng(7)
    args = []
    for spec in ENTRIES[entry]:
        if spec is None:
            args.append(n)
            continue
        role, per = spec
        buf = np.full(n * per + PAD, -7.0, np.float32)
        if role.startswith("in"):
            buf[:n * per] = rng.uniform(0.1, 0.9, n * per).astype(np.float32)
        elif role == "scratch":
            buf[:] = np.nan
        args.append(buf)
    library(path).call(entry, *args)
    return [(a, spec) for a, spec in zip(args, ENTRIES[entry], strict=True) if spec]


@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_outputs_match(fused, entry: str) -> None:
    out, _ = fused
    for n in (300, 128, 1):
        want, got = _run(PROGRAM, entry, n), _run(out, entry, n)
        for k, ((a, spec), (b, _)) in enumerate(zip(want, got, strict=True)):
            if spec[0] == "scratch":
                continue
            assert np.array_equal(a, b, equal_nan=True), \
                f"{entry} n={n}: argument {k} differs at " \
                f"{np.flatnonzero(~((a == b) | (np.isnan(a) & np.isnan(b))))[:5]}"


def test_dependent_launches_are_not_siblings(fused) -> None:
    _, result = fused
    notes = {(s.host, s.first, s.second): s for p in result.plans for s in p.siblings}
    for host, first, second in (("vector_pair", "ms_vpaint", "ms_vdiff"),
                                ("helper_pair", "ms_put", "ms_diff")):
        note = notes[(host, first, second)]
        assert not note.fused
        # (and not one thread's either: kernel/thread_private.py says why after a ';')
        assert note.why.startswith(
            f"not siblings: '{second}' reads 'p', which '{first}' writes")
    war = notes[("write_after_read", "ms_scale", "ms_clear")]
    assert not war.fused and war.why.startswith(
        "not siblings: 'ms_clear' overwrites 's', which 'ms_scale' reads")
    # The launch that does not touch s may still join the one after it.
    assert all(not s.fused for s in notes.values()
               if (s.first, s.second) != ("ms_clear", "ms_shift"))


def test_member_writers_are_refused_as_producers(fused) -> None:
    _, result = fused
    edges = {(e.host, e.src): e for e in result.edges}
    e = edges[("producer_member", "ms_both")]
    assert not e.fused and e.refused
    assert "is written through a member of its element" in e.why, e.why
    # ms_vpaint stores x and updates y (`+=`): the whole element (respell/member_stores.py),
    # refused as the race it is: ms_vdiff reads p at i + 1, and p, updated in place, is stored
    e = edges[("vector_pair", "ms_vpaint")]
    assert not e.fused and e.refused
    assert "reads 'p' at offset +0..+1 in x" in e.why and "in place" in e.why, e.why
    e = edges[("producer_helper", "ms_both_helper")]
    assert not e.fused and e.refused
    assert "passed by reference to 'put'" in e.why, e.why
    # Every member of px stored by the thread at its element: a whole-element store.
    assert edges[("struct_pair", "ms_paint")].fused
    e = edges[("write_after_read", "ms_scale")]
    assert not e.fused and "'ms_clear'" in e.why, e.why


def test_plan_shows_the_refusals() -> None:
    from click.testing import CliRunner

    from cudafuse.cli import main

    res = CliRunner().invoke(main, ["plan", str(PROGRAM), "--scratch", "t"])
    assert res.exit_code == 0, res.output
    assert "siblings ms_vpaint + ms_vdiff (launches 0, 1): not siblings: 'ms_vdiff' reads " \
           "'p', which 'ms_vpaint' writes" in res.output
    assert "'ms_both' cannot be recomputed: pointer 'p' is written through a member of " \
           "its element (line 84)" in res.output
