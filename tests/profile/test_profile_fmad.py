"""`--profile`'s exactness check: which nvcc flags the check and the timed builds use, and
the verdict on a variant's outputs (profile.exactness). No GPU: fake outputs."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from cudafuse.profile.exactness import (
    build_plan,
    difference,
    effective,
    ieee_flags,
    is_ieee,
    judge,
)


@pytest.mark.parametrize("flags, fmad, ftz", [
    ((), "true", "false"),
    (("--fmad=false",), "false", "false"),
    (("-fmad=false",), "false", "false"),
    (("--fmad", "false"), "false", "false"),
    (("--use_fast_math",), "true", "true"),
    (("-use_fast_math", "--fmad=false"), "false", "true"),  # explicit wins over fast math
    (("--fmad=false", "--fmad=true"), "true", "false"),  # the last one wins
    (("-ftz=true",), "true", "true"),
])
def test_effective_modes(flags: tuple[str, ...], fmad: str, ftz: str) -> None:
    got = effective(flags)
    assert (got["fmad"], got["ftz"]) == (fmad, ftz)


def test_fast_math_also_relaxes_division_and_sqrt() -> None:
    got = effective(("--use_fast_math",))
    assert got["prec-div"] == got["prec-sqrt"] == "false"


def test_ieee_flags_keep_the_rest_and_drop_every_fp_mode() -> None:
    user = ("-O3", "--use_fast_math", "-ftz=true", "--prec-div", "false", "-lineinfo")
    got = ieee_flags(user)
    assert got == ("-O3", "-lineinfo", "--fmad=false")
    assert is_ieee(got)


def test_plan_default_flags_build_twice() -> None:
    plan = build_plan((), "nvcc")
    assert plan.separate and plan.verify == ("--fmad=false",) and plan.timed == ()


def test_plan_ieee_user_flags_build_once() -> None:
    plan = build_plan(("-fmad=false", "-O3"), "nvcc")
    assert not plan.separate and plan.verify == plan.timed == ("-fmad=false", "-O3")


@pytest.mark.parametrize("flags", [("--use_fast_math",), ("--fmad=false", "-ftz=true")])
def test_plan_fast_or_ftz_flags_check_under_ieee(flags: tuple[str, ...]) -> None:
    plan = build_plan(flags, "nvcc")
    assert plan.separate and plan.timed == flags
    assert is_ieee(plan.verify) and not any("fast" in f or "ftz" in f for f in plan.verify)


def test_plan_emulator_builds_once() -> None:
    plan = build_plan(("--use_fast_math",), "emu")
    assert not plan.separate and plan.verify == plan.timed == ()


def _spec(rtol: float = 1e-5, atol: float = 1e-6) -> SimpleNamespace:
    from cudafuse.runtime.spec_values import ArgSpec

    out = ArgSpec("out", np.dtype(np.float32), 0, role="out")
    assert out.is_output
    return SimpleNamespace(args=[out], rtol=rtol, atol=atol)


def test_difference_counts_ulps() -> None:
    a = np.array([7.324852049350739e-05, 1.0, np.nan], dtype=np.float32)
    b = a.copy()
    b[0] = np.nextafter(np.nextafter(a[0], np.float32(1)), np.float32(1))  # two ulps up
    got = difference(["g"], [a], [b])
    assert (got.elements, got.total, got.max_ulps, got.first) == (1, 3, 2.0, "g[0]")


def test_difference_counts_ulps_across_zero() -> None:
    a = np.array([np.float32(0.0)], dtype=np.float32)
    b = np.array([-np.nextafter(np.float32(0), np.float32(1))], dtype=np.float32)
    assert difference(["g"], [a], [b]).max_ulps == 1.0


def test_difference_nan_against_number_is_infinite() -> None:
    a = np.array([1.0, 2.0], dtype=np.float32)
    b = np.array([1.0, np.nan], dtype=np.float32)
    got = difference(["g"], [a], [b])
    assert got.elements == 1 and got.max_ulps == float("inf")


def test_difference_integers() -> None:
    got = difference(["n"], [np.array([1, 2, 3], np.int32)], [np.array([1, 5, 3], np.int32)])
    assert (got.elements, got.integer, got.first) == (1, 1, "n[1]")


def test_verdict_contraction_is_a_note_not_an_error() -> None:
    """The H200 case: bit-exact under --fmad=false, one element off by one ulp under the
    default flags: verified, with a note naming nvcc's contraction."""
    ref = np.linspace(1e-5, 1e-4, 1000, dtype=np.float32)
    timed = ref.copy()
    timed[393] = np.nextafter(ref[393], np.float32(1))
    v = judge(_spec(rtol=0, atol=0), [ref], [ref.copy()], [ref], [timed])
    assert not v.wrong and v.exact.exact
    assert v.timed is not None and (v.timed.elements, v.timed.max_ulps) == (1, 1.0)
    (note,) = v.notes("nvcc's default flags (--fmad=true)")
    assert "1 of 1000 element(s)" in note and "max 1 ulp" in note
    assert "bit-exact under --fmad=false" in note


