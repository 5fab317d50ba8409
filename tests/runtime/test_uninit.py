"""Device memory that nothing wrote (issue 27): the emulator fills fresh cudaMalloc memory
with CUDAFUSE_EMU_FILL, and `verify` runs the original with two fills; an original whose
outputs change (a min/max buffer updated with atomicMin/atomicMax but never initialised, as
in a third-party Canny) is an error at the original naming the allocation, never a mismatch
blamed on the transformed file."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest_runtime import PROGRAMS

from cudafuse.cli import main
from cudafuse.runtime import load, uninit
from cudafuse.runtime.errors import BoundsError

SPEC = """entry = "run"
[[args]]
name = "in"
dtype = "float32"
count = 1000
init = "uniform(10, 200)"
[[args]]
name = "out"
dtype = "float32"
count = 1000
role = "out"
[[args]]
name = "n"
value = 1000
"""


@pytest.fixture(scope="module")
def shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One directory for the module: the build of mm.cu (keyed by its path too) is made
    once."""
    root = tmp_path_factory.mktemp("uninit")
    shutil.copy(PROGRAMS / "memory_checks.cu", root / "mm.cu")
    shutil.copy(PROGRAMS / "memory_checks.cu", root / "fused.cu")
    (root / "mm.toml").write_text(SPEC)
    return root


