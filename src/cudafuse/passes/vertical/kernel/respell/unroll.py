"""Loops of a few constant iterations that store one element of a buffer per iteration,
respelled as one block per iteration (the loop unrolled), so that each store is a statement
of its own at an element the view can evaluate:

    for (int c = 0; c < 3; ++c)               { { const int c = 0; out[i * 3 + c] = f(c); }
        out[i * 3 + c] = f(c);            ->     { const int c = 1; out[i * 3 + c] = f(c); }
                                                 { const int c = 2; out[i * 3 + c] = f(c); } }

Third-party image code writes channels this way (`for (int c = 0; c < 3; c++) dst[idx * 3 +
c] = ...`); read as a loop, a consumer could only recompute such an element by running it.
Unrolled, each iteration is the loop's body with its variable a constant: the same
statements in the same order, so the kernel computes exactly what it did. The facts come
from the tree, not the text: the trip is evaluated from the header (start, bound and step
integer constants: literals, macros, `constexpr`, a local given one value and never written,
`int channels = 3;`), the loop variable is declared by the header (or before the loop, C89
style: the copies then shadow it, and it is set after them to the value that ended the
loop) and written nowhere in the body, the body neither leaves the loop (break, continue,
return, goto) nor declares shared or static variables, and some store of the body to a pointer
parameter is at an element that is affine in the variable with a nonzero step (each
iteration its own element: `i * 3 + c`, `c * w * h + i`). Loops that only read, or store
one element many times (accumulations), are left as written, and so are loops inside
another loop, or around one whose variable a store's element also follows (an upsampler's
`for (dy ...) for (dx ...) out[(2 * y + dy) * 2 * w + 2 * x + dx] = ...`: several elements
per iteration, refused as a loop that stores them). An inner loop that only computes a
channel's value (a window's sum per channel) is copied with its iteration.

A loop that stores nothing moving with it but reads channels of one interleaved element,
`for (int c = 0; c < 3; ++c) s += wt[c] * rgb[i * 3 + c];` (each read that moves with c at
K * r + k + c, K > 1 the gcd of its other coefficients, k + c in 0..K-1), is unrolled the
same way, so a consumer reads each channel at a constant: a stencil's loop over
neighbours, `in[y * w + x + d]`, is not of that form and stays a loop.

Line numbers stay the user's: the first iteration keeps the body's lines, the others follow
on the loop's last line (their comments dropped), and a `#pragma unroll` before the loop,
which would no longer precede one, becomes an empty line.
"""

from __future__ import annotations

import dataclasses
import math
import re

from cudafuse.ir import nodes as n
from cudafuse.ir.lvalue import write_targets
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.kernel.channels import UNROLL_TRIPS, kernel_locals, poly
from cudafuse.passes.vertical.kernel.respell.text import Edit, bare, keep_lines

MAX_TRIPS = UNROLL_TRIPS  # a channel loop (RGB, RGBA, a small vector); longer ones stay loops
_INT_TYPE = re.compile(r"(?:(?:unsigned|signed|const)\s+)*(?:int|long|short|char|"
                       r"long\s+long|long\s+int|size_t|u?int(?:8|16|32|64)_t)")
_PRAGMA = re.compile(rb"[ \t]*#[ \t]*pragma[ \t]+unroll\b[^\n]*")
_COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b, "!=": lambda a, b: a != b}
_SWAPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}


def _const(e: n.Expr | None, locals_: dict[str, n.Expr]) -> int | None:
    """The integer constant `e` is (literals, macros, folded const variables, locals of the
    kernel given one value and never written: `int channels = 3;`), else None."""
    q = poly(e, locals_)
    if q is None or any(m for m in q):
        return None
    return q.get((), 0)


def _is_var(e: n.Expr | None, decl: str) -> bool:
    e = bare(e) if e is not None else None
    return isinstance(e, n.Ref) and e.decl == decl


