"""The GPU session's step for the HFuse paper's own pairs (benchmarks/bench_hfuse.py --paper,
gpu_session.py --prepare), checked without a GPU and without the third-party files: a
stand-in cache folder holds small files of ours under the paper's repository and paths."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from test_gpu_session_dry import _module

ROOT = Path(__file__).resolve().parents[2]
TK = "aoli-al+TorchKernel"


def _cache(root: Path) -> Path:
    cuda = root / TK / "cuda"
    cuda.mkdir(parents=True)
    (cuda / "helper.cuh").write_text("#pragma once\n__device__ inline int twice(int x) "
                                     "{ return 2 * x; }\n")
    (cuda / "im2col.cuh").write_text(
        '#pragma once\n#include "helper.cuh"\n#include <ATen/ATen.h>\n'
        "namespace at { namespace native {\ntemplate <typename dt>\n"
        "__global__ void im2col_kernel(const int n, dt *out) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) out[i] = twice(i);\n}\n} }\n")
    (cuda / "DilatedMaxPool2d.cu").write_text(
        "#include <ATen/cuda/CUDAContext.h>\nnamespace at { namespace native {\n"
        "__global__ void MaxPoolForward(float *p) { p[threadIdx.x] = 0; }\n} }\n")
    # The accessor-taking kernels (their specs describe the accessors: tensor views).
    (cuda / "UpSample.cuh").write_text("#pragma once\n")
    (cuda / "UpSampleBilinear2d.cu").write_text(
        '#include "UpSample.cuh"\nnamespace at { namespace native {\n'
        "template <typename s, typename a>\n__global__ void upsample_bilinear2d_out_frame("
        "int n, s *p) { p[threadIdx.x] = 0; }\n} }\n")
    (cuda / "Normalization.cuh").write_text(
        "#pragma once\nnamespace at { namespace native {\ntemplate <typename T> struct InvStd "
        "{};\ntemplate <template <typename> class V, typename a, typename b, typename c, "
        "typename i>\n__global__ void batch_norm_collect_statistics_kernel(a *p) "
        "{ p[threadIdx.x] = 0; }\n} }\n")
    (cuda / "Unrelated.cu").write_text("__global__ void unrelated(float *p) { *p = 1; }\n")
    return root


def test_paper_pairs_time_what_a_spec_describes_and_say_why_not_the_rest(
        tmp_path: Path) -> None:
    bh = _module("bench_hfuse")
    cache = _cache(tmp_path / "cache")
    timed, untimed = bh.paper_pairs("aten", cache, tmp_path / "work")
    # Every pair without kernelHistogram1D, whose launch deduces its functor from a lambda.
    assert [p["name"] for p in timed] == [f"{n} (aten, paper's files)" for n in (
        "im2col+maxpool", "im2col+batchnorm", "im2col+upsample", "maxpool+batchnorm",
        "maxpool+upsample", "upsample+batchnorm")]
    pair = timed[0]
    # Staged copies of the cache's files, the paper's blocks, the specs' own launches.
    assert Path(pair["file1"]).read_text() == (cache / TK / "cuda" / "im2col.cuh").read_text()
    assert Path(pair["file2"]).is_relative_to(tmp_path / "work")
    assert pair["kernel2"] == "at::native::MaxPoolForward<float, float>"
    assert (pair["block1"], pair["block2"]) == ([512], [256])
    assert pair["grid1"] == ["(n + 511) / 512"] and pair["grid2"] == ["(n + 255) / 256"]
    assert str(ROOT / "benchmarks" / "hfuse_library" / "aten") in pair["include_dirs"]
    # The paper's figures for that pair, from the samples' stand-in of it.
    samples = {p["name"]: p for p in bh.tomllib.loads(
        (ROOT / "samples" / "hfuse" / "pairs.toml").read_text())["pair"]}
    assert pair["paper_speedup_regcap"] == samples["im2col+maxpool2d"]["paper_speedup_regcap"]
    side = bh._side(pair, 1)
    assert side["spec"].endswith("tk_im2col.toml") and side["file"] == pair["file1"]
    assert timed[5]["kernel2"].startswith("at::native::batch_norm_collect_statistics_kernel")
    # The four others: each said, with the kernel that stops it.
    assert len(untimed) == 4 and all("not timed: histogram: takes a functor" in line
                                     for line in untimed)
    # Crypto: the three are timed (the nvcc backend links stand-ins for what ccminer's
    # other files define), their C++ sources staged beside the kernel files.
    cc = tmp_path / "cache" / "tpruvot+ccminer"
    for rel in ("blake2b.cu", "sha256/cuda_sha256d.cu", "sia/sia.cu", "cuda.cpp"):
        (cc / rel).parent.mkdir(parents=True, exist_ok=True)
        (cc / rel).write_text("// stand-in\n")
    timed, untimed = bh.paper_pairs("crypto", cache, tmp_path / "work2")
    assert [p["name"] for p in timed] == [f"{n} (crypto, paper's files)" for n in (
        "blake2b+sha256d", "blake2b+sia", "sha256d+sia")] and untimed == []
    assert (Path(timed[0]["file1"]).parent / "cuda.cpp").is_file()
    assert timed[2]["kernel2"] == "sia_blake2b_gpu_hash" and timed[2]["block2"] == [128]


@pytest.mark.nvcc
@pytest.mark.slow  # each kernel file compiled by nvcc (its host code's needs): 6.5 s CPU
def test_prepare_copies_only_the_files_the_timed_pairs_compile(tmp_path: Path) -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not on PATH")
    gs = _module("gpu_session")
    dest = tmp_path / "device-cache"
    cache = _cache(tmp_path / "cache")
    _host_code_naming_another_file(cache)
    assert gs.prepare(cache, dest) == 0
    got = sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file())
    # What the two kernels' files include from their repository, and the C++ file that
    # defines what MaxPool's host code calls; not the stand-in headers (ours, in the
    # checkout), nor a file nothing includes or needs.
    assert got == [f"{TK}/cuda/DilatedMaxPool2d.cu", f"{TK}/cuda/Normalization.cuh",
                   f"{TK}/cuda/PoolHost.cpp", f"{TK}/cuda/UpSample.cuh",
                   f"{TK}/cuda/UpSampleBilinear2d.cu", f"{TK}/cuda/helper.cuh",
                   f"{TK}/cuda/im2col.cuh"]
    assert gs.prepare(tmp_path / "nothing", tmp_path / "d2") == 1  # said, not crashed


def _host_code_naming_another_file(cache: Path) -> None:
    """MaxPool's file with host code calling what a C++ file of the repository defines
    (as ccminer's kernel files call cuda.cpp's functions), and a C++ file nothing needs."""
    cuda = cache / TK / "cuda"
    with (cuda / "DilatedMaxPool2d.cu").open("a") as fh:
        fh.write("int pool_threads(int);\nint launch_size(int n) { return pool_threads(n); }\n")
    (cuda / "PoolHost.cpp").write_text("int pool_threads(int n) { return n * 2; }\n")
    (cuda / "Other.cpp").write_text("int other_host(int n) { return n; }\n")


@pytest.mark.nvcc
def test_prepare_finds_the_files_defining_what_a_kernel_files_host_code_needs(
        tmp_path: Path) -> None:
    # The nvcc backend links stand-ins for such symbols only where it finds the file that
    # defines them (src/cudafuse/runtime/standins.py): --prepare carries it to the GPU.
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not on PATH")
    gs = _module("gpu_session")
    cache = _cache(tmp_path / "cache")
    _host_code_naming_another_file(cache)
    lib = _module("hfuse_library_pairs")
    staged = _module("staged_sources").stage(lib, cache, "aoli-al/TorchKernel",
                                             tmp_path / "work")
    assert (staged / "cuda" / "PoolHost.cpp").is_file()  # staged beside the kernel files
    found = gs._defining_files("nvcc", staged, "cuda/DilatedMaxPool2d.cu",
                               [lib.STANDINS["aoli-al/TorchKernel"]], (), str(tmp_path))
    assert found == {Path("cuda/PoolHost.cpp")}


def test_paper_rows_share_the_samples_table(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # The session brings back 8 files: the paper's rows go into hfuse.jsonl / hfuse.md
    # beside the samples', and a run of either corpus rewrites the table with both.
    bh = _module("bench_hfuse")
    rows = tmp_path / "h.jsonl"
    sample = {"backend": "nvcc", "pair": "histogram+maxpool2d", "kernel1": "histogram_kernel",
              "kernel2": "maxpool2d_kernel", "sizes": [{}, {}], "alone": [0.5, 0.6],
              "device": "NVIDIA H200", "row": "| histogram+maxpool2d | sample row |"}
    paper = {**sample, "pair": "im2col+maxpool (aten, paper's files)",
             "kernel1": "at::native::im2col_kernel<float>",
             "kernel2": "at::native::MaxPoolForward<float, float>",
             "row": "| im2col+maxpool (aten, paper's files) | paper row |"}
    rows.write_text(json.dumps(sample) + "\n" + json.dumps(paper) + "\n")
    md = tmp_path / "h.md"

    def no_profiling(*_a, **_k):  # type: ignore[no-untyped-def]
        raise AssertionError("a pair measured before was measured again")

    monkeypatch.setattr(bh, "profile", no_profiling)
    monkeypatch.setattr(bh, "calibrate", no_profiling)
    monkeypatch.setattr(sys, "argv", ["bench_hfuse.py", "--pairs", "histogram+maxpool2d",
                                      "--jsonl", str(rows), "--md", str(md)])
    assert bh.main() == 0
    text = md.read_text()
    assert text.index("sample row") < text.index("paper row")
    # ... and the paper's pairs that are not timed, listed by the paper's run, stay listed.
    assert "- im2col+histogram (aten, paper's files): not timed: histogram: " in text
    assert text.count(": not timed: ") == 4  # the four kernelHistogram1D pairs
