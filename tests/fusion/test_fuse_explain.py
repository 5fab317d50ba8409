"""`plan` / `fuse --explain` figures: every edge left unfused says what fusing it would
have saved, every objective says its unit, and the --report carries the same figures."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from cudafuse.cli import main

ROOT = Path(__file__).parents[2]
GOLDEN = Path(__file__).parent / "golden"
PIPELINE = ROOT / "samples" / "blur_pipeline.cu"  # one edge not profitable, in each host
REFUSALS = GOLDEN / "refusals.cu"  # edges refused by legality
COST_UNIT = "estimated cycles saved over a 2^20-element iteration space, sm_90 cost model"


def plan(tmp_path: Path, *args: str) -> tuple[str, dict]:
    report = tmp_path / "r.json"
    # In this process (the CLI's main): the command minus a Python start (issue 27).
    res = CliRunner().invoke(main, ["plan", *args, "--report", str(report)],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.stderr
    return res.stdout, json.loads(report.read_text())


def edge_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("  edge ")]


def test_every_unfused_edge_has_its_figure_in_the_text_and_the_report(tmp_path: Path
                                                                      ) -> None:
    text, report = plan(tmp_path, str(PIPELINE))
    lines = edge_lines(text)
    # edge_pipeline's three edges, and the same three in main, whose call of edge_pipeline
    # stands for its launches (a wrapper of several launches, host/wrappers.py)
    assert len(lines) == len(report["edges"]) == 6
    assert [e["host"] for e in report["edges"]] == ["edge_pipeline"] * 3 + ["main"] * 3
    unfused = 0
    for line, edge in zip(lines, report["edges"], strict=True):
        figure = re.search(r"; benefit if fused alone: (\S+) cycles$", line)
        if edge["fused"]:
            assert figure is None and edge["estimated_benefit"] is None, line
            continue
        unfused += 1
        assert figure is not None, line
        # The text rounds the report's figure; the two must be the same number.
        assert float(figure.group(1)) == float(f"{edge['estimated_benefit']:.4g}")
        # The reason and the figure agree: an edge kept apart by the partition would have
        # gained alone; one not profitable loses (blur3x3 -> sobel_mag: a 3x3 stencil
        # recomputing a 3x3 stencil, which the calibrated model prices as a loss).
        if "not profitable" in line:
            assert edge["estimated_benefit"] <= 0, line
        else:
            assert "keeps them apart" in line and edge["estimated_benefit"] > 0, line
    assert unfused == 2
    assert [(e["host"], e["from"], e["to"]) for e in report["edges"] if not e["fused"]] == [
        ("edge_pipeline", "blur3x3", "sobel_mag"), ("main", "blur3x3", "sobel_mag")]


def test_objectives_name_their_unit(tmp_path: Path) -> None:
    text, report = plan(tmp_path, str(PIPELINE))
    assert f"  objective unit: {COST_UNIT} (edge weights" in text
    seq = report["sequences"][0]
    assert seq["objective_unit"] == COST_UNIT
    for part in seq["partitions"]:
        line = next(ln for ln in text.splitlines()
                    if ln.startswith(f"  partition {part['strategy']}"))
        assert f"objective {part['objective']:.4g} cycles, " in line
        assert f"edge weights {part['edge_objective']:.4g} cycles: " in line


def test_refused_edges_get_a_figure_and_fuse_all_counts_edges(tmp_path: Path) -> None:
    text, report = plan(tmp_path, str(REFUSALS))
    refused = [e for e in report["edges"] if not e["fused"]]
    assert refused and all(isinstance(e["estimated_benefit"], float) for e in refused)
    assert all(re.search(r"; benefit if fused alone: \S+ cycles$", line)
               for line in edge_lines(text) if ": not fused: " in line)
    # --fuse-all does not use the cost model: its objective counts edges, and says so.
    text, report = plan(tmp_path, str(REFUSALS), "--fuse-all")
    assert {s["objective_unit"] for s in report["sequences"]} == {
        "producer/consumer edges inside groups; --fuse-all does not use the cost model"}
    assert all(line.endswith("; benefit if fused alone: 1 edge(s)")
               for line in edge_lines(text) if ": not fused: " in line)


def test_pipeline_traffic_line_matches_the_report(tmp_path: Path) -> None:
    text, report = plan(tmp_path, str(PIPELINE))
    for seq in report["sequences"]:
        t = seq["traffic"]
        b = t["dram_bytes"]
        assert (f"  pipeline {seq['host']}: DRAM bytes per output element {b['original']} -> "
                f"{b['fused']} (minimum {b['minimum']}); redundant work "
                f"x{t['redundant_work']:.2f}") in text.splitlines()
        assert "speed" not in text  # traffic figures, not a run-time claim


def test_an_edge_kept_apart_by_a_group_refusal_names_it(tmp_path: Path) -> None:
    # Every pair fuses, but no group joins k2's and k4's partial guards while b2 is live:
    # the edge left apart names that refusal (it used to blame the min-cut).
    text, report = plan(tmp_path, str(Path(__file__).parent / "programs" /
                                      "joined_groups_refused.cu"), "--fuse-all")
    (apart,) = [e for e in report["edges"] if not e["fused"]]
    assert apart["why"].startswith("not fused: the pair would fuse, but the groups it would "
                                   "join ('k1', 'k2', 'k3', 'k4') cannot form one kernel: "
                                   "'k4' writes only the interior"), apart["why"]
    assert "keeps them apart" not in text