def _trip(loop: n.For, var: n.VarDecl, locals_: dict[str, n.Expr]
          ) -> tuple[list[int], int] | None:
    """The values the loop variable takes, one per iteration, and its value once the loop
    ends, when its start, bound and step are constants and there are 1..MAX_TRIPS
    iterations; else None."""
    start = _const(var.init, locals_)
    cond = loop.cond
    while isinstance(cond, n.Cast):
        cond = cond.operand
    if start is None or not isinstance(cond, n.Binary) or cond.op not in _COMPARE:
        return None
    if _is_var(cond.lhs, var.decl):
        op, bound = cond.op, _const(cond.rhs, locals_)
    elif _is_var(cond.rhs, var.decl):
        op, bound = _SWAPPED[cond.op], _const(cond.lhs, locals_)
    else:
        return None
    inc = loop.inc
    step: int | None = None
    if isinstance(inc, n.Unary) and inc.op in ("++", "--") and _is_var(inc.operand, var.decl):
        step = 1 if inc.op == "++" else -1
    elif isinstance(inc, n.Binary) and inc.op in ("+=", "-=") and _is_var(inc.lhs, var.decl):
        k = _const(inc.rhs, locals_)
        step = None if k is None else (k if inc.op == "+=" else -k)
    elif isinstance(inc, n.Binary) and inc.op == "=" and _is_var(inc.lhs, var.decl):
        q = poly(inc.rhs, {})  # c = c + k, c = k + c, c = c - k
        if q is not None and q.get((var.decl,)) == 1 and \
                all(m in ((), (var.decl,)) for m in q):
            step = q.get((), 0)
    if bound is None or not step:
        return None
    values: list[int] = []
    v = start
    while _COMPARE[op](v, bound):
        values.append(v)
        if len(values) > MAX_TRIPS:
            return None
        v += step
    unsigned = "unsigned" in var.var_type or "size_t" in var.var_type or \
        var.var_type.strip().startswith("uint")
    if not values or unsigned and any(x < 0 for x in values + [v]):
        return None
    return values, v


def _leaves_or_shares(body: n.Stmt) -> bool:
    """Whether the body may leave the loop other than by finishing an iteration, or declares
    something a copy of it would not declare afresh (shared, static), or holds text that
    cannot be copied onto one line (inline assembly)."""
    for x in body.walk():
        if isinstance(x, (n.Break, n.Continue, n.Return, n.Asm)):
            return True
        if isinstance(x, n.OtherStmt) and x.kind in ("GOTO_STMT", "LABEL_STMT",
                                                      "INDIRECT_GOTO_STMT"):
            return True
        if isinstance(x, n.VarDecl) and x.storage:
            return True
    return False


def _index_reads(index: n.Expr, body: n.Stmt) -> set[str]:
    """The variables an index reads, through the initialisers of the body's locals."""
    out = {r.decl for r in index.walk() if isinstance(r, n.Ref)}
    grew = True
    while grew:
        grew = False
        for x in body.walk():
            if isinstance(x, n.VarDecl) and x.decl in out and x.init is not None:
                more = {r.decl for r in x.init.walk() if isinstance(r, n.Ref)} - out
                if more:
                    out |= more
                    grew = True
    return out


def _written(body: n.Stmt) -> set[str]:
    return {t.decl for t in (bare(w) for w in write_targets(body)) if isinstance(t, n.Ref)}


def _body_locals(body: n.Stmt, decl: str, written: set[str]) -> dict[str, n.Expr]:
    """The body's locals with one value (declared with it, never written), by declaration."""
    return {x.decl: x.init for x in body.walk() if isinstance(x, n.VarDecl) and
            x.init is not None and x.decl != decl and x.decl not in written}


def _stores_per_iteration(fn: Function, body: n.Stmt, decl: str) -> bool:
    """Whether some store of the body to a pointer parameter is at an element affine in the
    loop variable with a nonzero step: each iteration stores an element of its own."""
    pointers = {p.decl for p in fn.params if p.is_pointer and p.decl}
    written = _written(body)
    locals_ = _body_locals(body, decl, written)
    # Variables an inner loop changes: a store that also moves with one of them stores
    # several elements per iteration (an upsampler's 2 x 2 block), left as a loop whose
    # refusal names them.
    inner: set[str] = set()
    for loop in (x for x in body.walk() if isinstance(x, (n.For, n.While))):
        inner |= {x.decl for x in loop.walk() if isinstance(x, n.VarDecl)}
        inner |= {t.decl for t in (bare(w) for w in write_targets(loop)) if isinstance(t, n.Ref)}
    found = False
    for target in write_targets(body):
        target = bare(target)
        if not isinstance(target, n.Index):
            continue
        base = bare(target.base)
        if not (isinstance(base, n.Ref) and base.decl in pointers):
            continue
        reads = _index_reads(target.index, body)
        if reads & inner:
            return False
        if reads & written:
            continue  # (through a local the body changes: not evaluated)
        q = poly(target.index, locals_)
        if q is None:
            continue
        slope = {m: c for m, c in q.items() if m.count(decl) == 1}
        if slope and not any(m.count(decl) > 1 for m in q):
            found = True
    return found


