"""Lowering libclang cursors to the IR: operators, statements, references, launches, spans."""

from __future__ import annotations

from pathlib import Path

import pytest

from cudafuse.frontend import parse_file
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit

SOURCE = """\
enum Mode { kA = 3, kB };
const int G = 7;
__constant__ float W[9];
template <typename T, int R>
__global__ void k(T *p, int n) {
  const int r = 2;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  i += R; i <<= 1; ++i; i--; --i; i++;
  p[i] = (T)(i > n ? -i : ~i) + static_cast<T>(W[kB] * G + r);
  for (;;) { break; }
  for (; i < n;) { i++; }
  for (int j = 0;; ++j) { if (j > 3) continue; }
  do { i--; } while (i > 0);
  while (i < 3) i++;
  switch (i) { case 0: p[0] = 1; break; default: break; }
  p[!i] = sizeof(T) + *p + (&p[0])[1];
}
__global__ void plain(float *x) { x[0] = 1; }
typedef struct CUstream_st *S;
void host(float *x, S st) {
  k<float, 3><<<1, 2>>>(x, 4);
  plain<<<dim3(1, 2), 32, 64>>>(x);
  plain<<<1, 32, 0, st>>>(x);
  ::plain <<< 4, 8 >>> (x);
}
"""


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> TranslationUnit:
    path = tmp_path_factory.mktemp("lower") / "k.cu"
    path.write_text(SOURCE)
    result = parse_file(str(path))
    assert result.diagnostics == []
    return result.unit


def kernel(unit: TranslationUnit) -> Function:
    fn = unit.function("k")
    assert fn is not None and fn.body is not None
    return fn


def nodes_of(fn: Function, cls: type) -> list:
    assert fn.body is not None
    return [x for x in fn.body.walk() if isinstance(x, cls)]


def stmt_at(unit: TranslationUnit, line: int) -> list[n.Stmt]:
    body = kernel(unit).body
    assert body is not None
    return [s for s in body.body if s.span.line == line]


def test_functions_and_templates(unit: TranslationUnit) -> None:
    fns = {f.name: f for f in unit.functions}
    assert list(fns) == ["k", "plain", "host"]
    assert fns["k"].is_kernel and fns["k"].is_template
    assert [(t.name, t.kind, t.type) for t in fns["k"].template_params] == [
        ("T", "type", ""), ("R", "value", "int")]
    assert [p.name for p in fns["k"].params] == ["p", "n"]
    assert fns["k"].params[0].is_pointer and fns["k"].params[0].pointee == "T"
    assert fns["host"].space == "host" and not fns["plain"].is_template
    assert [g.name for g in unit.globals] == ["G", "W"]
    assert [g.space for g in unit.globals] == ["host", "constant"]


def test_compound_assignment_and_increments(unit: TranslationUnit) -> None:
    stmts = stmt_at(unit, 8)
    exprs = [s.expr for s in stmts if isinstance(s, n.ExprStmt)]
    assert [type(e).__name__ for e in exprs] == ["Binary", "Binary", "Unary", "Unary", "Unary",
                                                 "Unary"]
    assert [e.op for e in exprs] == ["+=", "<<=", "++", "--", "--", "++"]
    assert [getattr(e, "postfix", None) for e in exprs[2:]] == [False, True, False, True]
    assert exprs[0].is_assignment and exprs[1].is_assignment
    assert [unit.text(e.span) for e in exprs] == ["i += R", "i <<= 1", "++i", "i--", "--i", "i++"]


def test_casts_ternary_unary(unit: TranslationUnit) -> None:
    (stmt,) = stmt_at(unit, 9)
    assert isinstance(stmt, n.ExprStmt) and isinstance(stmt.expr, n.Binary)
    assert stmt.expr.op == "=" and isinstance(stmt.expr.lhs, n.Index)
    casts = [x for x in stmt.walk() if isinstance(x, n.Cast)]
    assert [unit.text(c.span) for c in casts] == ["(T)(i > n ? -i : ~i)",
                                                   "static_cast<T>(W[kB] * G + r)"]
    (cond,) = [x for x in stmt.walk() if isinstance(x, n.Cond)]
    assert isinstance(cond.cond, n.Binary) and cond.cond.op == ">"
    assert isinstance(cond.then, n.Unary) and cond.then.op == "-"
    assert isinstance(cond.else_, n.Unary) and cond.else_.op == "~"
    ops = {x.op for x in kernel(unit).body.walk() if isinstance(x, n.Unary)}
    assert {"!", "*", "&"} <= ops


def test_for_loops_with_missing_header_parts(unit: TranslationUnit) -> None:
    fors = [s for s in kernel(unit).body.body if isinstance(s, n.For)]
    assert len(fors) == 3
    forever, cond_only, no_cond = fors
    assert (forever.init, forever.cond, forever.inc) == (None, None, None)
    assert isinstance(forever.body, n.Compound) and isinstance(forever.body.body[0], n.Break)
    assert cond_only.init is None and cond_only.inc is None
    assert unit.text(cond_only.cond.span) == "i < n"
    assert isinstance(no_cond.init, n.DeclStmt) and no_cond.cond is None
    assert unit.text(no_cond.inc.span) == "++j"
    assert any(isinstance(x, n.Continue) for x in no_cond.walk())


