"""`for` loops written by a macro (ATen's CUDA_KERNEL_LOOP and the like): the file holds the
invocation, not the header, so lower.py reads the header's parts from the FOR_STMT's
children (clang's fixed order) instead of the ';'s in the text. Forms whose children are
ambiguous (one or two header parts, a condition variable) stay an OtherStmt."""

from __future__ import annotations

from pathlib import Path

import pytest

from cudafuse.frontend import parse_file
from cudafuse.ir import nodes as n
from cudafuse.ir.program import TranslationUnit

SOURCE = """\
#define CUDA_KERNEL_LOOP(i, n) \\
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
#define EXPR_LOOP(i, n) for (i = threadIdx.x; i < (n); i += blockDim.x)
#define FOREVER for (;;)
#define FROM0(i) for (int i = 0;; ++i)
#define WHILE_LT(i, n) for (; i < (n);)
#define CONDVAR(v, n) for (; int v = n; --n)
#define FOR for
__global__ void k(float *y, int n) {
  CUDA_KERNEL_LOOP(idx, n) { y[idx] = 2.0f * y[idx]; }
  int j;
  EXPR_LOOP(j, n) y[j] = 1.0f;
  FOREVER { break; }
  FROM0(q) { if (q > 3) break; }
  WHILE_LT(j, n) { j += 32; }
  CONDVAR(v, n) { y[v] = 1.0f; }
  FOR (int t = 0; t < n; ++t) { y[t] = 0.0f; }
  for (int u = 0; u < n; ++u) { y[u] = 3.0f; }
}
"""


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> TranslationUnit:
    path = tmp_path_factory.mktemp("macro_for") / "k.cu"
    path.write_text(SOURCE)
    result = parse_file(str(path))
    assert result.diagnostics == []
    return result.unit


def loops(unit: TranslationUnit) -> dict[int, n.Stmt]:
    fn = unit.function("k")
    assert fn is not None and fn.body is not None
    return {s.span.line: s for s in fn.body.body
            if isinstance(s, n.For) or isinstance(s, n.OtherStmt) and s.kind == "FOR_STMT"}


def test_the_grid_stride_macro_is_a_for_with_all_its_parts(unit: TranslationUnit) -> None:
    loop = loops(unit)[10]
    assert isinstance(loop, n.For)
    assert isinstance(loop.init, n.DeclStmt) and loop.init.decls[0].name == "idx"
    init = loop.init.decls[0].init
    assert isinstance(init, n.Binary) and init.op == "+"
    assert isinstance(loop.cond, n.Binary) and loop.cond.op == "<"
    assert isinstance(loop.inc, n.Binary) and loop.inc.op == "+="
    assert isinstance(loop.body, n.Compound) and len(loop.body.body) == 1
    # Located at the invocation: line 10, column 3, the header parts too.
    assert (loop.span.line, loop.span.col) == (10, 3)
    assert (loop.cond.span.line, loop.cond.span.col) == (10, 3)


def test_an_expression_init_and_an_empty_header(unit: TranslationUnit) -> None:
    got = loops(unit)
    expr = got[12]
    assert isinstance(expr, n.For) and isinstance(expr.init, n.ExprStmt)
    assert isinstance(expr.init.expr, n.Binary) and expr.init.expr.op == "="
    assert isinstance(expr.body, n.ExprStmt)
    forever = got[13]
    assert isinstance(forever, n.For)
    assert (forever.init, forever.cond, forever.inc) == (None, None, None)


@pytest.mark.parametrize("line", [14, 15, 16])
def test_ambiguous_macro_headers_stay_other(unit: TranslationUnit, line: int) -> None:
    # for (int i = 0;; ++i), for (; i < n;) and a condition variable: which child is which
    # part is not in the children alone.
    assert isinstance(loops(unit)[line], n.OtherStmt)


def test_a_macro_for_keyword_and_a_written_for(unit: TranslationUnit) -> None:
    got = loops(unit)
    for line in (17, 18):
        loop = got[line]
        assert isinstance(loop, n.For)
        assert isinstance(loop.init, n.DeclStmt) and loop.cond is not None and loop.inc
        assert isinstance(loop.inc, n.Unary) and loop.inc.op == "++"


def test_analysis_sees_the_macro_loop(tmp_path: Path) -> None:
    # The vertical pass's kernel view reads the macro's loop as a 1D grid-stride loop
    # (before, its mapping was unknown and the kernel could not be fused as a producer).
    from cudafuse.passes.vertical.kernel.recognise import build_view

    path = tmp_path / "g.cu"
    path.write_text(SOURCE.split("__global__")[0] + """\
__global__ void g(const float *x, float *y, int n) {
  CUDA_KERNEL_LOOP(i, n) { y[i] = x[i] + 1.0f; }
}
""")
    unit = parse_file(str(path)).unit
    fn = unit.function("g")
    assert fn is not None
    view = build_view(fn)
    assert view.guard_kind == "gridstride" and view.producer_reason is None
    assert isinstance(view.loop, n.For) and view.loop.span.line == 10


def test_evaluation_sees_the_macro_loop(tmp_path: Path) -> None:
    # analysis/evaluate.py (cudafuse analyze): a grid-stride loop over x whose variable
    # indexes the stores, which are then the thread's own element (a point access).
    from cudafuse.analysis.report import analyze_unit

    path = tmp_path / "e.cu"
    path.write_text(SOURCE.split("__global__")[0] + """\
__global__ void e(const float *x, float *y, int n) {
  CUDA_KERNEL_LOOP(i, n) { y[i] = x[i] + 1.0f; }
}
""")
    (facts,), _ = analyze_unit(parse_file(str(path)).unit)
    assert tuple(facts.mapping.grid_stride) == (("i", "x"),)


def test_a_body_written_by_the_macro_stays_other(tmp_path: Path) -> None:
    # Nothing of the loop is spelled in the file: the passes, which edit the file's text,
    # would find no statement to edit (the vertical pass emitted the invocation as the
    # value a producer stores), so the loop stays opaque.
    path = tmp_path / "b.cu"
    path.write_text(SOURCE.split("__global__")[0] + """\
#define SCALE_ALL(d, s, n) \\
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x) \\
    d[i] = s[i] * 2.0f;
__global__ void b(const float *x, float *y, int n) {
  SCALE_ALL(y, x, n)
  CUDA_KERNEL_LOOP(i, n) y[i] += 1.0f;
}
""")
    fn = parse_file(str(path)).unit.function("b")
    assert fn is not None and fn.body is not None
    whole, written = fn.body.body
    assert isinstance(whole, n.OtherStmt) and whole.kind == "FOR_STMT"
    assert isinstance(written, n.For) and isinstance(written.body, n.ExprStmt)
