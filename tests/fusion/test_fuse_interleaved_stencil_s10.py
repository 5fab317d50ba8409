"""Stencils over interleaved channels (issue 25, session 10; the held-out survey's unsharp
mask): a consumer reading channel c of a neighbour, `p[(row * w + col) * 3 + c]`, with the
row and column clamped inside the subscript (a conditional, min/max, a device helper
respelled to a conditional) fuses with the producer that stores those channels. The
channel is read from the index as an integer polynomial in which every part that is no sum
or product stands for some integer (channels.atom_poly); a channel that depends on the
thread (`x & 1`) or on a float (`(int)(t * 3)`, which is not 3 * t) is no constant channel
(the first is refused; the second fuses only as a sibling, under a run-time check).
Original and fused programs run under emulation on the same garbage, every byte of every
buffer compared, at odd sizes and sizes the blocks do not divide."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "interleaved_stencil_s10.cu"
SIZES = ((37, 19), (1, 5), (17, 1))


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("interleaved_stencil") / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def test_neighbour_channel_reads_fuse(fused) -> None:
    _, result = fused
    groups = sorted(tuple(g.kernels) for g in result.groups)
    assert ("lift", "box3", "mix") in groups
    assert ("lift", "cross5", "cross5") in groups
    assert not any("wobble" in g and "lift" in g and len(g) > 1 and g != ("lift", "wobble")
                   for g in groups)


def test_thread_dependent_channel_refused(fused) -> None:
    _, result = fused
    why = " | ".join(str(e) for e in result.edges)
    assert "'wobble' reads 'src' (line 83) other than at a constant channel of its own " \
           "element (interleaved (i * 3 + c) channels, c = 0, 1, 2)" in why
    assert ("lift", "wobble") not in {tuple(g.kernels) for g in result.groups}


@pytest.mark.slow
@pytest.mark.parametrize("w,h", SIZES)
@pytest.mark.parametrize("entry", ["unsharp_rgb", "cross_twice", "refused"])
def test_fused_matches_original(fused, entry: str, w: int, h: int) -> None:
    path, _ = fused
    rgb = 3 * w * h
    compare_entry(PROGRAM, path, entry, {"w": w, "h": h},
                  extra={"in": rgb, "lit": rgb, "soft": rgb, "out": rgb, "a": rgb, "b": rgb})


def _reads(kernel: str, pointer: str) -> list:
    from cudafuse.frontend import parse_file
    from cudafuse.ir import nodes as n

    fn = parse_file(str(PROGRAM)).unit.function(kernel)
    assert fn is not None and fn.body is not None
    return [x.index for x in fn.body.walk() if isinstance(x, n.Index) and
            isinstance(x.base, n.Ref) and x.base.name == pointer]


def test_channel_of_an_index_is_read_by_meaning() -> None:
    from cudafuse.passes.vertical.kernel.channels import interleaved_channel

    # box3: a conditional and min/max inside the subscript, channels 0, 1, 2 in order
    assert [interleaved_channel(i, {}, 3) for i in _reads("box3", "src")] == [0, 1, 2]
    # with a factor of 2 the same reads are no channel (their element's multiple is 3)
    assert [interleaved_channel(i, {}, 2) for i in _reads("box3", "src")] == [None] * 3
    # wobble: x & 1 may be 0 or 1; drift: (int)(t * 3) of a float is any integer, not 3 * t
    assert [interleaved_channel(i, {}, 3) for i in _reads("wobble", "src")] == [None]
    assert [interleaved_channel(i, {}, 3) for i in _reads("drift", "src")] == [None]
