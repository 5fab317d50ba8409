"""The pair `hfuse --profile` chose on the H200 (benchmarks/results/2026-11-28-h200-2/
hfuse.jsonl: batchnorm_stats + histogram at 512+512 threads, histogram's own
__launch_bounds__ 256) is what `hfuse --block2 512` now emits, and it computes what the
originals do under the emulator, which refuses a launch over a kernel's bound as a GPU does
(so the fused kernel's own bound is checked against its launch too)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hfuse_helpers import hfuse

from cudafuse.cli import main

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "hfuse"


@pytest.mark.slow
@pytest.mark.parametrize("mode, threads", [("thread", 1024), ("block", 512)])
def test_histogram_at_twice_its_bound_verifies(tmp_path: Path, mode: str, threads: int):
    out = tmp_path / "fused.cu"
    res = hfuse(str(SAMPLES / "batchnorm_stats.cu"), str(SAMPLES / "histogram.cu"),
                "--kernels", "batchnorm_stats_kernel,histogram_kernel", "--block1", "512",
                "--block2", "512", "--mode", mode, "-D", "CUDAFUSE_NO_MAIN", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert f"__launch_bounds__({threads}) batchnorm_stats_kernel_histogram_kernel_hfused(" \
        in out.read_text()
    res = CliRunner().invoke(main, [
        "verify", "--hfuse", str(SAMPLES / "batchnorm_stats.cu"), str(SAMPLES / "histogram.cu"),
        str(out), "--spec", str(SAMPLES / "pairs.toml"), "--pair", "batchnorm_stats+histogram",
        "-D", "CUDAFUSE_NO_MAIN"])
    assert res.exit_code == 0, res.output
    assert "histogram_kernel.hist: max abs err 0, max rel err 0: ok" in res.output
    assert "all outputs match" in res.output
