"""Buffers certainly overwritten whole after a launch sequence (killed), and where.

An intermediate the group would not store is still live when something after the sequence
may read it; but a read after a statement that overwrites every byte of it reads that
statement's values, not the sequence's. Such a statement is a `cudaMemset(d, v, size)` or a
`cudaMemcpy(d, src, size, kind)` of a local buffer `d` whose one allocation is
`cudaMalloc(&d, size)` with the same size (compared as a polynomial over the host's
never-reassigned locals, so `n * 4 * sizeof(float)` and `sizeof(float) * (n * 4)` are one
size), reached on every path from the sequence's end: a statement of the block holding the
sequence's last launch, after it, with no `return`, `break`, `continue` or `goto` before it.
A partial memset, one in a branch or a loop, or one of a pointer that may name other buffers
kills nothing. A launch that stores every element is not read here (its store's coverage of
the whole buffer is not shown): such an intermediate stays live.
"""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.passes.vertical.kernel.channels import Poly, poly_add, poly_mul

_KILLERS = {"cudaMemset": 1, "cudaMemcpy": 1}  # callee -> args before the size (after dst)
_JUMPS = (n.Return, n.Break, n.Continue)


def _strip(e: n.Expr) -> n.Expr:
    while isinstance(e, n.Cast):
        e = e.operand
    return e


def size_poly(unit: TranslationUnit, once: dict[str, n.VarDecl], e: n.Expr,
              depth: int = 0) -> Poly | None:
    """A host size expression as a polynomial in its atoms (never-reassigned locals are
    replaced by their values; a parameter, or `sizeof(T)` by its text, is an atom); None
    for anything else (a division, a call)."""
    e = _strip(e)
    if depth > 20:
        return None
    if isinstance(e, n.IntLit):
        return {(): e.value} if e.value else {}
    if isinstance(e, n.Ref):
        if isinstance(e.const_value, int):
            return {(): e.const_value} if e.const_value else {}
        d = once.get(e.decl)
        if d is not None and d.init is not None and not d.array_dims:
            return size_poly(unit, once, d.init, depth + 1)
        return {(e.decl or e.name,): 1} if e.kind in ("param", "local") else None
    if isinstance(e, n.Binary) and e.op in ("+", "-", "*"):
        a = size_poly(unit, once, e.lhs, depth + 1)
        b = size_poly(unit, once, e.rhs, depth + 1)
        if a is None or b is None:
            return None
        return poly_mul(a, b) if e.op == "*" else poly_add(a, b, 1 if e.op == "+" else -1)
    if isinstance(e, n.OtherExpr) and not e.items and e.span.file == unit.path:
        text = unit.code[e.span.start:e.span.end].decode("latin-1")
        if text.replace(" ", "").startswith("sizeof("):
            return {("sizeof:" + text.replace(" ", ""),): 1}
    return None


def _ref_decl(e: n.Expr) -> str | None:
    e = _strip(e)
    return e.decl if isinstance(e, n.Ref) and e.kind == "local" and e.decl else None


def _allocations(host: Function) -> dict[str, n.Expr | None]:
    """Each local pointer given a value only by one `cudaMalloc(&p, size)` -> size; one with
    any other assignment or address use -> None."""
    assert host.body is not None
    out: dict[str, n.Expr | None] = {}
    taken: dict[str, int] = {}
    for node in host.body.walk():
        if isinstance(node, n.Call) and node.callee == "cudaMalloc" and len(node.args) == 2:
            a = _strip(node.args[0])
            if isinstance(a, n.Unary) and a.op == "&" and (d := _ref_decl(a.operand)):
                out[d] = node.args[1] if d not in out else None
        if isinstance(node, n.Unary) and node.op == "&" and (d := _ref_decl(node.operand)):
            taken[d] = taken.get(d, 0) + 1
        if isinstance(node, n.Unary) and node.op in ("++", "--") and \
                (d := _ref_decl(node.operand)):
            out[d] = None
        if isinstance(node, n.Binary) and node.op.endswith("=") and \
                node.op not in ("==", "!=", "<=", ">=") and (d := _ref_decl(node.lhs)):
            out[d] = None
        if isinstance(node, n.VarDecl) and node.init is not None and node.decl and \
                not _null(node.init):
            out[node.decl] = None
    return {d: s for d, s in out.items() if taken.get(d) == 1}


def _null(e: n.Expr) -> bool:
    e = _strip(e)
    return isinstance(e, n.IntLit) and e.value == 0 or \
        isinstance(e, n.OtherExpr) and "null" in e.kind.lower()


def _block_of(body: n.Compound, stmt: n.Stmt) -> tuple[n.Compound, int] | None:
    for node in body.walk():
        if isinstance(node, n.Compound):
            for i, s in enumerate(node.body):
                if s is stmt:
                    return node, i
    return None


def kills(unit: TranslationUnit, host: Function, last: n.Stmt,
          once: dict[str, n.VarDecl]) -> dict[str, tuple[int, int]]:
    """Local buffers certainly overwritten whole after statement `last` (the sequence's
    last launch), each with the span of the first statement that does it."""
    assert host.body is not None
    if any(isinstance(s, n.OtherStmt) and "goto" in s.kind.lower()
           for s in host.body.walk()):
        return {}
    at = _block_of(host.body, last)
    if at is None:
        return {}
    block, i = at
    sizes = _allocations(host)
    out: dict[str, tuple[int, int]] = {}
    for s in block.body[i + 1:]:
        call = _killing_call(s)
        if call is not None:
            d = _ref_decl(call.args[0])
            size = sizes.get(d) if d else None
            src = call.args[1] if call.callee == "cudaMemcpy" else None
            reads_self = src is not None and any(
                isinstance(r, n.Ref) and r.decl == d for r in src.walk())
            if d and size is not None and d not in out and not reads_self:
                whole = size_poly(unit, once, size)
                if whole is not None and whole == size_poly(unit, once, call.args[2]):
                    out[d] = (s.span.start, s.span.end)
        if any(isinstance(x, _JUMPS) for x in s.walk()):
            break
    return out


def _killing_call(s: n.Stmt) -> n.Call | None:
    """The memset or copy an expression statement makes (also inside a checking macro's
    call, `cudaCheck(cudaMemset(...))`), when it makes exactly one such call."""
    if not isinstance(s, n.ExprStmt):
        return None
    calls = [c for c in s.walk() if isinstance(c, n.Call) and c.callee in _KILLERS]
    if len(calls) != 1 or len(calls[0].args) < 3:
        return None
    # (`ok && cudaMemset(...)`, `c ? cudaMemset(...) : 0`, a lambda's body: maybe not run)
    if any(any(x is calls[0] for x in e.walk()) for e in s.walk() if isinstance(e, n.Cond) or
           isinstance(e, n.OtherExpr) or isinstance(e, n.Binary) and e.op in ("&&", "||")):
        return None
    return calls[0]
