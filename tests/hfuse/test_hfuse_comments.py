"""Comments are not code: a commented-out #define is no macro of the file (it neither
clashes with the other file's nor is renamed apart), and a commented-out
__launch_bounds__ gives no default block (test_hfuse_aten.py)."""

from __future__ import annotations

from pathlib import Path

from hfuse_helpers import hfuse


def test_a_commented_out_define_is_no_macro(tmp_path: Path) -> None:
    a, b = tmp_path / "a.cu", tmp_path / "b.cu"
    a.write_text("// #define N 4  (an old value)\n/*\n#define M 3\n*/\n#define N 8\n"
                 "__global__ void ka(float *x) { x[threadIdx.x] = N; }\n")
    b.write_text("#define M 5\n__global__ void kb(float *x) { x[threadIdx.x] = M; }\n")
    out = tmp_path / "f.cu"
    res = hfuse(str(a), str(b), "--block1", "32", "--block2", "32", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "cf_in2_" not in out.read_text()  # M is not renamed apart: one definition
    # The same file with the #define written out is a clash (renamed apart, with a note).
    a.write_text(a.read_text().replace("/*\n#define M 3\n*/", "#define M 3"))
    res = hfuse(str(a), str(b), "--block1", "32", "--block2", "32", "-o", str(out))
    assert res.exit_code == 0 and "'M' is defined in both inputs" in res.output
    assert "cf_in2_M" in out.read_text()
