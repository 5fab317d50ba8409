"""Producers that update an element the host prepared (`if (y) s[i] += ...; if (x < w - 1)
s[i] += ...;` into a zeroed buffer): the value-at-element function starts a private local
from the element's contents in memory (accumulate.py's loaded accumulators) instead of
refusing the kernel for storing its element twice. The fused programs are compared with the
originals under emulation, every element of every buffer, at odd sizes with garbage in
every buffer; a sum the fused kernel would have to store while other threads still load it
is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file
from test_fuse_partial_domains import run_garbage

PROGRAM = Path(__file__).parent / "programs" / "loaded_accumulators.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("loaded") / "fused.cu"
    return path, fuse_file(PROGRAM, path)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == [
        ("p_loaded_after_kernel", ("neighbours", "scale")),
        ("p_loaded_memset", ("neighbours", "scale"))]
    why = {(e.host, e.dst): e.why for e in result.edges if e.refused}
    assert "'neighbours' updates 's' in place" in why[("p_loaded_live", "scale")]


def test_the_local_starts_from_memory(fused) -> None:
    path, _ = fused
    text = path.read_text()
    at = text[text.index("neighbours_s_xy"):]
    assert "_acc0 = s[" in at[:at.index("\n}\n")]


@pytest.mark.parametrize("entry", ["p_loaded_memset", "p_loaded_after_kernel"])
@pytest.mark.parametrize("w,h", [(37, 19), (1, 9), (13, 1)])
def test_fused_equals_original(fused, entry: str, w: int, h: int) -> None:
    path, _ = fused
    run_garbage(PROGRAM, path, entry, w, h)
