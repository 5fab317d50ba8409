"""A runtime copy between launches is a dependence only through what it writes and what the
earlier launches write (host/hoststmts.py memory_reason): copying out a buffer the earlier
launch only reads leaves the sequence whole; copying out what it writes, or over what it
reads, splits it. Both kinds compared element by element under the emulator."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file, run_both

PROGRAM = Path(__file__).parent / "programs" / "host_memcpy_reads.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("mr") / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def test_only_a_copy_of_what_both_read_is_crossed(fused) -> None:
    _, result = fused
    assert sorted(g.host for g in result.groups) == ["mr_read_read"]
    notes = repr(result.breaks)
    assert "its call to 'cudaMemcpy' touches 'tmp'" in notes
    assert "its call to 'cudaMemcpy' touches 'src'" in notes


@pytest.mark.parametrize("entry", ["mr_read_read", "mr_reads_written", "mr_overwrites_read"])
def test_fused_matches_original(fused, entry: str) -> None:
    out, _ = fused
    run_both(PROGRAM, out, entry, 37, 19)
