"""Dependent launches whose threads each touch only their own elements of what they share
(passes/vertical/kernel/thread_private.py): one thread runs the producer's body, then the
consumer's. Producers storing several elements per thread in a loop (a row recurrence, a
run-time channel count, four pixels per thread, a causal attention row decoded from a 1-D
index) fuse, under run-time conditions where the proof needs them; every element of every
buffer equals the original's under emulation, on garbage and odd sizes. A consumer reading
another thread's row, a loop running past its row and a block with two threads per row
stay apart, saying why."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "thread_private.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("tp") / "fused.cu"
    return out, fuse_file(PROGRAM, out)


def _pairs(result) -> dict[str, list]:
    return {p.host: p.siblings for p in result.plans}


def _sizes(entry: str, k: int) -> tuple[dict[str, int], dict[str, int]]:
    """(scalars, buffer lengths) for the k-th size set of `entry`."""
    if entry in ("row_sweep", "row_chain"):
        n, w = ((37, 13), (5, 1))[k]
        return {"n": n, "w": w}, {"a": n * w, "b": n * w, "out": n}
    if entry == "colour":
        width, height, ch = ((21, 10, 3), (7, 3, 5))[k]
        px = width * height
        return ({"width": width, "height": height, "ch": ch},
                {"img": px * ch, "lin": px * ch, "mean": px})
    if entry == "four_per_thread":
        n = (103, 6)[k]
        return {"n": n}, {"in": n, "t": n, "out": n}
    B, T, NH = ((2, 7, 3), (1, 33, 2))[k]
    return ({"B": B, "T": T, "NH": NH},
            {"att": B * NH * T * T, "pre": B * NH * T * T, "out": B * T * NH,
             "val": B * T * NH})


# Two emulator builds of an 8-kernel program, about 10 CPU-s here: make test-slow.
@pytest.mark.slow
@pytest.mark.parametrize("entry", ["row_sweep", "row_chain", "colour", "four_per_thread",
                                   "attention"])
def test_fused_matches_original(fused, entry: str) -> None:
    out, result = fused
    for k in (0, 1):
        sizes, lengths = _sizes(entry, k)
        compare_entry(PROGRAM, out, entry, sizes, seed=k + 3, extra=lengths)


def test_what_fuses(fused) -> None:
    _, result = fused
    got = {h: sorted({s.name for s in ps if s.fused}) for h, ps in _pairs(result).items()}
    assert got == {"row_sweep": ["cf_row_sweep_sib0"], "row_chain": ["cf_row_chain_sib1"],
                   "colour": ["cf_colour_sib2"], "four_per_thread": ["cf_four_per_thread_sib3"],
                   "attention": ["cf_attention_sib4"], "neighbour_row": [], "overrun": [],
                   "two_rows": []}
    assert all(s.serial and s.form == "thread" for ps in _pairs(result).values()
               for s in ps if s.fused)
    for e in result.edges:
        assert e.fused == bool(got[e.host]), e
        if e.fused:
            assert e.why.startswith(f"fused into {got[e.host][0]} (one thread runs")
    # Three launches in turn: each edge among them is fused.
    assert {(e.src, e.dst) for e in result.edges if e.host == "row_chain"} == {
        ("tp_sweep", "tp_finish"), ("tp_finish", "tp_back")}
    assert "one thread runs 'tp_sweep', then 'tp_finish', then 'tp_back': each thread reads " \
        "and writes only its own elements of a, out; when (w) >= 1" in \
        next(s.why for s in _pairs(result)["row_chain"] if s.fused)




def test_conditions_and_code(fused) -> None:
    out, result = fused
    why = {h: next(s.why for s in ps if s.fused) for h, ps in _pairs(result).items()
           if any(s.fused for s in ps)}
    # What the proof needs and cannot show from the text is checked when the program runs.
    # (each condition with what it stands for: test_fuse_check_meanings.py)
    said = ": not shown from the text), the original launches otherwise)"
    assert why["row_sweep"].endswith(said) and "; when (w) >= 1 (" in why["row_sweep"]
    assert why["attention"].endswith(said) and "; when (T) >= 1 && (NH) >= 1 (" in \
        why["attention"]
    assert "when" not in why["colour"] and "when" not in why["four_per_thread"]
    assert why["row_chain"].endswith(said) and "; when (w) >= 1 (" in why["row_chain"]
    text = out.read_text()
    # The shared buffer is no __restrict__ parameter of the fused kernel; the inputs are.
    assert ("__global__ void cf_attention_sib4(float *cf_p0, const float *__restrict__ cf_p1, "
            "int cf_p2, int cf_p3, int cf_p4, float *__restrict__ cf_p5, "
            "const float *__restrict__ cf_p6)") in text
    assert ("if (((T) >= 1) && ((NH) >= 1)) { cf_attention_sib4<<<(threads + 31) / 32, 32>>>"
            "(att, pre, B, T, NH, out, val); } else { /* cudafuse: the original launches */ "
            "tp_softmax<<<(threads + 31) / 32, 32>>>(att, pre, B, T, NH); "
            "tp_weighted<<<(threads + 31) / 32, 32>>>(out, att, val, B, T, NH); }") in text


def test_refusals_say_why(fused) -> None:
    _, result = fused
    why = {h: [s.why for s in ps] for h, ps in _pairs(result).items()}
    assert why["neighbour_row"] == [
        "not siblings: 'tp_next_row' reads 'a', which 'tp_sweep' writes; nor one thread's: "
        "'tp_next_row' reads 'a' at line 135: offset 'w' may pass its row's end"]
    assert why["overrun"] == [
        "not siblings: 'tp_overrun' and 'tp_finish' both write 'a'; nor one thread's: "
        "'tp_overrun' reads 'a' at line 146: offset 'j' may pass its row's end"]
    assert why["two_rows"] == [
        "not siblings: 'tp_sweep' and 'tp_finish' both write 'a'; nor one thread's: the "
        "block of 'tp_sweep' may have more than one thread along y, which its kernel does "
        "not read (threads sharing coordinates would share elements)"]
    for host in ("neighbour_row", "overrun", "two_rows"):
        assert not any(e.fused for e in result.edges if e.host == host)
