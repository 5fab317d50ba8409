"""Coordinates, pixels and filters as course and benchmark code writes them: int2 positions
(`const int2 p = make_int2(...)`, cs344), copies of the built-ins (`int tx = threadIdx.x;
... bx * BLOCK + tx`, Rodinia), uchar4 pixels stored whole (`rgba[m] = px`), and a blur
whose filter width is a run-time argument, its reads clamped to the image (a gather). The
file is fused as `cudafuse fuse` does (api.fuse, which respells the coordinates first); the
original and fused programs run under emulation on the same garbage-filled buffers and
every byte of every buffer is compared. What cannot be proven stays as written, with the
reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_with_api, nvcc_error

from cudafuse import api
from cudafuse.analysis.kernel_facts import analyze_kernel
from cudafuse.frontend import ParseOptions, parse_file
from cudafuse.passes.vertical.kernel.respell import respelled

PROGRAM = Path(__file__).parent / "programs" / "cs344_style.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    return fuse_with_api(PROGRAM, tmp_path_factory.mktemp("cs344"))


def _run_both(fused: Path, entry: str, sizes: dict[str, int], seed: int = 1) -> None:
    compare_entry(PROGRAM, fused, entry, sizes, seed, extra={"d_filter": 81})


def test_the_course_pipeline_fuses_whole(fused) -> None:
    _, result = fused
    groups = sorted(tuple(g.kernels) for g in result.result.groups)
    assert ("separate", "gaussian_blur", "gaussian_blur", "recombine") in groups
    assert groups.count(("scale", "smooth")) == 2  # rodinia_chain, sdk_chain
    assert "reads d_red at run-time offsets: recomputed per read" in result.explain


@pytest.mark.parametrize("sizes", [
    {"numCols": 37, "numRows": 19, "filterWidth": 5},
    {"numCols": 16, "numRows": 8, "filterWidth": 9},
    {"numCols": 1, "numRows": 5, "filterWidth": 3},
    {"numCols": 65, "numRows": 3, "filterWidth": 1},
])
def test_the_course_pipeline_matches(fused, sizes: dict[str, int]) -> None:
    _run_both(fused[0], "your_gaussian_blur", sizes)


@pytest.mark.parametrize("entry", ["rodinia_chain", "sdk_chain", "unsettled_chain",
                                   "early_read_chain"])
@pytest.mark.parametrize("n", [1, 127, 128, 300])
def test_the_rodinia_chains_match(fused, entry: str, n: int) -> None:
    # (the first launch of early_read_chain has no block at all below 128 elements)
    sizes = {"n": n + 128 if entry == "early_read_chain" else n, "flag": 1}
    _run_both(fused[0], entry, sizes)


def test_block_counts_settled_after_their_declaration(fused) -> None:
    """`int b = n / B; if (n % B != 0) b = b + 1;` and `dim3 t; t.x = B;` are values the
    grid check reads; a count rounded up on another test, or read before it is rounded
    up, is not shown to cover."""
    by_host = {e.host: e.why for e in fused[1].result.edges if e.host.endswith("_chain")}
    assert by_host["rodinia_chain"].startswith("fused") and \
        by_host["sdk_chain"].startswith("fused")
    assert "flag ? ((n / 128) + 1) : (n / 128) is not a rounded-up division" in \
        by_host["unsettled_chain"]
    # (the first launch is read with the count it saw, host/byvalue.py: n / 128 blocks)
    assert "its x size n / 128 rounds down, leaving out the last n % 128 elements" in \
        by_host["early_read_chain"]


def test_refusals_run_as_written(fused) -> None:
    _run_both(fused[0], "refused", {"numCols": 23, "numRows": 7, "otherCols": 30, "radius": 2})
    text = " | ".join(str(e) for e in fused[1].result.edges)
    assert "'separate_whole' cannot be recomputed: its thread-to-element mapping" in text
    assert "'blur_other' reads 'in' at run-time offsets clamped to x < otherCols, not " \
           "provably inside its image (x < numCols)" in text


def test_every_respelling_is_explained_and_keeps_the_lines(fused) -> None:
    _, result = fused
    notes = [d.format(caret=False) for d in result.diagnostics if "respell" in d.message or
             "read as" in d.message]
    assert any(":9:3: note: kernel 'separate': coordinates int2 'pos' (pos_x, pos_y)" in n
               for n in notes), notes
    assert any("kernel 'smooth': copies of the thread and block indices ('tx', 'bx') read "
               "as the built-ins, so that 'i' is recognised" in n for n in notes), notes
    assert not any("separate_whole" in n for n in notes)  # handed whole to a helper
    original = PROGRAM.read_text().splitlines()
    text = respelled(parse_file(str(PROGRAM)).unit)[0].decode()
    lines = text.splitlines()
    assert len(lines) == len(original)
    assert "  const int pos_x = (blockIdx.x * blockDim.x + threadIdx.x)," in lines
    assert "int i = ((int)blockIdx.x) * BLOCK + ((int)threadIdx.x);" in text
    assert "int bx = blockIdx.x;" not in text and "flat(pos, numCols)" in text


RESPELL = r"""
#define POS make_int2(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y)
__global__ void k(float *out, int w, int h) {
  %s
}
"""


@pytest.mark.parametrize("body", [
    "const int2 p = POS; if (p.x >= w || p.y >= h) return; out[p.y * w + p.x] = 1.f;",
    "int2 p = make_int2(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y"
    " + threadIdx.y); p.x += 1; if (p.x >= w || p.y >= h) return; out[p.y * w + p.x] = 1.f;",
    "int2 p = make_int2(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y"
    " + threadIdx.y); int2 *q = &p; if (q->x >= w) return; out[p.y * w + p.x] = 1.f;",
    "int tx = threadIdx.x; tx += 1; int i = blockIdx.x * blockDim.x + tx; out[i] = 1.f;",
    "int tx = threadIdx.x; int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = tx;",
])
def test_what_is_not_respelled(tmp_path: Path, body: str) -> None:
    """Spelled through a macro, written, its address taken, or no use in a coordinate:
    the kernel stays as written."""
    src = tmp_path / "k.cu"
    src.write_text(RESPELL % body)
    assert respelled(parse_file(str(src)).unit) is None


def test_const_copies_of_the_built_ins_are_respelled(tmp_path: Path) -> None:
    """`const int tx = threadIdx.x;` (tiled stencils write their copies const) is a copy of
    the built-in as much as `int tx = threadIdx.x;`."""
    src = tmp_path / "k.cu"
    src.write_text(RESPELL % "const int tx = threadIdx.x; const unsigned bx = blockIdx.x; "
                   "int i = bx * blockDim.x + tx; if (i >= w) return; out[i] = 1.f;")
    text = respelled(parse_file(str(src)).unit)[0].decode()
    assert "int i = blockIdx.x * blockDim.x + ((int)threadIdx.x);" in text, text
    assert "tx" not in text and "bx" not in text


def test_a_clamped_run_time_offset_is_a_gather() -> None:
    """The shape a gather gets: clamped into [0, B) on both sides, any offset inside."""
    text = respelled(parse_file(str(PROGRAM)).unit)[0]
    again = parse_file(str(PROGRAM), text=text).unit
    fn = again.function("gaussian_blur")
    loads = {ld.pointer: ld for ld in analyze_kernel(again, fn).loads}
    assert loads["in"].kind == "gather"
    assert loads["in"].border == ("clamp", "clamp")
    assert loads["in"].bounds == ("numCols", "numRows")
    assert loads["filter"].kind == "other"


@pytest.mark.nvcc
def test_the_fused_program_compiles(fused, tmp_path: Path) -> None:
    assert nvcc_error(fused[0], tmp_path) == ""


def test_a_respelled_file_with_nothing_fused_is_written_as_it_was(tmp_path: Path) -> None:
    """A respelling is no reason to touch a file: when nothing fuses, the output is the
    input, byte for byte (not the respelled text)."""
    src = tmp_path / "alone.cu"
    src.write_text("__global__ void k(float *out, int w, int h) {\n"
                   "  const int2 p = make_int2(blockIdx.x * blockDim.x + threadIdx.x,\n"
                   "                           blockIdx.y * blockDim.y + threadIdx.y);\n"
                   "  if (p.x >= w) return;\n  if (p.y >= h) return;\n"
                   "  out[p.y * w + p.x] = 1.0f;\n}\n"
                   "void run(float *d, int w, int h) {\n"
                   "  k<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(d, w, h);\n}\n")
    result = api.fuse(str(src), fuse_all=True)
    assert any("read as one variable per dimension" in d.message for d in result.diagnostics)
    assert result.text == src.read_text()


def test_a_respelling_the_front_end_rejects_is_not_applied(monkeypatch, tmp_path: Path) -> None:
    """Should a respelling ever produce text that does not parse, fusion goes on with the
    file as written (no error of cudafuse's making reaches the user)."""
    from cudafuse.passes.vertical.kernel import respell

    real = respell.respelled
    monkeypatch.setattr(respell, "respelled",
                        lambda unit: (b"__global__ void broken( {\n", real(unit)[1]))
    result, as_written = respell.parse_for_fusion(str(PROGRAM), ParseOptions())
    assert as_written is None and result.unit.source.data == PROGRAM.read_bytes()
    assert not any("read as one variable" in d.message for d in result.diagnostics)
