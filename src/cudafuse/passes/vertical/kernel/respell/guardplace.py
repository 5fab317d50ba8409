"""Bounds guards written after other work, through a local, or joined with a test of data,
respelled into the place and shape the view reads (right after the declarations, one test
of the coordinates).

Each rewrite changes only what threads outside the guard do, and only where they do nothing
anyone sees:

  * `float k = 2.f; if (w > 100) k = 3.f; if (x >= w || y >= h) return; ...`: the statements
    between the declarations and the early return write locals only (no memory, no call of
    anything but a math function, no barrier, no return or jump), so a thread that returns
    computes nothing visible before it: the guard moves up, right after the declarations;
  * `int i = y * w + x; ...; if (x < w && y < h) { ... }` as the body's last statement, the
    same pure statements before it: they move into the guarded block (a thread outside
    skips them; nothing after the block reads their locals, there is nothing after it);
  * `bool inside = x < w && y < h; if (!inside) return;`: a local declared with the
    coordinates, never written and reading no memory, is its initialiser in the guard;
  * `if (x < w && y < h && in[i] > 0.f) { ... }`: the tests of data after the bounds are an
    if of their own inside the guard, `if (x < w && y < h) { if (in[i] > 0.f) { ... } }`
    (C evaluates `&&` left to right and stops at the first false: the same tests run, in
    the same order, under the same conditions).
"""

from __future__ import annotations

import re

from cudafuse.analysis.evaluate import assigned_decls
from cudafuse.analysis.mathfuncs import MATH
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.kernel.respell.text import PURE, Edit, keep_lines, own_text


def _leading(fn: Function) -> int:
    """How many declarations open the body."""
    assert fn.body is not None
    k = 0
    while k < len(fn.body.body) and isinstance(fn.body.body[k], n.DeclStmt):
        k += 1
    return k


def _reads_data(e: n.Expr) -> bool:
    return any(isinstance(x, (n.Index, n.Call)) or isinstance(x, n.Unary) and x.op == "*"
               for x in e.walk())


def _early_return(s: n.Stmt) -> bool:
    if not (isinstance(s, n.If) and s.else_ is None):
        return False
    then = s.then.body[0] if isinstance(s.then, n.Compound) and len(s.then.body) == 1 \
        else s.then
    return isinstance(then, n.Return) and then.value is None


def _spelled(data: bytes, s: n.If) -> bool:
    """The if's condition is written in the file as its own text (no macro around it)."""
    cond = own_text(data, s.cond)
    return bool(cond.strip()) and re.fullmatch(
        r"if\s*\(\s*" + re.escape(cond) + r"\s*\)[\s\S]*", own_text(data, s)) is not None


def _locals(fn: Function) -> set[str]:
    assert fn.body is not None
    return {d.decl for d in fn.body.walk() if isinstance(d, n.VarDecl) and
            "shared" not in d.storage and "static" not in d.storage and not d.array_dims}


def _pure(stmts: list[n.Stmt], mine: set[str]) -> bool:
    """Do these statements only compute locals: no store to memory or to a variable not
    declared in the kernel, no address taken, no call but of a math function, no barrier,
    return, jump or asm?"""
    for s in stmts:
        for x in s.walk():
            if isinstance(x, (n.Return, n.Break, n.Continue, n.Asm, n.OtherStmt,
                              n.KernelLaunch)):
                return False
            if isinstance(x, n.VarDecl) and x.decl not in mine:
                return False
            if isinstance(x, n.Call) and x.callee not in PURE | MATH:
                return False
            if isinstance(x, n.Unary) and x.op == "&":
                return False
            target: n.Expr | None = None
            if isinstance(x, n.Binary) and x.is_assignment:
                target = x.lhs
            elif isinstance(x, n.Unary) and x.op in ("++", "--"):
                target = x.operand
            if target is not None:
                while isinstance(target, n.Cast):
                    target = target.operand
                if not (isinstance(target, n.Ref) and target.decl in mine):
                    return False
    return True


def _declared(stmts: list[n.Stmt]) -> set[str]:
    return {x.decl for s in stmts for x in s.walk() if isinstance(x, n.VarDecl)}


