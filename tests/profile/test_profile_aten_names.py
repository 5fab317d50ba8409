"""The names the HFuse paper's ATen kernels are profiled by (no compile here):
`at::native::batch_norm_collect_statistics_kernel<InvStd, float, float, float, int>` writes
its template argument as its own namespace does, where ptxas' demangled figures qualify it,
and the instantiation that makes nvcc compile it must sit where that name resolves; the
paper's pair names hold a comma, which bench_hfuse --pairs must not cut."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from cudafuse.analysis.ptxas import Resources, lookup
from cudafuse.passes.horizontal.regbound import _instantiation
from cudafuse.runtime.spec import tomllib

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _figures(regs: int) -> Resources:
    return Resources(registers=regs, static_shared=0, spill_stores=0, spill_loads=0)


def test_template_arguments_match_with_or_without_their_namespaces() -> None:
    found = {"bn": _figures(1),
             "bn<at::native::InvStd,float,float,float,int>": _figures(26),
             "bn<at::native::Var,float,float,float,int>": _figures(30)}
    assert lookup(found, "at::native::bn<InvStd, float, float, float, int>") == _figures(26)
    assert lookup(found, "bn<at::native::Var, float, float, float, int>") == _figures(30)
    assert lookup(found, "bn<Other, float, float, float, int>") is None
    # Two instances that differ only by their arguments' namespaces: no guess.
    found["bn<at::cuda::InvStd,float,float,float,int>"] = _figures(40)
    assert lookup(found, "at::native::bn<InvStd, float, float, float, int>") is None
    assert lookup(found, "bn<at::cuda::InvStd,float,float,float,int>") == _figures(40)


def test_an_instantiation_is_taken_inside_the_kernels_namespaces() -> None:
    assert _instantiation((1, "at::native::bn<InvStd, float>")) == (
        "namespace at {\nnamespace native {\n"
        "void *cudafuse_instantiate1 = (void *)&bn<InvStd, float>;\n}\n}\n")
    assert _instantiation((0, "::k<16>")) == "void *cudafuse_instantiate0 = (void *)&k<16>;\n"


@pytest.fixture(scope="module")
def bench() -> object:
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location("bench_hfuse_names", BENCH / "bench_hfuse.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pairs_named_with_a_comma_are_chosen_whole(bench: object) -> None:
    pairs = [{"name": f"{n} (aten, paper's files)"} for n in ("im2col+upsample", "a+b")] + \
        [{"name": "histogram+maxpool2d"}]
    chosen = bench.chosen_pairs  # type: ignore[attr-defined]
    got = chosen("a+b (aten, paper's files),im2col+upsample, histogram+maxpool2d", pairs)
    assert [p["name"] for p in got] == ["a+b (aten, paper's files)",
                                        "im2col+upsample (aten, paper's files)",
                                        "histogram+maxpool2d"]
    with pytest.raises(ValueError, match=r"unknown pair\(s\): im2col\+maxpool"):
        chosen("im2col+maxpool", pairs)


def test_every_timed_paper_kernel_can_be_calibrated(bench: object) -> None:
    # A kernel without a work size to grow fails calibration on the GPU (a KeyError).
    import hfuse_library_pairs as lib

    timed = {lib.PAPER[k][2] for a, b in lib.ATEN_PAIRS + lib.CRYPTO_PAIRS for k in (a, b)
             if not any(lib.PAPER[x][3] in lib.UNVERIFIABLE for x in (a, b))}
    assert timed  # the upsample and batch-norm pairs are timed since their specs exist
    for kernel in timed:
        assert kernel in bench.WORK_SIZE, kernel  # type: ignore[attr-defined]
        spec = lib.LIBRARY / next(v[3] for v in lib.PAPER.values() if v[2] == kernel)
        sizes = tomllib.loads(spec.read_text())["sizes"]
        assert isinstance(sizes[bench.WORK_SIZE[kernel]], int), kernel  # type: ignore[attr-defined]
        assert kernel in bench.PAPER_START, kernel  # type: ignore[attr-defined]


def test_hfuse_plan_refuses_a_kernel_over_a_deduced_functor_at_the_kernel(
        tmp_path: Path) -> None:
    # kernelHistogram1D's style (`Op getOp`, a lambda at the launch): nothing instantiates
    # it, or the fused kernel, for ptxas; refused where the kernel is, before any compile.
    from click.testing import CliRunner

    from cudafuse.cli import main

    aten = Path(__file__).resolve().parents[1] / "hfuse" / "programs" / "aten"
    res = CliRunner().invoke(main, [
        "hfuse-plan", str(aten / "im2col.cu"), str(aten / "functor.cu"), "--kernels",
        "at::native::im2col_kernel<float>,count_bins<int, int>", "--block1", "128",
        "--block2", "128", "--no-cache", "-q"])
    assert res.exit_code == 2, res.output
    assert f"{aten / 'functor.cu'}:" in res.output
    assert "count_bins<int, int> is a template over 'Op', the type of a functor its launch " \
        "deduces" in res.output
