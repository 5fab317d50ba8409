"""Producers whose threads store several elements each (`for (k = 0; k < 4; ++k)
a[i * 4 + k] = ...`, unrolled into channels that the consumer here reads at another
element; a row walked from threadIdx.x by blockDim.x), or update one element in a loop that
is not provably their own, are refused as producers; the reason names the elements,
evaluated from the index (which loop variable it varies with), and its line."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file

PROGRAM = Path(__file__).parent / "programs" / "multi_store.cu"


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory):
    return fuse_file(PROGRAM, tmp_path_factory.mktemp("multi_store") / "fused.cu",
                     fuse_all=True)


def test_nothing_fuses_and_the_file_is_unchanged(result) -> None:
    assert result.groups == [] and result.output == PROGRAM.read_bytes()


def test_reasons_name_the_elements(result) -> None:
    why = {(e.host, e.src): e.why for e in result.edges if e.refused}
    # (quad's loop is unrolled into four channel stores, kernel/respell/unroll.py; twice's
    # threads are one per element of a, four per thread of quad)
    assert "'twice' reads 'a' (line 38) at its own element, not at a constant channel of " \
        "it: its producer stores interleaved (i * 4 + c) channels, c = 0, 1, 2, 3, one " \
        "thread per 4 elements" in why[("p_quad", "quad")]
    assert "'row_walk' cannot be recomputed: it walks several elements per thread in a loop " \
        "from threadIdx.x (line 19; a block-stride loop)" in why[("p_row_walk", "row_walk")]
    assert "'sum_rows' cannot be recomputed: it stores one element per thread in a loop " \
        "(line 31), 'a[y * 64 + x]', which is not provably its own element (y * w + x)" in \
        why[("p_sum_rows", "sum_rows")]
    # (its loop's channels are kept in locals since 3a53b25: p_shrink3's two pointer
    # parameters are distinct buffers, kernel/chan_hosts.py; the update onto memory each
    # starts from is stored once at the loop's last line, 70, and still refused)
    assert "'shrink3' cannot be recomputed: it updates channel 0 of its own element " \
        "(interleaved (i * 3 + c)), 'a[i * 3 + 0]', in a loop (line 70)" in \
        why[("p_shrink3", "shrink3")]
