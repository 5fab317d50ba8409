"""Launches given part of a buffer (issue 25; programs/offset_args_s8.cu): an argument
`t + off` or `&t[k]` is a use of t's buffer (hostview.touch_key), so such a launch joins
its sequence instead of splitting it. It is fused with nothing itself (its param_key is
None: the kernel's view is not shifted), but launches around it fuse across it when it
touches other memory, and do not when it reads or writes their intermediate, through
another name (`const float *view = t;`) too. The plan is read in the default suite; the
differential run under the emulator (every byte of every buffer, garbage inputs, odd
sizes) is slow."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "offset_args_s8.cu"
FUSED = {"p_offset_other": ("scale", "plus"), "p_addr_elem": ("scale", "plus"),
         "p_offset_after": ("scale", "plus"), "p_rotate_offset": ("scale", "plus")}
UNFUSED = ("p_offset_reads_t", "p_offset_writes_t", "p_alias_offset")
SIZES = ({"w": 37, "h": 19}, {"w": 3, "h": 41})


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("offset_s8") / "fused.cu"
    return path, fuse_file(PROGRAM, path)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(FUSED.items())
    # No launch is split off for its offset argument: each is in its host's sequence.
    assert not any("no plain buffer variable" in x.why for x in result.launches)
    why = {(e.host, e.src, e.dst): e.why for e in result.edges}
    for host in ("p_offset_reads_t", "p_alias_offset"):
        assert why[(host, "scale", "plus")] == (
            "not fused: launch of 'negate' between the group's launches depends on 'scale'")
    # Writing part of the intermediate between producer and consumer: the consumer's read
    # depends on it, so the producer cannot move past it.
    assert why[("p_offset_writes_t", "negate", "plus")].startswith("not fused: argument")
    assert not any(g.host == "p_offset_writes_t" for g in result.groups)


def test_intermediate_read_later_is_stored(fused) -> None:
    path, _ = fused
    text = path.read_text()
    host = text[text.index("void p_offset_after("):]
    host = host[:host.index("\n}\n")]
    assert "negate<<<g, b>>>(t + w, v, n - w)" in host
    assert "scale<<<" not in host and "plus<<<" not in host


@pytest.mark.slow
@pytest.mark.parametrize("entry", sorted([*FUSED, *UNFUSED]))
def test_fused_equals_original(fused, entry: str) -> None:
    path, _ = fused
    for sizes in SIZES:
        n = sizes["w"] * sizes["h"] + sizes["w"]
        compare_entry(PROGRAM, path, entry, sizes, extra={"u": n, "v": n})
