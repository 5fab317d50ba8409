"""The splice rewriter: byte-exact when idle, offset-ordered, overlap-checked, deterministic."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cudafuse.codegen.splice import OverlappingEdits, Rewriter
from cudafuse.frontend.parse import ParseResult
from cudafuse.ir.source import SourceFile

TEXT = b"0123456789"
ParseCached = Callable[[Path], ParseResult]
CORPUS = sorted((Path(__file__).parent / "corpus").glob("*.cu"))


def rewriter(data: bytes = TEXT) -> Rewriter:
    return Rewriter(SourceFile("t.cu", data))


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_no_edits_reproduce_the_input(path: Path, parse_cached: ParseCached) -> None:
    unit = parse_cached(path).unit
    assert Rewriter(unit.source).apply() == path.read_bytes()


def test_edits_apply_in_offset_order_whatever_the_add_order() -> None:
    edits = [(7, 9, "<b>"), (0, 1, "<a>"), (4, 4, "<i>"), (9, 10, "<c>")]
    outputs = set()
    for seed in range(10):
        order = edits[:]
        random.Random(seed).shuffle(order)
        rw = rewriter()
        for start, end, text in order:
            rw.replace_range(start, end, text)
        outputs.add(rw.apply())
    assert outputs == {b"<a>123<i>456<b><c>"}


@pytest.mark.parametrize(("first", "second"), [
    ((2, 5), (4, 6)),   # partial overlap
    ((2, 5), (2, 5)),   # the same range twice
    ((2, 8), (3, 4)),   # nested
    ((3, 4), (2, 8)),   # nested, other add order
    ((2, 5), (3, 3)),   # an insertion strictly inside a replacement
    ((3, 3), (2, 5)),
])
def test_overlapping_edits_are_rejected(first: tuple[int, int], second: tuple[int, int]) -> None:
    rw = rewriter()
    rw.replace_range(*first, "x", reason="first pass")
    with pytest.raises(OverlappingEdits, match="first pass"):
        rw.replace_range(*second, "y", reason="second pass")
    assert len(rw.edits) == 1


def test_touching_edits_are_fine() -> None:
    rw = rewriter()
    rw.replace_range(2, 5, "A")
    rw.replace_range(5, 7, "B")
    rw.insert(2, "<")   # at the start of a replacement: before it
    rw.insert(7, ">")   # at its end: after it
    assert rw.apply() == b"01<AB>789"


def test_inserts_at_one_point_keep_their_order() -> None:
    rw = rewriter()
    for text in ("a", "b", "c"):
        rw.insert(5, text)
    rw.replace_range(5, 6, "X")
    rw.insert(5, "d")
    assert rw.apply() == b"01234abcdX6789"


def test_edits_at_file_start_and_end() -> None:
    rw = rewriter()
    rw.insert(0, "// head\n")
    rw.insert(len(TEXT), "\n// tail")
    rw.replace_range(0, 1, "Z")
    rw.replace_range(9, 10, "N")
    assert rw.apply() == b"// head\nZ12345678N\n// tail"


def test_whole_file_replacement_and_deletion() -> None:
    rw = rewriter()
    rw.replace_range(0, len(TEXT), "")
    assert rw.apply() == b""


def test_edits_outside_the_file_are_rejected() -> None:
    rw = rewriter()
    with pytest.raises(ValueError, match="outside"):
        rw.replace_range(5, 11, "x")
    with pytest.raises(ValueError, match="outside"):
        rw.replace_range(6, 5, "x")


def test_non_ascii_text_is_encoded_as_utf8() -> None:
    rw = rewriter(b"a\xc3\xa9b")  # "aéb": byte offsets, not characters
    rw.replace_range(1, 3, "\u00e8\u00e8")
    assert rw.apply() == "a\u00e8\u00e8b".encode()


def test_apply_is_repeatable() -> None:
    rw = rewriter()
    rw.replace_range(1, 3, "x")
    rw.insert(5, "y")
    assert rw.apply() == rw.apply() == b"0x34y56789"


# ---- property test against a reference implementation -----------------------------------

Raw = tuple[int, int, str]


def naive_overlap(a: Raw, b: Raw) -> bool:
    """Overlap by definition: replacements sharing a byte, or an insertion strictly inside a
    replacement. Insertions never conflict."""
    (s1, e1, _), (s2, e2, _) = a, b
    if s1 == e1 and s2 == e2:
        return False
    if s1 == e1:
        return s2 < s1 < e2
    if s2 == e2:
        return s1 < s2 < e1
    return bool(set(range(s1, e1)) & set(range(s2, e2)))


def reference(data: bytes, edits: list[Raw]) -> bytes:
    """Walk the input byte by byte: insertions at a point (in add order), then a replacement
    starting there, else the original byte."""
    out, pos = bytearray(), 0
    while pos <= len(data):
        for s, e, t in edits:
            if s == e == pos:
                out += t.encode()
        repl = [(s, e, t) for s, e, t in edits if s == pos and e > pos]
        if repl:
            out += repl[0][2].encode()
            pos = repl[0][1]
            continue
        if pos < len(data):
            out.append(data[pos])
        pos += 1
    return bytes(out)


@st.composite
def inputs(draw: st.DrawFn) -> tuple[bytes, list[Raw]]:
    data = draw(st.binary(max_size=24))
    n = len(data)
    raw = draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, 4), st.text(max_size=3)),
                        max_size=10))
    return data, [(s, min(n, s + length), t) for s, length, t in raw]


@settings(max_examples=300, deadline=None)
@given(inputs())
def test_rewriter_matches_reference(case: tuple[bytes, list[Raw]]) -> None:
    data, candidates = case
    rw = rewriter(data)
    accepted: list[Raw] = []
    for edit in candidates:
        conflict = any(naive_overlap(edit, other) for other in accepted)
        if conflict:
            with pytest.raises(OverlappingEdits):
                rw.replace_range(*edit)
        else:
            rw.replace_range(*edit)
            accepted.append(edit)
    assert rw.apply() == reference(data, accepted)
