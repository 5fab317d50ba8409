"""The report dict, its JSON determinism, and the text/dot renderings."""

from __future__ import annotations

import json
import os

from cudafuse.analysis.render import render_dot, render_text
from cudafuse.analysis.report import SCHEMA, build_report

SRC = """
__global__ void a(const float* in, float* out, int n) {
  GX;
  if (x < n) out[x] = in[x] * 2.0f;
}
__global__ void b(const float* in, float* out, int n) {
  GX;
  if (x < n) out[x] = in[x] + in[min(x + 1, n - 1)];
}
void host(const float* src, float* dst, float* tmp, int n) {
  a<<<1, 128>>>(src, tmp, n);
  b<<<1, 128>>>(tmp, dst, n);
}
"""


def test_schema_and_determinism(unit_of):
    r1 = json.dumps(build_report(unit_of(SRC)))
    r2 = json.dumps(build_report(unit_of(SRC)))
    assert r1 == r2
    rep = json.loads(r1)
    assert list(rep) == ["schema", "file", "kernels", "host_functions"]
    assert rep["schema"] == SCHEMA == 1
    assert [k["name"] for k in rep["kernels"]] == ["a", "b"]
    load = rep["kernels"][1]["loads"][0]
    assert load == {"pointer": "in", "class": "stencil", "reason": "", "dims": ["x"],
                    "window": [[0], [1]], "extent": {"x": [0, 1]}, "border": {"x": "clamp"},
                    "bounds": {"x": "n"}, "layout": {"x": "1"}, "lines": [11]}
    h = rep["host_functions"][0]
    assert h["edges"] == [{"src": 0, "dst": 1, "kind": "raw", "buffer": "tmp"}]
    assert h["outputs"] == ["dst", "tmp"]  # parameters are visible to the caller


def test_no_absolute_paths(tmp_path, monkeypatch):
    (tmp_path / "rel.cu").write_text(SRC.replace("GX;", "int x = threadIdx.x;"))
    monkeypatch.chdir(tmp_path)
    from cudafuse.frontend import parse_file

    text = json.dumps(build_report(parse_file("rel.cu").unit))
    assert str(tmp_path) not in text
    assert json.loads(text)["file"] == "rel.cu"
    assert not os.path.isabs(json.loads(text)["file"])


def test_text_sections(unit_of):
    text = render_text(build_report(unit_of(SRC)))
    assert text.count("\nkernel ") + text.startswith("kernel ") == 2
    assert "host host (line 13)" in text
    assert "    in: stencil layout x*1 window (0) (1) extent x[0,1] border x=clamp(n)" in text
    assert "    0 -> 1 raw tmp" in text


def test_dot(unit_of):
    dot = render_dot(build_report(unit_of(SRC)))
    assert dot.startswith("digraph pipelines {")
    assert 'subgraph cluster_0 {\n    label="host";' in dot
    assert 'h0_0 [label="0: a"];' in dot
    assert 'h0_0 -> h0_1 [label="tmp"];' in dot
    assert dot == render_dot(build_report(unit_of(SRC)))
