"""Counting a kernel's arithmetic for the cost model: ALU and SFU operations per thread.

Counted as the compiler leaves them, roughly: a loop with constant bounds is unrolled, so
its body counts once per iteration and its condition and increment not at all, and an
operation whose operands are all compile-time values (literals, constants, the induction
variables of such loops: `(j + 1) * 3 + (i + 1)` indexing a filter's weights) is folded
away and counts nothing. A division or modulo by a run-time value counts DIVIDE operations
(nvcc expands it into a sequence: a reciprocal and Newton steps for floats, about twenty
instructions for 32-bit integers). Calls to the file's own `__device__` functions count
their bodies. Only the order of magnitude matters (it prices recomputation); the cost
model's c_alu is fitted to measured times with these counts (docs/cost-model.md)."""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.ir.program import TranslationUnit

SFU = frozenset({
    "expf", "exp", "exp2f", "exp10f", "__expf", "logf", "log", "log2f", "log10f", "__logf",
    "__log2f", "powf", "pow", "__powf", "sqrtf", "sqrt", "rsqrtf", "rsqrt", "cbrtf", "sinf",
    "cosf", "tanf", "__sinf", "__cosf", "__tanf", "sincosf", "atan2f", "atanf", "asinf",
    "acosf", "tanhf", "sinhf", "coshf", "erff", "hypotf", "__fdividef", "__frcp_rn",
    "__fsqrt_rn", "expm1f", "log1pf",
})
ALU_OPS = frozenset({"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=",
                     "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=",
                     "&=", "|=", "^="})
MAX_TRIPS = 4096
DIVIDE = 8  # operations a division or modulo by a run-time value counts


def _induction(loop: n.For) -> str | None:
    init = loop.init
    if isinstance(init, n.DeclStmt) and len(init.decls) == 1:
        return init.decls[0].decl or init.decls[0].name
    return None


def _trips(loop: n.For) -> int | None:
    """Iterations of `for (int i = a; i <= b; ++i)` with constant a, b; None when unknown."""
    init = loop.init
    if not (isinstance(init, n.DeclStmt) and len(init.decls) == 1 and init.decls[0].init
            is not None and isinstance(loop.cond, n.Binary)):
        return None
    start = n.int_constant(init.decls[0].init)
    stop = n.int_constant(loop.cond.rhs)
    if start is None or stop is None or loop.cond.op not in ("<", "<="):
        return None
    count = stop - start + (1 if loop.cond.op == "<=" else 0)
    return max(1, min(count, MAX_TRIPS))


def _static(e: n.Node, folded: frozenset[str]) -> bool:
    """Whether `e` is a compile-time value once constant-trip loops are unrolled."""
    if isinstance(e, (n.IntLit, n.FloatLit)):
        return True
    if isinstance(e, n.Ref):
        return e.const_value is not None or (e.decl or e.name) in folded
    if isinstance(e, (n.Cast, n.Unary)) and not (isinstance(e, n.Unary) and
                                                   e.op in ("*", "&", "++", "--")):
        return _static(e.operand, folded)
    if isinstance(e, n.Binary) and not e.is_assignment and e.op != ",":
        return _static(e.lhs, folded) and _static(e.rhs, folded)
    if isinstance(e, n.Cond):
        return all(_static(c, folded) for c in (e.cond, e.then, e.else_))
    return False


def count_ops(unit: TranslationUnit, node: n.Node, depth: int = 0,
              folded: frozenset[str] = frozenset()) -> tuple[int, int]:
    """(ALU, SFU) operations executed by one thread running `node`. `folded`: the
    induction variables of the unrolled loops around it (compile-time values there)."""
    alu = sfu = 0
    if isinstance(node, n.For):
        trips = _trips(node)
        var = _induction(node)
        if trips is not None and var is not None:  # unrolled: the body, `trips` times
            a, s = count_ops(unit, node.body, depth, folded | {var})
            return a * trips, s * trips
        a, s = 0, 0
        for child in (node.cond, node.inc, node.body):
            if child is not None:
                ca, cs = count_ops(unit, child, depth, folded)
                a, s = a + ca, s + cs
        return a, s
    if isinstance(node, n.Expr) and _static(node, folded):
        return 0, 0
    if isinstance(node, n.Binary) and node.op in ALU_OPS:
        divides = node.op in ("/", "%", "/=", "%=") and not _static(node.rhs, folded)
        alu += DIVIDE if divides else 1
    elif isinstance(node, (n.Unary, n.Cond)):
        alu += 1
    elif isinstance(node, n.Call):
        if node.callee in SFU:
            sfu += 1
        elif depth < 8 and (fn := unit.function(node.callee)) is not None and fn.body:
            a, s = count_ops(unit, fn.body, depth + 1)
            alu, sfu = alu + a, sfu + s
        else:
            alu += 1
    for child in node.children():
        if child is not None:
            a, s = count_ops(unit, child, depth, folded)
            alu, sfu = alu + a, sfu + s
    return alu, sfu
