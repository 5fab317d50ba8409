"""benchmarks/reach.py's third-party manifest: a program is taken from a repository at the
commit named, and its main runs under `cudafuse run` (issue 31)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = r"""
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "check.h"

__global__ void box3(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
      s += in[yy * w + xx];
    }
  out[y * w + x] = s / 9.0f;
}

int main() {
  const int w = 40, h = 24;
  float img[w * h], res[w * h];
  for (int i = 0; i < w * h; ++i) img[i] = 2.0f;
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, sizeof img));
  CHECK(cudaMalloc(&d_out, sizeof img));
  CHECK(cudaMemcpy(d_in, img, sizeof img, cudaMemcpyHostToDevice));
  box3<<<dim3((w + 15) / 16, (h + 7) / 8), dim3(16, 8)>>>(d_in, d_out, w, h);
  CHECK(cudaMemcpy(res, d_out, sizeof res, cudaMemcpyDeviceToHost));
  for (int i = 0; i < w * h; ++i)
    if (res[i] < 1.999f || res[i] > 2.001f) { printf("wrong at %d\n", i); return 1; }
  // a data file of the program's directory, opened by its name; a result written beside it
  FILE *f = fopen("expected.txt", "r");
  float want = 0.0f;
  if (!f || fscanf(f, "%f", &want) != 1) return 2;
  fclose(f);
  if (res[0] != want) return 3;
  f = fopen("result.txt", "w");
  fprintf(f, "%f\n", res[0]);
  fclose(f);
  printf("ok\n");
  return 0;
}
"""


def _reach():
    spec = importlib.util.spec_from_file_location("reach", ROOT / "benchmarks" / "reach.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["reach"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_manifest_program_is_fetched_at_its_commit_and_its_main_runs(tmp_path,
                                                                       monkeypatch):
    reach = _reach()
    repo = tmp_path / "mirrors" / "someone+filters"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "box.cu").write_text(PROGRAM)
    (repo / "src" / "expected.txt").write_text("2.0\n")
    (repo / "src" / "check.h").write_text(
        "#define CHECK(x) do { if ((x) != cudaSuccess) { fprintf(stderr, \"%s\\n\", "
        "cudaGetErrorString(x)); exit(1); } } while (0)\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "box"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    (repo / "src" / "box.cu").write_text("not this version\n")  # only the commit counts
    manifest = tmp_path / "m.toml"
    manifest.write_text(f'[[program]]\nrepo = "someone/filters"\ncommit = "{commit}"\n'
                        'path = "src/box.cu"\n')
    programs = reach.load_manifest(manifest)
    cache = tmp_path / "cache"
    reach.populate(cache, tmp_path / "mirrors", programs)
    path = reach.checkout(cache, programs[0]) / "src" / "box.cu"
    assert "box3" in path.read_text()
    exe = str(Path(sys.executable).parent / "cudafuse")
    assert (path.parent / "expected.txt").read_text() == "2.0\n"  # data files come too
    assert reach.emu_run(exe, path, [], 120) == "ran"
    # run from a scratch copy of its directory: what main writes does not land in the cache
    assert not (path.parent / "result.txt").exists()
    # a spec named relative to the caller's directory (the survey's specs/...) is found there
    (tmp_path / "main.toml").write_text('entry = "main"\n')
    monkeypatch.chdir(tmp_path)
    assert reach.emu_run(exe, path, [], 120, Path("main.toml")) == "ran"


def test_the_summary_counts_runs_stopped_only_by_the_time_limit():
    reach = _reach()
    rows = [reach.Row(Path(f"{name}.cu"), "ok", 1, 1, emu="built", run=run) for name, run in [
        ("a", "ran"),
        ("b", "run failed: call of 'main': no answer after 300 s (an endless loop in the "
              "program?); the worker was stopped"),
        ("c", "run failed: barrier divergence in kernel 'k'"),
        ("d", "ran, but the GPU refuses a launch: launch of 'k' with block (2048,1,1)")]]
    rows.append(reach.Row(Path("e.cu"), "ok", 1, 1, emu="not built: x (nvcc rejects it too: "
                          "y)", run="not run", nvcc_rejects=True))
    text = reach.summary(rows, emu=True)
    assert "nvcc compiles 4; built: 4; built and ran (main, exit status 0): 2 (50.0%" in text
    assert "of the 2 others, stopped only by the time limit: 1" in text
