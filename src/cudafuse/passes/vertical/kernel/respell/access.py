"""Accesses through `__ldg`, pointer arithmetic and row pointers respelled into subscripts
of the pointer parameter (`p[i]`)."""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.kernel.respell.text import (
    Edit,
    bare,
    impure,
    keep_lines,
    own_text,
    parent_map,
    written_ref,
)


def loads(fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """`__ldg(&p[i])`, `__ldg(p + i)`, `*(p + i)` on a pointer parameter p, as `p[i]`."""
    assert fn.body is not None
    params = {p.decl for p in fn.params if p.is_pointer}
    edits: list[Edit] = []
    for node in fn.body.walk():
        found = _plain_load(node, params)
        if found is None:
            continue
        ref, terms = found
        text = own_text(data, node)
        if not text or any(e.start <= node.span.start < e.end for e in edits):
            continue  # (inside one already respelled: the outer one keeps its text)
        if own_text(data, ref) != ref.name or not all(own_text(data, t) for _, t in terms):
            continue  # spelled through a macro
        index = own_text(data, terms[0][1]) if len(terms) == 1 and not terms[0][0] else \
            " ".join(f"{'-' if neg else '+' if k else ''} ({own_text(data, t)})".strip()
                     for k, (neg, t) in enumerate(terms))
        edits.append(Edit(node.span.start, node.span.end, f"{ref.name}[{index}]"))
    # Outermost first so that nested ones are skipped above; apply order is by offset.
    names = sorted({e.text.split("[")[0] for e in edits})
    note = (f"accesses of {', '.join(repr(x) for x in names)} through __ldg or pointer "
            "arithmetic read as subscripts") if edits else ""
    return edits, note


Terms = list[tuple[bool, n.Expr]]  # (subtracted, term) of an index written as a sum


def _plain_load(node: n.Node, params: set[str]) -> tuple[n.Ref, Terms] | None:
    """(p, terms of i) when `node` is `__ldg(&p[i])`, `__ldg(p + i)` or `*(p + i)`, the
    offset any sum and difference of integers around p (`p + y * w + x - 1`)."""
    if isinstance(node, n.Call) and node.callee == "__ldg" and len(node.args) == 1:
        arg = bare(node.args[0])
        if isinstance(arg, n.Unary) and arg.op == "&" and isinstance(
                idx := bare(arg.operand), n.Index):
            base = bare(idx.base)
            if isinstance(base, n.Ref) and base.decl in params:
                return base, [(False, idx.index)]
            return None
        return _sum(arg, params)
    if isinstance(node, n.Unary) and node.op == "*" and not node.postfix:
        return _sum(bare(node.operand), params)
    return None


def _sum(e: n.Expr, params: set[str]) -> tuple[n.Ref, Terms] | None:
    terms: Terms = []
    _flatten(e, False, terms)
    ptrs = [t for neg, t in terms if isinstance(t, n.Ref) and t.decl in params]
    if len(ptrs) != 1 or len(terms) < 2 or any(
            neg for neg, t in terms if t is ptrs[0]) or any(
            bare(t).type.endswith("*") for _, t in terms if t is not ptrs[0]):
        return None
    return ptrs[0], [(neg, t) for neg, t in terms if t is not ptrs[0]]


def _flatten(e: n.Expr, neg: bool, out: Terms) -> None:
    e = bare(e)
    if isinstance(e, n.Binary) and e.op in ("+", "-") and e.type.endswith("*"):
        _flatten(e.lhs, neg, out)  # pointer arithmetic: the chain goes on
        _flatten(e.rhs, neg != (e.op == "-"), out)
    else:
        out.append((neg, e))


def rows(fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """`float *row = p + y * w; ... row[x]` with p a pointer parameter, the local never
    written, only subscripted, and its offset reading only parameters and locals that are
    never written: every `row[e]` becomes `p[(y * w) + (e)]` and the declaration goes."""
    assert fn.body is not None
    params = {p.decl for p in fn.params if p.is_pointer}
    parents = parent_map(fn)
    written = {r.decl for x in fn.body.walk() for r in [written_ref(x)] if r is not None}
    edits: list[Edit] = []
    names: list[str] = []
    for stmt in fn.body.walk():
        if not (isinstance(stmt, n.DeclStmt) and len(stmt.decls) == 1):
            continue
        d = stmt.decls[0]
        found = _sum(bare(d.init), params) if d.init is not None and \
            d.var_type.rstrip().endswith("*") else None
        if found is None or d.decl in written:
            continue
        base, terms = found
        if any(isinstance(r, n.Ref) and r.kind == "local" and r.decl in written
               for _, t in terms for r in t.walk()) or any(impure(t) for _, t in terms):
            continue
        uses = [x for x in fn.body.walk() if isinstance(x, n.Ref) and x.decl == d.decl]
        subs = [parents.get(id(u)) for u in uses]
        if not uses or not all(isinstance(i, n.Index) and bare(i.base) is u and
                               own_text(data, u) == u.name and own_text(data, i.index)
                               for u, i in zip(uses, subs, strict=True)):
            continue
        if not all(own_text(data, t) for _, t in terms) or own_text(data, base) != base.name:
            continue
        offset = " ".join(f"{'-' if neg else '+' if k else ''} ({own_text(data, t)})".strip()
                          for k, (neg, t) in enumerate(terms))
        edits.append(Edit(stmt.span.start, stmt.span.end, keep_lines(own_text(data, stmt), "")))
        for i in subs:
            assert isinstance(i, n.Index)
            edits.append(Edit(i.span.start, i.span.end,
                               f"{base.name}[({offset}) + ({own_text(data, i.index)})]"))
        names.append(d.name)
    note = (f"row pointers {', '.join(repr(x) for x in names)} read as subscripts of the "
            "buffers they point into") if names else ""
    return edits, note
