"""Races between the blocks of a launch (issue 31): the emulator runs the blocks of an
order-independent-looking kernel on several OS threads, so an original whose blocks read what
other blocks of the same launch write (a blur in place) gives outputs that vary from run to
run. verify's second run of the original takes every such launch's blocks in decreasing
order, so the race shows every time, and the error names the kernel at its launch instead of
blaming memory nothing wrote (runtime/races.py, execute.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest_runtime import PROGRAMS

from cudafuse.cli import main
from cudafuse.runtime import load, races

SPEC = """entry = "pipeline"
[[args]]
name = "host"
dtype = "float32"
count = 256
init = "uniform(0, 1)"
role = "inout"
[[args]]
name = "n"
value = 256
"""


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("races")
    shutil.copy(PROGRAMS / "block_race.cu", root / "race.cu")
    (root / "race.toml").write_text(SPEC)
    return root


def test_reversing_a_kernel_changes_only_a_racy_kernels_outputs(work: Path) -> None:
    x = np.random.default_rng(0).random(256, dtype=np.float32)
    out: dict[str, np.ndarray] = {}
    log = work / "parallel.txt"
    for reverse in ("", "scale", "smooth_in_place"):
        with load(work / "race.cu", threads=1, reverse=reverse, parallel_log=str(log)) as lib:
            a = x.copy()
            lib.call("pipeline", a, 256)
            out[reverse] = a
    assert np.array_equal(out["scale"], out[""])
    assert not np.array_equal(out["smooth_in_place"], out[""])
    assert [(p.kernel, Path(p.file).name, p.line) for p in races.read_log(str(log))] == [
        ("scale", "race.cu", 18), ("smooth_in_place", "race.cu", 19)]


def test_verify_names_the_kernel_whose_blocks_race(work: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    res = CliRunner().invoke(main, ["verify", "race.cu", "race.cu", "--spec", "race.toml"])
    assert res.exit_code == 1, res.output
    lines = res.stderr.splitlines()
    assert lines[0].startswith(
        "race.cu: error: the original's output 'host' differs between two runs on the same "
        "inputs (the second with the blocks of each launch in decreasing order): "), lines
    assert "its blocks race: run one after another in increasing order, its outputs are " \
        "the same with fresh device memory holding 0x00 or 0xff bytes" in lines[0]
    assert lines[1].startswith("race.cu:19: note: kernel 'smooth_in_place' (launched here) "
                               "gives other outputs when its blocks run in decreasing order")
    assert "transformed program was not checked" in res.stderr