@pytest.fixture
def work(shared_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(shared_dir)
    return shared_dir


def test_an_original_that_reads_unwritten_memory_is_blamed(work: Path) -> None:
    res = CliRunner().invoke(main, ["verify", "mm.cu", "fused.cu", "--spec", "mm.toml"])
    assert res.exit_code == 1, res.output
    lines = res.stderr.splitlines()
    assert lines[0].startswith(
        "mm.cu: error: the original's output 'out' differs between two runs on the same "
        "inputs, fresh device memory holding 0x00 bytes in one and 0xff in the other: 1000 "
        "of its 1000 elements (first at [0] (element 0): ")
    assert lines[0].endswith("; it reads device memory that nothing wrote, which on a GPU "
                             "holds whatever was there before")
    # `lo` (line 15): atomicMin of values >= 10 never changes 0x00 or 0xff...; `hi` is
    # written by atomicMax in both runs, the copies of `in` and `out` everywhere.
    assert lines[1] == ("mm.cu:15: note: allocated here: all of its 4 bytes hold the fill "
                        "pattern in both runs (the first at byte 0): never written, or "
                        "written from memory nothing wrote; kernel 'minmax' (launched at "
                        "mm.cu:20) was the first given it unwritten; cudaMemset it, or store "
                        "every element before a kernel reads it")
    assert "outputs differ" not in res.output and "MISMATCH" not in res.output
    assert not any(line.startswith("fused.cu") for line in lines)


@pytest.mark.parametrize("fill", [pytest.param(0, marks=pytest.mark.slow), 0xFF])
def test_fresh_memory_holds_the_fill(work: Path, fill: int) -> None:
    """What `lo` ends as (the report lists it), and the outputs, follow the fill."""
    report = work / f"u{fill}.txt"
    report.unlink(missing_ok=True)
    values = np.linspace(10, 200, 1000, dtype=np.float32)
    out = np.zeros(1000, np.float32)
    with load("mm.cu", fill=fill, unwritten=str(report)) as lib:
        lib.call("run", values, out, 1000)
    lo = 0 if fill == 0 else -1  # atomicMin of values >= 10 keeps what the memory held
    np.testing.assert_allclose(out, (values - lo) / np.float32(200 - lo + 1), rtol=1e-6)
    # One run cannot tell written bytes equal to the fill (the zero bytes of hi = 200, of
    # the copies of `in` and `out`) from unwritten ones; `lo` (line 15) is unwritten whole.
    found = {k[1:]: v for k, v in uninit.read(report).items()}
    assert [r.ranges for r in found[(15, 4)]] == [[(0, 4)]]
    assert found[(15, 4)][0].kernel[0::2] == ("minmax", 20)
    assert found[(15, 4)][0].kernel[1].endswith("mm.cu")
    assert [r.ranges for r in found.get((16, 4), [])] == ([[(1, 4)]] if fill == 0 else [])


def test_bytes_unwritten_in_both_runs() -> None:
    R = uninit.Report
    a = {("f.cu", 3, 16): [R([(0, 4), (8, 12)])], ("f.cu", 9, 8): [R([(2, 3)])]}
    b = {("f.cu", 3, 16): [R([(2, 10)], ("k", "f.cu", 20))], ("f.cu", 9, 8): [R([(5, 6)])],
         ("f.cu", 12, 4): [R([(0, 4)])]}
    assert uninit.in_both(a, b) == [uninit.Unwritten("f.cu", 3, 16, 4, 2, "k", "f.cu", 20)]


def test_reports_are_read_with_or_without_a_kernel(tmp_path: Path) -> None:
    path = tmp_path / "u.txt"
    path.write_text("a.cu\t3\t16\t0+4,8+2,...\tk\ta.cu\t9\nb.cu\t5\t8\t1+1\nbad\n")
    assert uninit.read(path) == {
        ("a.cu", 3, 16): [uninit.Report([(0, 4), (8, 10)], ("k", "a.cu", 9))],
        ("b.cu", 5, 8): [uninit.Report([(1, 2)])]}
    assert uninit.read(tmp_path / "missing.txt") == {}


def test_run_initcheck(work: Path) -> None:
    res = CliRunner().invoke(main, ["run", "mm.cu", "--spec", "mm.toml", "--initcheck"])
    assert res.exit_code == 1, res.output
    assert res.stderr.startswith("mm.cu: error: the program's output 'out' differs between "
                                 "two runs on the same inputs")
    assert "mm.cu:15: note: allocated here: all of its 4 bytes hold the fill pattern in " \
        "both runs" in res.stderr
    res = CliRunner().invoke(main, ["run", "mm.cu", "--spec", "mm.toml", "--initcheck",
                                    "--backend", "nvcc"])
    assert res.exit_code == 2 and "--initcheck fills fresh device memory of emulated runs" \
        in res.stderr


def test_the_launch_size_bounds_extern_shared(work: Path) -> None:
    """A kernel that writes `extern __shared__` memory past the size its launch gives (the
    third <<<>>> argument) is an error at the launch, as the launch fails on a GPU."""
    from cudafuse.runtime import KernelError

    values = np.arange(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    with load("mm.cu") as lib:
        lib.call("run_rev", values, out, 256, 256)  # 64 floats a block: what it uses
        np.testing.assert_array_equal(out.reshape(4, 64), values.reshape(4, 64)[:, ::-1])
        for shared in (0, 128):
            with pytest.raises(KernelError) as info:
                lib.call("run_rev", values, out, 256, shared)
            assert f"mm.cu:37: kernel 'rev' wrote dynamic shared memory (extern __shared__) " \
                f"at byte {shared}, past the {shared} bytes its launch gives (the third <<<>>> " \
                "argument): on a GPU the launch fails" in str(info.value)


PAST_SPEC = SPEC.replace('entry = "run"', 'entry = "run_past"')


def test_an_original_that_reads_past_its_allocation_is_blamed(tmp_path: Path,
                                                              monkeypatch) -> None:
    """A read past an allocation's 256-byte rounding faults in its guard zone: an error at
    the original naming the kernel and the allocation, never a mismatch blamed on the
    transformed file (what lies there once came from this process's heap)."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(PROGRAMS / "read_past_alloc.cu", tmp_path / "past.cu")
    shutil.copy(PROGRAMS / "read_past_alloc.cu", tmp_path / "fused.cu")
    (tmp_path / "past.toml").write_text(PAST_SPEC)
    res = CliRunner().invoke(main, ["verify", "past.cu", "fused.cu", "--spec", "past.toml"])
    assert res.exit_code == 1, res.output
    assert res.stderr.startswith("past.cu:16: error: kernel 'weigh' (launched here; block "
                                 "(0,0,0), thread (64,0,0)) reads byte 256 of the 9-byte device "
                                 "allocation made at past.cu:14, past its end"), res.stderr
    assert "past.cu:14: note: the 9 bytes are allocated here" in res.stderr
    assert "the spec (array counts, sizes, launch) or the original is at fault" in res.stderr
    assert "outputs differ" not in res.output and "MISMATCH" not in res.output


@pytest.mark.parametrize("fill", [0x00, 0x5A])
def test_past_an_allocation_lies_the_fill(fill: int) -> None:
    out = np.full(500, 7, np.uint8)
    with load(PROGRAMS / "read_past_alloc.cu", fill=fill, opt="-O0") as lib:
        lib.call("run_peek", out, 252)  # bytes 4 to 255
        assert (out[:252] == fill).all(), np.flatnonzero(out[:252] != fill)[:8]
        with pytest.raises(BoundsError) as info:
            lib.call("run_peek", out, 253)  # byte 256: the guard zone
    assert (info.value.access.offset, info.value.access.alloc_size) == (256, 4)
