"""`cudafuse fuse --profile`: the cost model's choice, its alternatives and the unfused
program, each verified against the unfused program's outputs before it is timed; the fastest
is kept only if clearly faster than unfused. Under the CPU emulator here (the timings mean
nothing; the verifying, choosing, reporting and caching are what is tested); on a GPU under
the `gpu` marker."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from cudafuse.cli import main
from cudafuse.profile import vertical
from cudafuse.profile.stats import summarize
from cudafuse.profile.vertical import UNFUSED, Variant, choose

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _fuse(tmp_path: Path, *extra: str, sample: str = "sobel"):
    out = tmp_path / f"{sample}.fused.cu"
    res = CliRunner().invoke(main, [
        "fuse", str(SAMPLES / f"{sample}.cu"), "-o", str(out), "--profile", "--spec",
        str(SAMPLES / f"{sample}.toml"), "--backend", "emu", "--report",
        str(tmp_path / "r.json"), "--cache-dir", str(tmp_path / "cache"), *extra],
        catch_exceptions=False)
    return res, out


def _verify(sample: str, fused: Path) -> None:
    res = CliRunner().invoke(main, ["verify", str(SAMPLES / f"{sample}.cu"), str(fused),
                                    "--spec", str(SAMPLES / f"{sample}.toml")])
    assert res.exit_code == 0, res.output


def test_fuse_profile_under_emu(tmp_path: Path) -> None:
    res, out = _fuse(tmp_path)
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "r.json").read_text())
    prof = doc["profile"]
    ids = [v["id"] for v in prof["variants"]]
    assert ids[0] == UNFUSED and "model" in ids
    assert all(v["verified"] and v["timing"]["count"] == 3 for v in prof["variants"]
               if not v["skip"]), prof["variants"]
    assert prof["choice"]["id"] in ids
    assert isinstance(prof["choice"]["model_was_fastest"], bool)
    assert "cost model's own choice" in res.output
    _verify("sobel", out)
    first = out.read_bytes()
    res2, out2 = _fuse(tmp_path)
    assert res2.exit_code == 0 and "results from the cache" in res2.output
    assert out2.read_bytes() == first


def test_spec_sizes_change_what_is_measured(tmp_path: Path) -> None:
    res, out = _fuse(tmp_path, "--spec-size", "w=40", "--spec-size", "h=20", "--no-cache")
    assert res.exit_code == 0, res.output
    res, _ = _fuse(tmp_path, "--spec-size", "q=40")
    assert res.exit_code == 1 and "no size named q" in res.output


def test_a_wrong_variant_stops_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                       ) -> None:
    calls: list[int] = []

    judge = vertical.judge

    def first_fused_differs(spec, reference, got):
        calls.append(1)
        verdict = judge(spec, reference, got)
        return replace(verdict, wrong="made up") if len(calls) == 1 else verdict

    monkeypatch.setattr(vertical, "judge", first_fused_differs)
    res, out = _fuse(tmp_path, "--no-cache")
    assert res.exit_code == 1
    assert "computed different results from the unfused program" in res.output
    assert "made up" in res.output and not out.exists()
    prof = json.loads((tmp_path / "r.json").read_text())["profile"]
    assert prof["choice"]["error"] and [v["verified"] for v in prof["variants"]][1] is False


@pytest.mark.parametrize("extra, message", [
    (["--spec", "s.toml"], "--spec only apply with --profile"),
    (["--backend", "emu"], "--backend only apply with --profile"),
    (["--profile"], "--profile needs --spec"),
    (["--profile", "--spec", str(SAMPLES / "sobel.toml"), "--spec-size", "w"], "NAME=INTEGER"),
    (["--spec-size", "w=3"], "--spec-size only apply with --profile"),
    (["--nvcc-flag", "--use_fast_math"], "--nvcc-flag only apply with --profile"),
])
def test_usage_errors(tmp_path: Path, extra: list[str], message: str) -> None:
    res = CliRunner().invoke(main, ["fuse", str(SAMPLES / "sobel.cu"), "-o",
                                    str(tmp_path / "o.cu"), *extra])
    assert res.exit_code == 2 and message in res.output, res.output


def _v(vid: str, ms: float | None, aliases: list[str] | None = None) -> Variant:
    timing = summarize([ms * (1 + 0.001 * k) for k in range(-5, 6)]) if ms else None
    return Variant(vid, b"", aliases=aliases or [], verified=ms is not None, timing=timing)


def test_choice_needs_a_clear_win_over_unfused() -> None:
    got = choose([_v(UNFUSED, 1.0), _v("model", 0.99), _v("tiles-never", 0.995)], 0.03)
    assert got.variant.id == UNFUSED and got.model_fastest is True
    assert "kept the program unfused" in got.lines[0]
    got = choose([_v(UNFUSED, 1.0), _v("model", 0.8), _v("tiles-never", 0.6, ["mincut"])], 0.03)
    assert got.variant.id == "tiles-never" and got.model_fastest is False
    assert "tiles-never (= mincut)" in got.lines[0]
    got = choose([_v(UNFUSED, 1.0), _v("tiles-never", 0.6, ["model"])], 0.03)
    assert got.model_fastest is True


@pytest.mark.gpu
def test_fuse_profile_on_the_gpu(tmp_path: Path) -> None:
    out = tmp_path / "harris.fused.cu"
    res = CliRunner().invoke(main, [
        "fuse", str(SAMPLES / "harris.cu"), "-o", str(out), "--profile", "--spec",
        str(SAMPLES / "harris.toml"), "--report", str(tmp_path / "r.json"), "--no-cache"],
        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    prof = json.loads((tmp_path / "r.json").read_text())["profile"]
    assert prof["options"]["backend"] == "nvcc"
    assert all(v["timing"]["count"] >= 20 for v in prof["variants"] if v["timing"])
    res = CliRunner().invoke(main, ["verify", str(SAMPLES / "harris.cu"), str(out), "--spec",
                                    str(SAMPLES / "harris.toml"), "--backend", "nvcc"])
    assert res.exit_code == 0, res.output


@pytest.mark.slow
@pytest.mark.parametrize("sample", ["harris", "shitomasi", "unsharp", "enhance", "night",
                                    "blur", "canny"])
def test_fuse_profile_on_every_sample(tmp_path: Path, sample: str) -> None:
    # Every variant of every sample verified against the unfused program (the run stops on
    # a wrong one), and the chosen program verified again on its own.
    res, out = _fuse(tmp_path, "--no-cache", sample=sample)
    assert res.exit_code == 0, res.output
    prof = json.loads((tmp_path / "r.json").read_text())["profile"]
    assert sum(1 for v in prof["variants"] if v["verified"]) >= 3
    _verify(sample, out)


def test_the_gpu_branch_with_stand_ins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                       ) -> None:
    # A --backend nvcc run's orchestration, with the device, builds, runs and clock stood in
    # for by the emulator (see tests/profile/test_profile_run.py for the same in hfuse).

    import cudafuse.runtime as runtime
    import cudafuse.runtime.build as build_mod
    from cudafuse.profile import hfuse_profile, measure
    from cudafuse.profile.device import DeviceInfo
    from cudafuse.profile.occupancy import DeviceLimits

    device = DeviceInfo("Stand-in H200", (9, 0), 13000, 132, 60 << 20)
    monkeypatch.setattr(hfuse_profile, "device_for", lambda target: (
        device, DeviceLimits.for_arch("sm_90"), target))
    real_build, real_load = build_mod.build, runtime.load
    # The emulator takes no nvcc flags: the exactness check's build (--fmad=false) and the
    # timed one are one emu build here (two nvcc builds on a GPU).
    monkeypatch.setattr(build_mod, "build", lambda path, backend, opts: real_build(
        path, "emu", replace(opts, nvcc_flags=())))
    monkeypatch.setattr(runtime, "load", lambda path, backend, **kw: real_load(
        path, backend="emu", **{**kw, "nvcc_flags": ()}))
    l2: list[int | None] = []
    monkeypatch.setattr(measure, "gpu_timer", lambda plan, l2_bytes: (
        l2.append(l2_bytes), measure.host_timer(hfuse_profile.EMU_PLAN))[1])
    out = tmp_path / "sobel.fused.cu"
    res = CliRunner().invoke(main, [
        "fuse", str(SAMPLES / "sobel.cu"), "-o", str(out), "--profile", "--spec",
        str(SAMPLES / "sobel.toml"), "--report", str(tmp_path / "r.json"), "--no-cache"],
        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    prof = json.loads((tmp_path / "r.json").read_text())["profile"]
    assert prof["device"]["name"] == "Stand-in H200" and prof["options"]["backend"] == "nvcc"
    # checked on IEEE builds, timed on the default ones (profile.exactness)
    assert prof["options"]["exactness_flags"] == ["--fmad=false"]
    assert prof["options"]["nvcc_flags"] == []
    assert all(v["exact"] for v in prof["variants"] if v["verified"])
    assert l2 == [60 << 20]
    assert "timed under the CPU emulator" not in res.output
    _verify("sobel", out)