def _names(e: n.Expr) -> set[str]:
    return {x.decl for x in e.walk() if isinstance(x, n.Ref) and x.decl}


def hoisted(fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """An early return after statements that only compute locals, moved up to right after
    the declarations; or such statements before a last `if (in range) { ... }`, moved into
    it. The guard's condition must read nothing those statements declare or write."""
    assert fn.body is not None
    body = list(fn.body.body)
    k = _leading(fn)
    mine = _locals(fn)
    for g in range(k + 1, len(body)):
        if not _pure([body[g - 1]], mine):
            return [], ""
        s = body[g]
        enclose = g == len(body) - 1 and isinstance(s, n.If) and \
            isinstance(s.then, n.Compound) and \
            data[s.then.span.start:s.then.span.start + 1] == b"{"
        if not isinstance(s, n.If) or s.else_ is not None or not (
                _early_return(s) or enclose):
            continue  # (an if computing a local: one of the statements it may follow)
        between = body[k:g]
        # (a condition reading memory is read by the same threads, of the same memory: the
        # statements it moves past store none)
        if not _spelled(data, s):
            return [], ""
        moved = _declared(between) | assigned_decls(n.Compound(tuple(between)))
        if _names(s.cond) & moved:
            return [], ""
        if _early_return(s):
            old = own_text(data, s)
            end = s.span.end
            semi = re.match(rb"\s*;", data[end:])
            end += semi.end() if semi else 0
            text = f"if ({own_text(data, s.cond)}) return; "
            return [Edit(body[k].span.start, body[k].span.start, text),
                    Edit(s.span.start, end, keep_lines(old, ""))], \
                "its bounds guard read before the statements above it, which only " \
                "compute locals"
        if enclose:
            start, stop = body[k].span.start, s.span.start
            moved_text = data[start:stop].decode("utf-8", errors="replace")
            head = data[s.span.start:s.then.span.start + 1].decode("utf-8", errors="replace")
            # The guard's head takes the statements' place and they follow its brace: the
            # text keeps its line breaks, so each statement keeps its line.
            return [Edit(start, s.then.span.start + 1, head + " " + moved_text)], \
                "the statements before its bounds guard, which only compute locals, read " \
                "inside it"
        return [], ""
    return [], ""


def guard_locals(fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """In the guard right after the declarations, each local those declarations give a test
    as value (a comparison, `bool inside = x < w && y < h;`, that nothing writes again and
    that reads no memory) is spelled as that test."""
    assert fn.body is not None
    body = list(fn.body.body)
    k = _leading(fn)
    if k >= len(body):
        return [], ""
    s = body[k]
    if not isinstance(s, n.If) or s.else_ is not None or not _spelled(data, s):
        return [], ""
    written = assigned_decls(fn.body)
    inits: dict[str, n.Expr] = {}
    for stmt in body[:k]:
        assert isinstance(stmt, n.DeclStmt)
        for d in stmt.decls:
            if d.init is not None and _is_test(d.init) and d.decl not in written and \
                    not d.array_dims and not _reads_data(d.init) and \
                    not (_names(d.init) & written) and own_text(data, d.init).strip():
                inits[d.decl] = d.init
    edits = [Edit(x.span.start, x.span.end, f"({own_text(data, inits[x.decl])})")
             for x in s.cond.walk() if isinstance(x, n.Ref) and x.decl in inits and
             own_text(data, x) == x.name]
    names = sorted({x.name for x in s.cond.walk() if isinstance(x, n.Ref) and x.decl in inits})
    if not edits or "\n" in "".join(e.text for e in edits):
        return [], ""
    return edits, f"its guard's {', '.join(repr(x) for x in names)} read as declared"


_TESTS = ("<", "<=", ">", ">=", "==", "!=", "&&", "||")


def _is_test(e: n.Expr) -> bool:
    """A comparison or a logical combination of them (`x < w && y < h`): a local holding one
    is a condition, which the guard reads (a coordinate or an index is no such thing)."""
    while isinstance(e, n.Cast):
        e = e.operand
    return isinstance(e, n.Binary) and e.op in _TESTS or isinstance(e, n.Unary) and \
        e.op == "!"


def _operands(e: n.Expr, op: str) -> list[n.Expr]:
    """The chain `a op b op c` as [a, b, c]."""
    if isinstance(e, n.Binary) and e.op == op:
        return _operands(e.lhs, op) + _operands(e.rhs, op)
    return [e]


def _split_guard(fn: Function, data: bytes, returns: bool, op: str
                 ) -> tuple[n.If, str, str] | None:
    """The if right after the declarations (an early return or not, as `returns` asks;
    no else) whose `op` chain of tests starts with bounds (tests that read no memory) and
    goes on with tests of data: (the if, the bounds' text, the data tests' text)."""
    assert fn.body is not None
    body = list(fn.body.body)
    k = _leading(fn)
    if k >= len(body):
        return None
    s = body[k]
    if not isinstance(s, n.If) or s.else_ is not None or _early_return(s) != returns or \
            not _spelled(data, s):
        return None
    parts = _operands(s.cond, op)
    cut = next((j for j, p in enumerate(parts) if _reads_data(p)), len(parts))
    if cut == 0 or cut == len(parts):
        return None
    # (`a && b && c` is `(a && b) && c`: the cut falls between two of its operands, at the
    # operator whose right operand is parts[cut]'s chain)
    bounds = f" {op} ".join(own_text(data, p) for p in parts[:cut])
    tests = f" {op} ".join(own_text(data, p) for p in parts[cut:])
    if not all(own_text(data, p).strip() for p in parts) or "\n" in bounds + tests:
        return None
    return s, bounds, tests


def split_data(fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """`if (bounds && data) { ... }` right after the declarations (no else) as `if (bounds)
    { if (data) { ... } }`: the bounds are the leading tests that read no memory."""
    found = _split_guard(fn, data, False, "&&")
    if found is None:
        return [], ""
    s, bounds, tests = found
    end = s.span.end
    tail = data[end - 1:end]
    if tail not in (b"}", b";"):
        semi = re.match(rb"\s*;", data[end:])
        if not semi:
            return [], ""
        end += semi.end()
    return [Edit(s.cond.span.start, s.cond.span.end, f"{bounds}) {{ if ({tests}"),
            Edit(end, end, " }")], "the tests of data in its guard read as an if inside it"


def split_data_return(fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """`if (out of bounds || data) return;` right after the declarations as `if (out of
    bounds) return; if (data) return;`: the bounds are the leading tests that read no memory
    (`||` stops at the first true: the same tests run, in the same order)."""
    found = _split_guard(fn, data, True, "||")
    if found is None:
        return [], ""
    s, bounds, tests = found
    return [Edit(s.cond.span.start, s.cond.span.end, f"{bounds}) return; if ({tests}")], \
        "the tests of data in its guard read as an early return of their own"


def later_returns(fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """After the guard (an early return right after the declarations), the next early
    return among the body's statements, `if (c) return; REST`, as `if (!(c)) { REST }`: the
    same statements run under the same conditions, and the view reads one guard."""
    assert fn.body is not None
    body = list(fn.body.body)
    k = _leading(fn)
    if k >= len(body) or not _early_return(body[k]) or not data[
            fn.body.span.end - 1:fn.body.span.end] == b"}" or any(
            isinstance(x, n.OtherStmt) and x.kind in ("GOTO_STMT", "LABEL_STMT")
            for x in fn.body.walk()):
        return [], ""
    for s in body[k + 1:]:
        if not (isinstance(s, n.If) and _early_return(s)):
            continue
        if not _spelled(data, s) or s is body[-1]:
            return [], ""
        end = s.span.end
        semi = re.match(rb"\s*;", data[end:])
        end += semi.end() if semi else 0
        old = data[s.span.start:end].decode("utf-8", errors="replace")
        text = f"if (!({own_text(data, s.cond)})) {{"
        close = fn.body.span.end - 1
        return [Edit(s.span.start, end, keep_lines(old, text)), Edit(close, close, "} ")], \
            "an early return after its guard read as an if around the statements after it"
    return [], ""
