"""`cudafuse hfuse` as a build step: deterministic output, side files, inputs never written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hfuse_helpers import PROGRAMS, hfuse

ARGS = ("--kernels", "reverse_static,warp_sum", "--block1", "256", "--block2", "64")


def test_deterministic_with_depfile_and_report(tmp_path: Path) -> None:
    src = tmp_path / "pairs.cu"
    shutil.copy(PROGRAMS / "pairs.cu", src)
    outs = []
    for k in range(2):
        out = tmp_path / f"out{k}.cu"
        res = hfuse(str(src), *ARGS, "-o", str(out), "-MD", "--report",
                    str(tmp_path / "r.json"))
        assert res.exit_code == 0, res.output
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    assert outs[0].decode().count("__global__ void reverse_static(") == 1  # one file, once
    dep = (tmp_path / "out1.cu.d").read_text()
    assert dep.startswith(f"{tmp_path / 'out1.cu'}: {src}")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["fused_kernel"] == "reverse_static_warp_sum_hfused"
    assert report["threads_per_block"] == 320
    assert [p["barrier"] for p in report["parts"]] == [{"id": 1, "count": 256}, None]
    assert report["parts"][1]["warp_collectives"] == 1


def test_stdout_explain_and_name(tmp_path: Path) -> None:
    res = hfuse(str(PROGRAMS / "pairs.cu"), *ARGS, "--name", "both", "--explain", "-o", "-")
    assert res.exit_code == 0
    assert "__global__ void __launch_bounds__(320) both(" in res.output
    assert "void both_launch(" in res.output
    assert "part 2: 'warp_sum'" in res.output


def test_never_overwrites_an_input(tmp_path: Path) -> None:
    src = tmp_path / "pairs.cu"
    shutil.copy(PROGRAMS / "pairs.cu", src)
    res = hfuse(str(src), *ARGS, "-o", str(src))
    assert res.exit_code == 2 and "overwrite an input" in res.output
    assert src.read_bytes() == (PROGRAMS / "pairs.cu").read_bytes()


def test_name_taken(tmp_path: Path) -> None:
    res = hfuse(str(PROGRAMS / "pairs.cu"), *ARGS, "--name", "saxpy", "-o",
                str(tmp_path / "o.cu"))
    assert res.exit_code == 1 and "'saxpy' is already defined" in res.output


def test_report_counts_helper_barriers_and_copies(tmp_path: Path) -> None:
    res = hfuse(str(PROGRAMS / "pairs.cu"), "--kernels", "sum_abs,saxpy", "--block1", "128",
                "--block2", "64", "-o", str(tmp_path / "o.cu"), "--report",
                str(tmp_path / "r.json"))
    assert res.exit_code == 0, res.output
    part = json.loads((tmp_path / "r.json").read_text())["parts"][0]
    assert part["barrier"] == {"id": 1, "count": 128}
    assert part["helper_copies"] == ["block_reduce"]  # warp_reduce needs no copy
