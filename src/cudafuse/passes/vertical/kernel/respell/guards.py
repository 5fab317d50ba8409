"""Early returns in a row (`if (x >= w) return; if (y >= h) return;`, coordinates declared
between them) respelled into one bounds guard."""

from __future__ import annotations

import re

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.kernel.respell.text import Edit, keep_lines, own_text
from cudafuse.passes.vertical.kernel.view import coordinate


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


def nested(fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """`if (A) { if (B) { ... } }` where a guard stands (the first statement after the
    declarations), each if with nothing else in it and no else, as `if ((A) && (B)) { ... }`:
    C runs the body under exactly that condition. Conditions that read data stay as they are
    (a test of data, not of bounds)."""
    assert fn.body is not None
    body = list(fn.body.body)
    k = 0
    while k < len(body) and isinstance(body[k], n.DeclStmt):
        k += 1
    if k >= len(body):
        return [], ""
    outer = body[k]
    conds: list[str] = []
    closes: list[int] = []
    node: n.Stmt = outer
    while _bounds_test(node, data):
        assert isinstance(node, n.If)
        conds.append(own_text(data, node.cond))
        then = node.then
        inner = then.body[0] if isinstance(then, n.Compound) and len(then.body) == 1 else then
        if not _bounds_test(inner, data):
            break
        if isinstance(then, n.Compound):
            if data[then.span.end - 1:then.span.end] != b"}":
                return [], ""
            closes.append(then.span.end - 1)
        node = inner
    if len(conds) < 2:
        return [], ""
    assert isinstance(node, n.If)
    start, stop = outer.span.start, node.then.span.start
    old = data[start:stop].decode("utf-8", errors="replace")
    text = "if (" + " && ".join(f"({c})" for c in conds) + ")"
    breaks = old.count("\n")
    # The lines the ifs took stay (line numbers are the user's): as blank lines in the body.
    if data[stop:stop + 1] == b"{":
        stop += 1
        text += " {"
    text += "\n" * breaks if breaks else " "
    edits = [Edit(start, stop, text)]
    edits += [Edit(c, c + 1, "") for c in closes]
    return edits, f"{len(conds)} nested ifs read as one bounds guard"


def _bounds_test(s: n.Stmt, data: bytes) -> bool:
    """`if (c) ...` with no else, c spelled in the file and reading no data."""
    if not (isinstance(s, n.If) and s.else_ is None):
        return False
    if any(isinstance(x, (n.Index, n.Call)) or isinstance(x, n.Unary) and x.op == "*"
           for x in s.cond.walk()):
        return False
    cond = own_text(data, s.cond)
    return bool(cond.strip()) and re.fullmatch(
        r"if\s*\(\s*" + re.escape(cond) + r"\s*\)[\s\S]*", own_text(data, s)) is not None
