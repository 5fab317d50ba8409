#!/usr/bin/env python3
"""Everything cudafuse claims about GPUs, measured in one resumable command on a GPU machine.

    python3 benchmarks/gpu_session.py          # on a GPU machine (make gpu-session)
    python3 benchmarks/gpu_session.py --dry    # anywhere: the same steps on the CPU
    python3 benchmarks/gpu_session.py --publish DIR   # a session's tables into docs/benchmarks.md
    python3 benchmarks/gpu_session.py --prepare [CACHE]  # fill .device-cache/ to carry

On a fresh, offline GPU machine holding a checkout and the wheels of ../shared/device-wheels
(copied into the checkout as .device-wheels), the steps run in this order, the most
valuable results first, each within its own time budget and all within --budget seconds
(520 by default):

  install           a virtual environment over the machine's Python (numpy, click, pytest...
                    as they are there) plus the wheels (PyCUDA, libclang, hypothesis...),
                    installed offline, and a `cudafuse` command in it
  device            the GPU's name, driver and limits, and its measured copy bandwidth
  vertical          benchmarks/bench_vertical.py: every sample at 4096^2 and 8192^2,
                    unfused vs fused, achieved DRAM bandwidth against the copy's
  pytest            `pytest -m gpu`: the nvcc backend on every sample and every HFuse
                    pair, every output element compared
  hfuse             benchmarks/bench_hfuse.py: the 16 pairs fused vs sequential vs two
                    streams (`cudafuse hfuse --profile`)
  hfuse-paper       the same for the HFuse paper's own pairs as PyTorch ATen writes them
                    (from .device-cache/, which `--prepare` fills and the call carries)
  vertical-profile  the `fuse --profile` column of the vertical table

Every result lands in one folder ($OUT when set, else build/gpu-session; build/
gpu-session-dry for --dry), at most 8 files side by side (what the device tool brings
back): session.json (the device, driver, date and each step's status and time), log.txt,
pytest-gpu.txt, vertical.jsonl/.md and hfuse.jsonl/.md. Rows are written as they are
measured, so a step stopped at its budget keeps what it did. A second call skips the steps
done and the rows measured (in the output folder, or in --resume DIR; under $OUT, which
the device tool empties before each call, by default in build/gpu-session: put the first
call's files back there and carry that folder).

--dry runs the same steps on the CPU: the environment built the same way (the wheels
checked for Python 3.12 on x86-64 instead of installed), every harness built with nvcc,
the emulator path timed at small sizes, the programs the GPU tests load built by nvcc and
their entries and arguments checked (gpu_preflight.py), the GPU tests collected and
skipped, and PyCUDA shown to load only when a GPU path runs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import signal
import site
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
# Where the wheels may be: copied into the checkout (what the device tool carries), a
# shared/ folder inside it (which travels too), or the workplace's ../shared beside it.
WHEEL_DIRS = (ROOT / ".device-wheels", ROOT / "shared" / "device-wheels",
              ROOT.parent / "shared" / "device-wheels")
SITE = Path("/tmp/site")  # where the wheels' install.sh installs them
SIZES = (4096, 8192)
DRY_SIZES = (64,)
# The pairs in the order they are measured: first five that between them hold all nine
# kernels (a session cut short still has every kernel), then the rest in pairs.toml's order.
FIRST_PAIRS = ("batchnorm_stats+histogram", "maxpool2d+upsample_bilinear2d",
               "im2col+maxpool2d", "blake2b+ethash_like", "blake256+sha256")
DRY_PAIR = "histogram+maxpool2d"
# Thread splits in steps of 256 threads, not HFuse's 128: at 128 a pair of tunable kernels
# has about 28 splits (each compiled for ptxas, built and timed, some with four register
# caps), a minute or more a pair, and 16 pairs would not fit in a session; at 256 about a
# quarter of that. `bench_hfuse.py --split-step 128` is the full search, for a longer lease.
HFUSE_SPLIT_STEP = 256
# The HFuse paper's own files (hfuse_library_pairs.py's corpus), only those its timed pairs
# compile, copied here by --prepare from the survey's cache; ignored by git, carried to the
# GPU machine. Third-party code: never committed.
DEVICE_CACHE = ROOT / ".device-cache"
SURVEY_CACHE = Path(os.environ.get("CUDAFUSE_SURVEY_CACHE") or
                    Path.home() / ".cache" / "cudafuse-survey")
# The whole call's seconds: the device tool's limit of a call (run with timeout_s 570) less
# 50 s for the last stopped step's cleanup and the venv's first imports.
DEFAULT_BUDGET = 520.0
RESULTS = ("session.json", "log.txt", "pytest-gpu.txt", "vertical.jsonl", "vertical.md",
           "hfuse.jsonl", "hfuse.md", "partitions.json")

COPY_SOURCE = r"""// generated by benchmarks/gpu_session.py: device-to-device copy bandwidth
#include <cstdio>
#include <algorithm>
#include <vector>
__global__ void copy4(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) b[i] = a[i];
}
int main() {
  size_t n = (size_t)8192 * 8192;  // floats: 256 MiB each way, well past any L2
  void *a, *b;
  if (cudaMalloc(&a, n * 4) != cudaSuccess || cudaMalloc(&b, n * 4) != cudaSuccess) {
    puts("error alloc");
    return 1;
  }
  cudaMemset(a, 1, n * 4);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  cudaEvent_t s, e;
  cudaEventCreate(&s);
  cudaEventCreate(&e);
  std::vector<float> ms;
  for (int it = -5; it < 30; ++it) {
    cudaEventRecord(s);
    copy4<<<prop.multiProcessorCount * 8, 256>>>((const float4 *)a, (float4 *)b, n / 4);
    cudaEventRecord(e);
    cudaEventSynchronize(e);
    float t;
    cudaEventElapsedTime(&t, s, e);
    if (it >= 0) ms.push_back(t);
  }
  if (cudaGetLastError() != cudaSuccess) { puts("error launch"); return 1; }
  std::sort(ms.begin(), ms.end());
  printf("copy_gbps %f\n", 2.0 * n * 4 / (ms[ms.size() / 2] * 1e6));
  printf("copy_best_gbps %f\n", 2.0 * n * 4 / (ms[0] * 1e6));
  return 0;
}
"""

# Run by the session's interpreter: imports every GPU-facing module and says whether
# PyCUDA came with them (it must not: only running a GPU path loads it), then, unless dry,
# the device's identity and limits.
PROBE = r"""
import json, sys
import cudafuse.cli, cudafuse.runtime, cudafuse.runtime.gpu, cudafuse.runtime.library
import cudafuse.profile.timing, cudafuse.profile.device, cudafuse.profile.measure
import cudafuse.profile.hfuse_profile, cudafuse.profile.vertical
out = {"pycuda_loaded_by_imports": any(m.split(".")[0] == "pycuda" for m in sys.modules)}
from cudafuse.profile.device import GpuUnavailable, query_device
try:
    info, attributes = query_device()
