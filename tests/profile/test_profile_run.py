"""The measuring run of `cudafuse hfuse --profile`, end to end under the CPU emulator: every
configuration is built, verified against the native kernels on the pair spec's inputs, timed
(with the host clock: the figures mean nothing, the loop is what is tested), a choice is
made, the report and the cache entry are written, and the emitted program computes what the
originals do. A candidate that computes something else stops the run with a report.

nvcc is hidden in most of these tests (no ptxas figures: only the uncapped candidates), to
keep them fast; one test keeps it, under the `slow` marker. The same run on a GPU is under
the `gpu` marker."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cudafuse.cli import main
from cudafuse.diagnostics import CudafuseError
from cudafuse.profile import hfuse_profile
from cudafuse.profile.pairspec import load_pair_spec
from cudafuse.runtime import load

PAIR = Path(__file__).parent / "pair"
SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "hfuse"
FILES = [str(PAIR / "bump.cu"), str(PAIR / "scale.cu")]


@pytest.fixture
def no_nvcc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hfuse_profile, "have_nvcc", lambda: False)


def _hfuse(*args: str):
    return CliRunner().invoke(main, ["hfuse", *args], catch_exceptions=False)


def _profile(tmp_path: Path, *extra: str):
    out = tmp_path / "out.cu"
    res = _hfuse(*FILES, "--profile", "--spec", str(PAIR / "pair.toml"), "--backend", "emu",
                 "-o", str(out), "--report", str(tmp_path / "r.json"), "--cache-dir",
                 str(tmp_path / "cache"), *extra)
    return res, out


def _check_equivalent(program: Path) -> None:
    """The emitted launcher's outputs equal the two original kernels' outputs."""
    pair = load_pair_spec(str(PAIR / "pair.toml"))
    s1, s2 = pair.sides
    lib = load(program, backend="emu")
    native = [s1.spec.inputs(), s2.spec.inputs()]
    for side, args in zip(pair.sides, native, strict=True):
        lib.launch(side.kernel, grid=side.grid, block=side.block, shared=0, args=args)
    fused = [s1.spec.inputs(), s2.spec.inputs()]
    lib.call("bump_scale_hfused_launch", *fused[0], *fused[1], s1.dims(s1.grid),
             s2.dims(s2.grid), 0, 0, None)
    for want, got in zip(native[0] + native[1], fused[0] + fused[1], strict=True):
        if isinstance(want, np.ndarray):
            assert np.array_equal(want, got)
    assert np.any(native[1][1] != 0)


def test_profile_under_emu_verifies_times_chooses_and_caches(tmp_path: Path,
                                                             no_nvcc: None) -> None:
    res, out = _profile(tmp_path)
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "r.json").read_text())
    by_id = {c["id"]: c for c in report["candidates"]}
    assert list(by_id) == ["streams", "sequential", "thread:128+64:rnone",
                           "block:128+64:rnone"]
    for c in by_id.values():
        assert c["verified"] is True and c["timing"]["count"] == 3, c
    assert report["device"]["name"] == hfuse_profile.EMULATOR
    assert report["options"]["backend"] == "emu"
    assert report["choice"]["id"] in by_id
    assert "timed under the CPU emulator" in res.output
    _check_equivalent(out)
    first = out.read_bytes()
    # Again: from the cache, measuring nothing, the same choice and the same program.
    res2, out2 = _profile(tmp_path)
    assert res2.exit_code == 0, res2.output
    assert "results from the cache" in res2.output
    assert out2.read_bytes() == first
    # And the report's choice applied without profiling gives that program too.
    again = tmp_path / "again.cu"
    res3 = _hfuse(*FILES, "--from-profile", str(tmp_path / "r.json"), "-o", str(again))
    assert res3.exit_code == 0, res3.output
    assert again.read_bytes() == first


def test_a_wrong_candidate_stops_the_run_with_a_report(tmp_path: Path, no_nvcc: None) -> None:
    from cudafuse.frontend import parse_file
    from cudafuse.passes.horizontal.driver import HFuseOptions, find_kernel, hfuse
    from cudafuse.passes.horizontal.parts import Shape
    from cudafuse.profile.candidates import CandidateOptions
    from cudafuse.profile.hfuse_profile import ProfileFailed, profile_pair
    from cudafuse.profile.measure import Target

    u1, u2 = (parse_file(f).unit for f in FILES)
    k1, k2 = find_kernel(u1, None), find_kernel(u2, None)

    def emit(mode, cand):
        if cand is None or cand.mode == "block":
            res = hfuse(u1, k1, u2, k2, HFuseOptions(Shape(128), Shape(64), mode))
            return res.output, res.name
        # A "fused" program that runs bump twice: its accumulator ends up wrong.
        res = hfuse(u1, k1, u2, k2, HFuseOptions(Shape(128), Shape(64), "sequential"))
        text = res.output.decode()
        line = next(ln for ln in text.splitlines() if ln.lstrip().startswith("bump<<<"))
        return text.replace(line, line + "\n" + line).encode(), res.name

    with pytest.raises(ProfileFailed) as failed:
        profile_pair(emit=emit, options=CandidateOptions(128, 64), pair=load_pair_spec(
            str(PAIR / "pair.toml")), target=Target("emu"), files=tuple(FILES),
            displays=["bump", "scale"], margin=0.03)
    assert "thread:128+64:rnone" in str(failed.value)
    assert "output 'acc' differs" in str(failed.value)
    wrong = [c for c in failed.value.report["candidates"] if c["verified"] is False]
    assert [c["id"] for c in wrong] == ["thread:128+64:rnone"] and wrong[0]["timing"] is None
    assert failed.value.report["choice"]["id"] is None


def test_the_cli_writes_the_report_of_a_failed_run(tmp_path: Path, no_nvcc: None,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from cudafuse.profile import measure

    real = measure._differences
    calls: list[int] = []

    def second_differs(pair, reference, got):  # sequential, then the thread candidate
        calls.append(1)
        return "made up" if len(calls) == 2 else real(pair, reference, got)

    monkeypatch.setattr(measure, "_differences", second_differs)
    res, out = _profile(tmp_path, "--no-cache")
    assert res.exit_code == 1
    assert "computed different results" in res.output and "made up" in res.output
    assert not out.exists()
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["choice"]["error"]


def test_sequential_mode_is_the_natives_one_after_the_other(tmp_path: Path) -> None:
    out = tmp_path / "seq.cu"
    res = _hfuse(*FILES, "--mode", "sequential", "-o", str(out))
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "_hfused<<<" not in text and "cudaStreamCreate" not in text
    assert "bump<<<grid1, dim3(128, 1, 1), smem1, stream>>>" in text
    assert "scale<<<grid2, dim3(64, 1, 1), smem2, stream>>>" in text
    _check_equivalent(out)


@pytest.mark.parametrize("extra, message", [
    (["--spec", "x.toml"], "--spec only apply with --profile"),
    (["--profile"], "--profile needs --spec"),
    (["--profile", "--spec", str(PAIR / "pair.toml"), "--mode", "block"],
     "--profile chooses --mode"),
    (["--profile", "--spec", str(PAIR / "pair.toml"), "--from-profile", "r.json"],
     "give one"),
])
def test_profile_usage_errors(tmp_path: Path, extra: list[str], message: str) -> None:
    res = _hfuse(*FILES, "-o", str(tmp_path / "o.cu"), *extra)
    assert res.exit_code == 2 and message in res.output, res.output


def test_pair_specs_read_from_a_pairs_file() -> None:
    pair = load_pair_spec(str(SAMPLES / "pairs.toml"), "histogram+maxpool2d")
    s1, s2 = pair.sides
    assert (s1.kernel, s1.block, s2.kernel, s2.block) == (
        "histogram_kernel", (256,), "maxpool2d_kernel", (256,))
    assert s1.shared == 64 * 4 and s1.spec.entry == "histogram_run"
    with pytest.raises(CudafuseError, match="choose one with --pair"):
        load_pair_spec(str(SAMPLES / "pairs.toml"))
    with pytest.raises(CudafuseError, match="no pair named 'nope'"):
        load_pair_spec(str(SAMPLES / "pairs.toml"), "nope")


def test_pair_spec_sizes_override_and_errors(tmp_path: Path) -> None:
    base = (PAIR / "pair.toml").read_text()
    spec = tmp_path / "p.toml"
    for name in ("bump.toml", "scale.toml"):
        (tmp_path / name).write_text((PAIR / name).read_text())
    spec.write_text(base + "\n[sizes1]\nn = 4096\n")
    pair = load_pair_spec(str(spec))
    assert pair.sides[0].grid == (32,) and pair.sides[0].spec.args[1].count == 32
    for text, message in [(base + "\n[sizes1]\nm = 3\n", "no size named m"),
                          (base + "\ncolour = 1\n", "unknown key"),
                          (base.replace('grid2 = ["(n + 63) / 64"]', ""), "missing grid2"),
                          (base.replace("block1 = [128]", "block1 = [0]"), "positive"),
                          ("[[pair]]\nname = 'a'\n[[pair]]\nname = 'b'\n", "2 pairs")]:
        spec.write_text(text)
        with pytest.raises(CudafuseError, match=message):
            load_pair_spec(str(spec))


@pytest.mark.slow
def test_profile_with_register_caps_under_emu(tmp_path: Path) -> None:
    # With nvcc: ptxas figures and register caps around HFuse's bound, each cap verified.
    res, out = _profile(tmp_path, "--no-cache")
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "r.json").read_text())
    caps = {c["regcap"] for c in report["candidates"] if c["kind"] == "thread"}
    assert None in caps and len(caps) > 1
    assert all(c["registers"] for c in report["candidates"] if c["kind"] in ("thread",
                                                                             "block"))
    _check_equivalent(out)


@pytest.mark.gpu
def test_profile_on_the_gpu(tmp_path: Path) -> None:
    out = tmp_path / "out.cu"
    res = _hfuse(*FILES, "--profile", "--spec", str(PAIR / "pair.toml"), "-o", str(out),
                 "--report", str(tmp_path / "r.json"), "--no-cache")
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["options"]["backend"] == "nvcc"
    timed = [c for c in report["candidates"] if c["timing"]]
    assert all(c["verified"] for c in timed) and len(timed) >= 4
    assert all(c["timing"]["count"] >= 20 for c in timed)


def test_a_fused_winner_is_confirmed_against_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    # First pass: thread:128+64 looks 20% faster than streams. The confirmation round times
    # both again in alternation; here it finds them equal, so the natives are kept, and
    # the records carry the confirmation's timings (a re-selection agrees).
    from cudafuse.profile import measure
    from cudafuse.profile.measure import Program
    from cudafuse.profile.records import Record
    from cudafuse.profile.select import select
    from cudafuse.profile.stats import summarize

    def timing(ms: float):  # type: ignore[no-untyped-def]
        return summarize([ms * (1 + 0.001 * k) for k in range(-5, 6)])

    records = [Record("streams", "streams", verified=True, timing=timing(1.0)),
               Record("sequential", "sequential", verified=True, timing=timing(1.5)),
               Record("thread:128+64:rnone", "thread", (128, 64), verified=True,
                      timing=timing(0.8)),
               Record("block:128+64:rnone", "block", (128, 64), verified=True,
                      timing=timing(0.9))]
    asked: list[list[str]] = []

    def fake_confirm(programs, target, pair, timer, rounds, progress=None):  # type: ignore[no-untyped-def]
        asked.append([p.record.id for p in programs])
        return {p.record.id: [1.0 + 0.001 * k for k in range(11)] for p in programs}

    monkeypatch.setattr(measure, "confirm", fake_confirm)
    programs = [Program(r, b"", "") for r in records]
    first = select(records)
    assert first.choice.id == "thread:128+64:rnone"
    got, selection = hfuse_profile._confirmed(records, first, programs, None, None, True,
                                              None, 0.03)
    # The block candidate now leads on its first-pass time, so it is confirmed in turn.
    assert asked == [["streams", "thread:128+64:rnone"], ["block:128+64:rnone"]]
    assert selection.native and "confirmation round" in selection.lines[-1]
    assert select(got).choice.id == "streams"


def test_confirmation_times_programs_in_alternation() -> None:
    from cudafuse.frontend import parse_file
    from cudafuse.passes.horizontal.driver import HFuseOptions, find_kernel, hfuse
    from cudafuse.passes.horizontal.parts import Shape
    from cudafuse.profile.measure import Program, Target, confirm
    from cudafuse.profile.records import Record

    u1, u2 = (parse_file(f).unit for f in FILES)
    k1, k2 = find_kernel(u1, None), find_kernel(u2, None)
    programs = []
    for mode in ("streams", "sequential"):
        res = hfuse(u1, k1, u2, k2, HFuseOptions(Shape(128), Shape(64), mode))
        programs.append(Program(Record(mode, mode), res.output, f"{res.name}_launch"))
    order: list[int] = []

    def timer(run):  # type: ignore[no-untyped-def]
        run()
        order.append(len(order))
        return [float(len(order))]

    got = confirm(programs, Target("emu"), load_pair_spec(str(PAIR / "pair.toml")), timer, 3)
    assert got == {"streams": [1.0, 3.0, 5.0], "sequential": [2.0, 4.0, 6.0]}


@pytest.mark.slow
@pytest.mark.nvcc
def test_register_caps_are_timed_for_the_fastest_splits_only(tmp_path: Path) -> None:
    # histogram + maxpool2d: both parts may change size, so there are several splits; only
    # the caps of the three fastest uncapped splits are built, verified and timed.
    out = tmp_path / "hm.cu"
    res = _hfuse(str(SAMPLES / "histogram.cu"), str(SAMPLES / "maxpool2d.cu"), "--kernels",
                 "histogram_kernel,maxpool2d_kernel", "--profile", "--spec",
                 str(SAMPLES / "pairs.toml"), "--pair", "histogram+maxpool2d", "--backend",
                 "emu", "--split-step", "384", "--no-cache", "--report",
                 str(tmp_path / "r.json"), "-o", str(out))
    assert res.exit_code == 0, res.output
    cands = json.loads((tmp_path / "r.json").read_text())["candidates"]
    capped_timed = {(c["kind"], tuple(c["threads"])) for c in cands
                    if c["regcap"] is not None and c["timing"]}
    uncapped = [c for c in cands if c["kind"] in ("thread", "block") and c["regcap"] is None
                and c["timing"]]
    assert len(uncapped) > 3 and 0 < len(capped_timed) <= 3
    fastest = sorted(uncapped, key=lambda c: c["timing"]["median_ms"])[:3]
    assert capped_timed <= {(c["kind"], tuple(c["threads"])) for c in fastest}
    assert any("not among the 3 fastest" in (c["skip"] or "") for c in cands)


def test_the_gpu_branch_of_a_run_with_stand_ins(tmp_path: Path, no_nvcc: None,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # The orchestration of a --backend nvcc run (device from the driver, its architecture
    # for the builds, the GPU timing plan, clocks noted, confirmation rounds) with the
    # device, the builds and the clock stood in for by the emulator: what a GPU session
    # would otherwise be the first to exercise.
    from dataclasses import replace as dc_replace

    from cudafuse.profile import clocks, measure
    from cudafuse.profile.device import DeviceInfo
    from cudafuse.profile.occupancy import DeviceLimits

    device = DeviceInfo("Stand-in H100", (9, 0), 13000, 132, 50 << 20)
    monkeypatch.setattr(hfuse_profile, "device_for", lambda target: (
        device, DeviceLimits.for_arch("sm_90"), dc_replace(target, arch="sm_90")))
    real_build, real_load = measure.build_one, measure.Runner.load
    monkeypatch.setattr(measure, "build_one",
                        lambda path, target: real_build(path, dc_replace(target, backend="emu")))

    def load_emu(self, path):  # type: ignore[no-untyped-def]
        saved, self.target = self.target, dc_replace(self.target, backend="emu")
        try:
            return real_load(self, path)
        finally:
            self.target = saved

    monkeypatch.setattr(measure.Runner, "load", load_emu)
    plans: list[object] = []

    def fake_gpu_timer(plan, l2_bytes):  # type: ignore[no-untyped-def]
        plans.append((plan, l2_bytes))
        return measure.host_timer(hfuse_profile.EMU_PLAN)

    monkeypatch.setattr(measure, "gpu_timer", fake_gpu_timer)
    samples = iter([{"sm_mhz": 1980}, {"sm_mhz": 1755}])
    monkeypatch.setattr(clocks, "sample", lambda: next(samples))
    out = tmp_path / "out.cu"
    res = _hfuse(*FILES, "--profile", "--spec", str(PAIR / "pair.toml"), "-o", str(out),
                 "--report", str(tmp_path / "r.json"), "--no-cache")
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["device"]["name"] == "Stand-in H100"
    assert report["options"]["backend"] == "nvcc" and report["options"]["arch"] == "sm_90"
    assert report["clocks"] == {"before": {"sm_mhz": 1980}, "after": {"sm_mhz": 1755}}
    assert plans and all(l2 == 50 << 20 for _, l2 in plans)
    assert plans[0][0] == hfuse_profile.TimingPlan()  # the full GPU plan first
    assert "timed under the CPU emulator" not in res.output
    _check_equivalent(out)


def test_a_launch_that_cannot_start_is_skipped_not_wrong() -> None:
    from cudafuse.profile.measure import _launch_failure
    from cudafuse.runtime.errors import KernelError

    assert "too many resources" in (_launch_failure(KernelError.cuda("call of 'f'", 7)) or "")
    assert _launch_failure(KernelError.cuda("call of 'f'", 700)) is None  # a real failure
    assert _launch_failure(KernelError("the program crashed with SIGSEGV")) is None
