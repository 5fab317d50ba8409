"""A group the plan chooses and code generation then refuses (driver.py, _left_unfused):
--explain and --report say what the output file holds, the launches as written and why,
never "fused" for an edge whose kernels still run apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cudafuse.cli import main

PROGRAM = Path(__file__).parent / "programs" / "left_unfused.cu"
WHY = "a variable its launches read is assigned between them"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("left_unfused")
    out, report = tmp / "out.cu", tmp / "report.json"
    res = CliRunner().invoke(main, ["fuse", "--fuse-all", "--explain", "-o", str(out),
                                    "--report", str(report), str(PROGRAM)])
    assert res.exit_code == 0, res.output
    return out.read_text(), res.output, json.loads(report.read_text())


def _body(text: str, host: str) -> str:
    return text.split(f"void {host}(")[1].split("\n}\n")[0]


def test_the_output_holds_what_the_explanation_says(fused) -> None:
    text, _, _ = fused
    # reassigned(): both launches as written; fresh(): one fused launch (the control).
    assert "square<<<g, 256>>>" in _body(text, "reassigned")
    assert "plus_half<<<g, 128>>>" in _body(text, "reassigned")
    assert "_fresh_fused" in _body(text, "fresh")


def test_explain_names_the_refused_group_and_its_edge(fused) -> None:
    _, explain, _ = fused
    edges = {line.split(" in ")[1].split(":")[0]: line for line in explain.splitlines()
             if line.startswith("  edge square -> plus_half")}
    assert edges["reassigned"].split(": ", 1)[1].startswith(
        "not fused: planned in a group of 2 kernels (square, plus_half), which code "
        f"generation left unfused: {WHY}")
    assert ": fused (group of 2 kernels)" in edges["fresh"]
    assert f"group {{square, plus_half}} (chosen) left unfused by code generation: {WHY}" \
        in explain


def test_the_report_says_the_same(fused) -> None:
    _, _, report = fused
    edges = {e["host"]: e for e in report["edges"]}
    assert edges["reassigned"]["fused"] is False and WHY in edges["reassigned"]["why"]
    assert edges["fresh"]["fused"] is True
    seqs = {s["host"]: s for s in report["sequences"]}
    assert seqs["reassigned"]["fused"] == []
    assert [(u["kernels"], u["launches"]) for u in seqs["reassigned"]["left_unfused"]] == \
        [(["square", "plus_half"], [0, 1])]
    assert WHY in seqs["reassigned"]["left_unfused"][0]["why"]
    assert seqs["fresh"]["left_unfused"] == [] and len(seqs["fresh"]["fused"]) == 1