def test_do_while_while_and_switch(unit: TranslationUnit) -> None:
    loops = [s for s in kernel(unit).body.body if isinstance(s, n.While)]
    assert [w.do_while for w in loops] == [True, False]
    assert unit.text(loops[0].cond.span) == "i > 0"
    assert isinstance(loops[0].body, n.Compound)
    (switch,) = stmt_at(unit, 15)
    assert isinstance(switch, n.OtherStmt) and switch.kind == "SWITCH_STMT"
    # The opaque switch still exposes what it reads and writes to the analyses.
    assert any(isinstance(x, n.Ref) and x.name == "p" for x in switch.walk())


def test_ref_kinds_and_constant_values(unit: TranslationUnit) -> None:
    refs = {(r.name, r.kind, r.const_value) for r in nodes_of(kernel(unit), n.Ref)}
    assert ("p", "param", None) in refs
    assert ("i", "local", None) in refs
    assert ("r", "local", 2) in refs
    assert ("G", "global", 7) in refs
    assert ("W", "global", None) in refs
    assert ("kB", "enum", 4) in refs
    assert ("R", "template_param", None) in refs
    assert {name for name, kind, _ in refs if kind == "builtin"} == {
        "threadIdx", "blockIdx", "blockDim"}


def test_decl_ids_distinguish_declarations(unit: TranslationUnit) -> None:
    decls = {r.decl for r in nodes_of(kernel(unit), n.Ref) if r.name == "i"}
    assert len(decls) == 1 and decls.pop().startswith("i@")
    j_refs = {r.decl for r in nodes_of(kernel(unit), n.Ref) if r.name == "j"}
    assert len(j_refs) == 1


def test_sizeof_of_a_dependent_type_is_opaque(unit: TranslationUnit) -> None:
    others = [x for x in nodes_of(kernel(unit), n.OtherExpr) if x.kind == "CXX_UNARY_EXPR"]
    assert [unit.text(o.span) for o in others] == ["sizeof(T)"]


def test_launches(unit: TranslationUnit) -> None:
    launches = unit.launches["host"]
    assert [ln.kernel for ln in launches] == ["k", "plain", "plain", "plain"]
    tmpl, two, three, four = launches
    assert tmpl.template_args == "<float, 3>"
    assert unit.text(tmpl.callee_span) == "k<float, 3>"
    assert unit.text(tmpl.config_span) == "k<float, 3><<<1, 2>>>"
    assert tmpl.shared is None and tmpl.stream is None
    assert [unit.text(a.span) for a in tmpl.args] == ["x", "4"]
    assert unit.text(two.config_span) == "plain<<<dim3(1, 2), 32, 64>>>"
    assert unit.text(two.grid.span) == "dim3(1, 2)"
    assert isinstance(two.shared, n.IntLit) and two.shared.value == 64 and two.stream is None
    assert isinstance(three.stream, n.Ref) and three.stream.name == "st"
    assert isinstance(three.shared, n.IntLit) and three.shared.value == 0
    assert unit.text(four.config_span) == "::plain <<< 4, 8 >>>"
    for ln in launches:
        assert ln.kernel_decl.startswith(ln.kernel + "@")
        assert unit.text(ln.span).endswith("(x)") or unit.text(ln.span).endswith("(x, 4)")


def test_spans_line_and_col(unit: TranslationUnit) -> None:
    data = unit.source.data
    for fn in unit.functions:
        for node in fn.body.walk():
            sp = node.span
            if not sp.file:
                continue
            assert unit.source.line_col(sp.start) == (sp.line, sp.col), node
        assert unit.text(fn.name_span) == fn.name
    k = kernel(unit)
    assert (k.span.line, k.span.col) == (4, 1)
    assert data[k.body_span.start:k.body_span.start + 1] == b"{"
    assert data[k.body_span.end - 1:k.body_span.end] == b"}"


def test_macro_expansions_span_the_invocation(tmp_path: Path) -> None:
    src = tmp_path / "m.cu"
    src.write_text("#define IDX(x, y, w) ((y) * (w) + (x))\n"
                   "__global__ void k(float *p, int w) {\n"
                   "  p[IDX(threadIdx.x, blockIdx.x, w)] = 1.0f;\n"
                   "}\n")
    unit = parse_file(str(src)).unit
    (index,) = [x for x in unit.kernels[0].body.walk() if isinstance(x, n.Index)]
    assert unit.text(index.span) == "p[IDX(threadIdx.x, blockIdx.x, w)]"
    assert unit.text(index.index.span) == "IDX(threadIdx.x, blockIdx.x, w)"
    # The arithmetic inside the macro is still lowered in full.
    assert isinstance(index.index, n.Binary) and index.index.op == "+"


