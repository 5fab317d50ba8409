"""Coordinates written as a vector (`const int2 p = make_int2(...)`, cs344) or through copies
of the built-ins (`int tx = threadIdx.x; ... bx * BLOCK + tx`, Rodinia), respelled into
plain coordinate declarations (see the package's docstring)."""

from __future__ import annotations

import re
from dataclasses import replace

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.passes.vertical.kernel.respell.text import (
    Edit,
    fresh_name,
    is_written,
    keep_lines,
    own_text,
    parent_map,
)
from cudafuse.passes.vertical.kernel.view import coordinate

_SCALAR = {"int2": "int", "int3": "int", "uint2": "unsigned int", "uint3": "unsigned int"}


_FIELDS = ("x", "y", "z")


_BUILTINS = ("threadIdx", "blockIdx", "blockDim")


_INTEGRAL = re.compile(r"^(?:const\s+)?((?:unsigned|signed)?\s*(?:int|long|long long|short)|"
                       r"unsigned|uint|size_t|int\d+_t|uint\d+_t)$")


def vectors(unit: TranslationUnit, fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """`const int2 p = make_int2(<x coordinate>, <y coordinate>);` used only as p.x, p.y."""
    assert fn.body is not None
    parents = parent_map(fn)
    edits: list[Edit] = []
    names: list[str] = []
    for stmt in fn.body.body:
        if not (isinstance(stmt, n.DeclStmt) and len(stmt.decls) == 1):
            continue
        d = stmt.decls[0]
        const, _, vtype = d.var_type.rpartition(" ")
        init = d.init
        while isinstance(init, n.Cast) and not init.explicit:
            init = init.operand
        if vtype not in _SCALAR or const not in ("", "const") or not (
                isinstance(init, n.Call) and init.callee == f"make_{vtype}") or \
                not all(coordinate(a) for a in init.args):
            continue
        fields = _FIELDS[:len(init.args)]
        uses = [x for x in fn.body.walk() if isinstance(x, n.Ref) and x.decl == d.decl]
        members = [parents.get(id(u)) for u in uses]
        if not all(isinstance(m, n.Member) and not m.arrow and m.field_name in fields and
                   not is_written(m, parents) and re.fullmatch(
                       rf"{re.escape(d.name)}\s*\.\s*{m.field_name}", own_text(data, m))
                   for m in members):
            continue
        args = [own_text(data, a) for a in init.args]
        seps = [data[a.span.end:b.span.start].decode()
                for a, b in zip(init.args, init.args[1:], strict=False)]
        if not all(re.fullmatch(r"\s*,\s*", s) for s in seps):
            continue
        old = own_text(data, stmt)
        pattern = (rf"(?:const\s+)?{vtype}\s+{re.escape(d.name)}\s*=\s*make_{vtype}\s*\(\s*" +
                   "".join(re.escape(a) + re.escape(s) for a, s in zip(args, seps, strict=False)) +
                   re.escape(args[-1]) + r"\s*\)\s*;")
        if not re.fullmatch(pattern, old):
            continue  # spelled through a macro, or with comments inside: left as written
        scalars = {f: fresh_name(f"{d.name}_{f}", data) for f in fields}
        decls = "".join(f"{scalars[f]} = ({a})" + (seps[k] if k < len(seps) else ";")
                        for k, (f, a) in enumerate(zip(fields, args, strict=True)))
        edits.append(Edit(stmt.span.start, stmt.span.end,
                           keep_lines(old, f"{const + ' ' if const else ''}"
                                            f"{_SCALAR[vtype]} {decls}")))
        edits += [Edit(m.span.start, m.span.end, scalars[m.field_name])
                  for m in members if isinstance(m, n.Member)]
        names.append(f"{vtype} '{d.name}' ({', '.join(scalars.values())})")
    note = (f"coordinates {', '.join(names)} read as one variable per dimension, so that "
            "its thread mapping is recognised") if names else ""
    return edits, note


def copies(unit: TranslationUnit, fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """`int tx = threadIdx.x; int bx = blockIdx.x;` never written, where replacing their
    reads by the built-ins makes a later top-level declaration a coordinate."""
    assert fn.body is not None
    parents = parent_map(fn)
    copies: dict[str, tuple[n.VarDecl, str]] = {}
    stmts: list[n.DeclStmt] = []
    for stmt in fn.body.body:
        if not isinstance(stmt, n.DeclStmt):
            continue
        found = [(d, _builtin(d)) for d in stmt.decls]
        if all(b for _, b in found):
            stmts.append(stmt)
            copies.update((d.decl, (d, b)) for d, b in found if b)
    if not copies:
        return [], ""
    uses = [x for x in fn.body.walk() if isinstance(x, n.Ref) and x.decl in copies]
    if any(is_written(u, parents) or own_text(data, u) != u.name for u in uses):
        return [], ""
    helped = [d for stmt in fn.body.body if isinstance(stmt, n.DeclStmt) for d in stmt.decls
              if d.init is not None and _coordinates(d.init) is None and
              _coordinates(_substitute(d.init, copies)) is not None]
    if not helped:
        return [], ""
    edits = [Edit(s.span.start, s.span.end, keep_lines(own_text(data, s), "")) for s in stmts]
    edits += [Edit(u.span.start, u.span.end, _spelling(*copies[u.decl])) for u in uses]
    names = ", ".join(f"'{d.name}'" for d, _ in copies.values())
    return edits, (f"copies of the thread and block indices ({names}) read as the built-ins, "
                   f"so that '{helped[0].name}' is recognised as its thread coordinate")


def _coordinates(e: n.Expr) -> object | None:
    """A coordinate, or a make_int2(...) of coordinates (see vectors), else None."""
    while isinstance(e, n.Cast) and not e.explicit:
        e = e.operand
    if isinstance(e, n.Call) and e.callee.startswith("make_") and e.args:
        return e if all(coordinate(a) for a in e.args) else None
    return coordinate(e)


def _builtin(d: n.VarDecl) -> str:
    """'threadIdx.x' when `d` is an integral copy of that built-in, else ''."""
    e = d.init
    while isinstance(e, n.Cast):
        e = e.operand
    # `const` is recorded among the storage words, but a const copy is still a copy.
    if d.array_dims or d.storage - {"const"} or not _INTEGRAL.match(d.var_type.strip()) or not (
            isinstance(e, n.Member) and isinstance(e.base, n.Ref) and e.base.kind == "builtin"
            and e.base.name in _BUILTINS and e.field_name in _FIELDS):
        return ""
    return f"{e.base.name}.{e.field_name}"


def _spelling(d: n.VarDecl, builtin: str) -> str:
    vtype = re.sub(r"^const\s+", "", d.var_type.strip())
    return builtin if vtype in ("unsigned int", "unsigned") else f"(({vtype}){builtin})"


def _substitute(e: n.Expr, copies: dict[str, tuple[n.VarDecl, str]]) -> n.Expr:
    """`e` with each read of a copy replaced by its built-in, in the tree (for `coordinate`)."""
    if isinstance(e, n.Ref) and e.decl in copies:
        base, field = copies[e.decl][1].split(".")
        return n.Member(n.Ref(base, kind="builtin"), field)
    if isinstance(e, n.Binary):
        return replace(e, lhs=_substitute(e.lhs, copies), rhs=_substitute(e.rhs, copies))
    if isinstance(e, n.Cast):
        return replace(e, operand=_substitute(e.operand, copies))
    if isinstance(e, n.Call):
        return replace(e, args=tuple(_substitute(a, copies) for a in e.args))
    return e
