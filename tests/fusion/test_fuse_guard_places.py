"""Guards and coordinates where other people put them (issue 25, respell/guardplace.py and
respell/helpers.py): a guard after statements that only compute locals (moved up, or those
statements moved into the guard), a guard through a bool local, a test of data joined to the
bounds (an if inside the guard: elsewhere the intermediate keeps what it held), both at once
(two rounds of respelling), tests of data in an early return's bounds or in an early return
after the guard (an if around the rest), coordinates from device helpers or declared first
and given their value after (respell/lateinit.py); and guard-free kernels whose if has an
else (kernel/view.launch_mapped), read with their launches' shape. Each producer is
recomputed by its consumer (a clamped 3x3 box at its neighbours, or a point read); each
fused program is compared with the original under emulation, every element of every buffer
(the intermediate too), with garbage in every buffer. A store before the guard, a guard
reading a local the statements before it write, or an if with no else in a guard-free
kernel keeps the kernel as written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import call_both, fuse_file
from test_fuse_partial_domains import run_garbage

PROGRAM = Path(__file__).parent / "programs" / "guard_places.cu"
FUSED = {"p_late_guard": "gain_late_guard", "p_late_enclose": "gain_late_enclose",
         "p_flag": "square_flagged", "p_data_test": "positive_only",
         "p_helpers": "negate_helpers", "p_masked_late": "masked_late",
         "p_skip_negative": "skip_negative", "p_skip_large": "skip_large",
         "p_declared_first": "declared_first", "p_flags": "flags"}


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("guard_places") / "fused.cu"
    # (every legal group: the cost model finds recomputing a 3x3 box of these not worth it)
    return path, fuse_file(PROGRAM, path, fuse_all=True)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(
        (host, (producer, "combine" if host == "p_flags" else "box3"))
        for host, producer in FUSED.items())


def test_kept_as_written(fused) -> None:
    _, result = fused
    why = {e.host: e.why for e in result.edges if e.refused}
    assert "'store_before_guard' cannot be recomputed" in why["p_store_first"]
    assert "'narrowed' cannot be recomputed: it has no recognisable bounds guard" in \
        why["p_narrowed"]
    # (an if with no else may be a guard the plain reading missed: no launch-shape reading)
    assert "'ones_only' cannot be recomputed" in why["p_ones_only"]


def test_guard_moved_lines_kept(fused) -> None:
    """The fused file carries the respelled kernel: its guard before the statements that
    only compute locals, every statement on the line the user wrote it."""
    path, _ = fused
    text, original = path.read_text(), PROGRAM.read_text()
    assert "if (x >= w || y >= h) return; if (w > 24) gain = 2.0f;" in text
    assert "if (x < w && y < h) { if (x == 0) bias = -1.0f;" in text
    store = "    t[y * w + x] = gain * in[y * w + x];"
    head = "void gain_late_guard"
    assert text[text.index(head):text.index(store)].count("\n") == \
        original[original.index(head):original.index(store)].count("\n")


@pytest.mark.parametrize("entry", sorted(set(FUSED) - {"p_flags"}))
def test_fused_equals_original(fused, entry: str) -> None:
    path, _ = fused
    for w, h in ((37, 19), (1, 41)):
        run_garbage(PROGRAM, path, entry, w, h)


@pytest.mark.parametrize("bit", [0, 7, 31])
def test_guard_free_branches_equal_original(fused, bit: int) -> None:
    """flags has no guard and an if/else (it chooses what to store, bounds nothing): read
    with its launches' block and grid (kernel/launchshape.py), each output the branch's
    store; every buffer compared, garbage in each, several bits."""
    path, _ = fused
    rng = np.random.default_rng(bit)
    args = [rng.integers(0, 2**32, 5 * 64, dtype=np.uint32) for _ in range(4)] + [bit]
    before, after = call_both(PROGRAM, path, "p_flags", args)
    for k, (a, b) in enumerate(zip(before[:4], after[:4], strict=True)):
        assert np.array_equal(a, b), f"buffer {k} differs"