except GpuUnavailable as exc:
    out["gpu"] = None
    out["why"] = str(exc)
else:
    out["gpu"] = info.to_json()
    out["attributes"] = attributes
print("PROBE " + json.dumps(out))
"""


@dataclass(frozen=True)
class Step:
    name: str
    budget: float  # seconds; 0: whatever the session has left
    run: Callable[[Session], str]  # returns the status: done, partial, failed
    what: str
    # Seconds the steps before it leave for it (default: its budget, at most 30 s).
    keep: float = 0.0


class Session:
    def __init__(self, out: Path, work: Path, dry: bool, budget: float,
                 wheels: Path | None) -> None:
        self.out, self.work, self.dry, self.wheels = out, work, dry, wheels
        self.start = time.monotonic()
        self.deadline = self.start + budget
        self.python = sys.executable
        self.env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
        self.env.pop("PYTHONPATH", None)
        self.env["PYTHONPATH"] = str(ROOT / "src")
        # One build cache for every step: the GPU tests' builds are reused by the benches.
        self.env["CUDAFUSE_CACHE_DIR"] = str(work / "cache")
        self.env["CUDAFUSE_TEST_KEEP_CACHE"] = "1"
        out.mkdir(parents=True, exist_ok=True)
        work.mkdir(parents=True, exist_ok=True)
        self.log = (out / "log.txt").open("a", buffering=1)
        self.state = self._read_state()
        self.state.setdefault("steps", {})
        self.stamp()

    def stamp(self) -> None:
        """This call's mode and checkout into the state; a resumed session's earlier
        checkout is kept beside it (its rows were measured there)."""
        head, old = _git_head(), self.state.get("checkout")
        if old and head and old != head:
            earlier = self.state.setdefault("earlier_checkouts", [])
            if old not in earlier:
                earlier.append(old)
        self.state.update(mode="dry (CPU)" if self.dry else "gpu", checkout=head)

    def _read_state(self) -> dict:
        path = self.out / "session.json"
        if path.exists():
            try:
                return json.loads(path.read_text())
            except json.JSONDecodeError:
                self.say(f"note: {path} is not JSON (cut short?); starting afresh")
        return {}

    def say(self, line: str) -> None:
        stamp = f"[{time.monotonic() - self.start:6.1f}s]"
        print(f"{stamp} {line}", flush=True)
        self.log.write(f"{stamp} {line}\n")

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def save(self) -> None:
        self.state["updated"] = datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds")
        tmp = self.out / "session.json.tmp"
        tmp.write_text(json.dumps(self.state, indent=2) + "\n")
        os.replace(tmp, self.out / "session.json")

    def sh(self, cmd: list[str], seconds: float, tee: Path | None = None) -> tuple[int, bool]:
        """Run cmd (its output into the log, and into `tee`), stopped with everything it
        started when `seconds` run out; (exit status, stopped)."""
        seconds = max(1.0, min(seconds, self.left()))
        self.say(f"$ {' '.join(cmd)}   (at most {seconds:.0f} s)")
        sink = tee.open("a", buffering=1) if tee else None
        proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace",
                                start_new_session=True)
        stopped = threading.Event()

        def stop() -> None:
            stopped.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # its own process group: nvcc, workers
            except ProcessLookupError:
                pass

        timer = threading.Timer(seconds, stop)
        timer.start()
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                line = line.rstrip("\n")
                print(line, flush=True)
                self.log.write(line + "\n")
                if sink:
                    sink.write(line + "\n")
            rc = proc.wait()
        finally:
            timer.cancel()
            if sink:
                sink.close()
        if stopped.is_set():
            self.say(f"stopped after {seconds:.0f} s (its budget); what it wrote is kept")
        return rc, stopped.is_set()

    def capture(self, cmd: list[str], seconds: float = 60) -> tuple[int, str]:
        try:
            res = subprocess.run(cmd, cwd=ROOT, env=self.env, capture_output=True, text=True,
                                 timeout=seconds)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return -1, str(exc)
        return res.returncode, res.stdout + res.stderr


def _git_head() -> str | None:
    try:
        # -dirty: the device tool copies the working tree, uncommitted changes included.
        return subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                              capture_output=True, text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.TimeoutExpired):
        return None  # a copy without git


def find_wheels(given: Path | None) -> Path | None:
    for d in ((given,) if given else WHEEL_DIRS):
        if d is not None and d.is_dir() and any(d.glob("pycuda-*.whl")):
            return d
    return None


# ---------------------------------------------------------------------------- the steps


def step_install(s: Session) -> str:
    """The session's interpreter: a venv over the running Python, seeing its packages, the
    wheels (/tmp/site) and src/, with a `cudafuse` command beside it (the tests look there).
    A venv made with the running interpreter would not see the packages of the machine's
    own venv (python3 there is /opt/torch/.venv's), hence the .pth file naming them."""
    wheels = find_wheels(s.wheels)
    s.state["wheels"] = str(wheels) if wheels else None
    if wheels is None:
        s.say("no wheels found (looked in " + ", ".join(map(str, WHEEL_DIRS)) + ")")
    if wheels is not None and s.dry:
        # Can pip install them on the device's Python (3.12, x86-64)? Resolved, not installed.
        names = sorted(str(w) for w in wheels.glob("*.whl"))
        rc, _ = s.sh([sys.executable, "-m", "pip", "install", "--dry-run", "-q", "--no-index",
                      "--no-deps", "--only-binary=:all:", "--python-version", "3.12",
                      "--implementation", "cp", "--platform", "linux_x86_64", "--platform",
                      "manylinux2014_x86_64", "--platform", "manylinux2010_x86_64",
                      "--platform", "manylinux_2_28_x86_64", "--target",
                      str(s.work / "dry-site"), *names], 120)
        if rc != 0:
            return "failed"
    elif wheels is not None and not _imports(s, sys.executable, ["pycuda", "clang.cindex"],
                                             str(SITE)):
        script = wheels / "install.sh"
        cmd = ["bash", str(script)] if script.exists() else [
            sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps",
            "--no-compile", "--target", str(SITE), *map(str, sorted(wheels.glob("*.whl")))]
        rc, _ = s.sh(cmd, 120)
        if rc != 0:
            return "failed"
    venv = s.work / "venv"
    paths = ([] if s.dry else [str(SITE)]) + [str(ROOT / "src")]
    python = _make_venv(s, venv, paths, _site_dirs())
    if python is None:  # no venv module: the running interpreter with PYTHONPATH
        s.say("falling back to this interpreter with PYTHONPATH (tests that run the "
              "`cudafuse` command will skip)")
        python = sys.executable
        s.env["PYTHONPATH"] = os.pathsep.join(paths + _site_dirs())
        bindir = s.work / "bin"
        bindir.mkdir(exist_ok=True)
        _write_script(bindir / "cudafuse", python)
        s.env["PATH"] = f"{bindir}{os.pathsep}{s.env.get('PATH', '')}"
    else:
        s.env.pop("PYTHONPATH", None)  # the venv's .pth names src/ and the wheels
        s.env["PATH"] = f"{venv / 'bin'}{os.pathsep}{s.env.get('PATH', '')}"
    s.python = python
    s.state["python"] = python
    needed = ["numpy", "networkx", "click", "clang.cindex", "pytest", "hypothesis", "xdist",
              "filecheck", "cudafuse.cli"] + ([] if s.dry else ["pycuda", "pycuda.driver"])
    if not _imports(s, python, needed, None, show=True):
        return "failed"
    rc, text = s.capture(["cudafuse", "--version"])
    s.say(f"cudafuse --version: {text.strip()}")
    return "done" if rc == 0 else "failed"


def _site_dirs() -> list[str]:
    """Where this interpreter finds its packages: its site-packages, and those its own
    environment reaches beyond them (a venv made with --system-site-packages)."""
    found = [*site.getsitepackages(), site.getusersitepackages(),
             *(p for p in sys.path if Path(p).name in ("site-packages", "dist-packages"))]
    return [d for d in dict.fromkeys(found) if Path(d).is_dir()]


def _imports(s: Session, python: str, modules: list[str], extra_path: str | None,
             show: bool = False) -> bool:
    env = dict(s.env)
    if extra_path:
        env["PYTHONPATH"] = os.pathsep.join([extra_path, env.get("PYTHONPATH", "")])
    code = "import importlib, sys\nbad = []\n" + "".join(
        f"try:\n    importlib.import_module({m!r})\nexcept Exception as e:\n"
        f"    bad.append('{m}: ' + repr(e))\n" for m in modules) + \
        "print('\\n'.join(bad) or 'imports ok'); sys.exit(1 if bad else 0)"
    res = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True,
                         cwd=ROOT)
    if show:
        s.say(f"{python}: {res.stdout.strip() or res.stderr.strip()[-500:]}")
    return res.returncode == 0


