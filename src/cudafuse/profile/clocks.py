"""The GPU's clocks, temperature and throttle reasons as nvidia-smi reports them, noted in
the profiling report before and after the timing: a run whose SM clock fell between the two
(a hot or power-capped GPU) is a run to repeat, not a result to trust."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from typing import Any

FIELDS = ("clocks.sm", "clocks.mem", "temperature.gpu", "power.draw",
          "clocks_throttle_reasons.active")
KEYS = ("sm_mhz", "memory_mhz", "temperature_c", "power_w", "throttle_reasons")


def _number(text: str) -> float | int | None:
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value.is_integer() else value


def parse(line: str) -> dict[str, object] | None:
    """One `--format=csv,noheader,nounits` line of FIELDS."""
    parts = [p.strip() for p in line.split(",")]
    if len(parts) != len(FIELDS):
        return None
    out: dict[str, object] = {k: _number(v) for k, v in zip(KEYS[:-1], parts, strict=False)}
    out["throttle_reasons"] = parts[-1] if parts[-1] not in ("", "[N/A]") else None
    return out


def sample(device: int = 0, run: Callable[..., Any] = subprocess.run) -> dict[str, object] | None:
    """The clocks now, or None where nvidia-smi is missing or says nothing usable."""
    if run is subprocess.run and shutil.which("nvidia-smi") is None:
        return None
    try:
        res = run(["nvidia-smi", f"--query-gpu={','.join(FIELDS)}",
                   "--format=csv,noheader,nounits", "-i", str(device)],
                  capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if res.returncode != 0 or not res.stdout.strip():
        return None
    return parse(res.stdout.strip().splitlines()[0])
