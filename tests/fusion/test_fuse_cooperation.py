"""Kernels whose threads work together (issue 25): a kernel the view cannot read is refused
for what its threads do together (passes/vertical/kernel/cooperation.py, from the evaluated
accesses), not for the spelling of its mapping or guard or a symptom (a shared declaration);
a per-element kernel with an unread guard keeps the spelling reason. Nothing here fuses:
the file comes back unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file

PROGRAM = Path(__file__).parent / "programs" / "cooperation.cu"
SPELLING = ("thread-to-element mapping", "no recognisable bounds guard", "declares shared",
            "outside its coordinate declarations")


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("cooperation") / "fused.cu"
    res = fuse_file(PROGRAM, out)
    assert out.read_bytes() == PROGRAM.read_bytes()
    return res


def _why(result, host: str, producer: str) -> str:
    found = [e.why for e in result.edges if e.host == host and e.src == producer]
    assert len(found) == 1 and result.edges
    return found[0]


@pytest.mark.parametrize(("host", "producer", "reason"), [
    ("p_block_sum", "block_sum",
     "its store to 'partial' (line 26) is at an element that does not depend on threadIdx"),
    ("p_histogram", "histo", "it updates 'bins' with atomics (line 48)"),
    ("p_scan", "scan_rounds", "it writes memory again after a barrier (line 71)"),
    ("p_tile", "box_tiled", "threads exchange data through shared memory (line 97): it "
                            "stages a tile"),
    ("p_warp", "warp_sums", "its threads exchange values through '__shfl_down_sync' "
                            "(line 133)"),
    # (the usual mapping and guard: the view's reason was a symptom, a shared declaration)
    ("p_block_scan", "block_scan", "it writes memory again after a barrier (line 170)"),
])
def test_refused_for_what_threads_do_together(result, host: str, producer: str,
                                              reason: str) -> None:
    why = _why(result, host, producer)
    assert f"'{producer}' cannot be recomputed: {reason}" in why
    assert not any(s in why for s in SPELLING)


def test_per_element_kernel_keeps_the_spelling_reason(result) -> None:
    """add_prefix stores data[i] at its own element, its guard a test of the block
    (`blockIdx.x == 0`, read by meaning: kernel/view._block_condition): no cooperation is
    claimed for it; it is refused because `data` is the caller's, updated in place."""
    why = _why(result, "p_guard_spelling", "add_prefix")
    assert "'add_prefix' updates 'data' in place and the fused kernel must still store" in why
    assert "cannot be recomputed" not in why


def test_nothing_fuses(result) -> None:
    assert not result.groups
