"""Comments are not code: a commented-out #define is no macro of the file (it neither
clashes with the other file's nor is renamed apart), and a commented-out
__launch_bounds__ gives no default block (test_hfuse_aten.py)."""

from __future__ import annotations

from pathlib import Path

from hfuse_helpers import hfuse

from cudafuse.frontend import parse_file
from cudafuse.ir.code_text import code_only


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


def test_code_only_blanks_comments_and_skipped_branches_keeping_offsets() -> None:
    data = (b'#if 0\n__syncthreads();\n#endif\nint s = 1; // __shared__ float t[4];\n'
            b'const char *u = "http://x /* not a comment */";\n#ifdef NOPE\nint a;\n#else\n'
            b'int b;\n#endif\n')
    skipped = [(0, data.index(b"#endif") + 6),
               (data.index(b"#ifdef"), data.index(b"#else") + 5)]
    code = code_only(data, skipped)
    assert len(code) == len(data) and code.count(b"\n") == data.count(b"\n")
    assert b"__syncthreads" not in code and b"__shared__" not in code and b"int a;" not in code
    # The directives at the ends of each skipped range stay: conditionals still pair up.
    assert code.count(b"#if") == 2 and code.count(b"#endif") == 2 and b"#else" in code
    assert b'"http://x /* not a comment */"' in code and b"int b;" in code


def test_launch_bounds_under_if_0_is_not_the_kernels(tmp_path: Path) -> None:
    a = tmp_path / "a.cu"
    a.write_text("__global__ void\n#if 0\n__launch_bounds__(64)\n#else\n"
                 "__launch_bounds__(128)\n#endif\nka(float *x) { x[threadIdx.x] = 1; }\n"
                 "__global__ void\n#ifdef OLD\n__launch_bounds__(96)\n#endif\n"
                 "kb(float *x) { x[threadIdx.x] = 2; }\n")
    unit = parse_file(str(a)).unit
    assert {f.name: f.launch_bounds for f in unit.kernels} == {"ka": "128", "kb": ""}
    assert b"96" not in unit.code and b"(64)" not in unit.code


def _pair(tmp_path: Path, first: str, second: str, *extra: str) -> tuple[object, Path]:
    a, b, out = tmp_path / "a.cu", tmp_path / "b.cu", tmp_path / "f.cu"
    a.write_text(first)
    b.write_text(second)
    return hfuse(str(a), str(b), "--block1", "64", "--block2", "64", "-o", str(out),
                 *extra), out


KA = "__global__ void ka(float *x) { x[threadIdx.x] = N; }\n"
KB = "__global__ void kb(float *y) { y[threadIdx.x] = 2.0f; }\n"


def test_skipped_branches_define_no_macro_and_undefine_none(tmp_path: Path) -> None:
    # Under #if 0: a second #define N (no clash, nothing renamed apart), an #undef after the
    # kernel (no stale macro), and a use of the other file's macro (no expansion there).
    res, out = _pair(tmp_path, "#define N 8\n" + KA + "#if 0\n#undef N\n#define N 3\n#endif\n",
                     "#ifdef OLD_BUILD\n#define N 5\nint THREADS = N;\n#else\n#define M 1\n"
                     "#endif\n" + KB)
    assert res.exit_code == 0, res.output
    assert "cf_in2_" not in out.read_text() and "#undef" not in res.output
    # The same texts with the branches taken are what the checks are for: N is defined
    # again as ka saw it around the fused kernel (push_macro), b's is renamed apart.
    res, out = _pair(tmp_path, "#define N 8\n" + KA + "#undef N\n#define N 3\n",
                     "#define N 5\n" + KB)
    assert res.exit_code == 0, res.output
    assert '#pragma push_macro("N")\n#undef N\n#define N 8\n' in out.read_text()


def test_a_guard_under_if_0_is_no_guard(tmp_path: Path) -> None:
    helper = "__device__ float twice(float v) { return 2.0f * v; }\n"
    other = "__device__ float twice(float v) { return v + v; }\n"
    guarded = "#ifndef HELPER_H\n#define HELPER_H\n{}#endif\n"
    # The first file's copy of the guarded block is skipped: the second's is the only one,
    # not refused as a different text.
    res, out = _pair(tmp_path, "#define N 8\n#if 0\n" + guarded.format(other) + "#endif\n" + KA,
                     guarded.format(helper) + KB.replace("2.0f", "twice(2.0f)"))
    assert res.exit_code == 0, res.output
    assert "return 2.0f * v" in out.read_text()
    res, _ = _pair(tmp_path, "#define N 8\n" + guarded.format(other) + KA,
                   guarded.format(helper) + KB.replace("2.0f", "twice(2.0f)"))
    assert res.exit_code == 1 and "guarded by 'HELPER_H'" in res.output


def test_launch_bounds_in_a_skipped_branch_give_no_default_block(tmp_path: Path) -> None:
    a, b = tmp_path / "a.cu", tmp_path / "b.cu"
    a.write_text("#define N 8\n__global__ void __launch_bounds__(128) " + KA[16:])
    b.write_text("__global__ void\n#if 0\n__launch_bounds__(256, 3)\n#endif\n" + KB[16:])
    res = hfuse(str(a), str(b), "-o", str(tmp_path / "f.cu"))
    assert res.exit_code != 0 and "has no __launch_bounds__" in res.output, res.output
    b.write_text(b.read_text().replace("#if 0", "#if 1"))
    res = hfuse(str(a), str(b), "-o", str(tmp_path / "f.cu"))
    assert res.exit_code == 0, res.output
