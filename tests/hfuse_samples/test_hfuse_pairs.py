"""The HFuse benchmark pairs (samples/hfuse/pairs.toml): every pair fuses, and the fused
launcher's outputs equal the two original kernels' on the samples' spec inputs, every
element, in thread and block mode, and so do those of the two-stream launcher of the same
signature. A seeded random thread order (which exposes a barrier that waits for the wrong
threads) runs under the `slow` marker, and so do block mode and the streams launcher of the
pairs outside SLICE (STREAMS_SLICE for the streams launcher) and thread mode of those outside
THREAD_SLICE."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from cudafuse.cli import main
from cudafuse.runtime import load
from cudafuse.runtime.spec import Spec, evaluate, load_spec, tomllib

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "hfuse"
RAW = tomllib.loads((SAMPLES / "pairs.toml").read_text())


@dataclass(frozen=True)
class Side:
    file: str
    kernel: str
    spec: Spec
    grid: tuple[int, ...]
    block: tuple[int, ...]
    shared: int


def _side(pair: dict[str, Any], i: int) -> Side:
    file = pair[f"file{i}"]
    spec = load_spec(str(SAMPLES / file.replace(".cu", ".toml")))
    where = f"{pair['name']}: side {i}"
    return Side(file, pair[f"kernel{i}"], spec,
                tuple(int(evaluate(g, spec.sizes, where)) for g in pair[f"grid{i}"]),
                tuple(int(b) for b in pair[f"block{i}"]),
                int(evaluate(pair[f"shared{i}"], spec.sizes, where)))


PAIRS = RAW["pair"]
IDS = [p["name"] for p in PAIRS]
# `make test` runs block mode and the streams launcher on these five pairs, which between
# them hold all nine kernels (thread mode runs on all sixteen); `make test-slow` on the rest.
SLICE = {"batchnorm_stats+histogram", "maxpool2d+upsample_bilinear2d", "im2col+maxpool2d",
         "blake2b+ethash_like", "blake256+sha256"}
SLICED = [pytest.param(p, id=p["name"], marks=() if p["name"] in SLICE else pytest.mark.slow)
          for p in PAIRS]
# Thread mode in `make test`: SLICE plus a pair of each way a part with barriers meets one
# without (batchnorm_stats: __syncthreads over static shared memory; histogram: over dynamic
# shared memory, its launch's bytes moved into the fused launch), so that every class of
# pair runs: both parts with barriers, one (static or dynamic shared), neither, and the crypto
# kernels' early returns. The other pairs repeat one of these classes (issue 27): `make
# test-slow` runs them.
THREAD_SLICE = SLICE | {"batchnorm_stats+maxpool2d", "histogram+upsample_bilinear2d"}
THREAD_SLICED = [pytest.param(p, id=p["name"],
                              marks=() if p["name"] in THREAD_SLICE else pytest.mark.slow)
                 for p in PAIRS]
# The streams launcher runs both kernels as written: in `make test` on a pair with barriers
# and dynamic shared memory (its bytes passed to the second launch) and a pair of crypto
# kernels that return early; `make test-slow` on the others.
STREAMS_SLICE = {"batchnorm_stats+histogram", "blake2b+ethash_like"}
STREAMS_SLICED = [pytest.param(p, id=p["name"],
                               marks=() if p["name"] in STREAMS_SLICE else pytest.mark.slow)
                  for p in PAIRS]


def test_the_papers_sixteen_pairs() -> None:
    # 10 pairs of five deep-learning kernels, 6 pairs of four crypto kernels, all distinct.
    assert len(PAIRS) == 16 and len(set(IDS)) == 16
    kernels = {p[f"kernel{i}"] for p in PAIRS for i in (1, 2)}
    assert len(kernels) == 9
    for p in PAIRS:
        assert (SAMPLES / p["file1"]).exists() and (SAMPLES / p["file2"]).exists()


def _fuse(tmp_path: Path, pair: dict[str, Any], mode: str, defines: bool = True
          ) -> tuple[Path, Side, Side]:
    s1, s2 = _side(pair, 1), _side(pair, 2)
    out = tmp_path / "fused.cu"
    shape = ["x".join(map(str, s.block)) for s in (s1, s2)]
    args = ["hfuse", str(SAMPLES / s1.file), str(SAMPLES / s2.file), "--kernels",
            f"{s1.kernel},{s2.kernel}", "--block1", shape[0], "--block2", shape[1],
            "--mode", mode, "-o", str(out)]
    for d in RAW["defines"] if defines else ():
        args += ["-D", d]
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    if not defines:  # both samples have a main(): the second one's is renamed apart
        assert "this file's is 'cf_in2_main'" in res.output, res.output
    return out, s1, s2


def _check(out: Path, s1: Side, s2: Side, seed: int | None, backend: str = "emu") -> None:
    extra = {"seed": seed} if backend == "emu" else {}
    lib = load(out, backend=backend, defines={"CUDAFUSE_NO_MAIN": "1"}, **extra)
    originals = [s.spec.inputs() for s in (s1, s2)]
    fused = [s.spec.inputs() for s in (s1, s2)]
    for s, args in zip((s1, s2), originals, strict=True):
        lib.launch(s.kernel, grid=s.grid, block=s.block, shared=s.shared, args=args)
    launcher = f"{s1.kernel}_{s2.kernel}_hfused_launch"
    lib.call(launcher, *fused[0], *fused[1], s1.grid, s2.grid, s1.shared, s2.shared, None)
    for s, want, got in zip((s1, s2), originals, fused, strict=True):
        for a, w, g in zip(s.spec.args, want, got, strict=True):
            if a.is_array:
                bad = np.flatnonzero(w.view(np.uint8) != g.view(np.uint8))
                assert bad.size == 0, f"{s.kernel}: '{a.name}' differs at byte {bad[:5]}"
        outputs = [w for a, w in zip(s.spec.args, want, strict=True) if a.is_output]
        # The originals wrote something: a comparison of untouched zeros proves nothing.
        assert any(np.any(w != 0) for w in outputs), s.kernel


@pytest.mark.parametrize("pair", THREAD_SLICED)
def test_pair_thread_mode(tmp_path: Path, pair: dict[str, Any]) -> None:
    # Without -D CUDAFUSE_NO_MAIN: the two main()s are renamed apart.
    out, s1, s2 = _fuse(tmp_path, pair, "thread", defines=False)
    _check(out, s1, s2, None)


@pytest.mark.slow
@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_pair_thread_mode_random_order(tmp_path: Path, pair: dict[str, Any]) -> None:
    out, s1, s2 = _fuse(tmp_path, pair, "thread")
    _check(out, s1, s2, 13)


@pytest.mark.parametrize("pair", SLICED)
def test_pair_block_mode(tmp_path: Path, pair: dict[str, Any]) -> None:
    out, s1, s2 = _fuse(tmp_path, pair, "block")
    _check(out, s1, s2, None)


@pytest.mark.parametrize("pair", STREAMS_SLICED)
def test_pair_streams_launcher(tmp_path: Path, pair: dict[str, Any]) -> None:
    # The native fallback behind the same launcher signature.
    out, s1, s2 = _fuse(tmp_path, pair, "streams")
    assert "_hfused<<<" not in out.read_text()
    _check(out, s1, s2, None)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["thread", "block", "streams"])
@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_pair_on_the_gpu(tmp_path: Path, pair: dict[str, Any], mode: str) -> None:
    # The same comparison on a real GPU (nvcc backend): the fused launcher against the
    # original launches, byte for byte.
    out, s1, s2 = _fuse(tmp_path, pair, mode)
    _check(out, s1, s2, None, backend="nvcc")