def _one_line(text: str) -> str | None:
    """`text` (a statement) on one line, its comments dropped; None when that could change
    it (a preprocessor line, a line continuation, a string or character literal running
    over a line break)."""
    out: list[str] = []
    k = 0
    while k < len(text):
        ch = text[k]
        if text.startswith("//", k):
            k = text.find("\n", k)
            k = len(text) if k < 0 else k
        elif text.startswith("/*", k):
            end = text.find("*/", k + 2)
            if end < 0:
                return None
            if not out or out[-1] != " ":
                out.append(" ")
            k = end + 2
        elif ch in "\"'":
            end = k + 1
            while end < len(text) and text[end] != ch:
                end += 2 if text[end] == "\\" else 1
            if end >= len(text) or "\n" in text[k:end]:
                return None
            out.append(text[k:end + 1])
            k = end + 1
        elif ch == "\\" and text.startswith("\n", k + 1):
            return None
        elif ch.isspace():
            if ch == "\n" and text[k + 1:].lstrip(" \t").startswith("#"):
                return None  # (a preprocessor line)
            if not out or out[-1] != " ":
                out.append(" ")
            k += 1
        else:
            out.append(ch)
            k += 1
    return "".join(out).strip()


STORES = "each iteration stores an element of its own"
READS = "each iteration reads one channel of an interleaved element"


def _loops(fn: Function) -> list[tuple[n.For, n.VarDecl, list[int], str, str]]:
    """The loops this respelling unrolls: none inside another loop (whose iterations would
    each store several elements: a row or block per thread, refused with its loops named)."""
    assert fn.body is not None
    found: list[tuple[n.For, n.VarDecl, list[int], str, str]] = []
    loops = [x for x in fn.body.walk() if isinstance(x, (n.For, n.While))]
    once = kernel_locals(fn.body)
    for loop in loops:
        if not isinstance(loop, n.For) or any(
                outer is not loop and any(y is loop for y in outer.walk()) for outer in loops):
            continue
        var = _loop_var(fn, loop)
        if var is None or var.init is None or var.storage or var.array_dims or \
                not _INT_TYPE.fullmatch(var.var_type.strip()):
            continue
        trip = _trip(loop, var, {d: e for d, e in once.items() if d != var.decl})
        if trip is None or _leaves_or_shares(loop.body):
            continue
        values, last = trip
        # A variable declared before the loop (C89's `int c; for (c = 0; ...)`) keeps,
        # after it, the value that ended it: the copies shadow it, and it is set to that.
        after = "" if isinstance(loop.init, n.DeclStmt) else f" {var.name} = {last};"
        if any(isinstance(t := bare(w), n.Ref) and t.decl == var.decl
               for w in write_targets(loop.body)):
            continue
        if _stores_per_iteration(fn, loop.body, var.decl):
            found.append((loop, var, values, STORES, after))
        elif _reads_channels(fn, loop.body, var.decl, values):
            found.append((loop, var, values, READS, after))
    return found


def _loop_var(fn: Function, loop: n.For) -> n.VarDecl | None:
    """The loop's variable: declared by its header (`int c = 0`), or a local of the kernel
    declared before it and given its start there (`c = 0`), as a declaration with that
    start; else None."""
    init = loop.init
    if isinstance(init, n.DeclStmt):
        return init.decls[0] if len(init.decls) == 1 else None
    e = init.expr if isinstance(init, n.ExprStmt) else init
    if not (isinstance(e, n.Binary) and e.op == "=" and isinstance(t := bare(e.lhs), n.Ref)
            and t.kind == "local"):
        return None
    assert fn.body is not None
    decl = next((x for x in fn.body.walk() if isinstance(x, n.VarDecl) and x.decl == t.decl),
                None)
    if decl is None or any(x is decl for x in loop.walk()):
        return None
    return dataclasses.replace(decl, init=e.rhs)


