"""bench_vertical's 'outputs equal' column: bit-exact, nvcc's contraction choices (the
outputs differ under --fmad=true, not under --fmad=false), or wrong. The harness runs and
compiles are stand-ins here (they need a GPU / seconds of nvcc)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_vertical_fmad",
                                                  ROOT / "benchmarks" / "bench_vertical.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("row, cell", [
    ({"equal": True}, "yes (bit-exact)"),
    ({"equal": False, "ieee_equal": True, "contraction_elements": 1,
      "contraction_max_ulps": 1.0}, "contraction: 1 elements, max 1 ulp"),
    ({"equal": False, "ieee_equal": False, "close": True}, "NO (differs under fmad=false)"),
    # rows measured before the --fmad=false check (the 2026-11-28 H200 run)
    ({"equal": False, "close": True, "max_abs_diff": 1.86e-9}, "within tolerance (max 1.9e-09)"),
    ({"equal": False, "close": False}, "NO"),
])
def test_verdict(bench: ModuleType, row: dict, cell: str) -> None:
    assert bench._verdict(row) == cell
    assert bench._verdict({f"profile_{k}": v for k, v in row.items()}, "profile_") == cell


def _stand_ins(bench: ModuleType, monkeypatch: pytest.MonkeyPatch, ieee_same: bool,
               compiled: list[tuple[str, tuple[str, ...]]]) -> None:
    """Harness runs: the fused one's output is one ulp off at element 5 under the default
    flags; under --fmad=false the hashes agree when `ieee_same`."""
    def run(exe: Path, w: int, h: int, iters: int, dump: Path | None = None) -> dict:
        if "ieee" in exe.name:
            same = ieee_same or exe.read_text() == "unfused"  # its source (below)
            return {"hash": ["0 same" if same else "0 other"]}
        out = np.linspace(0.1, 0.9, w * h, dtype=np.float32)
        if "fused" in exe.name and "unfused" not in exe.name:
            out[5] = np.nextafter(out[5], np.float32(1))
        if dump is not None:
            out.tofile(f"{dump}.0.bin")
        return {"hash": [str(hash(out.tobytes()))]}

    def compile_harness(source: Path, name: str, exe: Path, nvcc: str, arch: str,
                        flags: tuple[str, ...] = ()) -> Path:
        compiled.append((exe.name, flags))
        exe.write_text(source.read_text())
        return exe

    monkeypatch.setattr(bench, "run", run)
    monkeypatch.setattr(bench, "compile_harness", compile_harness)


@pytest.mark.parametrize("ieee_same, cell", [
    (True, "contraction: 1 elements, max 1 ulp"), (False, "NO (differs under fmad=false)")])
def test_exactness_of_a_differing_row(bench: ModuleType, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch, ieee_same: bool,
                                      cell: str) -> None:
    compiled: list[tuple[str, tuple[str, ...]]] = []
    _stand_ins(bench, monkeypatch, ieee_same, compiled)
    src_u, src_f = tmp_path / "u.cu", tmp_path / "f.cu"
    src_u.write_text("unfused")
    src_f.write_text("fused")
    got = bench.exactness((src_u, tmp_path / "bench_sobel_unfused"),
                          (src_f, tmp_path / "bench_sobel_fused"), "sobel", 8, tmp_path,
                          "nvcc", "sm_90", "profile_")
    assert got["profile_contraction_elements"] == 1 and got["profile_close"] is True
    assert [f for _, f in compiled] == [bench.IEEE_FLAGS] * 2
    assert bench._verdict({"profile_equal": False, **got}, "profile_") == cell
    assert not list(tmp_path.glob("dump_*"))  # the dumps are removed
