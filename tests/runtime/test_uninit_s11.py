"""`run --initcheck`'s notes (issue 27): an allocation no kernel was given is not named when
one a kernel was given is; a buffer whose bytes hold the fill in both runs is not said to be
"never written" (a value computed from a read past an array's end can be 0x00 bytes in one
run and 0xff bytes, a NaN, in the other). And `--sanitize`'s help says what it checks."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from cudafuse.cli import main
from cudafuse.runtime import uninit

# `src` holds `n` bytes, the kernel reads `n` floats from it (within the 256 bytes the
# allocation rounds to, which hold the fill); `idle` goes to no kernel and no copy; `dst` is
# written at every element.
PROGRAM = """\
__global__ void affine(const float *src, float *dst, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) dst[t] = 3.0f * src[t] - 0.5f;
}
void go(const float *host, float *res, int n) {
    float *src, *dst, *idle;
    cudaMalloc(&src, n);
    cudaMemcpy(src, host, n, cudaMemcpyHostToDevice);
    cudaMalloc(&idle, 4 * n);
    cudaMalloc(&dst, 4 * n);
    affine<<<(n + 63) / 64, 64>>>(src, dst, n);
    cudaMemcpy(res, dst, 4 * n, cudaMemcpyDeviceToHost);
    cudaFree(idle);
    cudaFree(src);
    cudaFree(dst);
}
"""

SPEC = """entry = "go"
[[args]]
name = "host"
dtype = "float32"
count = 100
init = "uniform(1, 2)"
[[args]]
name = "res"
dtype = "float32"
count = 100
role = "out"
[[args]]
name = "n"
value = 60
"""


@pytest.mark.slow  # a build and two runs: about 20 s on the shared 2-core VM
def test_initcheck_names_no_idle_buffer_and_claims_no_never_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("p.cu").write_text(PROGRAM)
    Path("p.toml").write_text(SPEC)
    res = CliRunner().invoke(main, ["run", "p.cu", "--spec", "p.toml", "--initcheck"])
    assert res.exit_code == 1, res.output
    assert "p.cu: error: the program's output 'res' differs between two runs" in res.stderr
    notes = [row for row in res.stderr.splitlines() if ": note: allocated here" in row]
    assert notes, res.stderr
    assert not any(row.startswith("p.cu:9:") for row in notes), res.stderr  # idle
    assert "never written (" not in res.stderr and "were never written" not in res.stderr
    dst = [row for row in notes if row.startswith("p.cu:10:")]
    assert dst and "hold the fill pattern in both runs" in dst[0] and \
        "never written, or written from memory nothing wrote" in dst[0], res.stderr


def _report(kernel: str) -> uninit.Report:
    return uninit.Report([(0, 8)], (kernel, "k.cu", 3) if kernel else ("", "", 0))


def test_in_both_leaves_out_kernel_less_only_when_a_kernel_took_one() -> None:
    given = {("k.cu", 5, 8): [_report("scale")], ("k.cu", 6, 8): [_report("")]}
    assert [u.line for u in uninit.in_both(given, given)] == [5]
    alone = {("k.cu", 6, 8): [_report("")]}
    assert [(u.line, u.kernel) for u in uninit.in_both(alone, alone)] == [(6, "")]
    # the kernel seen in the first run only still counts
    first = {("k.cu", 5, 8): [_report("scale")], ("k.cu", 6, 8): [_report("")]}
    second = {("k.cu", 5, 8): [_report("")], ("k.cu", 6, 8): [_report("")]}
    assert [(u.line, u.kernel) for u in uninit.in_both(first, second)] == [(5, "scale")]


def test_sanitize_help_says_what_each_mode_checks() -> None:
    res = CliRunner().invoke(main, ["run", "--help"], terminal_width=200)
    text = " ".join(res.output.split())
    assert "exact at both ends of the spec's arrays and of each buffer the program " \
        "cudaMallocs itself" in text
    assert "those past a cudaMalloc'd buffer's size rounded up to 256 bytes, or before its " \
        "start where they leave its first page" in text
