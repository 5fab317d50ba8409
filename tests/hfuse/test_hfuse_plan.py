"""`cudafuse hfuse-plan`: the candidates `--profile` would time, emitted and compiled with
nvcc (registers, static shared memory, spills from ptxas; occupancy from them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hfuse_helpers import PROGRAMS

from cudafuse.cli import main
from cudafuse.profile.compiled import parse_figures


def _plan(tmp_path: Path, *args: str):
    report = tmp_path / "plan.json"
    res = CliRunner().invoke(main, ["hfuse-plan", str(PROGRAMS / "pairs.cu"), *args,
                                    "--report", str(report), "--no-cache"],
                             catch_exceptions=False)
    return res, report


@pytest.mark.nvcc
def test_fixed_size_kernels_keep_their_split(tmp_path: Path) -> None:
    # Both kernels have 256-int shared tiles: only their native split, with and without
    # register caps, in thread and block mode.
    res, report = _plan(tmp_path, "--kernels", "block_sum_static,reverse_static",
                        "--block1", "256", "--block2", "256")
    assert res.exit_code == 0, res.output
    assert "keeps its size" in res.output
    doc = json.loads(report.read_text())
    ids = [c["id"] for c in doc["candidates"]]
    by_id = {c["id"]: c for c in doc["candidates"]}
    assert ids[0] == "thread:256+256:rnone" and "block:256+256:rnone" in ids
    assert any(c["regcap"] is not None for c in doc["candidates"])
    assert {c["threads"][0] for c in doc["candidates"]} == {256}
    for c in doc["candidates"]:
        # A cap compiled to another candidate's code names it, and is not timed; a cap
        # that only adds spills is ranked untimed with its figures (rank_spilling).
        assert c["same_as"] is None or (c["skip"] is not None and c["same_as"] in ids)
        if c["skip"] is not None and c["same_as"] is None:
            assert c["regcap"] is not None and c["registers"] is not None
            assert "ranked below" in c["skip"] and c["spill_stores"] + c["spill_loads"] > 0
            continue
        if c["same_as"] is not None:
            # Every cap is compiled (what ptxas makes of a cap cannot be told before);
            # its twin comes before it in its split, with the same figures.
            twin = by_id[c["same_as"]]
            assert c["regcap"] is not None and twin["threads"] == c["threads"]
            assert (twin["regcap"] or 0) < c["regcap"]
            assert c["registers"] == twin["registers"] > 0
            assert c["skip"].startswith(f"register cap {c['regcap']}: compiled to the same "
                                        f"code as {twin['id']} (machine code sha256 ")
            continue
        assert c["registers"] > 0
        # Both 1 KiB tiles are in the fused kernel; in thread mode 512 threads per block
        # limit an SM of 2048 threads to 4 blocks, in block mode 256 threads to 8.
        assert c["shared_bytes"] == 2048
        assert c["occupancy"]["blocks_per_sm"] == (4 if c["kind"] == "thread" else 8)


@pytest.mark.nvcc
def test_a_split_over_1024_threads_is_skipped(tmp_path: Path) -> None:
    res, report = _plan(tmp_path, "--kernels", "block_sum_static,reverse_static",
                        "--block1", "768", "--block2", "512")
    assert res.exit_code == 0, res.output
    cands = json.loads(report.read_text())["candidates"]
    thread = [c for c in cands if c["kind"] == "thread"]
    assert len(thread) == 1 and "1024" in thread[0]["skip"]
    assert any(c["kind"] == "block" and c["skip"] is None for c in cands)


def test_ptxas_figures_of_one_entry() -> None:
    text = """\
ptxas info    : Compiling entry function '_Z3onePi' for 'sm_90'
ptxas info    : Function properties for _Z3onePi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 1 barriers, 64 bytes smem
ptxas info    : Compiling entry function '_Z3twoPi' for 'sm_90'
ptxas info    : Function properties for _Z3twoPi
    48 bytes stack frame, 24 bytes spill stores, 16 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers
"""
    one, two = parse_figures(text, "one"), parse_figures(text, "two")
    assert one is not None and (one.registers, one.static_shared, one.spill_stores) == \
        (12, 64, 0)
    assert two is not None and (two.registers, two.static_shared, two.spill_stores,
                                two.spill_loads) == (32, 0, 24, 16)
    assert parse_figures(text, "three") is None
