"""The splice rewriter's overlap check costs a bisection per edit, not a scan of every edit
added before (issue 27: some 4,000 edits on a 1,000-launch chain made it quadratic), and
answers as the scan did: the same edits refused, the same one named."""

from __future__ import annotations

import random

import pytest

from cudafuse.codegen import splice
from cudafuse.codegen.splice import Edit, OverlappingEdits, Rewriter
from cudafuse.ir.source import SourceFile


def _scan(edits: list[Edit], edit: Edit) -> str | None:
    """The check as a scan of every edit: the message naming the first one it overlaps."""
    for other in edits:
        if splice._overlap(edit, other):
            return (f"edit [{edit.start}, {edit.end}) ({edit.reason or 'no reason'}) "
                    f"overlaps [{other.start}, {other.end}) ({other.reason or 'no reason'})")
    return None


@pytest.mark.parametrize("seed", range(40))
def test_the_index_refuses_what_the_scan_refuses(seed: int) -> None:
    """Random edits, with what the passes do to `edits` behind the rewriter's back: a group
    rolled back (`del edits[applied:]`) and an edit replaced by one of the same range."""
    rng = random.Random(seed)
    size = rng.choice((8, 40, 200))
    rw = Rewriter(SourceFile("t.cu", b"x" * size))
    refused = 0
    for step in range(rng.choice((20, 80, 300))):
        roll = rng.random()
        if roll < 0.05 and rw.edits:
            del rw.edits[rng.randrange(len(rw.edits) + 1):]
            continue
        if roll < 0.1 and rw.edits:
            at = rng.randrange(len(rw.edits))
            old = rw.edits[at]
            rw.edits[at] = Edit(old.start, old.end, "again", old.reason)
            continue
        start = rng.randrange(size + 1)
        end = min(size, start + rng.choice((0, 0, 1, 2, 5, size // 4)))
        edit = Edit(start, end, "t", f"e{step}")
        expected = _scan(rw.edits, edit)
        before = list(rw.edits)
        if expected is None:
            rw.replace_range(start, end, "t", f"e{step}")
            assert rw.edits == [*before, edit]
        else:
            refused += 1
            with pytest.raises(OverlappingEdits) as info:
                rw.replace_range(start, end, "t", f"e{step}")
            assert str(info.value) == expected
            assert rw.edits == before
    assert refused > 0 or size == 200  # the small files see refusals


def test_a_list_given_whole_is_checked_as_before() -> None:
    """A rewriter made with edits that overlap each other (the constructor takes a list)
    still refuses exactly what overlaps the new edit."""
    rw = Rewriter(SourceFile("t.cu", b"0123456789"),
                  [Edit(2, 6, "a", "one"), Edit(4, 8, "b", "two")])
    rw.replace_range(8, 9, "c", "three")
    with pytest.raises(OverlappingEdits, match=r"\[2, 6\) \(one\)"):
        rw.replace_range(5, 7, "d", "four")
    with pytest.raises(OverlappingEdits, match=r"\[4, 8\) \(two\)"):
        rw.insert(7, "e")
    rw.insert(2, "f")
    assert [e.reason for e in rw.edits] == ["one", "two", "three", ""]


def _overlap_calls(monkeypatch: pytest.MonkeyPatch, edits: int) -> int:
    calls = 0
    original = splice._overlap

    def counting(a: Edit, b: Edit) -> bool:
        nonlocal calls
        calls += 1
        return original(a, b)

    monkeypatch.setattr(splice, "_overlap", counting)
    rw = Rewriter(SourceFile("t.cu", b"x" * (4 * edits)))
    order = list(range(edits))
    random.Random(edits).shuffle(order)
    for i in order:  # a replacement, an insertion inside the gap after it: no overlap
        rw.replace_range(4 * i, 4 * i + 2, "r")
        rw.insert(4 * i + 3, "i")
    assert len(rw.edits) == 2 * edits
    monkeypatch.setattr(splice, "_overlap", original)
    return calls


def test_adding_edits_does_not_compare_each_with_every_other(monkeypatch) -> None:
    small = _overlap_calls(monkeypatch, 300)
    large = _overlap_calls(monkeypatch, 600)
    # A scan of the edits before each would make 180,000 and 720,000 comparisons.
    assert large <= 2 * small + 10, (small, large)