def test_verdict_wrong_under_ieee_is_an_error() -> None:
    ref = np.ones(100, dtype=np.float32)
    got = ref.copy()
    got[7] = 2.0
    v = judge(_spec(), [ref], [got], [ref], [ref])
    assert "differs from the unfused program's in 1 element(s)" in v.wrong
    assert not v.exact.exact


def test_verdict_within_tolerance_but_not_exact_is_noted() -> None:
    """e.g. float atomics adding in another order: not a bug, but not bit-exact either."""
    ref = np.ones(10, dtype=np.float32)
    got = ref.copy()
    got[3] = np.nextafter(ref[3], np.float32(2))
    v = judge(_spec(), [ref], [got])
    assert not v.wrong and not v.exact.exact and v.timed is None
    (note,) = v.notes("")
    assert "within the spec's tolerance" in note


def test_verdict_exact_everywhere_has_no_notes() -> None:
    ref = np.arange(10, dtype=np.float32)
    v = judge(_spec(), [ref], [ref.copy()], [ref], [ref.copy()])
    assert not v.wrong and v.exact.exact and v.notes("x") == []


def _measure(monkeypatch: pytest.MonkeyPatch, user: tuple[str, ...], ieee_off: dict[str, int],
             timed_off: dict[str, int]) -> tuple[list, list[tuple[str, tuple[str, ...]]]]:
    """fuse --profile's measuring loop (vertical.measure_variants) on the nvcc backend with
    the builds and runs stood in for: each program's output is 1000 floats, off by one ulp
    at element 393 under the check's flags (`ieee_off[id]` ulps) or the timed flags."""
    from pathlib import Path

    from cudafuse.profile import vertical
    from cudafuse.profile.measure import Target
    from cudafuse.profile.stats import summarize

    plans: list[tuple[str, ...]] = []
    runs: list[tuple[str, tuple[str, ...]]] = []

    def fake_build(variants_, targets, progress=None):
        plans.extend(t.nvcc_flags for t in targets)
        return [[Path(v.id) for v in variants_] for _ in targets]

    def fake_run(path, spec, target, timer, keep=lambda _: True):
        runs.append((path.name, target.nvcc_flags))
        out = np.linspace(1e-5, 1e-4, 1000, dtype=np.float32)
        off = (ieee_off if target.nvcc_flags == plan_verify else timed_off).get(path.name, 0)
        for _ in range(off):
            out[393] = np.nextafter(out[393], np.float32(1))
        timing = summarize([1.0] * 5) if timer is not None and keep([out]) else None
        return [out], "", timing

    plan_verify = build_plan(user, "nvcc").verify
    monkeypatch.setattr(vertical, "_build", fake_build)
    monkeypatch.setattr(vertical, "_run_once", fake_run)
    found = [vertical.Variant(v, v.encode()) for v in (vertical.UNFUSED, "model", "exact")]
    spec = _spec(rtol=0, atol=0)
    vertical.measure_variants(found, spec, Target("nvcc", nvcc_flags=user),
                              lambda run: [1.0] * 5)
    assert plans == ([plan_verify, user] if build_plan(user, "nvcc").separate else [user])
    return found, runs