def _make_venv(s: Session, venv: Path, paths: list[str], sites: list[str]) -> str | None:
    """The venv's python, seeing `paths` first and then `sites` as site directories (their
    own .pth files processed, as in the environment they belong to)."""
    python = venv / "bin" / "python"
    if not python.exists():
        rc, _ = s.sh([sys.executable, "-m", "venv", "--without-pip", str(venv)], 60)
        if rc != 0 or not python.exists():
            return None
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig."
                              "get_paths()['purelib'])"], capture_output=True, text=True)
    if purelib.returncode != 0:
        return None
    pth = Path(purelib.stdout.strip()) / "cudafuse_gpu_session.pth"
    pth.parent.mkdir(parents=True, exist_ok=True)
    pth.write_text("".join(f"{p}\n" for p in paths) +
                   "".join(f"import site; site.addsitedir({d!r})\n" for d in sites))
    _write_script(venv / "bin" / "cudafuse", str(python))
    return str(python)


def _write_script(path: Path, python: str) -> None:
    path.write_text(f"#!{python}\nimport sys\nfrom cudafuse.cli import main\n"
                    "sys.exit(main())\n")
    path.chmod(0o755)


def step_device(s: Session) -> str:
    rc, text = s.capture([s.python, "-c", PROBE], 120)
    probe = next((json.loads(line[6:]) for line in text.splitlines()
                  if line.startswith("PROBE ")), None)
    if probe is None:
        s.say(f"the device probe failed:\n{text[-2000:]}")
        return "failed"
    device: dict[str, object] = {"probe": probe, "host": platform.node(),
                                 "cpus": os.cpu_count(), "python": platform.python_version()}
    s.say(f"PyCUDA loaded by importing cudafuse's GPU modules: "
          f"{probe['pycuda_loaded_by_imports']}")
    if probe["pycuda_loaded_by_imports"]:
        s.say("error: PyCUDA must load only when a GPU path runs")
        return "failed"
    if not s.dry and probe.get("gpu") is None:
        s.say(f"no GPU: {probe.get('why')}")
        return "failed"
    if s.dry and probe.get("gpu") is None:
        s.say(f"no GPU, as expected in --dry: {str(probe.get('why'))[:200]}")
    smi = shutil.which("nvidia-smi")
    if smi:
        _, text = s.capture([smi, "--query-gpu=name,driver_version,memory.total,"
                             "clocks.max.sm,clocks.max.memory", "--format=csv,noheader"])
        device["nvidia_smi"] = text.strip()
    nvcc = shutil.which("nvcc")
    if nvcc:
        _, text = s.capture([nvcc, "--version"])
        device["nvcc"] = text.strip().splitlines()[-1] if text.strip() else None
        src, exe = s.work / "copy_bandwidth.cu", s.work / "copy_bandwidth"
        src.write_text(COPY_SOURCE)
        rc, text = s.capture([nvcc, "-O3", "-arch=sm_90", str(src), "-o", str(exe)], 180)
        if rc != 0:
            s.say(f"the copy program did not build:\n{text[-2000:]}")
            return "failed"
        if not s.dry:
            rc, text = s.capture([str(exe)], 120)
            for line in text.splitlines():
                key, _, value = line.partition(" ")
                if key in ("copy_gbps", "copy_best_gbps"):
                    device[key] = float(value)
            if "copy_gbps" not in device:
                s.say(f"the copy program failed:\n{text[-2000:]}")
                return "failed"
    elif not s.dry:
        s.say("nvcc is not on PATH")
        return "failed"
    s.state["device"] = device
    s.state["note"] = device_note(s.state)
    s.say(f"device: {s.state['note']}")
    if device.get("copy_gbps"):
        s.say(f"copy bandwidth {device['copy_gbps']:.0f} GB/s (read + write, median)")
    return "done"


