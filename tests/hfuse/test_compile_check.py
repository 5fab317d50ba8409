"""codegen/compile_check.py: an emitted file that does not compile is a located error (exit
status 1 through the CLI), never written; nvcc's verdict (marker nvcc) is cached."""

from __future__ import annotations

from pathlib import Path

import pytest

from cudafuse.codegen import compile_check
from cudafuse.diagnostics import CudafuseError
from cudafuse.frontend import ParseOptions

GOOD = b"__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\nvoid k_launch(float *x) {}\n"


def test_a_parse_error_is_located_in_the_output(tmp_path: Path) -> None:
    bad = GOOD + b"void g() { undeclared_name(); }\n"
    with pytest.raises(CudafuseError) as exc:
        compile_check.reparse(bad, str(tmp_path / "out.cu"), ParseOptions())
    d = exc.value.diagnostics[0]
    assert (d.file, d.line) == (str(tmp_path / "out.cu"), 3)
    assert "does not compile" in d.message and "undeclared_name" in d.message


def test_a_generated_function_the_parse_loses_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CudafuseError, match="does not find the generated k_hfused"):
        compile_check.reparse(GOOD, str(tmp_path / "o.cu"), ParseOptions(),
                              generated=("k", "k_hfused"))
    compile_check.reparse(GOOD, str(tmp_path / "o.cu"), ParseOptions(),
                          generated=("k", "k_launch"))


def test_an_include_that_does_not_resolve_from_the_output_folder(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "h.cuh").write_text("#define N 4\n")
    text = b'#include "h.cuh"\n' + GOOD
    compile_check.reparse(text, str(tmp_path / "src" / "o.cu"), ParseOptions())
    with pytest.raises(CudafuseError, match="h.cuh"):
        compile_check.reparse(text, str(tmp_path / "o.cu"), ParseOptions())


@pytest.mark.nvcc
def test_nvcc_rejects_what_the_front_end_accepts(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(compile_check.ENV_SKIP, raising=False)
    monkeypatch.setenv("CUDAFUSE_CACHE_DIR", str(tmp_path / "cache"))
    # nvcc 13: __launch_bounds__ and __maxnreg__ on one kernel is an error.
    bad = b"__global__ void __launch_bounds__(128) __maxnreg__(32) k(float *x) {}\n"
    (tmp_path / "in.cu").write_bytes(GOOD)
    with pytest.raises(CudafuseError) as exc:
        compile_check.nvcc_check(bad, str(tmp_path / "o.cu"), ParseOptions(),
                                 inputs=[str(tmp_path / "in.cu")])
    d = exc.value.diagnostics[0]
    assert d.line == 1 and "does not compile with nvcc -arch=sm_90" in d.message
    cached = list((tmp_path / "cache" / "compile_check").glob("*.txt"))
    assert len(cached) == 2  # the output's verdict and the input's (it compiles)
    assert compile_check.nvcc_check(GOOD, str(tmp_path / "o.cu"), ParseOptions()) == []


@pytest.mark.nvcc
@pytest.mark.slow
def test_hfuse_compiles_its_output_with_nvcc(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from hfuse_helpers import PROGRAMS, hfuse

    monkeypatch.delenv(compile_check.ENV_SKIP, raising=False)
    aten = PROGRAMS / "aten"
    out = tmp_path / "f.cu"
    res = hfuse(str(aten / "im2col.cu"), str(aten / "histogram.cu"), "--kernels",
                "at::native::im2col_kernel<float>,at::cuda::kernelHistogram1D<int, float, int>",
                "--block1", "128", "--block2", "256", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert out.exists()


@pytest.mark.nvcc
@pytest.mark.slow
def test_vertical_fuse_runs_the_nvcc_check(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import cudafuse

    monkeypatch.delenv(compile_check.ENV_SKIP, raising=False)
    monkeypatch.setenv("CUDAFUSE_CACHE_DIR", str(tmp_path / "cache"))
    samples = Path(__file__).resolve().parents[2] / "samples"
    fused = cudafuse.fuse(str(samples / "blur.cu"))
    assert fused.changed  # something was fused, so the check ran on new text
    assert not [d for d in fused.diagnostics if "nvcc" in d.message]
    assert list((tmp_path / "cache" / "compile_check").glob("*.txt"))  # it compiled