def _reads_channels(fn: Function, body: n.Stmt, decl: str, values: list[int]) -> bool:
    """Whether the loop (stores to no pointer parameter moving with it) reads channels of
    one interleaved element: every read of a pointer parameter that moves with the variable
    is at K * r + k + c, K > 1 the gcd of the coefficients of its other terms and k + c in
    0..K-1 for every value of c (`rgb[i * 3 + c]`, c = 0..2 or 1..2; `px[(y * w + x) * 4 +
    c]`; not a stencil's `in[y * w + x + d]`, whose neighbours the view reads as offsets),
    or at c plus a constant alone (a table of weights, `wt[c]`)."""
    if len(values) < 2:
        return False
    pointers = {p.decl for p in fn.params if p.is_pointer and p.decl}
    written = _written(body)
    locals_ = _body_locals(body, decl, written)
    targets = {id(bare(t)) for t in write_targets(body)}
    found = False
    for x in body.walk():
        if not isinstance(x, n.Index) or not isinstance(b := bare(x.base), n.Ref) or \
                b.decl not in pointers:
            continue
        reads = _index_reads(x.index, body)
        q = None if reads & written else poly(x.index, locals_)
        if q is None:
            if decl in reads:
                return False
            continue
        if not any(decl in m for m in q):
            continue
        if id(x) in targets or q.get((decl,)) != 1 or any(
                decl in m and m != (decl,) for m in q):
            return False
        others = [c for m, c in q.items() if m and decl not in m]
        if not others:
            continue  # (a table indexed by c alone, `wt[c]`: a constant position each)
        k = math.gcd(*others)
        if k < 2 or not all(0 <= v + q.get((), 0) % k < k for v in values):
            return False
        found = True
    return found


def _pragma_before(data: bytes, start: int) -> tuple[int, int] | None:
    """The span of a `#pragma unroll` line right before the loop at `start` (the loop the
    first thing on its own line), else None."""
    line = data.rfind(b"\n", 0, start) + 1
    if data[line:start].strip() or line == 0:
        return None
    prev = data.rfind(b"\n", 0, line - 1) + 1
    found = _PRAGMA.fullmatch(data, prev, line - 1)
    return (prev, line - 1) if found else None


def unrolled(fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """Each loop of a few constant iterations whose iterations store elements of their own,
    or read the channels of one interleaved element (see above), as one block per
    iteration, its variable a constant in each."""
    edits: list[Edit] = []
    names: dict[str, list[str]] = {STORES: [], READS: []}
    for loop, var, values, why, after in _loops(fn):
        start, end = loop.span.start, loop.span.end
        body = loop.body
        b0, b1 = body.span.start, body.span.end
        if not (data[start:start + 3] == b"for" and start < b0 <= b1 <= end):
            continue  # (a loop a macro writes: its text is not ours to copy)
        body_text = data[b0:b1].decode("utf-8", errors="replace")
        if not isinstance(body, n.Compound):
            semi = re.match(rb"\s*;", data[b1:])
            if semi is None:
                continue
            body_text += ";"
            end = max(end, b1 + semi.end())
        flat = _one_line(body_text)
        if flat is None:
            continue
        header = data[start:b0].decode("utf-8", errors="replace")
        decl = f"const {var.var_type.strip()} {var.name} = "
        text = ("{ { " + decl + f"{values[0]};" + "\n" * header.count("\n") + " " + body_text
                + " }" + "".join(f" {{ {decl}{v}; {flat} }}" for v in values[1:]) + after
                + " }")
        old = data[start:end].decode("utf-8", errors="replace")
        edits.append(Edit(start, end, keep_lines(old, text)))
        pragma = _pragma_before(data, start)
        if pragma is not None:
            edits.append(Edit(pragma[0], pragma[1], ""))
        names[why].append(f"'{var.name}' (line {loop.span.line}, {len(values)} iterations)")
    if not edits:
        return [], ""
    return edits, "; ".join(f"loop over {', '.join(which)} unrolled: {why}"
                            for why, which in names.items() if which)