def test_a_contraction_difference_keeps_the_variant(monkeypatch: pytest.MonkeyPatch) -> None:
    found, runs = _measure(monkeypatch, (), {}, {"model": 2})
    unfused, model, exact = found
    assert model.verified and model.exact and model.timing is not None
    (note,) = model.notes
    assert "under nvcc's default flags (--fmad=true) in 1 of 1000" in note and "2 ulp" in note
    assert exact.verified and exact.exact and not exact.notes
    # each program run twice: the check's build, then the timed one
    assert runs == [(v, f) for v in ("unfused", "model", "exact")
                    for f in (("--fmad=false",), ())]
    from cudafuse.profile.vertical import choose

    assert any("note: differs from the unfused program" in line
               for line in choose(found, 0.03).lines)


def test_a_difference_under_ieee_flags_is_wrong_and_not_timed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    found, runs = _measure(monkeypatch, ("--use_fast_math",), {"model": 1}, {})
    model = found[1]
    assert model.verified is False and model.timing is None and "differs" in (model.skip or "")
    assert ("model", ("--use_fast_math",)) not in runs  # the timed build never ran


def test_ieee_user_flags_run_each_program_once(monkeypatch: pytest.MonkeyPatch) -> None:
    found, runs = _measure(monkeypatch, ("--fmad=false",), {}, {})
    assert [r[0] for r in runs] == ["unfused", "model", "exact"]
    assert all(v.verified and v.exact and v.timing for v in found)


