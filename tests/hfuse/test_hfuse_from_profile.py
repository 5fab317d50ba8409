"""`cudafuse hfuse --from-profile REPORT`: the choice is made again from the report's records
(no GPU), and the emitted program is the chosen configuration. The reports here are written
by the profile library from stated timings; what is tested is the choosing and the emitting,
and the chosen fused program is verified against the originals under emulation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hfuse_helpers import PROGRAMS, hfuse, library

from cudafuse.profile.device import DeviceInfo
from cudafuse.profile.records import Record
from cudafuse.profile.report import build_report, dumps
from cudafuse.profile.select import select
from cudafuse.profile.stats import summarize

SRC = PROGRAMS / "pairs.cu"
H100 = DeviceInfo("NVIDIA H100 80GB HBM3", (9, 0), 13000)


def _timing(ms: float):
    return summarize([ms * (1 + 0.001 * k) for k in range(-5, 6)])


def _report(tmp_path: Path, fused_ms: dict[tuple[str, int, int, int | None], float],
            streams_ms: float, kernels=("saxpy", "warp_sum"), wrong: str = "") -> Path:
    records = [Record("streams", "streams", verified=True, timing=_timing(streams_ms)),
               Record("sequential", "sequential", verified=True,
                      timing=_timing(streams_ms * 1.2))]
    for (mode, t1, t2, cap), ms in fused_ms.items():
        rid = f"{mode}:{t1}+{t2}:r{cap or 'none'}"
        ok = rid != wrong
        records.append(Record(rid, mode, (t1, t2), cap, verified=ok,
                              timing=_timing(ms) if ok else None))
    doc = build_report(records, select([r for r in records if r.verified is not False]),
                       H100, kernels=kernels)
    if wrong:  # as a report edited by hand or written by a buggy run would say
        doc = json.loads(dumps(doc))
    path = tmp_path / "profile.json"
    path.write_text(dumps(doc))
    return path


def _fuse(tmp_path: Path, report: Path, *extra: str):
    out = tmp_path / "f.cu"
    res = hfuse(str(SRC), "--kernels", "saxpy,warp_sum", "--block1", "128", "--block2", "64",
                "--from-profile", str(report), "-o", str(out), "--explain", *extra)
    return res, out


def test_fused_choice_is_emitted_and_equivalent(tmp_path: Path) -> None:
    report = _report(tmp_path, {("thread", 128, 64, None): 0.95, ("thread", 256, 64, 64): 0.7,
                                ("block", 128, 64, None): 0.9}, streams_ms=1.0)
    res, out = _fuse(tmp_path, report)
    assert res.exit_code == 0, res.output
    assert "chose thread:256+64:r64" in res.output
    text = out.read_text()
    assert "__maxnreg__(64) saxpy_warp_sum_hfused(" in text
    assert "split 256+64 threads" in text
    # saxpy is tunable (grid-stride, blockDim): run it as the profile chose, a 256 block.
    n = 1500
    rng = np.random.default_rng(1)
    y, x = rng.integers(-50, 50, n, dtype=np.int32), rng.integers(-50, 50, n, dtype=np.int32)
    v = rng.integers(-50, 50, 640, dtype=np.int32)
    lib = library(out)
    want = [y.copy(), x.copy(), np.zeros(20, np.int32), v.copy()]
    lib.launch("saxpy", grid=(3,), block=(128,), args=(want[0], want[1], 3, n))
    lib.launch("warp_sum", grid=(10,), block=(64,), args=(want[2], want[3], 640))
    got = [y.copy(), x.copy(), np.zeros(20, np.int32), v.copy()]
    lib.call("saxpy_warp_sum_hfused_launch", got[0], got[1], 3, n, got[2], got[3], 640,
             (3,), (10,), 0, 0, None)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_array_equal(g, w)


def test_streams_when_nothing_is_clearly_faster(tmp_path: Path) -> None:
    report = _report(tmp_path, {("thread", 128, 64, None): 0.99}, streams_ms=1.0)
    res, out = _fuse(tmp_path, report)
    assert res.exit_code == 0, res.output
    assert "mode streams" in res.output
    assert "saxpy_warp_sum_hfused<<<" not in out.read_text()
    assert "saxpy<<<grid1, dim3(128, 1, 1), smem1, stream>>>" in out.read_text()


@pytest.mark.parametrize("case,what", [
    ("wrong", "computed different results from the native kernels: thread:128+64:rnone"),
    ("kernels", "the report profiles kernels sum_abs, sum_sq, not saxpy, warp_sum"),
])
def test_refused_reports(tmp_path: Path, case: str, what: str) -> None:
    if case == "wrong":
        report = _report(tmp_path, {("thread", 128, 64, None): 0.5}, 1.0,
                         wrong="thread:128+64:rnone")
    else:
        report = _report(tmp_path, {("thread", 128, 64, None): 0.5}, 1.0,
                         kernels=("sum_abs", "sum_sq"))
    res, out = _fuse(tmp_path, report)
    assert res.exit_code == 1 and f"{report}: error: " in res.output and what in res.output, \
        res.output
    assert not out.exists()


def test_from_profile_excludes_mode_and_regcap(tmp_path: Path) -> None:
    report = _report(tmp_path, {("thread", 128, 64, None): 0.5}, 1.0)
    res, _ = _fuse(tmp_path, report, "--mode", "block")
    assert res.exit_code == 2 and "--from-profile chooses --mode" in res.output