def device_note(state: dict) -> str:
    """'NVIDIA H200, driver 580.159.04, ...' for the tables' header lines."""
    device = state.get("device") or {}
    smi = str(device.get("nvidia_smi") or "").splitlines()
    if smi:
        fields = [f.strip() for f in smi[0].split(",")]
        if len(fields) >= 2:
            return f"driver {fields[1]}, {device.get('nvcc') or 'nvcc ?'}"
    gpu = (device.get("probe") or {}).get("gpu")
    if gpu:
        return f"CUDA driver API {gpu['driver_version']}"
    return "no GPU (dry run on the CPU)"


def _rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def step_vertical(s: Session) -> str:
    sizes = DRY_SIZES if s.dry else SIZES
    cmd = [s.python, str(BENCH / "bench_vertical.py"), "--no-profile", "--jsonl",
           str(s.out / "vertical.jsonl"), "--md", str(s.out / "vertical.md"), "--work",
           str(s.work / "vertical"), "--note", str(s.state.get("note", "")), "--sizes",
           *map(str, sizes)]
    if s.dry:
        # Every harness built for the GPU (nvcc, no GPU needed), then the pipelines timed
        # under the emulator.
        if shutil.which("nvcc"):
            rc, stopped = s.sh([s.python, str(BENCH / "bench_vertical.py"), "--compile-only",
                                "--work", str(s.work / "vertical")], s.left())
            if rc != 0:
                return "partial" if stopped else "failed"
        cmd += ["--backend", "emu", "--iters", "2"]
    rc, stopped = s.sh(cmd, s.left())
    return _bench_status(rc, stopped)


def _bench_status(rc: int, stopped: bool) -> str:
    return "partial" if stopped else "done" if rc == 0 else "failed"


