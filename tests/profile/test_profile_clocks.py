"""profile.clocks: nvidia-smi's clock line parsed, and nothing (not an error) without it."""

from __future__ import annotations

import subprocess
from types import SimpleNamespace

from cudafuse.profile import clocks


def test_a_clock_line() -> None:
    got = clocks.parse("1980, 2619, 41, 112.53, 0x0000000000000000")
    assert got == {"sm_mhz": 1980, "memory_mhz": 2619, "temperature_c": 41,
                   "power_w": 112.53, "throttle_reasons": "0x0000000000000000"}
    assert clocks.parse("1980, [N/A], 41, [N/A], [N/A]") == {
        "sm_mhz": 1980, "memory_mhz": None, "temperature_c": 41, "power_w": None,
        "throttle_reasons": None}
    assert clocks.parse("garbage") is None


def test_sample_asks_for_one_device_and_tolerates_failure() -> None:
    calls = []

    def run(cmd, **_kw):  # type: ignore[no-untyped-def]
        calls.append(cmd)
        return SimpleNamespace(returncode=0, stdout="1755, 2619, 50, 300.1, 0x4\n")

    assert clocks.sample(1, run) == {"sm_mhz": 1755, "memory_mhz": 2619,
                                     "temperature_c": 50, "power_w": 300.1,
                                     "throttle_reasons": "0x4"}
    assert calls[0][-2:] == ["-i", "1"]
    assert clocks.sample(0, lambda *a, **k: SimpleNamespace(returncode=9, stdout="")) is None

    def missing(*_a, **_k):  # type: ignore[no-untyped-def]
        raise OSError("no nvidia-smi")

    assert clocks.sample(0, missing) is None
    assert clocks.sample(0, lambda *a, **k: (_ for _ in ()).throw(
        subprocess.TimeoutExpired("nvidia-smi", 10))) is None
