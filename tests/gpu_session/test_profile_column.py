"""bench_vertical's `fuse --profile` column as the GPU session drives it (--profile-only):
the most telling rows first, a row whose profiling fails written as failed with the reason
(and the others still measured), not retried in the same results folder unless asked.
`fuse --profile` and the harness run are stand-ins here."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_vertical",
                                                  ROOT / "benchmarks" / "bench_vertical.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _model(sample: str, speedup: float, equal: bool = True) -> dict:
    return {"kind": "model", "backend": "nvcc", "sample": sample, "size": 4096,
            "unfused_ms": 1.0, "fused_ms": 1.0 / speedup, "speedup": speedup,
            "traffic_bytes": 1, "copy_gbps": 3000.0, "roofline_ms": 0.04, "fused_gbps": 1.0,
            "equal": equal, "unfused_hash": ["0 1"], "device": "NVIDIA H200",
            "driver": 13000, "date": "2026-11-28"}


WRONG = ("cudafuse: error: 7 fused variant(s) computed different results from the unfused "
         "program: model (output 'out' differs ...")


def test_failed_rows_are_written_with_the_reason_and_the_rest_go_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bv = _bench()
    rows = tmp_path / "v.jsonl"
    rows.write_text("".join(json.dumps(m) + "\n" for m in (
        _model("sobel", 2.5), _model("shitomasi", 0.94, equal=False), _model("blur", 0.52))))
    profiled: list[str] = []

    def fake_profile(name, size, work, arch, backend):  # type: ignore[no-untyped-def]
        profiled.append(name)
        if name == "shitomasi":
            raise bv.ProfileFailed(bv.error_line("profile: done\n" + WRONG + "\n"))
        return tmp_path / name, {"choice": {"id": "tiles-never", "model_was_fastest": False}}

    harnesses: list[str] = []
    monkeypatch.setattr(bv, "profile_source", fake_profile)
    monkeypatch.setattr(bv, "harness_of", lambda source, name, *a: (
        harnesses.append(name), source)[1])
    def fake_run(exe, *a, **k):  # type: ignore[no-untyped-def]
        profiled.append(f"run {Path(exe).name}")
        return {"ms": [0.25, 0.2, 0.3], "hash": ["0 1"]}

    monkeypatch.setattr(bv, "run", fake_run)
    monkeypatch.setattr(bv.shutil, "which", lambda _: "/bin/true")
    md = tmp_path / "v.md"
    argv = ["bench_vertical.py", "--profile-only", "--samples", "shitomasi", "sobel", "blur",
            "--sizes", "4096", "--jsonl", str(rows), "--md", str(md), "--work",
            str(tmp_path / "w")]
    monkeypatch.setattr(sys, "argv", argv)
    assert bv.main() == 1  # one row failed; the others were measured
    # The rows where fusion made the pipeline slower (or changed its outputs) first.
    # A row's harness is run after the next row's profile (its compile overlaps it).
    assert profiled == ["shitomasi", "blur", "sobel", "run blur", "run sobel"]
    assert harnesses == ["blur", "sobel"]
    recs = [json.loads(line) for line in rows.read_text().splitlines()]
    failed = [r for r in recs if "profile_error" in r]
    assert [r["sample"] for r in failed] == ["shitomasi"]
    assert failed[0]["profile_error"].startswith("7 fused variant(s) computed different")
    cells = [c.strip() for c in next(ln for ln in md.read_text().splitlines()
                                     if ln.startswith("| shitomasi")).strip("|").split("|")]
    assert cells[5] == "failed" and cells[6].startswith("7 fused variant(s)")
    assert len(cells) == 14
    blur = [c.strip() for c in next(ln for ln in md.read_text().splitlines()
                                    if ln.startswith("| blur")).strip("|").split("|")]
    assert blur[5:7] == ["0.250", "tiles-never"]
    # A second call in the same folder: the failed row is not profiled again...
    profiled.clear()
    assert bv.main() == 0 and profiled == []
    # ...unless asked, and then its success replaces the failure in the table.
    monkeypatch.setattr(sys, "argv", [*argv, "--retry-failed"])
    monkeypatch.setattr(bv, "profile_source", lambda name, *a: (
        profiled.append(name), (tmp_path / name, {"choice": {
            "id": "model", "model_was_fastest": True}}))[1])
    assert bv.main() == 0 and profiled == ["shitomasi", "run shitomasi"]
    assert "| shitomasi | 4096^2 | 1.000 | 1.064 | 0.94 | 0.250 | model |" in md.read_text()


def test_error_line() -> None:
    bv = _bench()
    assert bv.error_line("progress\ncudafuse: error: it broke\n") == "it broke"
    assert bv.error_line("no errors here") == ""
    assert len(bv.error_line("error: " + "x" * 400)) == 160


def test_a_rows_seconds_leave_out_the_next_rows_profile(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A row is finished after the next row is profiled (its harness compiles meanwhile);
    # its recorded seconds are its own profile and finishing (0.3 s here), not 0.6.
    import time

    bv = _bench()
    rows = tmp_path / "v.jsonl"
    rows.write_text("".join(json.dumps(m) + "\n" for m in (
        _model("sobel", 2.5), _model("blur", 0.52))))

    def fake_profile(name, size, work, arch, backend):  # type: ignore[no-untyped-def]
        time.sleep(0.3)
        return tmp_path / name, {"choice": {"id": "model", "model_was_fastest": True},
                                 "variants": [{"id": "model", "aliases": [],
                                               "timing": {"median_ms": 0.25}}]}

    monkeypatch.setattr(bv, "profile_source", fake_profile)
    monkeypatch.setattr(bv, "harness_of", lambda source, name, *a: source)
    monkeypatch.setattr(bv, "run", lambda *a, **k: {"ms": [0.25, 0.2, 0.3], "hash": ["0 1"]})
    monkeypatch.setattr(bv.shutil, "which", lambda _: "/bin/true")
    monkeypatch.setattr(sys, "argv", [
        "bench_vertical.py", "--profile-only", "--samples", "sobel", "blur", "--sizes", "4096",
        "--jsonl", str(rows), "--work", str(tmp_path / "w")])
    assert bv.main() == 0
    recs = [json.loads(line) for line in rows.read_text().splitlines()]
    first = next(r for r in recs if r.get("kind") == "profile")
    assert first["sample"] == "blur" and 0.3 <= first["profile_seconds"] < 0.55
    assert first["profile_times"] == {"model": 0.25}
