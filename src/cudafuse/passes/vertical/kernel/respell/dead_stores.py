"""Assignments to a local that nothing reads afterwards, left out:

    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    if (tid < n) {
        out[tid] = 2 * in[tid];
        tid += blockDim.x * gridDim.x;      // a grid-stride step left behind: no loop reads it
    }

A store to a variable changes what a program computes only through a later read of that
variable. When the variable is a scalar local whose address is never taken (nor a reference
bound to it, nor it handed to a function other than a math one), the store sits in no loop
(a later iteration would read it from an earlier line) and no jump, and the statement
computes nothing else (its value has no call, assignment or increment in it), no read of the
variable lies after it in the function, so no path reads the value: the statement means
nothing, and without it the kernel is read for what it does (here: the built-ins it reads
are no part of any element). Which reads follow is found on the tree, whatever the spelling
(`=`, `+=`, `++`); a store that another dead store reads goes in the next round
(respell.parse_for_fusion parses again).
"""

from __future__ import annotations

import re

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.kernel.respell.text import (
    PURE,
    Edit,
    bare,
    impure,
    keep_lines,
    own_text,
    parent_map,
)

_OPS = r"(?:[-+*/%&|^]|<<|>>)?="


def dead_stores(fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """An edit that removes each statement storing to a local nothing reads afterwards."""
    assert fn.body is not None
    body = fn.body
    if any(isinstance(x, n.Asm) or isinstance(x, n.OtherStmt) and x.kind in (
            "GOTO_STMT", "LABEL_STMT", "INDIRECT_GOTO_STMT") or
           isinstance(x, n.OtherExpr) and x.kind == "LAMBDA_EXPR" for x in body.walk()):
        return [], ""  # (a jump back, an asm operand or a capture may read it)
    scalars = {d.decl: d for d in body.walk() if isinstance(d, n.VarDecl) and
               not d.array_dims and not d.storage and "&" not in d.var_type and
               "[" not in d.var_type and "volatile" not in d.var_type}
    parents = parent_map(fn)
    refs: dict[str, list[n.Ref]] = {}
    for x in body.walk():
        if isinstance(x, n.Ref) and x.kind == "local" and x.decl in scalars:
            refs.setdefault(x.decl, []).append(x)
    edits: list[Edit] = []
    names: list[str] = []
    for stmt in body.walk():
        target = _stored(stmt)
        if target is None or target.decl not in scalars:
            continue
        mine = refs.get(target.decl, [])
        if any(_escapes(r, parents) for r in mine):
            continue  # (a pointer or reference to it may read it anywhere)
        if any(r.span.start >= stmt.span.end for r in mine) or _in_loop(stmt, parents):
            continue
        edit = _removal(stmt, target.name, data, parents)
        if edit is not None:
            edits.append(edit)
            names.append(f"'{target.name}' (line {stmt.span.line})")
    if not edits:
        return [], ""
    return edits, f"stores nothing reads afterwards left out: {', '.join(names)}"


def _stored(stmt: n.Node) -> n.Ref | None:
    """The local a statement `v op= e;`, `v++;` or `++v;` stores to, when that is all the
    statement computes (`e` has no call, assignment or increment)."""
    if not isinstance(stmt, n.ExprStmt):
        return None
    e = stmt.expr
    if isinstance(e, n.Binary) and e.is_assignment:
        target, value = bare(e.lhs), e.rhs
        if impure(value):
            return None
    elif isinstance(e, n.Unary) and e.op in ("++", "--"):
        target = bare(e.operand)
    else:
        return None
    return target if isinstance(target, n.Ref) and target.kind == "local" else None


# Calls that take their arguments by value: a variable handed to one is only read there.
_BY_VALUE = re.compile(r"_*(?:sqrt|rsqrt|cbrt|exp|log|sin|cos|tan|pow|fabs|floor|ceil|round|"
                       r"trunc|min|max|abs|fmin|fmax|fma|mul24|umul24|saturate)\w*")


def _escapes(ref: n.Ref, parents: dict[int, n.Node]) -> bool:
    """Whether a use of the variable may let it be read elsewhere: its address taken, a
    reference bound to it, or the variable handed to a function that may take it by
    reference (any but the math functions and PURE)."""
    parent = parents.get(id(ref))
    while isinstance(parent, n.Cast) and not parent.explicit:
        ref, parent = parent, parents.get(id(parent))  # type: ignore[assignment]
    if isinstance(parent, n.Unary) and parent.op == "&":
        return True
    if isinstance(parent, n.VarDecl) and "&" in parent.var_type:
        return True
    if isinstance(parent, n.Call) and any(a is ref for a in parent.args):
        return not (parent.callee in PURE or _BY_VALUE.fullmatch(parent.callee))
    return False


def _in_loop(node: n.Node, parents: dict[int, n.Node]) -> bool:
    """Inside a loop, or inside a statement the IR keeps opaque: a range-for, a for whose
    header is a macro's, a while declaring its condition's variable are OtherStmt, and a
    later iteration may read what an earlier line of the body stores."""
    p = parents.get(id(node))
    while p is not None:
        if isinstance(p, (n.For, n.While, n.OtherStmt)):
            return True
        p = parents.get(id(p))
    return False


def _removal(stmt: n.ExprStmt, name: str, data: bytes, parents: dict[int, n.Node]
             ) -> Edit | None:
    """The statement's text (with its `;`) removed, or `;` left where a statement must stand
    (`if (c) v += 1;`); None when the text is not the statement itself (a macro)."""
    text = own_text(data, stmt)
    word = re.escape(name)
    if not re.fullmatch(rf"\s*(?:{word}\s*(?:{_OPS}|\+\+|--)|(?:\+\+|--)\s*{word})[^;{{}}]*;?\s*",
                        text):
        return None
    end = stmt.span.end
    if not text.rstrip().endswith(";"):
        semi = re.match(rb"\s*;", data[end:])
        if semi is None:
            return None
        end += semi.end()
    old = data[stmt.span.start:end].decode("utf-8", errors="replace")
    keep = "" if isinstance(parents.get(id(stmt)), n.Compound) else ";"
    return Edit(stmt.span.start, end, keep_lines(old, keep))
