"""Early returns in a row (`if (x >= w) return; if (y >= h) return;`, coordinates declared
between them) respelled into one bounds guard."""

from __future__ import annotations

import re

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.respell.text import Edit, keep_lines, own_text
from cudafuse.passes.vertical.view import coordinate


def guards(fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """`if (A) return; if (B) return;` at the top of the body, right after the declarations
    (where a guard stands), as one `if ((A) || (B)) return;`."""
    assert fn.body is not None
    body = list(fn.body.body)
    k = 0
    while k < len(body) and isinstance(body[k], n.DeclStmt):
        k += 1
    run: list[n.Stmt] = []
    decls: list[n.Stmt] = []  # coordinate declarations between the returns: moved above
    while k < len(body) and (_early_return(body[k], data) or run and _coordinate_decl(
            body[k]) and k + 1 < len(body) and _early_return(body[k + 1], data)):
        (run if isinstance(body[k], n.If) else decls).append(body[k])
        k += 1
    if len(run) < 2:
        return [], ""
    conds = [own_text(data, s.cond) for s in run]  # type: ignore[attr-defined]
    end = run[-1].span.end
    semi = re.match(rb"\s*;", data[end:])  # (an if's extent may stop before its `;`)
    end += semi.end() if semi else 0
    old = data[run[0].span.start:end].decode("utf-8", errors="replace")
    text = "".join(own_text(data, d) + " " for d in decls) + \
        "if (" + " || ".join(f"({c})" for c in conds) + ") return;"
    moved = ", the coordinates declared between them first" if decls else ""
    return [Edit(run[0].span.start, end, keep_lines(old, text))], \
        f"{len(run)} early returns in a row read as one bounds guard{moved}"


def _coordinate_decl(s: n.Stmt) -> bool:
    """A declaration of coordinates only (no side effects: it may move up)."""
    return isinstance(s, n.DeclStmt) and all(
        d.init is not None and coordinate(d.init) is not None for d in s.decls)


def _early_return(s: n.Stmt, data: bytes) -> bool:
    """`if (c) return;` (braced or not, no else), its condition spelled in the file."""
    if not (isinstance(s, n.If) and s.else_ is None):
        return False
    then = s.then.body[0] if isinstance(s.then, n.Compound) and len(s.then.body) == 1 \
        else s.then
    if any(isinstance(x, (n.Index, n.Call)) or isinstance(x, n.Unary) and x.op == "*"
           for x in s.cond.walk()):
        return False  # a test of data, not of bounds: it stays a statement of its own
    cond = own_text(data, s.cond)
    spelled = re.fullmatch(r"if\s*\(\s*" + re.escape(cond) + r"\s*\)[\s\S]*", own_text(data, s))
    return isinstance(then, n.Return) and then.value is None and bool(cond.strip()) and \
        spelled is not None
