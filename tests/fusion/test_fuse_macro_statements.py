"""Kernels whose index statement and guard one macro writes (`#define IDX int i = ...; if (i
>= n) return;`): libclang gives every statement of the expansion the macro use's span, so a
producer's rewrites (guard, index line) fell on the same bytes and `cudafuse fuse` crashed
with exit 3 (OverlappingEdits). Now the producer is refused before emit with the macro's
name and line (kernel/macro_stmts.py) and the file is left as written; a macro that gives
only the index expression, or one in the last kernel (kept as written), still fuses and
matches the original under the emulator; hfuse and --siblings copy such bodies whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from equivalence import compare_entry, fuse_file

import cudafuse.passes.vertical.plan.legality as legality
from cudafuse.cli import main

HOST = """void run(float *a, float *t, float *u, int n) {
  m1<<<(n + 127) / 128, 128>>>(a, t, n);
  m2<<<(n + 127) / 128, 128>>>(%s, u, n);
}
"""
IDX = "#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;\n"
M1 = "__global__ void m1(const float *a, float *t, int n) { IDX t[i] = a[i] * 2.0f; }\n"
M2 = "__global__ void m2(const float *t, float *u, int n) { IDX u[i] = t[i] + 3.0f; }\n"
BOTH = IDX + M1 + M2 + HOST % "t"
# The macro in the last kernel only: the producer is written out, the sink keeps its text.
SINK = IDX + ("__global__ void m1(const float *a, float *t, int n) {\n"
              "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "  if (i < n) t[i] = a[i] * 2.0f;\n}\n") + M2 + HOST % "t"
# Only the index comes from a macro: every statement has its own text.
GID = ("#define GID (blockIdx.x * blockDim.x + threadIdx.x)\n"
       "__global__ void m1(const float *a, float *t, int n) {\n"
       "  int i = GID; if (i >= n) return; t[i] = a[i] * 2.0f; }\n"
       "__global__ void m2(const float *t, float *u, int n) {\n"
       "  int i = GID; if (i < n) u[i] = t[i] + 3.0f; }\n") + HOST % "t"
# 2D, the coordinates' two declarations from one macro, the guard written out.
XY = """#define XY const int x = blockIdx.x * blockDim.x + threadIdx.x; \\
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
__global__ void p1(const float *a, float *t, int w, int h) {
  XY
  if (x >= w || y >= h) return;
  t[y * w + x] = a[y * w + x] * 0.5f;
}
__global__ void p2(const float *t, float *u, int w, int h) {
  XY
  if (x < w && y < h) u[y * w + x] = t[y * w + x] + 1.0f;
}
void go(float *a, float *t, float *u, int w, int h) {
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  p1<<<g, b>>>(a, t, w, h);
  p2<<<g, b>>>(t, u, w, h);
}
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_macro_writing_index_and_guard_is_refused_with_its_name(tmp_path: Path) -> None:
    src, out = _write(tmp_path, "idx.cu", BOTH), tmp_path / "out.cu"
    res = CliRunner().invoke(main, ["fuse", "-o", str(out), str(src)])
    assert res.exit_code == 0, res.output
    assert f"{src}:6:3: note: m1 -> m2: not fused: 'm1': its statements come from macro " \
        "'IDX' (line 1) (used at line 2), which cudafuse cannot rewrite in part" in res.output
    assert out.read_text() == BOTH


def test_two_macro_coordinates_are_refused(tmp_path: Path) -> None:
    src = _write(tmp_path, "xy.cu", XY)
    result = fuse_file(src, tmp_path / "out.cu")
    assert not result.groups
    assert (tmp_path / "out.cu").read_text() == XY
    [edge] = [e for e in result.edges if (e.src, e.dst) == ("p1", "p2")]
    assert edge.refused and not edge.fused
    assert edge.why.startswith("not fused: 'p1': its statements come from macro 'XY' "
                               "(line 1) (used at line 4)"), edge.why


def test_emit_refuses_shared_text_it_was_not_warned_of(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the legality check, emit's own guard leaves the group unfused (was exit 3).
    monkeypatch.setattr(legality, "shared_text_reason", lambda unit, view: None)
    src = _write(tmp_path, "idx.cu", BOTH)
    result = fuse_file(src, tmp_path / "out.cu")
    assert not result.groups
    assert any("two of its rewrites fall on the same text" in note for note in result.notes)
    assert (tmp_path / "out.cu").read_text() == BOTH


# (slow: the emulated builds take seconds)
@pytest.mark.slow
@pytest.mark.parametrize("name, text", [("gid", GID), ("sink", SINK)])
def test_what_has_its_own_text_still_fuses_and_matches(tmp_path: Path, name: str,
                                                       text: str) -> None:
    src, out = _write(tmp_path, f"{name}.cu", text), tmp_path / f"{name}_fused.cu"
    result = fuse_file(src, out)
    assert [g.kernels for g in result.groups] == [["m1", "m2"]]
    for n in (1000, 127, 1):
        compare_entry(src, out, "run", {"n": n})


@pytest.mark.slow
def test_siblings_copy_the_macro_body_whole(tmp_path: Path) -> None:
    text = IDX + M1 + M2 + HOST % "a"  # m2 reads a: independent launches
    src, out = _write(tmp_path, "sib.cu", text), tmp_path / "sib_fused.cu"
    result = fuse_file(src, out, siblings="always")
    assert "cf_run_sib0<<<" in out.read_text(), result.notes
    compare_entry(src, out, "run", {"n": 1000})


def test_hfuse_copies_the_macro_body_whole(tmp_path: Path) -> None:
    src, out = _write(tmp_path, "idx.cu", BOTH), tmp_path / "h.cu"
    res = CliRunner().invoke(main, ["hfuse", str(src), "--kernels", "m1,m2", "--block1",
                                    "128", "--block2", "128", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "{ IDX t[i] = a[i] * 2.0f; }" in out.read_text().split("m1_m2_hfused(")[1]
