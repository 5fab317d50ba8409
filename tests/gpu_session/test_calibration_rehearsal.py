"""bench_hfuse's calibration (each kernel grown until it alone takes about 0.5 ms) runs only
on a GPU, and the second H200 session's hfuse step failed in it at once (a spec whose entry
is a host wrapper, launched as a kernel). `bench_hfuse.py --rehearse-calibration` runs the
same path under the emulator at the samples' sizes; the dry run makes it for every sample
kernel and the paper's timed pair."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
RESULTS = sorted((ROOT / "benchmarks" / "results").glob("*/hfuse.jsonl"))
KERNELS = {"batchnorm_stats_kernel", "histogram_kernel", "maxpool2d_kernel",
           "upsample_bilinear2d_kernel", "im2col_kernel", "blake2b_kernel",
           "ethash_like_kernel", "blake256_kernel", "sha256_kernel"}


def _module(name: str) -> ModuleType:
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules[name]
    return mod


def test_the_rehearsal_grows_every_kernel_and_reads_what_the_gpu_run_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    # The measurements stood in (the emulator's builds are the slow test's); the rest is
    # real: each kernel's two calibration steps, the pair specs written with the grown
    # sizes and read back as `hfuse --profile` reads them, the earlier sessions' sizes.
    bh = _module("bench_hfuse")
    measured: list[tuple[str, dict, str]] = []

    def kernel_ms(side: dict, sizes: dict, defines: list[str], backend: str = "nvcc") -> float:
        measured.append((side["kernel"], sizes, backend))
        return 0.01

    monkeypatch.setattr(bh, "kernel_ms", kernel_ms)
    raw = bh.tomllib.loads((bh.SAMPLES / "pairs.toml").read_text())
    assert bh.rehearse_calibration(raw["pair"], list(raw["defines"]), RESULTS, tmp_path) == 0
    assert {k for k, _, _ in measured} == KERNELS and len(measured) == 2 * len(KERNELS)
    assert {b for _, _, b in measured} == {"emu"}
    for kernel in KERNELS:  # the spec's size, then 4x (far below an infinite target)
        first, grown = (s for k, s, _ in measured if k == kernel)
        name = bh.WORK_SIZE[kernel]
        assert grown[name] == 4 * first[name]
    assert len(list(tmp_path.glob("*.toml"))) == 16
    said = capsys.readouterr().out
    assert "16 pair(s), 1 earlier device(s) read: 0 failure(s)" in said


def test_the_rehearsal_says_which_kernel_failed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    bh = _module("bench_hfuse")

    def kernel_ms(side: dict, sizes: dict, defines: list[str], backend: str = "nvcc") -> float:
        if side["kernel"] == "batchnorm_stats_kernel":
            raise KeyError("no callable kernel function 'batchnorm_stats_run'")
        return 0.01

    monkeypatch.setattr(bh, "kernel_ms", kernel_ms)
    raw = bh.tomllib.loads((bh.SAMPLES / "pairs.toml").read_text())
    pair = [p for p in raw["pair"] if p["name"] == "batchnorm_stats+histogram"]
    assert bh.rehearse_calibration(pair, list(raw["defines"]), [], tmp_path) == 1
    err = capsys.readouterr().err
    assert "batchnorm_stats_kernel (batchnorm_stats+histogram): calibration failed" in err
    assert not list(tmp_path.glob("*.toml"))  # no pair spec without both sizes


def test_the_dry_run_rehearses_the_calibration(tmp_path: Path) -> None:
    gs = _module("gpu_session")
    s = gs.Session(tmp_path / "out", tmp_path / "work", True, 60.0, None)
    commands: list[list[str]] = []
    s.sh = lambda cmd, seconds, tee=None: (commands.append(cmd), (0, False))[1]
    gs.DEVICE_CACHE = tmp_path / "device-cache"
    (gs.DEVICE_CACHE / "aoli-al+TorchKernel").mkdir(parents=True)
    gs.step_hfuse(s)
    gs.step_hfuse_paper(s)
    rehearsals = [c for c in commands if "--rehearse-calibration" in c]
    assert len(rehearsals) == 2
    samples, paper = rehearsals
    assert "--paper" not in samples and samples[samples.index("--sizes-from") + 1:]
    assert paper[paper.index("--cache") + 1] == str(gs.DEVICE_CACHE)


@pytest.mark.slow
def test_every_kernels_calibration_runs_under_the_emulator(tmp_path: Path) -> None:
    # What the GPU run's hfuse steps do first, for real under the emulator: cold builds,
    # about 40 s for the nine sample kernels and 20 s for the paper's two.
    res = subprocess.run([sys.executable, str(BENCH / "bench_hfuse.py"),
                          "--rehearse-calibration", "--sizes-from", *map(str, RESULTS)],
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    for kernel in KERNELS:
        assert f"{kernel}: calibration rehearsed under the emulator" in res.stdout
    cache = ROOT / ".device-cache"
    if not any(cache.glob("*+*")):
        pytest.skip("no .device-cache (gpu_session.py --prepare): the paper's pair not tried")
    res = subprocess.run([sys.executable, str(BENCH / "bench_hfuse.py"),
                          "--rehearse-calibration", "--paper", "all", "--cache", str(cache)],
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    for kernel in ("at::native::im2col_kernel<float>", "at::native::MaxPoolForward<float, float>",
                   # through the host function that builds their accessors (tensor views)
                   "at::native::upsample_bilinear2d_out_frame<float, float>",
                   "at::native::batch_norm_collect_statistics_kernel<InvStd, float, float, "
                   "float, int>"):
        assert f"{kernel}: calibration rehearsed under the emulator" in res.stdout


def test_a_pair_that_failed_after_its_calibration_still_seeds_the_next(tmp_path: Path) -> None:
    # The second H200 session's paper pair: both kernels grown (16 s), then a fused
    # candidate faulted. The next call starts from those sizes, not from the spec's.
    bh = _module("bench_hfuse")
    path = tmp_path / "hfuse.jsonl"
    path.write_text("\n".join(__import__("json").dumps(r) for r in (
        {"backend": "nvcc", "pair": "a+b", "kernel1": "a", "kernel2": "b", "device": "H200",
         "sizes": [{"c": 1048560}, {"b": 524288}], "alone": [0.83, 0.52],
         "error": "illegal memory access", "row": "| a+b | failed |"},
        {"backend": "nvcc", "pair": "c+d", "kernel1": "c", "kernel2": "d",
         "sizes": [{}, {}], "alone": None, "error": "x"})) + "\n")
    assert bh.seeds([path], "H200") == {"a": {"c": 1048560}, "b": {"b": 524288}}
    assert "a+b" not in bh.read_done(path, "nvcc")  # the pair itself is measured again
