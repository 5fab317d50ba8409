"""Buffers handed to launches through a table set once (issue 25;
programs/pointer_tables_s8.cu, host/pointer_tables.py): a local array of pointers or a
std::vector<float *> initialised from buffer variables, read only at constant positions,
names at `bufs[0]` the variable it was set from, so its launches fuse (two and three
kernels, the table holding the caller's buffers or its own allocations). A table whose
element is assigned, whose variable changes after it, or read at a run-time position is not
followed: the launch splits its sequence, as before. A memset of the buffer, named directly,
between two launches given it through the table splits them. The plan is read in the
default suite; the differential run under the emulator (every byte of every buffer, garbage
inputs, odd sizes) is slow."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "pointer_tables_s8.cu"
FUSED = {"p_table_array": ("scale", "plus"), "p_table_vector": ("scale", "plus", "negate"),
         "p_table_alloc": ("scale", "negate", "plus")}
UNFUSED = {"p_table_assigned": "its argument 'bufs[0]' for 't' is no plain buffer variable",
           "p_table_stale": "its argument 'bufs[0]' for 't' is no plain buffer variable",
           "p_table_runtime": "its argument 'bufs[k]' for 't' is no plain buffer variable",
           "p_table_memset": "its call to 'cudaMemset' touches 't'"}
SIZES = ({"w": 37, "h": 19}, {"w": 1, "h": 41})


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("tables_s8") / "fused.cu"
    return path, fuse_file(PROGRAM, path)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(FUSED.items())
    for host, why in UNFUSED.items():
        notes = [x.why for x in result.launches if x.host == host]
        assert notes and all(why in x for x in notes), (host, notes)


def test_fused_launch_names_the_buffers(fused) -> None:
    path, _ = fused
    text = path.read_text()
    host = text[text.index("void p_table_vector("):]
    host = host[:host.index("\n}\n")]
    assert "cf_p_table_vector_fused" in host and "stages[" not in host.split("};", 1)[1]


@pytest.mark.slow
@pytest.mark.parametrize("entry", sorted([*FUSED, *UNFUSED]))
def test_fused_equals_original(fused, entry: str) -> None:
    path, _ = fused
    for sizes in SIZES:
        compare_entry(PROGRAM, path, entry, sizes)
