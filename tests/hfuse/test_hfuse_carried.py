"""State carried across grid-stride iterations (passes/horizontal/carried.py), the cause of
the H200 fault of 2026-11-28: profiling gave ATen's im2col_kernel 256 threads under a grid
sized for 512, each thread ran a second CUDA_KERNEL_LOOP iteration from the pointer and
index the first had advanced, and wrote past data_col (an illegal memory access). A kernel
whose loop carries state keeps its size; one whose iterations are independent may change.
And a program that faults on the device stops the profile naming it (profile/measure.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hfuse_helpers import PROGRAMS, hfuse

CARRIED = PROGRAMS / "carried"
LOOPS = CARRIED / "loops.cu"


@pytest.fixture(scope="module")
def unit():  # type: ignore[no-untyped-def]
    from cudafuse.frontend import ParseOptions
    from cudafuse.frontend.parse import parse_file

    return parse_file(str(LOOPS), ParseOptions()).unit


@pytest.fixture(scope="module")
def judged(unit) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    from cudafuse.passes.horizontal.carried import carried_state

    return {fn.name: carried_state(unit, fn) for fn in unit.functions if fn.is_kernel}


@pytest.mark.parametrize("kernel, what", [
    ("split_rows", "its loop variable 'index'"),  # im2col: index /= w, pointers advanced
    ("row_max", "parameter 'x'"),  # MaxPoolForward: bottom_data += ...
    ("thread_sums", "variable 'acc'"),  # a sum per thread, the loop a macro
    ("thread_sums_while", "variable 'acc'"),  # the while form, the stride a local
    ("by_reference", "parameter 'x'"),  # advanced by a helper through a reference
])
def test_carried_state_is_a_dependence(judged: dict[str, list[str]], kernel: str,
                                       what: str) -> None:
    why = judged[kernel]
    assert len(why) == 1 and f"carries {what}" in why[0], why


@pytest.mark.parametrize("kernel", ["squares", "squares_while", "spread4"])
def test_independent_iterations_are_not(judged: dict[str, list[str]], kernel: str) -> None:
    # A variable set first in every iteration and read nowhere else carries nothing; the
    # loop's own step (`i += ...`, `i = i + ...`) is not state either.
    assert judged[kernel] == []


def test_only_grid_strided_work_may_shrink(unit) -> None:  # type: ignore[no-untyped-def]
    # Under the native grid, fewer threads a block cover the work only where grid-stride
    # loops share it out; a sum per thread stored at the thread's own element does not
    # (nor does a kernel writing one element per thread: pairs.cu's scale2d, the samples').
    from cudafuse.frontend import ParseOptions
    from cudafuse.frontend.parse import parse_file
    from cudafuse.passes.horizontal.carried import grid_strided

    strided = {fn.name: grid_strided(unit, fn) for fn in unit.functions if fn.is_kernel}
    assert strided["squares"] and strided["squares_while"] and strided["spread4"]
    assert not strided["thread_sums"] and not strided["thread_sums_while"]
    pairs = parse_file(str(PROGRAMS / "pairs.cu"), ParseOptions()).unit
    kernels = {fn.name: fn for fn in pairs.functions if fn.is_kernel}
    assert grid_strided(pairs, kernels["saxpy"])
    assert not grid_strided(pairs, kernels["scale2d"])


def test_a_part_that_may_not_shrink_only_grows() -> None:
    from cudafuse.profile.candidates import CandidateOptions, generate, thread_counts

    assert thread_counts(512, True, 256, 992) == (256, 512, 768)
    assert thread_counts(512, True, 256, 992, shrinks=False) == (512, 768)
    opts = CandidateOptions(512, 256, True, True, 256, shrinks1=False, modes=("thread",))
    assert {c.threads1 for c in generate(opts).candidates} == {512, 768}
    assert opts.to_json()["shrinks"] == [False, True]
    assert "shrinks" not in CandidateOptions(512, 256, True, True).to_json()


def test_the_report_keeps_the_carrying_part_at_its_size(tmp_path: Path) -> None:
    res = hfuse(str(LOOPS), "--kernels", "split_rows,squares", "--block1", "256",
                "--block2", "128", "-o", str(tmp_path / "f.cu"), "--report",
                str(tmp_path / "r.json"))
    assert res.exit_code == 0, res.output
    carrying, free = json.loads((tmp_path / "r.json").read_text())["parts"]
    assert not carrying["block_size_tunable"]
    assert any("carries its loop variable 'index'" in why
               for why in carrying["block_size_dependence"])
    assert free["block_size_tunable"], free["block_size_dependence"]


@pytest.mark.slow
def test_profile_never_shrinks_a_carrying_part(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # Under the emulator (guard zones after every array): split_rows given 128 threads
    # under its grid of 4 x 256 reads and writes past its arrays. Judged tunable (before
    # the fix) profiling tried 128 and skipped it as a dependence it did not see; now no
    # candidate gives it another size, and every candidate is exact.
    from click.testing import CliRunner

    from cudafuse.cli import main
    from cudafuse.profile import hfuse_profile

    monkeypatch.setattr(hfuse_profile, "have_nvcc", lambda: False)
    res = CliRunner().invoke(main, [
        "hfuse", str(LOOPS), "--kernels", "split_rows,squares", "--profile", "--spec",
        str(CARRIED / "pair.toml"), "--backend", "emu", "-o", str(tmp_path / "o.cu"),
        "--report", str(tmp_path / "r.json"), "--no-cache", "--split-step", "128"],
        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "did not see" not in res.output
    candidates = json.loads((tmp_path / "r.json").read_text())["candidates"]
    fused = [c for c in candidates if c["threads"]]
    assert fused and {c["threads"][0] for c in fused} == {256}
    assert len({c["threads"][1] for c in fused}) > 1  # squares still takes other sizes
    assert all(c["verified"] is True for c in candidates if c["skip"] is None), candidates


class LogicError(Exception):
    """What PyCUDA raises when the context is lost (pycuda._driver.LogicError)."""


LogicError.__module__ = "pycuda._driver"


def test_a_device_fault_names_the_candidate_and_stops(monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    # No GPU here: a stand-in library whose "bad" program faults as the H200 did, at the
    # synchronisation after the launch, and whose frees fail after that (the context is
    # lost). The run stops at the faulting candidate and names it; the one after it never
    # runs; the baseline measured before it is kept for the report.
    from cudafuse.profile import measure
    from cudafuse.profile.records import Record

    ran: list[str] = []

    class Prep:
        def __init__(self, launcher: str):
            self.launcher = launcher

        def run(self) -> None:
            ran.append(self.launcher)

        def fetch(self) -> None:
            if self.launcher.startswith("bad"):
                raise LogicError("cuCtxSynchronize failed: an illegal memory access was "
                                 "encountered")

        def close(self) -> None:
            if self.launcher.startswith("bad"):
                raise LogicError("cuMemFree failed: an illegal memory access was encountered")

    class Lib:
        def prepare(self, launcher: str, *args: object) -> Prep:
            return Prep(launcher)

        def close(self) -> None:
            pass

    monkeypatch.setattr(measure, "build_programs", lambda progs, target, progress=None,
                        phase="": [(Path(p.launcher), None) for p in progs])
    monkeypatch.setattr(measure.Runner, "load", lambda self, path: Lib())
    monkeypatch.setattr(measure, "_arguments", lambda pair: ([[], []], ()))
    monkeypatch.setattr(measure, "_outputs", lambda pair, inputs: [])
    monkeypatch.setattr(measure, "_differences", lambda pair, ref, got: "")
    programs = [measure.Program(Record("streams", "streams"), b"", "streams_launch"),
                measure.Program(Record("thread:256+256:rnone", "thread", (256, 256)), b"",
                                "bad_launch"),
                measure.Program(Record("thread:512+256:rnone", "thread", (512, 256)), b"",
                                "after_launch")]
    with pytest.raises(measure.DeviceFault) as info:
        measure.measure_programs(programs, measure.Target("nvcc"), None,  # type: ignore[arg-type]
                                 lambda launch: [0.5])
    fault = info.value
    assert "candidate thread:256+256:rnone faulted on the device" in str(fault)
    assert "illegal memory access" in str(fault) and "bug in cudafuse" in str(fault)
    assert fault.record.verified is False and "faulted" in (fault.record.skip or "")
    assert [r.id for r in fault.records] == ["streams"] and fault.records[0].verified
    assert "after_launch" not in ran
    # Under the emulator the same error is an ordinary failed run (no context to lose).
    assert not measure._is_fault(LogicError("x"), "emu")


def test_hfuse_profile_reports_a_fault_with_the_candidate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The command's end of it: a fault (as measure_programs raises it) is a located error
    # naming the candidate, exit 1, with the report written (the records so far and the
    # faulting one), never "internal error" (exit 3) with nothing learned.
    from click.testing import CliRunner

    from cudafuse.cli import main
    from cudafuse.profile import hfuse_profile, measure
    from cudafuse.profile.records import Record

    def faulting(programs, *args, **kwargs):  # type: ignore[no-untyped-def]
        fault = measure.DeviceFault(programs[2].record, "cuCtxSynchronize failed: an "
                                    "illegal memory access was encountered")
        fault.records = [Record("streams", "streams", verified=True)]
        raise fault

    monkeypatch.setattr(hfuse_profile, "have_nvcc", lambda: False)
    monkeypatch.setattr(hfuse_profile, "measure_programs", faulting)
    res = CliRunner().invoke(main, [
        "hfuse", str(LOOPS), "--kernels", "split_rows,squares", "--profile", "--spec",
        str(CARRIED / "pair.toml"), "--backend", "emu", "-o", str(tmp_path / "o.cu"),
        "--report", str(tmp_path / "r.json"), "--no-cache"], catch_exceptions=False)
    assert res.exit_code == 1, res.output
    assert "faulted on the device" in res.output and "bug in cudafuse" in res.output
    assert "internal error" not in res.output and not (tmp_path / "o.cu").exists()
    report = json.loads((tmp_path / "r.json").read_text())
    ids = [c["id"] for c in report["candidates"]]
    assert ids[0] == "streams" and len(ids) == 2 and ids[1] in res.output
    assert report["candidates"][1]["verified"] is False
    assert "faulted" in report["choice"]["error"]
