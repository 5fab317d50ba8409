"""benchmarks/gpu_session.py, the one command a GPU machine runs, checked without a GPU:
its environment step and device probe for real (--dry), the step loop (order, budgets,
resuming, a crashing step) with stand-in steps, the benches' resumable row files, and
publishing into docs. The whole dry run (every harness built, the emulator path timed, the
GPU tests collected and skipped) is `slow` (make gpu-session-dry)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up while the class is made
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules[name]
    return mod


def _session(tmp_path: Path, *extra: str, timeout: float = 300) -> tuple[int, str, dict]:
    out = tmp_path / "out"
    res = subprocess.run([sys.executable, str(BENCH / "gpu_session.py"), "--dry", "--out",
                          str(out), "--work", str(tmp_path / "work"), *extra],
                         capture_output=True, text=True, timeout=timeout)
    state = json.loads((out / "session.json").read_text()) if \
        (out / "session.json").exists() else {}
    return res.returncode, res.stdout + res.stderr, state


def test_dry_environment_and_device_probe(tmp_path: Path) -> None:
    # The venv the GPU steps run in (this Python's packages, src/, a `cudafuse` command),
    # every GPU-facing module imported without loading PyCUDA, and the copy-bandwidth
    # program built where nvcc is.
    rc, output, state = _session(tmp_path, "--only", "device")
    assert rc == 0, output
    assert state["mode"] == "dry (CPU)"
    assert {k: v["status"] for k, v in state["steps"].items()} == \
        {"install": "done", "device": "done"}
    assert state["device"]["probe"]["pycuda_loaded_by_imports"] is False
    assert state["device"]["probe"]["gpu"] is None  # no GPU here: said, not crashed
    assert (tmp_path / "work" / "venv" / "bin" / "cudafuse").exists()
    assert "cudafuse --version: cudafuse, version" in output
    if "nvcc" in state["device"]:
        assert (tmp_path / "work" / "copy_bandwidth").exists()
    assert (tmp_path / "out" / "log.txt").read_text().count("== device") >= 2


def _fake_steps(gs: ModuleType, calls: list[str], outcomes: dict[str, object]) -> tuple:
    def make(name: str):  # type: ignore[no-untyped-def]
        def run(s):  # type: ignore[no-untyped-def]
            calls.append(name)
            what = outcomes.get(name, "done")
            if isinstance(what, BaseException):
                raise what
            if what == "slow":
                time.sleep(s.left() + 0.2)  # uses up its whole budget
                return "partial"
            return what
        return run

    return tuple(gs.Step(n, b, make(n), n) for n, b in (
        ("install", 5), ("device", 5), ("vertical", 2), ("pytest", 2), ("hfuse", 0),
        ("vertical-profile", 0)))


def test_steps_run_in_order_and_a_second_call_skips_what_is_done(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gs = _module("gpu_session")
    calls: list[str] = []
    outcomes: dict[str, object] = {"pytest": RuntimeError("boom"), "hfuse": "partial"}
    monkeypatch.setattr(gs, "STEPS", _fake_steps(gs, calls, outcomes))
    out = tmp_path / "out"
    argv = ["--out", str(out), "--work", str(tmp_path / "w"), "--budget", "60"]
    assert gs.main(argv) == 1  # a step failed (crashed): the status says so
    assert calls == ["install", "device", "vertical", "pytest", "hfuse", "vertical-profile"]
    state = json.loads((out / "session.json").read_text())
    assert state["mode"] == "gpu"
    assert {k: v["status"] for k, v in state["steps"].items()} == {
        "install": "done", "device": "done", "vertical": "done", "pytest": "failed",
        "hfuse": "partial", "vertical-profile": "done"}
    assert "pytest crashed: RuntimeError('boom')" in (out / "log.txt").read_text()
    # Second call: install and device run again (a fresh machine), the done steps do not.
    calls.clear()
    outcomes.clear()
    assert gs.main(argv) == 0
    assert calls == ["install", "device", "pytest", "hfuse"]


def test_a_call_resumes_from_results_carried_back(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # The device tool empties $OUT before each call: the first call's files come back
    # into the checkout (build/gpu-session, or --resume) and the second call starts there.
    gs = _module("gpu_session")
    calls: list[str] = []
    monkeypatch.setattr(gs, "STEPS", _fake_steps(gs, calls, {"hfuse": "partial"}))
    first = tmp_path / "first"
    assert gs.main(["--out", str(first), "--work", str(tmp_path / "w")]) == 0
    (first / "hfuse.jsonl").write_text('{"pair": "a+b"}\n')
    calls.clear()
    second = tmp_path / "second"
    assert gs.main(["--out", str(second), "--resume", str(first), "--work",
                    str(tmp_path / "w")]) == 0
    assert calls == ["install", "device", "hfuse"]
    assert (second / "hfuse.jsonl").read_text() == '{"pair": "a+b"}\n'
    assert "resumed from" in (second / "log.txt").read_text()


def test_under_out_the_checkouts_build_gpu_session_is_resumed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The documented second call: $OUT set by the device tool, no options, the first call's
    # files put back into build/gpu-session and carried.
    gs = _module("gpu_session")
    calls: list[str] = []
    monkeypatch.setattr(gs, "STEPS", _fake_steps(gs, calls, {}))
    monkeypatch.setattr(gs, "ROOT", tmp_path)
    prior = tmp_path / "build" / "gpu-session"
    prior.mkdir(parents=True)
    (prior / "session.json").write_text(json.dumps({"mode": "gpu", "steps": {
        "vertical": {"status": "done"}, "pytest": {"status": "partial"}}}))
    monkeypatch.setenv("OUT", str(tmp_path / "OUT"))
    assert gs.main(["--work", str(tmp_path / "w")]) == 0
    assert calls == ["install", "device", "pytest", "hfuse", "vertical-profile"]
    state = json.loads((tmp_path / "OUT" / "session.json").read_text())
    assert all(v["status"] == "done" for v in state["steps"].values())


def test_budgets_leave_time_for_later_steps_and_stop_in_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gs = _module("gpu_session")
    calls: list[str] = []
    monkeypatch.setattr(gs, "STEPS", _fake_steps(gs, calls, {"vertical": "slow"}))
    out = tmp_path / "out"
    start = time.monotonic()
    gs.main(["--out", str(out), "--work", str(tmp_path / "w"), "--budget", "14"])
    assert time.monotonic() - start < 20
    state = json.loads((out / "session.json").read_text())
    # 'vertical' had its own 2 s budget, not the session's.
    assert state["steps"]["vertical"]["status"] == "partial"
    assert state["steps"]["vertical"]["seconds"] < 5


def test_a_command_past_its_budget_is_stopped_with_its_children(tmp_path: Path) -> None:
    gs = _module("gpu_session")
    s = gs.Session(tmp_path / "o", tmp_path / "w", True, 60.0, None)
    start = time.monotonic()
    rc, stopped = s.sh(["bash", "-c", "echo first; sleep 30 & sleep 30"], 1.0,
                       tee=tmp_path / "tee.txt")
    # The output pipe closes only when every process holding it is gone: the background
    # sleep was stopped too, or this would take 30 s.
    assert stopped and rc != 0 and time.monotonic() - start < 10
    assert (tmp_path / "tee.txt").read_text() == "first\n"


def test_pair_order_covers_every_kernel_first() -> None:
    gs = _module("gpu_session")
    order = gs._pair_order()
    assert len(order) == len(set(order)) == 16
    first = order[:len(gs.FIRST_PAIRS)]
    assert {k for p in first for k in p.split("+")} == \
        {k for p in order for k in p.split("+")}


def test_vertical_rows_resume_and_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    bv = _module("bench_vertical")
    rows = tmp_path / "v.jsonl"
    model = {"kind": "model", "backend": "nvcc", "sample": "sobel", "size": 4096,
             "unfused_ms": 1.0, "fused_ms": 0.5, "speedup": 2.0, "traffic_bytes": 2 * 4096**2 * 4,
             "copy_gbps": 3000.0, "roofline_ms": 0.045, "fused_gbps": 268.4, "equal": True,
             "unfused_hash": ["0 1"], "device": "NVIDIA H200", "driver": 13000,
             "date": "2026-11-28"}
    prof = {"kind": "profile", "backend": "nvcc", "sample": "sobel", "size": 4096,
            "profile_ms": 0.4, "profile_choice": "tiles-never", "model_fastest": False,
            "profile_equal": True}
    rows.write_text(json.dumps(model) + "\n" + json.dumps(prof) + "\n{cut sh")
    got = bv.read_rows(rows, "nvcc")
    assert list(got) == [("sobel", 4096)] and got[("sobel", 4096)]["profile_ms"] == 0.4
    assert bv.read_rows(rows, "emu") == {}
    md = tmp_path / "v.md"
    # Every row already measured: nothing is built or run, the table is written.
    monkeypatch.setattr(sys, "argv", ["bench_vertical.py", "--samples", "sobel", "--sizes",
                                      "4096", "--jsonl", str(rows), "--md", str(md),
                                      "--work", str(tmp_path / "w"), "--note",
                                      "driver 580.1"])
    monkeypatch.setattr(bv.shutil, "which", lambda _: "/bin/true")
    assert bv.main() == 0
    table = md.read_text()
    assert "Device: NVIDIA H200; CUDA driver API 13000; driver 580.1; date: 2026-11-28" in table
    cells = [c.strip() for c in next(ln for ln in table.splitlines()
                                     if ln.startswith("| sobel")).strip("|").split("|")]
    assert cells == ["sobel", "4096^2", "1.000", "0.500", "2.00", "0.400", "tiles-never",
                     "no", "0.045", "268", "9%", "3000", "yes (bit-exact)", "1.17"]
    assert "Geometric-mean speed-up: 2.00" in table
    assert "sobel" in capsys.readouterr().out


def test_hfuse_rows_resume_without_profiling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                             ) -> None:
    bh = _module("bench_hfuse")
    rows = tmp_path / "h.jsonl"
    rec = {"backend": "nvcc", "pair": "histogram+maxpool2d", "kernel1": "histogram_kernel",
           "kernel2": "maxpool2d_kernel", "sizes": [{"n": 1}, {"nc": 2}], "alone": [0.5, 0.6],
           "device": "NVIDIA H200", "row": "| histogram+maxpool2d | 0.5 / 0.6 | ... |"}
    failed = {"backend": "nvcc", "pair": "im2col+maxpool2d", "error": "x", "row": "| f |"}
    rows.write_text(json.dumps(rec) + "\n" + json.dumps(failed) + "\n")
    done = bh.read_done(rows, "nvcc")
    assert list(done) == ["histogram+maxpool2d"]  # a failed pair is tried again
    md = tmp_path / "h.md"

    def no_profiling(*_a, **_k):  # type: ignore[no-untyped-def]
        raise AssertionError("a pair measured before was measured again")

    monkeypatch.setattr(bh, "profile", no_profiling)
    monkeypatch.setattr(bh, "calibrate", no_profiling)
    monkeypatch.setattr(sys, "argv", ["bench_hfuse.py", "--pairs", "histogram+maxpool2d",
                                      "--jsonl", str(rows), "--md", str(md)])
    assert bh.main() == 0
    assert "on NVIDIA H200 (nvcc backend" in md.read_text()
    assert "| histogram+maxpool2d | 0.5 / 0.6 | ... |" in md.read_text()
    assert "failed" in bh.failed_row({"name": "a+b"}, "nvcc: error | x")
    assert bh.failed_row({"name": "a+b"}, "e").count("|") == bh.HEADER.splitlines()[0].count("|")


def test_a_resumed_session_names_the_checkout_its_earlier_rows_came_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The next session resumes the second H200 session's results (checkout 1a33236) at a
    # later checkout: the state names this call's checkout and keeps the earlier one.
    gs = _module("gpu_session")
    monkeypatch.setattr(gs, "STEPS", _fake_steps(gs, [], {}))
    monkeypatch.setattr(gs, "_git_head", lambda: "new5678")
    prior = tmp_path / "prior"
    prior.mkdir()
    (prior / "session.json").write_text(json.dumps(
        {"mode": "gpu", "checkout": "1a33236", "steps": {"vertical": {"status": "done"}}}))
    out = tmp_path / "out"
    assert gs.main(["--out", str(out), "--resume", str(prior), "--work",
                    str(tmp_path / "w")]) == 0
    state = json.loads((out / "session.json").read_text())
    assert state["checkout"] == "new5678" and state["earlier_checkouts"] == ["1a33236"]
    (out / "hfuse.md").write_text("Measured ...\n")
    doc = tmp_path / "b.md"
    doc.write_text("x\n")
    assert gs.publish(out, doc) == 0
    assert "at checkout new5678 (resuming rows measured at 1a33236)" in doc.read_text()


def test_publish_puts_a_gpu_sessions_tables_into_the_docs(tmp_path: Path) -> None:
    gs = _module("gpu_session")
    folder, doc = tmp_path / "res", tmp_path / "benchmarks.md"
    folder.mkdir()
    doc.write_text("# B\n<!-- bench-vertical -->\nold\n<!-- bench-vertical -->\ntail\n")
    (folder / "vertical.md").write_text("Device: NVIDIA H200; ...\n\n| pipeline |\n")
    (folder / "session.json").write_text(json.dumps(
        {"mode": "dry (CPU)", "steps": {}, "checkout": "abc"}))
    assert gs.publish(folder, doc) == 1  # a dry run's figures are not for the docs
    assert "old" in doc.read_text()
    (folder / "session.json").write_text(json.dumps(
        {"mode": "gpu", "steps": {"vertical": {"status": "done"}}, "checkout": "abc"}))
    assert gs.publish(folder, doc) == 0
    text = doc.read_text()
    assert "old" not in text and "Device: NVIDIA H200" in text and text.endswith("tail\n")
    assert "at checkout abc (vertical: done)" in text
    assert "<!-- bench-hfuse -->" not in text  # no hfuse table in that session


@pytest.mark.slow
@pytest.mark.nvcc
def test_the_whole_dry_run(tmp_path: Path) -> None:
    # What the first GPU call will run, on the CPU: every step must finish.
    rc, output, state = _session(tmp_path, timeout=3600)
    assert rc == 0, output[-5000:]
    # The paper's pairs need the carried third-party files (gpu_session.py --prepare),
    # which a clean clone has not.
    paper = "done" if any((ROOT / ".device-cache").glob("*+*")) else "skipped"
    assert {k: v["status"] for k, v in state["steps"].items()} == {
        "install": "done", "device": "done", "vertical": "done", "pytest": "done",
        "hfuse": "done", "hfuse-paper": paper, "vertical-profile": "done"}
    out = tmp_path / "out"
    # What the device tool brings back from $OUT: at most 8 plain files, plain names.
    files = sorted(p.name for p in out.iterdir())
    assert len(files) <= 8 and all(re.fullmatch(r"[A-Za-z0-9._-]+", f) for f in files), files
    assert all((out / f).is_file() and (out / f).stat().st_size < 16 << 20 for f in files)
    assert "| sobel | 64^2 |" in (out / "vertical.md").read_text()
    assert "| histogram+maxpool2d |" in (out / "hfuse.md").read_text()
    assert "skipped" in (out / "pytest-gpu.txt").read_text()


def test_preflight_checks_fail_on_a_missing_entry_or_wrong_arguments() -> None:
    pre = _module("gpu_preflight")

    class Sig:
        def __init__(self, kind: str) -> None:
            self.kind, self.symbol = kind, ""

    with pytest.raises(KeyError, match="no host function 'p'"):
        pre.host_call("p", [])({"p": Sig("kernel")}, None)
    with pytest.raises(KeyError, match="no kernel 'k'"):
        pre.kernel_launch("k", [], (1,), (1,))({}, None)

    class Lib:  # has the synchronising entry, not the queueing one timing needs
        cudafuse_h_p = object()

    with pytest.raises(AttributeError, match="cudafuse_ha_p"):
        pre.entry_points(Lib(), "h", "p")


def _fake_harness(path: Path, values: list[float]) -> Path:
    # Stands in for a compiled harness: prints its timing line and, given a dump prefix,
    # writes its one live output (buffer 1) as the real one does.
    text = ",".join(map(str, values))
    path.write_text(f"#!{sys.executable}\nimport sys\nimport numpy as np\n"
                    "print('ms 1.0 1.0 1.0')\n"
                    f"if len(sys.argv) > 4: np.array({text!r}.split(','), "
                    "np.float32)"
                    ".tofile(sys.argv[4] + '.1.bin')\n")
    path.chmod(0o755)
    return path


def test_outputs_that_differ_are_compared_within_the_specs_tolerance(tmp_path: Path) -> None:
    bv = _module("bench_vertical")
    a = _fake_harness(tmp_path / "a", [1.0, 2.0, float("nan")])
    near = _fake_harness(tmp_path / "b", [1.0, 2.0 + 1e-6, float("nan")])
    far = _fake_harness(tmp_path / "c", [1.0, 2.5, float("nan")])
    got = bv.compare_outputs(a, near, "sobel", 64, tmp_path)
    assert got["close"] and 0 < got["max_abs_diff"] < 1e-5
    assert got["contraction_elements"] == 1  # the one element that differs at all
    got = bv.compare_outputs(a, far, "sobel", 64, tmp_path)
    assert not got["close"] and got["max_abs_diff"] == pytest.approx(0.5)
    assert not list(tmp_path.glob("dump_*"))  # the dumps are removed
    assert bv._verdict({"equal": True}) == "yes (bit-exact)"
    # rows measured before the --fmad=false check (no ieee_equal): the spec's tolerance
    assert bv._verdict({"equal": False, "close": True, "max_abs_diff": 2e-6}) == \
        "within tolerance (max 2.0e-06)"
    assert bv._verdict({"equal": False, "close": False, "max_abs_diff": 0.5}) == \
        bv._verdict({"equal": False}) == "NO"