@pytest.mark.gpu
def test_shitomasi_4096_profile_on_the_gpu(tmp_path) -> None:
    """The H200 case (docs/fp-exactness.md): at 4096² NVVM contracted one element of
    shitomasi differently once fused. Under the exactness check's --fmad=false every fused
    variant is bit-exact; the timed builds (nvcc's defaults) may differ only as a note, and
    a variant is chosen (or the program kept unfused) without error."""
    import json
    from pathlib import Path

    from click.testing import CliRunner

    from cudafuse.cli import main

    samples = Path(__file__).resolve().parents[2] / "samples"
    out = tmp_path / "shitomasi.fused.cu"
    res = CliRunner().invoke(main, [
        "fuse", str(samples / "shitomasi.cu"), "-o", str(out), "--profile", "--spec",
        str(samples / "shitomasi.toml"), "--spec-size", "w=4096", "--spec-size", "h=4096",
        "--report", str(tmp_path / "r.json"), "--no-cache"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    prof = json.loads((tmp_path / "r.json").read_text())["profile"]
    assert prof["options"]["exactness_flags"] == ["--fmad=false"]
    ran = [v for v in prof["variants"] if v["verified"] is not None]
    assert len(ran) >= 3 and all(v["verified"] and v["exact"] for v in ran), ran
    assert all("nvcc's contraction choices" in n for v in ran for n in v["notes"])
    assert prof["choice"]["id"] in [v["id"] for v in ran] and out.exists()


@pytest.mark.nvcc
def test_the_check_flags_leave_nvcc_no_contraction(tmp_path) -> None:
    """shitomasi's PTX (nvcc 13, sm_90): the timed build under --use_fast_math contracts
    multiplies and adds into fma.rn(.ftz).f32 (the H200 difference came from which ones); the
    exactness check's flags for the same user leave none, so there is no choice to differ."""
    import subprocess
    from pathlib import Path

    samples = Path(__file__).resolve().parents[2] / "samples"
    plan = build_plan(("--use_fast_math",), "nvcc")
    counts = []
    for flags in (plan.timed, plan.verify):
        ptx = tmp_path / "s.ptx"
        subprocess.run(["nvcc", "-ptx", "-arch=sm_90", "-O2", *flags, "-I", str(samples),
                        str(samples / "shitomasi.cu"), "-o", str(ptx)], check=True,
                       capture_output=True)
        text = ptx.read_text()
        counts.append((text.count("fma.rn"), text.count(".ftz.")))
    assert counts[0][0] > 0 and counts[0][1] > 0  # fast math: contraction and ftz
    assert counts[1] == (0, 0)


def test_hfuse_measuring_with_a_contraction_difference(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    """hfuse --profile's measuring loop (measure.measure_programs) on the nvcc backend, the
    builds and runs stood in for: a candidate verified on the --fmad=false build whose
    default-flags build differs by one ulp keeps its timing, with a note."""
    from pathlib import Path

    from cudafuse.profile import measure
    from cudafuse.profile.records import Record
    from cudafuse.profile.select import select
    from cudafuse.profile.stats import summarize

    built: list[tuple[str, ...]] = []

    def fake_build(programs, target, progress=None, phase="building"):
        built.append(target.nvcc_flags)
        return [(Path(p.record.id), None) for p in programs]

    def fake_run(self, prog, path, reference, time=True, exact=False):
        # Runner.run's contract, on made-up outputs
        out = np.linspace(1e-5, 1e-4, 100, dtype=np.float32)
        if prog.record.fused and self.target.nvcc_flags == ():
            out[9] = np.nextafter(out[9], np.float32(1))  # nvcc's default: contracted
        if prog.record.id == wrong:
            out[3] = 1.0
        if exact and reference is not None and not np.array_equal(reference[0], out):
            return replace(prog.record, skip=measure.DIFFERS), [out]
        if reference is not None and not np.allclose(reference[0], out, 1e-5, 1e-6):
            return replace(prog.record, verified=False, skip="differs"), [out]
        ms = 1.0 if prog.record.fused else 2.0
        return replace(prog.record, verified=True,
                       timing=summarize([ms] * 5) if time else None), [out]

    from dataclasses import replace

    monkeypatch.setattr(measure, "build_programs", fake_build)
    monkeypatch.setattr(measure.Runner, "run", fake_run)
    pair = SimpleNamespace(sides=[SimpleNamespace(kernel="k", spec=_spec())])
    programs = [measure.Program(Record("streams", "streams"), b"", "l"),
                measure.Program(Record("sequential", "sequential"), b"", "l"),
                measure.Program(Record("thread:128+128:rnone", "thread", (128, 128)), b"",
                                "l")]
    wrong = ""
    records, ref = measure.measure_programs(programs, measure.Target("nvcc"), pair,
                                            lambda run: [1.0])
    # all built as timed; then with IEEE flags the streams baseline (the check's reference)
    # and the one candidate whose outputs differ; `sequential` is bit-identical: no build
    assert built == [(), ("--fmad=false",), ("--fmad=false",)]
    fused = records[2]
    assert fused.verified and fused.timing is not None and fused.timing.median == 1.0
    assert fused.note and "in 1 of 100 element(s)" in fused.note and "k:out[9]" in fused.note
    assert records[1].note is None and ref is not None and ref[0] is not ref[1]
    assert Record.from_json(fused.to_json()) == fused
    assert any(line.startswith("note: thread:128+128:rnone differs")
               for line in select(records, 0.03).lines)
    # wrong under the IEEE flags too: a wrong candidate, not timed
    wrong = "thread:128+128:rnone"
    built.clear()
    records, _ = measure.measure_programs(programs, measure.Target("nvcc"), pair,
                                          lambda run: [1.0])
    assert records[2].verified is False and records[2].timing is None
    # IEEE user flags: one build of each program, none again
    wrong = ""
    built.clear()
    records, _ = measure.measure_programs(programs, measure.Target(
        "nvcc", nvcc_flags=("--fmad=false",)), pair, lambda run: [1.0])
    assert built == [("--fmad=false",)] and records[2].verified and not records[2].note
