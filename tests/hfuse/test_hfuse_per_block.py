"""Block-size dependence judged by meaning (per_block.py): a kernel that stores one result
per block keeps its size, however the store is written; one that stores per thread does
not; and --explain counts cooperative groups' sync() as barriers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hfuse_helpers import PROGRAMS, hfuse

KERNELS = r"""
__global__ void partial_sums(const float *x, float *partials, int n) {
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    s += x[i];
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(&partials[blockIdx.x], s);
}

__global__ void partial_max(const int *x, int *out, int n) {
  const unsigned b = blockIdx.x;  // through a local, and a cast
  int m = x[b];
  if (threadIdx.x == 0) ((int *)out)[b] = m;
}

__global__ void scale(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
"""


def _parts(tmp_path: Path, kernels: str) -> list[dict]:
    src = tmp_path / "k.cu"
    src.write_text(KERNELS)
    res = hfuse(str(src), "--kernels", kernels, "--block1", "128", "--block2", "64", "-o",
                str(tmp_path / "f.cu"), "--report", str(tmp_path / "r.json"))
    assert res.exit_code == 0, res.output
    return json.loads((tmp_path / "r.json").read_text())["parts"]


@pytest.mark.parametrize("kernel", ["partial_sums", "partial_max"])
def test_one_result_per_block_keeps_the_size(tmp_path: Path, kernel: str) -> None:
    per_block, per_thread = _parts(tmp_path, f"{kernel},scale")
    assert not per_block["block_size_tunable"]
    assert any("one result per block" in why for why in per_block["block_size_dependence"])
    assert per_thread["block_size_tunable"]


def test_explain_counts_group_syncs_as_barriers(tmp_path: Path) -> None:
    res = hfuse(str(PROGRAMS / "coop.cu"), "--kernels", "cg_reverse,plain_scale", "--block1",
                "64", "--block2", "64", "-o", str(tmp_path / "f.cu"), "--explain",
                "--report", str(tmp_path / "r.json"))
    assert res.exit_code == 0, res.output
    assert "1 cooperative-groups sync() -> bar.sync 1, 64" in res.output
    part = json.loads((tmp_path / "r.json").read_text())["parts"][0]
    assert part["group_syncs"] == 1 and part["barrier"] == {"id": 1, "count": 64}


PER_BLOCK = PROGRAMS / "per_block"


def _profile(tmp_path: Path, *extra: str):
    from click.testing import CliRunner

    from cudafuse.cli import main

    args = ["hfuse", str(PER_BLOCK / "partials.cu"), "--kernels", "partial_sums,twice",
            "--profile", "--spec", str(PER_BLOCK / "pair.toml"), "--backend", "emu", "-o",
            str(tmp_path / "o.cu"), "--report", str(tmp_path / "r.json"), "--cache-dir",
            str(tmp_path / "cache"), "--split-step", "384", *extra]
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res, json.loads((tmp_path / "r.json").read_text())["candidates"]


@pytest.fixture
def no_nvcc(monkeypatch: pytest.MonkeyPatch) -> None:
    from cudafuse.profile import hfuse_profile

    monkeypatch.setattr(hfuse_profile, "have_nvcc", lambda: False)


@pytest.mark.slow
def test_profile_keeps_the_size_of_a_kernel_storing_per_block(tmp_path: Path,
                                                             no_nvcc: None) -> None:
    # Under the emulator: partial_sums stays at 128 threads in every candidate, the
    # per-thread kernel beside it takes other sizes, and every candidate is exact.
    _, candidates = _profile(tmp_path)
    fused = [c for c in candidates if c["threads"]]
    assert fused and {c["threads"][0] for c in fused} == {128}
    assert len({c["threads"][1] for c in fused}) > 1
    assert all(c["verified"] is True for c in candidates), candidates


@pytest.mark.slow
def test_profile_skips_what_its_own_misjudgement_made_wrong(
        tmp_path: Path, no_nvcc: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # Were the per-block store missed (judged tunable), profiling would time partial_sums at
    # other sizes, whose partials differ: those candidates are skipped with the reason (a
    # block-size dependence cudafuse did not see), never "a wrong fused kernel" (exit 1).
    from cudafuse.passes.horizontal import parts

    monkeypatch.setattr(parts, "per_block_stores",
                        lambda fn: [] if fn.name == "partial_sums" else ["kept by the test"])
    res, candidates = _profile(tmp_path)
    other = [c for c in candidates if c["threads"] and c["threads"][0] != 128]
    assert other and all(c["verified"] is None and "did not see" in c["skip"] for c in other)
    assert all(c["verified"] is True for c in candidates if c not in other)
    assert "please report the kernel" in res.output


def test_a_wrong_candidate_at_the_spec_sizes_stays_an_error() -> None:
    from cudafuse.profile.hfuse_profile import _sizes_misjudged
    from cudafuse.profile.records import Record
    from cudafuse.profile.select import SelectionError, select

    records = [Record("streams", "streams", verified=True),
               Record("thread:256+64:rnone", "thread", (256, 64), verified=False),
               Record("thread:128+64:rnone", "thread", (128, 64), verified=False)]
    notes: list[str] = []
    kept = _sizes_misjudged(records, (128, 64), ["a", "b"], notes)
    assert kept[1].verified is None and "'a' at 256 threads (spec: 128)" in kept[1].skip
    assert kept[2].verified is False and len(notes) == 1
    with pytest.raises(SelectionError, match="bug in cudafuse"):
        select(kept)


@pytest.mark.parametrize("wait", ["block.sync()", "cg::sync(block)",
                                  "cg::this_thread_block().sync()"])
def test_explain_counts_every_spelling_of_a_group_sync(tmp_path: Path, wait: str) -> None:
    src = tmp_path / "k.cu"
    src.write_text(
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
        "__global__ void rev(float *a) {\n  cg::thread_block block = cg::this_thread_block();\n"
        "  __shared__ float s[64];\n  s[block.thread_rank()] = a[block.thread_rank()];\n"
        f"  {wait};\n  a[block.thread_rank()] = s[63 - block.thread_rank()];\n}}\n"
        "__global__ void twice(float *b) { b[threadIdx.x] *= 2.0f; }\n")
    res = hfuse(str(src), "--kernels", "rev,twice", "--block1", "64", "--block2", "64", "-o",
                str(tmp_path / "f.cu"), "--explain")
    assert res.exit_code == 0, res.output
    assert "1 cooperative-groups sync() -> bar.sync 1, 64" in res.output