def step_pytest(s: Session) -> str:
    # The GPU tests are mostly nvcc builds (one core each) and short runs: many workers.
    jobs = 0 if s.dry else max(1, min(12, (os.cpu_count() or 2) - 2))
    log = s.out / "pytest-gpu.txt"
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    log.write_text(f"# pytest -m gpu, {now}, {s.state.get('note', '')}\n")
    if s.dry and shutil.which("nvcc"):
        # What the GPU tests load, built for the GPU and loaded without one: entries and
        # argument shapes (gpu_preflight.py); on a GPU the tests themselves do this.
        rc, stopped = s.sh([s.python, str(BENCH / "gpu_preflight.py")], s.left(), tee=log)
        if rc != 0:
            return "partial" if stopped else "failed"
    # A test that hangs (a fused kernel that deadlocks) is failed after 150 s where the
    # pytest-timeout plugin is there (the GPU machine's image has it): its worker is ended
    # and replaced, the other tests go on. The thread method, because a signal is not
    # handled while the worker waits inside a CUDA call.
    hang = ["--timeout", "150", "--timeout-method", "thread"] if _imports(
        s, s.python, ["pytest_timeout"], None) else []
    rc, stopped = s.sh([s.python, "-m", "pytest", "-m", "gpu", "-q", "-rfEs", "-n", str(jobs),
                        "-p", "no:cacheprovider", "--durations=15", *hang, "tests"], s.left(),
                       tee=log)
    text = log.read_text()
    summary = next((ln for ln in reversed(text.splitlines()) if " in " in ln and (
        "passed" in ln or "skipped" in ln or "failed" in ln or "error" in ln)), "")
    s.state["pytest_summary"] = summary.strip("= ")
    if stopped:
        return "partial"
    if s.dry:
        # Collected, and all skipped cleanly here: none failed or errored at collection.
        ok = rc == 0 and "skipped" in summary and "failed" not in summary and \
            "error" not in summary
        return "done" if ok else "failed"
    return "done" if rc == 0 else "failed"  # a GPU test failing is a finding, kept above


def step_hfuse(s: Session) -> str:
    cmd = [s.python, str(BENCH / "bench_hfuse.py"), "--jsonl", str(s.out / "hfuse.jsonl"),
           "--md", str(s.out / "hfuse.md"), "--note", str(s.state.get("note", ""))]
    # Kernels sized by an earlier session on this device (its committed results) are
    # measured once at that size instead of grown again from the sample's.
    earlier = sorted(str(p) for p in (ROOT / "benchmarks" / "results").glob("*/hfuse.jsonl"))
    seeded = ["--sizes-from", *earlier] if earlier else []
    if s.dry:
        # Every kernel's calibration (a GPU-only path until then) under the emulator, the
        # earlier sessions' sizes read; every pair's candidates emitted and compiled by
        # nvcc (as --profile's are), coarse splits to keep it short; then one pair
        # calibrated (once, at the sample's sizes) and profiled under the emulator, as
        # the GPU run goes from one to the other.
        rc, stopped = s.sh([s.python, str(BENCH / "bench_hfuse.py"), "--rehearse-calibration",
                            *seeded], s.left())
        if rc != 0:
            return "partial" if stopped else "failed"
        if shutil.which("nvcc"):
            rc, stopped = s.sh([s.python, str(BENCH / "bench_hfuse.py"), "--plan-only",
                                "--split-step", "1024"], s.left())
            if rc != 0:
                return "partial" if stopped else "failed"
        cmd += ["--backend", "emu", "--target-ms", "0", "--split-step", "1024", "--pairs",
                DRY_PAIR]
    else:
        cmd += ["--pairs", ",".join(_pair_order()), "--split-step", str(HFUSE_SPLIT_STEP),
                *seeded]
    rc, stopped = s.sh(cmd, s.left())
    return _bench_status(rc, stopped)


def _pair_order() -> list[str]:
    # The standard library's tomllib: this runs in the machine's own python3, which has no
    # libclang, and importing the cudafuse package would load it (the first GPU run failed so).
    import tomllib

    names = [p["name"] for p in tomllib.loads(
        (ROOT / "samples" / "hfuse" / "pairs.toml").read_text())["pair"]]
    return [n for n in FIRST_PAIRS if n in names] + [n for n in names if n not in FIRST_PAIRS]


def step_hfuse_paper(s: Session) -> str:
    """The HFuse paper's own pairs (ATen and ccminer files as written), timed as
    bench_hfuse times the samples' pairs, into the same hfuse.jsonl / hfuse.md; the pairs
    no run spec can describe are listed there with the reason."""
    if not any(DEVICE_CACHE.glob("*+*")):
        s.say(f"no {DEVICE_CACHE.name}/ (run `python3 benchmarks/gpu_session.py --prepare` "
              f"in the checkout and carry {DEVICE_CACHE.name})")
        # A dry run in a clean clone (CI) has no third-party files to rehearse with; a GPU
        # call without them lost its step.
        return "skipped" if s.dry else "failed"
    cmd = [s.python, str(BENCH / "bench_hfuse.py"), "--paper", "all", "--cache",
           str(DEVICE_CACHE)]
    if s.dry:
        # Each native kernel's calibration under the emulator (its launcher appended to a
        # copy of the ATen file, loaded, timed, grown once). No profile under the emulator:
        # it cannot rewrite MaxPoolForward's launch inside ATen's dispatch lambda
        # (docs/benchmarks.md, (b)). Every candidate compiled by nvcc instead, and each
        # native kernel built and loaded for the GPU as calibration loads it.
        rc, stopped = s.sh([*cmd, "--rehearse-calibration"], s.left())
        if rc != 0:
            return "partial" if stopped else "failed"
        cmd += ["--plan-only", "--split-step", "1024"]
    else:
        cmd += ["--jsonl", str(s.out / "hfuse.jsonl"), "--md", str(s.out / "hfuse.md"),
                "--note", str(s.state.get("note", "")), "--split-step", str(HFUSE_SPLIT_STEP)]
        earlier = sorted(str(p) for p in (ROOT / "benchmarks" / "results").glob("*/hfuse.jsonl"))
        if earlier:
            cmd += ["--sizes-from", *earlier]
    rc, stopped = s.sh(cmd, s.left())
    return _bench_status(rc, stopped)


