"""The GPU session's outer process is the machine's own python3, which has none of
cudafuse's dependencies (no libclang: the first GPU run's hfuse step crashed importing
cudafuse there to read pairs.toml). Its step loop must import nothing beyond the standard
library: here it runs isolated (-I -S: no site-packages, no PYTHONPATH) with cudafuse and
the third-party packages made unimportable, and builds every step's command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, sys
FORBIDDEN = ("cudafuse", "clang", "numpy", "pycuda", "networkx", "click", "pytest")

class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in FORBIDDEN:
            raise ImportError(f"the outer process imported {name}")
        return None

sys.meta_path.insert(0, Refuse())
sys.path.insert(0, BENCH)
import gpu_session as gs

order = gs._pair_order()
s = gs.Session(OUT, WORK, False, 60.0, None)  # not dry: the GPU branch's arguments
commands = []
s.sh = lambda cmd, seconds, tee=None: (commands.append(cmd), (0, False))[1]
s.python = "/bin/true"  # children would run this (never here: sh is a stand-in)
gs.DEVICE_CACHE = WORK / "device-cache"  # as --prepare leaves it, carried
(gs.DEVICE_CACHE / "aoli-al+TorchKernel").mkdir(parents=True)
for step in gs.STEPS:
    if step.name not in gs.ALWAYS:
        step.run(s)
loaded = sorted(m for m in sys.modules if m.split(".")[0] in FORBIDDEN)
print("RESULT " + json.dumps({"order": order, "commands": commands, "loaded": loaded}))
"""


def test_the_step_loop_needs_only_the_standard_library(tmp_path: Path) -> None:
    code = (SCRIPT.replace("BENCH", repr(str(ROOT / "benchmarks")))
            .replace("OUT", f"__import__('pathlib').Path({str(tmp_path / 'out')!r})")
            .replace("WORK", f"__import__('pathlib').Path({str(tmp_path / 'work')!r})"))
    res = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout.split("RESULT ", 1)[1])
    assert got["loaded"] == []
    assert len(got["order"]) == 16
    by_script = {Path(c[1]).name: c for c in got["commands"] if len(c) > 1}
    hfuse, paper = [c for c in got["commands"] if Path(c[1]).name == "bench_hfuse.py"]
    assert hfuse[hfuse.index("--pairs") + 1].split(",") == got["order"]
    # The first session's sizes seed the next one's calibration.
    seeded = hfuse[hfuse.index("--sizes-from") + 1:]
    assert str(ROOT / "benchmarks" / "results" / "2026-11-28-h200" / "hfuse.jsonl") in seeded
    # The paper's pairs after the samples', from the carried cache, into the same files.
    assert paper[paper.index("--paper") + 1] == "all"
    assert paper[paper.index("--cache") + 1] == str(tmp_path / "work" / "device-cache")
    assert paper[paper.index("--jsonl") + 1] == hfuse[hfuse.index("--jsonl") + 1]
    assert "--sizes-from" in paper
    assert "--profile-only" in by_script["bench_vertical.py"] or any(
        "--profile-only" in c for c in got["commands"])
