"""Counting a kernel's arithmetic for the cost model: ALU and SFU operations per thread.

Loops with constant bounds count once per iteration; calls to the file's own `__device__`
functions count their bodies. Only the order of magnitude matters (it prices recomputation)."""

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


def _trips(loop: n.For) -> int:
    """Iterations of `for (int i = a; i <= b; ++i)` with constant a, b; 1 when unknown."""
    init = loop.init
    if not (isinstance(init, n.DeclStmt) and len(init.decls) == 1 and init.decls[0].init
            is not None and isinstance(loop.cond, n.Binary)):
        return 1
    start = _const(init.decls[0].init)
    stop = _const(loop.cond.rhs)
    if start is None or stop is None or loop.cond.op not in ("<", "<="):
        return 1
    count = stop - start + (1 if loop.cond.op == "<=" else 0)
    return max(1, min(count, MAX_TRIPS))


def _const(e: n.Expr) -> int | None:
    while isinstance(e, n.Cast):
        e = e.operand
    if isinstance(e, n.IntLit):
        return e.value
    if isinstance(e, n.Ref) and isinstance(e.const_value, int):
        return e.const_value
    if isinstance(e, n.Unary) and e.op == "-":
        v = _const(e.operand)
        return None if v is None else -v
    return None


def count_ops(unit: TranslationUnit, node: n.Node, depth: int = 0) -> tuple[int, int]:
    """(ALU, SFU) operations executed by one thread running `node`."""
    alu = sfu = 0
    if isinstance(node, n.For):
        a, s = 0, 0
        for child in (node.cond, node.inc, node.body):
            if child is not None:
                ca, cs = count_ops(unit, child, depth)
                a, s = a + ca, s + cs
        t = _trips(node)
        return a * t, s * t
    if isinstance(node, n.Binary) and node.op in ALU_OPS:
        alu += 1
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
            a, s = count_ops(unit, child, depth)
            alu, sfu = alu + a, sfu + s
    return alu, sfu