def _standins_module():  # type: ignore[no-untyped-def]
    """runtime/standins.py, loaded by its path: importing the cudafuse.runtime package
    would import the front end (libclang), which this Python need not have."""
    import importlib.util

    sys.path.insert(0, str(ROOT / "src"))
    spec = importlib.util.spec_from_file_location("cudafuse_standins",
                                                  ROOT / "src/cudafuse/runtime/standins.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclass looks the module up while it is made
    spec.loader.exec_module(mod)
    return mod


def _defining_files(nvcc: str, staged: Path, rel: str, dirs: list[Path],
                    defines: Sequence[str], tmp: str) -> set[Path] | None:
    """The files of the staged repository that define what `rel`'s host code names and
    the file does not define (ccminer's blake2b.cu: work_restart, in ccminer.cpp): the
    nvcc backend links stand-ins for such symbols only where it finds a file that seems to
    define them (runtime/standins.py), as it searches: the file's folder, then `dirs`.
    Found as the build does: the file compiled by nvcc, linked with nothing undefined, and
    the files that define what the link lacks. None (said why) when it does not compile."""
    standins = _standins_module()
    obj, lib = Path(tmp) / "defining.o", Path(tmp) / "defining.so"
    flags = ["-Xcompiler", "-fPIC", "-std=c++17", "-arch=sm_90",
             *(f"-I{d}" for d in dirs), *(f"-D{d}" for d in defines)]
    res = subprocess.run([nvcc, "-c", "-x", "cu", *flags, str(staged / rel), "-o", str(obj)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        print(f"nvcc -c {rel}: {res.stderr.strip()[:500]}", file=sys.stderr)
        return None
    res = subprocess.run([nvcc, "-shared", str(obj), "-Xlinker", "--no-undefined", "-o",
                          str(lib)], capture_output=True, text=True)
    missing = sorted(standins.users(res.stderr)) if res.returncode != 0 else []
    where = [(staged / rel).parent, *dirs]
    found = standins.defined_in(missing, where, staged / rel) if missing else {}
    out: set[Path] = set()
    for name in found:
        path = next(d / name for d in where if (d / name).is_file())
        if path.resolve().is_relative_to(staged.resolve()):  # not our stand-in headers'
            out.add(path.resolve().relative_to(staged.resolve()))
    return out


def prepare(source: Path, dest: Path) -> int:
    """Copy into `dest` the files of the survey cache `source` that the paper's timed pairs
    compile, and nothing else: each kernel's file and what it includes from its repository
    (`nvcc -M` on a staged copy, with the stand-in headers), and the files that define what
    its host code names and it lacks (_defining_files), in the cache's layout."""
    sys.path.insert(0, str(BENCH))
    import tempfile

    import hfuse_library_pairs as lib
    import staged_sources

    nvcc = shutil.which("nvcc")
    if nvcc is None:
        print("--prepare needs nvcc (it lists each file's includes)", file=sys.stderr)
        return 1
    files: dict[str, set[str]] = {}
    for pairs in (lib.ATEN_PAIRS, lib.CRYPTO_PAIRS):
        for a, b in pairs:
            if any(lib.PAPER[k][3] in lib.UNVERIFIABLE or lib.PAPER[k][0] in lib.NOT_LOADABLE
                   for k in (a, b)):
                continue  # not timed: no run spec can describe it, or the GPU cannot load it
            for k in (a, b):
                files.setdefault(lib.PAPER[k][0], set()).add(lib.PAPER[k][1])
    copied = 0
    with tempfile.TemporaryDirectory(prefix="cudafuse-prepare-") as tmp:
        for repo, paths in sorted(files.items()):
            try:
                staged = staged_sources.stage(lib, source, repo, Path(tmp))
            except FileNotFoundError as exc:
                print(f"not in the cache: {exc}", file=sys.stderr)
                return 1
            origin = source / repo.replace("/", "+")
            head = subprocess.run(["git", "-C", str(origin), "rev-parse", "HEAD"],
                                  capture_output=True, text=True).stdout.strip()
            if head and head != lib.REPOS[repo][0]:
                print(f"{origin} is at {head}, not {lib.REPOS[repo][0]}", file=sys.stderr)
                return 1
            dirs = [staged / d for d in lib.REPOS[repo][1]] + \
                ([lib.STANDINS[repo]] if repo in lib.STANDINS else [])
            needed: set[Path] = set()
            for rel in sorted(paths):
                res = subprocess.run(
                    [nvcc, "-M", "-x", "cu", "-std=c++17", "-arch=sm_90",
                     *(f"-I{d}" for d in dirs), *(f"-D{d}" for d in lib.REPOS[repo][2]),
                     str(staged / rel)], capture_output=True, text=True)
                if res.returncode != 0:
                    print(f"nvcc -M {rel}: {res.stderr.strip()[:500]}", file=sys.stderr)
                    return 1
                for word in res.stdout.replace("\\\n", " ").split():
                    path = Path(word).resolve()
                    if path.is_relative_to(staged.resolve()) and path.is_file():
                        needed.add(path.relative_to(staged.resolve()))
            for rel in sorted(paths):  # and what their host code needs of other files
                found = _defining_files(nvcc, staged, rel, dirs, lib.REPOS[repo][2], tmp)
                if found is None:
                    return 1
                needed |= found
            for rel in sorted(needed):
                if rel.name == "cudafuse_standins.h":
                    continue  # ours, added again when the copy is staged
                target = dest / origin.name / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(origin / rel, target)
                copied += 1
            print(f"{repo}: {len(needed)} file(s) for {', '.join(sorted(paths))}")
    size = sum(f.stat().st_size for f in dest.rglob("*") if f.is_file()) if dest.is_dir() else 0
    print(f"{dest}: {copied} file(s), {size / 1e6:.2f} MB; carry it: \"{dest.name}\"")
    return 0


def step_vertical_profile(s: Session) -> str:
    cmd = [s.python, str(BENCH / "bench_vertical.py"), "--profile-only", "--jsonl",
           str(s.out / "vertical.jsonl"), "--md", str(s.out / "vertical.md"), "--work",
           str(s.work / "vertical"), "--note", str(s.state.get("note", ""))]
    if s.dry:  # one sample: every variant fused, verified and timed under the emulator
        cmd += ["--backend", "emu", "--iters", "1", "--samples", "sobel", "--sizes",
                *map(str, DRY_SIZES)]
    else:
        cmd += ["--sizes", *map(str, SIZES)]
    rc, stopped = s.sh(cmd, s.left())
    return _bench_status(rc, stopped)


STEPS = (
    Step("install", 90, step_install, "venv + wheels, offline"),
    Step("device", 60, step_device, "name, driver, limits, copy bandwidth"),
    Step("vertical", 120, step_vertical, "bench_vertical: every sample, unfused vs fused"),
    Step("pytest", 180, step_pytest, "pytest -m gpu"),
    Step("hfuse", 0, step_hfuse, "bench_hfuse: every pair, fused vs sequential vs streams"),
    # The paper's own ATen pair: one pair, never measured; the sample pairs an overrun
    # leaves are resumed by the next call, so this one's time is kept from the step before.
    Step("hfuse-paper", 150, step_hfuse_paper, "bench_hfuse --paper: the HFuse paper's "
         "own pairs as PyTorch/ccminer write them", keep=90),
    Step("vertical-profile", 0, step_vertical_profile, "bench_vertical's fuse --profile"),
)
# Steps that are never skipped: the machine is bare at every call (install, device) and
# their results are cheap to make again.
ALWAYS = {"install", "device"}


def resume_from(s: Session, prior: Path | None) -> None:
    """Results of an earlier call (carried back into the checkout) into the output folder,
    where the steps find them: what is done there is skipped."""
    if prior is None or not prior.is_dir() or prior.resolve() == s.out.resolve():
        return
    copied = []
    for name in RESULTS:
        src, dst = prior / name, s.out / name
        if src.exists() and (not dst.exists() or dst.stat().st_size == 0 or
                             (name == "log.txt" and dst.stat().st_size < 200)):
            shutil.copyfile(src, dst)
            copied.append(name)
    if copied:
        s.log.close()
        s.log = (s.out / "log.txt").open("a", buffering=1)
        s.state = s._read_state()
        s.state.setdefault("steps", {})
        s.stamp()
        s.say(f"resumed from {prior}: {', '.join(copied)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dry", action="store_true", help="the same steps on the CPU")
    ap.add_argument("--out", type=Path, help="the results folder (default: $OUT, else "
                    "build/gpu-session, or build/gpu-session-dry with --dry)")
    ap.add_argument("--resume", type=Path, help="an earlier call's results folder (default: "
                    "build/gpu-session when the results go to $OUT)")
    ap.add_argument("--work", type=Path, help="builds, the venv and caches (default: "
                    "build/gpu-session-work[-dry])")
    ap.add_argument("--budget", type=float, help="seconds for the whole session (default "
                    f"{DEFAULT_BUDGET:.0f}; with --dry 3600, and no step budgets: a dry run is "
                    "a check, not a measurement)")
    ap.add_argument("--only", help="comma-separated steps to run (install and device always "
                    "run): " + ", ".join(st.name for st in STEPS))
    ap.add_argument("--wheels", type=Path, help="the device wheels' folder (default: "
                    ".device-wheels, shared/device-wheels or ../shared/device-wheels)")
    ap.add_argument("--publish", type=Path, metavar="DIR",
                    help="write DIR's tables into --doc instead of running anything")
    ap.add_argument("--doc", type=Path, default=ROOT / "docs" / "benchmarks.md")
    ap.add_argument("--prepare", nargs="?", type=Path, const=SURVEY_CACHE, metavar="CACHE",
                    help="copy the files the paper's pairs compile from CACHE (owner+name "
                    "checkouts; default $CUDAFUSE_SURVEY_CACHE or ~/.cache/cudafuse-survey) "
                    f"into {DEVICE_CACHE.name}/, to carry to the GPU machine, and stop")
    args = ap.parse_args(argv)
    if args.publish:
        return publish(args.publish, args.doc)
    if args.prepare:
        return prepare(args.prepare, DEVICE_CACHE)
    suffix = "-dry" if args.dry else ""
    env_out = os.environ.get("OUT") if not args.dry else None
    out = args.out or (Path(env_out) if env_out else ROOT / "build" / f"gpu-session{suffix}")
    work = args.work or ROOT / "build" / f"gpu-session-work{suffix}"
    only = set(args.only.split(",")) if args.only else None
    if only and only - {st.name for st in STEPS}:
        ap.error(f"unknown step(s): {', '.join(sorted(only - {st.name for st in STEPS}))}")
    budget = args.budget or (3600.0 if args.dry else DEFAULT_BUDGET)
    s = Session(out.resolve(), work.resolve(), args.dry, budget, args.wheels)
    # On the device ($OUT set, emptied before each call) the first call's results are
    # found where its files were put back into the checkout.
    default_prior = ROOT / "build" / "gpu-session" if env_out and not args.out else None
    resume_from(s, args.resume or default_prior)
    s.state["started"] = datetime.datetime.now(datetime.timezone.utc).isoformat(
        timespec="seconds")
    s.state["command"] = "python3 benchmarks/gpu_session.py" + (" --dry" if args.dry else "")
    s.say(f"cudafuse GPU session{' (dry, on the CPU)' if args.dry else ''}: results in {s.out}"
          f", {budget:.0f} s budget")
    failed = False
    for i, step in enumerate(STEPS):
        record = s.state["steps"].get(step.name, {})
        if step.name not in ALWAYS:
            if only is not None and step.name not in only:
                continue
            if record.get("status") == "done":
                s.say(f"== {step.name}: done in an earlier call, skipped")
                continue
        # A step's budget, but never the time the steps after it need at least.
        reserve = sum(st.keep or min(30.0, st.budget or 30.0) for st in STEPS[i + 1:]
                      if st.name not in ALWAYS and (only is None or st.name in only))
        # With --only, the last step named takes the rest of the call: a call of its own
        # for hfuse-paper (six ATen pairs, about 10 minutes) is not cut at its 150 s.
        last = only is not None and not any(st.name in only for st in STEPS[i + 1:])
        own = step.budget if step.budget and not s.dry and not last else s.left()
        limit = min(own, max(10.0, s.left() - reserve))
        if s.left() < 5:
            s.say(f"== {step.name}: no time left, not started")
            s.state["steps"][step.name] = {**record, "status": record.get("status", "to do")}
            continue
        s.say(f"== {step.name} ({step.what}), at most {limit:.0f} s")
        deadline, s.deadline = s.deadline, time.monotonic() + limit
        began = time.monotonic()
        try:
            status = step.run(s)
        except Exception as exc:  # noqa: BLE001 - one step's crash must not lose the rest
            s.say(f"{step.name} crashed: {exc!r}")
            status = "failed"
        finally:
            s.deadline = deadline
        seconds = round(time.monotonic() - began, 1)
        s.state["steps"][step.name] = {"status": status, "seconds": seconds,
                                       "budget": round(limit)}
        s.say(f"== {step.name}: {status} in {seconds} s")
        s.save()
        failed |= status == "failed"
        if step.name == "install" and status == "failed":
            s.say("the environment is not usable: stopping")
            break
    s.state["seconds"] = round(time.monotonic() - s.start, 1)
    s.save()
    summary = ", ".join(f"{k} {v['status']}" for k, v in s.state["steps"].items())
    s.say(f"session: {summary}; {s.state['seconds']} s; results in {s.out}")
    return 1 if failed else 0


def publish(folder: Path, doc: Path) -> int:
    """A session's tables into docs/benchmarks.md, between the benches' own markers, each
    with the device, driver and date its header line already holds."""
    sys.path.insert(0, str(BENCH))
    import bench_hfuse
    import bench_vertical

    state = json.loads((folder / "session.json").read_text())
    if state.get("mode") != "gpu":
        print(f"{folder}: a {state.get('mode')} session: its figures are not for the docs",
              file=sys.stderr)
        return 1
    wrote = []
    for name, mark in (("vertical.md", bench_vertical.MARK), ("hfuse.md", bench_hfuse.MARK)):
        path = folder / name
        if not path.exists():
            continue
        table = path.read_text()
        if name == "vertical.md" and (folder / "vertical.jsonl").exists():
            # Made again from the rows (and the log's variant times), so that what the
            # table says under it follows bench_vertical as it is now, not as it ran.
            table = bench_vertical.render(folder, str(state.get("note", "")))
        steps = ", ".join(f"{k}: {v['status']}" for k, v in state["steps"].items())
        at = f" at checkout {state['checkout']}" if state.get("checkout") else ""
        if state.get("earlier_checkouts"):
            at += f" (resuming rows measured at {', '.join(state['earlier_checkouts'])})"
        text = (table.rstrip() + f"\n\nFrom `python3 benchmarks/gpu_session.py`"
                f"{at} ({steps}).")
        body = doc.read_text()
        start, end = body.find(mark), body.rfind(mark)
        if start < 0 or start == end:
            body = body.rstrip() + f"\n\n{mark}\n{text}\n{mark}\n"
        else:
            body = body[:start] + f"{mark}\n{text}\n" + body[end:]
        doc.write_text(body)
        wrote.append(name)
    print(f"{doc}: wrote {', '.join(wrote) or 'nothing (no tables in ' + str(folder) + ')'}")
    return 0 if wrote else 1


if __name__ == "__main__":
    raise SystemExit(main())
