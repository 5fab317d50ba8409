"""benchmarks/reach.py: a run the time limit stops says how much CPU it had in that time and the
load then (the limit is wall clock; on a shared machine a run may get a small part of it)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _reach():
    spec = importlib.util.spec_from_file_location("reach", ROOT / "benchmarks" / "reach.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["reach"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _wrapped(reach, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", reach._CPU_OF, sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=60)


def test_the_wrapper_reports_its_children_cpu_and_keeps_their_exit():
    reach = _reach()
    busy = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"
    proc = _wrapped(reach, busy + "import sys; print('said', file=sys.stderr); sys.exit(3)")
    assert proc.returncode == 3
    m = reach._CPU_LINE.search(proc.stderr)
    assert m and float(m.group(1)) >= 0.3 and float(m.group(2)) >= 0
    assert reach._CPU_LINE.sub("", proc.stderr).strip() == "said"
    # a child killed by a signal: the wrapper ends by the same signal
    proc = _wrapped(reach, "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    assert proc.returncode == -11 and reach._CPU_LINE.search(proc.stderr)