def test_launch_bounds_and_extern_c(tmp_path: Path) -> None:
    src = tmp_path / "b.cu"
    src.write_text("#define B 128\n"
                   "__global__ void __launch_bounds__(B, 2) k(float *p) { p[0] = 1; }\n"
                   "extern \"C\" void run(float *p) { k<<<1, B>>>(p); }\n"
                   "extern \"C\" {\nvoid run2(float *p) { k<<<1, 1>>>(p); }\n}\n")
    unit = parse_file(str(src)).unit
    fns = {f.name: f for f in unit.functions}
    assert fns["k"].launch_bounds == "B, 2"
    assert fns["run"].extern_c and fns["run2"].extern_c and not fns["k"].extern_c


def test_launch_bounds_keep_their_own_parentheses(tmp_path: Path) -> None:
    """`__launch_bounds__((T * 2))` and Rodinia's `__launch_bounds__(CTMIN(T, 512), 2)`: the
    arguments up to the matching parenthesis, so the thread count still evaluates."""
    from cudafuse.analysis.blocksize import launch_bound_threads
    from cudafuse.codegen.templates import KernelRef

    src = tmp_path / "b.cu"
    src.write_text("#define CTMIN(a, b) ((a) < (b) ? (a) : (b))\n#define T 256\n"
                   "__global__ void __launch_bounds__(CTMIN(T, 512), 2) k(float *p) { p[0] = 1; }\n"
                   "__global__ void __launch_bounds__((T * 2)) k2(float *p) { p[0] = 1; }\n")
    unit = parse_file(str(src)).unit
    fns = {f.name: f for f in unit.functions}
    assert fns["k"].launch_bounds == "CTMIN(T, 512), 2"
    assert fns["k2"].launch_bounds == "(T * 2)"
    assert launch_bound_threads(unit, KernelRef(fns["k2"])) == 512


def test_range_for_loop_variable_is_a_vardecl(tmp_path: Path) -> None:
    src = tmp_path / "r.cu"
    src.write_text("__global__ void k(int *p) {\n  int a[2] = {1, 2};\n"
                   "  for (int v : a) p[v] = 0;\n}\n")
    unit = parse_file(str(src)).unit
    (loop,) = [x for x in unit.kernels[0].body.walk()
               if isinstance(x, n.OtherStmt) and x.kind == "CXX_FOR_RANGE_STMT"]
    assert any(isinstance(x, n.VarDecl) and x.name == "v" for x in loop.items)


def test_declarations_before_definitions_share_one_decl_id(tmp_path: Path) -> None:
    src = tmp_path / "fwd.cu"
    src.write_text("__device__ float helper(float v);\n"
                   "__global__ void k(float *p);\n"
                   "extern __device__ float g_scale;\n"
                   "void run(float *p) { k<<<1, 32>>>(p); }\n"
                   "__global__ void k(float *p) { p[threadIdx.x] = helper(g_scale); }\n"
                   "__device__ float helper(float v) { return 2 * v; }\n"
                   "__device__ float g_scale = 1.5f;\n")
    unit = parse_file(str(src)).unit
    fns = {f.name: f for f in unit.functions if f.body is not None}
    (launch,) = unit.launches["run"]
    assert launch.kernel_decl == fns["k"].decl
    (call,) = [x for x in fns["k"].body.walk() if isinstance(x, n.Call)]
    assert call.callee_decl == fns["helper"].decl
    (ref,) = [x for x in fns["k"].body.walk() if isinstance(x, n.Ref) and x.name == "g_scale"]
    assert {g.decl for g in unit.globals} == {ref.decl}


def test_member_functions_are_lowered_apart(tmp_path: Path) -> None:
    src = tmp_path / "cls.cu"
    src.write_text("struct View {\n"
                   "  float *data; int pitch;\n"
                   "  __device__ float &at(int x, int y) { return data[y * pitch + x]; }\n"
                   "  __device__ float sum() const;\n"
                   "  struct Inner { __device__ int one() const { return 1; } };\n"
                   "};\n"
                   "__device__ float View::sum() const { return data[0] + data[1]; }\n"
                   "template <typename T> struct Box {\n"
                   "  T v;\n"
                   "  __device__ T get() const { return v; }\n"
                   "};\n"
                   "__global__ void k(View v, Box<float> b) { v.at(0, 0) = b.get() + v.sum(); }\n")
    unit = parse_file(str(src)).unit
    assert [f.name for f in unit.functions] == ["k"]  # name lookups see free functions only
    assert [(m.parent, m.name, m.body is not None) for m in unit.methods] == [
        ("View", "at", True), ("View", "sum", False), ("Inner", "one", True),
        ("View", "sum", True), ("Box", "get", True)]
    calls = {c.callee: c for c in unit.kernels[0].body.walk() if isinstance(c, n.Call)}
    assert set(calls) == {"at", "get", "sum"}
    assert unit.callee(calls["at"].callee_decl).name == "at"
    out_of_line = unit.callee(calls["sum"].callee_decl)
    assert out_of_line is not None and out_of_line.span.line == 7
    # Box<float>::get is an instantiation of the member lowered from the template.
    assert calls["get"].callee == "get"
