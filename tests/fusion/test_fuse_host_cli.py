"""`plan --explain` is accepted (users type it after `fuse --explain`) and prints what
`plan` prints; DRAM figures of buffers whose element type is a typedef (`uint8_t`) take its
size from the canonical type."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from cudafuse.cli import main

PIPELINE = r"""
#include <cstdint>
#include <cuda_runtime.h>
typedef unsigned short pixel16;
__global__ void halve(const uint8_t *in, pixel16 *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] / 2;
}
__global__ void invert(const pixel16 *t, uint8_t *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (uint8_t)(255 - t[i]);
}
void pipe(const uint8_t *in, pixel16 *t, uint8_t *out, int n) {
  halve<<<(n + 127) / 128, 128>>>(in, t, n);
  invert<<<(n + 127) / 128, 128>>>(t, out, n);
}
"""


def _cudafuse(*args: str) -> Result:
    # In this process (the CLI's main): the command minus a Python start (issue 27).
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_plan_accepts_explain(tmp_path: Path) -> None:
    src = tmp_path / "p.cu"
    src.write_text(PIPELINE)
    plain = _cudafuse("plan", str(src))
    for args in (("plan", "--explain", str(src)), ("plan", str(src), "--explain")):
        res = _cudafuse(*args)
        assert res.exit_code == 0, res.stderr
        assert res.stdout == plain.stdout
    assert "pipe: 2 launches: halve, invert" in plain.stdout


def test_typedef_element_sizes(tmp_path: Path) -> None:
    src = tmp_path / "p.cu"
    src.write_text(PIPELINE)
    report = tmp_path / "r.json"
    res = _cudafuse("plan", str(src), "--report", str(report))
    assert res.exit_code == 0, res.stderr
    assert "element size unknown" not in res.stdout
    traffic = json.loads(report.read_text())["sequences"][0]["traffic"]
    assert traffic["unknown"] is None
    # halve reads 1 byte, writes 2; invert reads 2, writes 1: 6 bytes. Fused: the
    # parameter t is still stored (the caller may read it): 1 + 2 + 1.
    assert traffic["dram_bytes"]["original"] == 6
    assert traffic["dram_bytes"]["fused"] == 4
    assert traffic["dram_bytes"]["minimum"] == 4
