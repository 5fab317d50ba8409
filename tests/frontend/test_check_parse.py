"""The check that a pass's output parses in place (frontend/parse.py check_parse, used by
codegen/compile_check.parses_in_place) raises where parse_file raises, and lowers only the
kernels the pass wrote or changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from cudafuse.codegen.compile_check import lowered_texts, parses_in_place
from cudafuse.diagnostics import CudafuseError
from cudafuse.frontend import lower
from cudafuse.frontend.parse import ParseOptions, check_parse, parse_file

INPUT = b"""\
__device__ float twice(float v) { return 2.0f * v; }
__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = twice(in[i]);
}
__global__ void shift(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
}
void run(const float *in, float *tmp, float *out, int n) {
  scale<<<(n + 255) / 256, 256>>>(in, tmp, n);
  shift<<<(n + 255) / 256, 256>>>(tmp, out, n);
}
"""

FUSED = b"""\
__device__ float cf_at(const float *in, int i) { return twice(in[i]); }
__global__ void cf_fused(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = cf_at(in, i) + 1.0f;
}
"""
OUTPUT = INPUT.replace(b"void run(", FUSED + b"void run(").replace(
    b"  scale<<<(n + 255) / 256, 256>>>(in, tmp, n);\n"
    b"  shift<<<(n + 255) / 256, 256>>>(tmp, out, n);\n",
    b"  cf_fused<<<(n + 255) / 256, 256>>>(in, out, n);\n")


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.cu"
    path.write_bytes(INPUT)
    return path


@pytest.fixture
def lowered(monkeypatch) -> list[str]:
    """The names of the functions the lowering is asked for, in order."""
    names: list[str] = []
    real = lower.Lowerer.function

    def counted(self, c):
        names.append(c.spelling)
        return real(self, c)

    monkeypatch.setattr(lower.Lowerer, "function", counted)
    return names


def _texts(src: Path) -> frozenset[bytes]:
    return lowered_texts(parse_file(str(src), ParseOptions()).unit)


def test_only_the_kernels_the_pass_wrote_are_lowered(src: Path, lowered: list[str]) -> None:
    texts = _texts(src)
    assert len(texts) == 4  # twice, scale, shift, run
    lowered.clear()
    check_parse(str(src), ParseOptions(), OUTPUT, texts)
    assert lowered == ["cf_fused"]
    lowered.clear()
    parse_file(str(src), ParseOptions(), text=OUTPUT)  # the full parse lowers them all
    assert lowered == ["twice", "scale", "shift", "cf_at", "cf_fused", "run"]


def _raises(src: Path, text: bytes) -> tuple[str | None, str | None]:
    """The first error of parse_file and of check_parse on `text`, None where it passes."""
    out = []
    for run in (lambda: parse_file(str(src), ParseOptions(), text=text),
                lambda: check_parse(str(src), ParseOptions(), text, _texts(src))):
        try:
            run()
            out.append(None)
        except CudafuseError as exc:
            out.append(exc.diagnostics[0].message if exc.diagnostics else str(exc))
    return out[0], out[1]


@pytest.mark.parametrize("broken", [
    # a syntax error in the host code the pass rewrote
    OUTPUT.replace(b"cf_fused<<<", b"cf_fused + <<<"),
    # ... in a kernel kept as the input's (text unchanged: clang's error still counts)
    OUTPUT.replace(b"out[i] = in[i] + 1.0f;", b"out[i] = in[i] + ;"),
    # a kernel dropped by clang's recovery from an earlier error
    b"namespace cg = no_such_namespace;\n" + OUTPUT,
], ids=["host", "kept-kernel", "dropped"])
def test_raises_where_parse_file_raises(src: Path, broken: bytes) -> None:
    full, check = _raises(src, broken)
    assert full is not None
    assert check == full


def test_a_new_kernel_that_cannot_be_lowered_is_lost(src: Path, monkeypatch) -> None:
    real = lower.Lowerer.function

    def refusing(self, c):
        if c.spelling == "cf_fused":
            raise lower.LoweringError("a construct the front end does not know", None)
        return real(self, c)

    texts = _texts(src)
    monkeypatch.setattr(lower.Lowerer, "function", refusing)
    with pytest.raises(CudafuseError, match="could not be analysed"):
        check_parse(str(src), ParseOptions(), OUTPUT, texts)
    unit = parse_file(str(src), ParseOptions()).unit
    with pytest.raises(CudafuseError) as exc:
        parses_in_place(str(src), ParseOptions(), OUTPUT, unit)
    assert exc.value.status == 3
    assert "'cf_fused'" in exc.value.diagnostics[0].message
