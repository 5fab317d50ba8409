"""An intermediate overwritten whole after its launch sequence (killed) is not live there
(plan/killed.py, issue 25: llm.c's attention_forward2 reuses q after its group). Our own
program: a point-wise producer of t, a consumer reading t's row at run-time indices, then
t cleared by a cudaMemset of its whole allocation (k_memset) or filled by a cudaMemcpy of
its size spelled otherwise (k_copy), and read again by a later launch. A memset of part of
t (k_partial), one in a branch (k_branch) or behind `&&` (k_maybe) kills nothing: t stays
live. Liveness is seen in the plan's minimum DRAM traffic per output element: in + out =
8 bytes when t is dead, 12 when the group would have to store it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cudafuse.cli import main

PROGRAM = Path(__file__).parent / "programs" / "killed_s12.cu"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("killed_s12") / "r.json"
    res = CliRunner().invoke(main, ["plan", str(PROGRAM), "--report", str(out)],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.stderr
    return json.loads(out.read_text())


def _minimum(report: dict, host: str) -> int:
    (seq,) = [s for s in report["sequences"] if s["host"] == host]
    return seq["traffic"]["dram_bytes"]["minimum"]


@pytest.mark.parametrize("host,minimum", [
    ("k_memset", 8), ("k_copy", 8), ("k_partial", 12), ("k_branch", 12), ("k_maybe", 12)])
def test_killed_intermediate_is_dead(report: dict, host: str, minimum: int) -> None:
    assert _minimum(report, host) == minimum
