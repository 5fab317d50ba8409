"""Variables declared first and given their one value later (C89 style), respelled into
declarations with that value, so that coordinates written so are read as coordinates:

    unsigned int i, j;                      unsigned int i = threadIdx.x + blockIdx.x * ...;
    i = threadIdx.x + blockIdx.x * ...;  -> unsigned int j = threadIdx.y + blockIdx.y * ...;
    j = threadIdx.y + blockIdx.y * ...;

A scalar declared without a value has none a program may read, so giving it its value where
it is assigned changes nothing, when that assignment is the only write of the variable, a
plain `=` statement of the body's top level, and nothing names the variable before it.
"""

from __future__ import annotations

import re

from cudafuse.ir import nodes as n
from cudafuse.ir.lvalue import write_targets
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.kernel.respell.text import Edit, keep_lines, own_text

_PLAIN_TYPE = re.compile(r"[A-Za-z_][\w ]*\**")


def _writes(body: n.Compound, decl: str) -> int:
    """How many places assign, increment or take the address of variable `decl`."""
    count = 0
    for target in write_targets(body):
        while isinstance(target, n.Cast):
            target = target.operand
        if isinstance(target, n.Ref) and target.decl == decl:
            count += 1
    return count


def _assigned(s: n.Stmt) -> tuple[n.Ref, n.Binary] | None:
    """(variable, assignment) of a statement `v = e;`."""
    if not isinstance(s, n.ExprStmt) or not isinstance(s.expr, n.Binary) or s.expr.op != "=":
        return None
    target = s.expr.lhs
    return (target, s.expr) if isinstance(target, n.Ref) else None


def assigned_once(fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """Each scalar declared without a value at the body's top level whose only write is a
    later `v = e;` statement there, with nothing naming it in between, declared there with
    `e` as its value; the declarations left (if any) keep their place."""
    assert fn.body is not None
    if any(isinstance(x, n.OtherStmt) and x.kind in ("GOTO_STMT", "LABEL_STMT")
           for x in fn.body.walk()):
        return [], ""  # (a jump past a declaration with a value is not C++)
    body = list(fn.body.body)
    edits: list[Edit] = []
    names: list[str] = []
    for k, s in enumerate(body):
        if not isinstance(s, n.DeclStmt) or any(
                d.init is not None or d.array_dims or d.storage or
                not _PLAIN_TYPE.fullmatch(d.var_type.strip()) for d in s.decls):
            continue
        moved: dict[str, n.Stmt] = {}
        for d in s.decls:
            for later in body[k + 1:]:
                found = _assigned(later)
                if found is not None and found[0].decl == d.decl:
                    if _writes(fn.body, d.decl) == 1 and d.decl not in {
                            x.decl for x in found[1].rhs.walk() if isinstance(x, n.Ref)}:
                        moved[d.decl] = later
                    break
                if any(isinstance(x, (n.Ref, n.VarDecl)) and x.decl == d.decl
                       for x in later.walk()):
                    break  # (named before its assignment: left as written)
        if not moved:
            continue
        old = own_text(data, s)
        semi = re.match(rb"\s*;", data[s.span.end:])
        end = s.span.end + (semi.end() if semi and not old.rstrip().endswith(";") else 0)
        old = data[s.span.start:end].decode("utf-8", errors="replace")
        kept = " ".join(f"{d.var_type.strip()} {d.name};" for d in s.decls
                        if d.decl not in moved)
        edits.append(Edit(s.span.start, end, keep_lines(old, kept)))
        for d in s.decls:
            if d.decl in moved:
                stmt = moved[d.decl]
                edits.append(Edit(stmt.span.start, stmt.span.start, f"{d.var_type.strip()} "))
                names.append(d.name)
    if not edits:
        return [], ""
    return edits, (f"{', '.join(repr(x) for x in names)} declared where given their one "
                   "value")
