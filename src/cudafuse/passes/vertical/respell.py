"""Kernel code written in shapes the fusion view does not read, respelled into the ones it
does, before vertical fusion (fuse, plan, fuse --profile) parses the file again.

Two spellings are common in real code and mean exactly a plain coordinate declaration:

  * a vector of coordinates (Udacity cs344 style), used only through its members:
        const int2 p = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                                 blockIdx.y * blockDim.y + threadIdx.y);   ... p.x ... p.y
    becomes `const int p_x = (...), p_y = (...);` and every `p.x` becomes `p_x`;
  * copies of the built-ins, never written (Rodinia style):
        int bx = blockIdx.x; int tx = threadIdx.x; int i = bx * BLOCK + tx;
    every read of `tx` becomes `((int)threadIdx.x)` (the copy's type, so arithmetic on it
    keeps its signedness) and the copies' declaration goes; done only where it turns a later
    declaration into a coordinate.

Two more mean exactly a plain guard and plain subscripts:

  * two early returns in a row, `if (x >= w) return; if (y >= h) return;`, are one
    `if ((x >= w) || (y >= h)) return;`;
  * `__ldg(&p[i])`, `__ldg(p + i)` and `*(p + i)` on a pointer parameter are `p[i]` (__ldg
    promises the element does not change while the kernel runs, so a plain load reads the
    same value).

Each rewrite keeps the statement's lines (missing line breaks are appended), so every line
number stays the user's. The text is checked against the tree before anything is changed:
a use hidden in a macro, a coordinate vector that is passed whole, assigned, or has its
address taken, leaves the kernel as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from cudafuse.diagnostics import Diagnostic, Severity
from cudafuse.frontend.parse import ParseOptions, ParseResult, parse_file
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.passes.vertical.view import coordinate

_SCALAR = {"int2": "int", "int3": "int", "uint2": "unsigned int", "uint3": "unsigned int"}
_FIELDS = ("x", "y", "z")
_BUILTINS = ("threadIdx", "blockIdx", "blockDim")
_INTEGRAL = re.compile(r"^(?:const\s+)?((?:unsigned|signed)?\s*(?:int|long|long long|short)|"
                       r"unsigned|uint|size_t|int\d+_t|uint\d+_t)$")


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    text: str


def respelled(unit: TranslationUnit) -> tuple[bytes, list[Diagnostic]] | None:
    """The main file's bytes (the user's, as written) with every kernel's coordinates
    respelled, and a note per rewrite; None when no kernel needs one."""
    data = unit.source.original or unit.source.data
    edits: list[_Edit] = []
    notes: list[Diagnostic] = []
    for fn in unit.kernels:
        if fn.span.file != unit.path or fn.body is None:
            continue
        for found, note in (_vectors(unit, fn, data), _copies(unit, fn, data),
                            _guards(fn, data), _loads(fn, data), _helpers(unit, fn, data),
                            _rows(fn, data)):
            if found and any(a.start < b.end and b.start < a.end
                             for a in found for b in edits):
                continue  # it overlaps one taken: the next round (parse_for_fusion) does it
            if found:
                edits += found
                line, col = unit.source.line_col(found[0].start)
                notes.append(Diagnostic(Severity.NOTE, f"kernel '{fn.name}': {note}",
                                        unit.path, line, col))
    if not edits:
        return None
    out = bytearray(data)
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        out[e.start:e.end] = e.text.encode()
    return bytes(out), notes


def _parents(fn: Function) -> dict[int, n.Node]:
    assert fn.body is not None
    out: dict[int, n.Node] = {}
    stack: list[n.Node] = [fn.body]
    while stack:
        node = stack.pop()
        for c in node.children():
            if c is not None:  # (an absent part: a for without its init)
                out[id(c)] = node
                stack.append(c)
    return out


def _written(ref: n.Node, parents: dict[int, n.Node]) -> bool:
    """Whether the lvalue `ref` (a variable, or a member of one) is assigned, incremented or
    has its address taken where it stands."""
    parent = parents.get(id(ref))
    if isinstance(parent, n.Binary) and parent.is_assignment and parent.lhs is ref:
        return True
    return isinstance(parent, n.Unary) and parent.op in ("++", "--", "&")


def _fresh(name: str, data: bytes) -> str:
    while re.search(rb"\b" + re.escape(name.encode()) + rb"\b", data):
        name += "_"
    return name


def _own(data: bytes, node: n.Node) -> str:
    return data[node.span.start:node.span.end].decode("utf-8", errors="replace")


def _keep_lines(old: str, new: str) -> str:
    return new + "\n" * (old.count("\n") - new.count("\n"))


def _vectors(unit: TranslationUnit, fn: Function, data: bytes) -> tuple[list[_Edit], str]:
    """`const int2 p = make_int2(<x coordinate>, <y coordinate>);` used only as p.x, p.y."""
    assert fn.body is not None
    parents = _parents(fn)
    edits: list[_Edit] = []
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
                   not _written(m, parents) and re.fullmatch(
                       rf"{re.escape(d.name)}\s*\.\s*{m.field_name}", _own(data, m))
                   for m in members):
            continue
        args = [_own(data, a) for a in init.args]
        seps = [data[a.span.end:b.span.start].decode()
                for a, b in zip(init.args, init.args[1:], strict=False)]
        if not all(re.fullmatch(r"\s*,\s*", s) for s in seps):
            continue
        old = _own(data, stmt)
        pattern = (rf"(?:const\s+)?{vtype}\s+{re.escape(d.name)}\s*=\s*make_{vtype}\s*\(\s*" +
                   "".join(re.escape(a) + re.escape(s) for a, s in zip(args, seps, strict=False)) +
                   re.escape(args[-1]) + r"\s*\)\s*;")
        if not re.fullmatch(pattern, old):
            continue  # spelled through a macro, or with comments inside: left as written
        scalars = {f: _fresh(f"{d.name}_{f}", data) for f in fields}
        decls = "".join(f"{scalars[f]} = ({a})" + (seps[k] if k < len(seps) else ";")
                        for k, (f, a) in enumerate(zip(fields, args, strict=True)))
        edits.append(_Edit(stmt.span.start, stmt.span.end,
                           _keep_lines(old, f"{const + ' ' if const else ''}"
                                            f"{_SCALAR[vtype]} {decls}")))
        edits += [_Edit(m.span.start, m.span.end, scalars[m.field_name])
                  for m in members if isinstance(m, n.Member)]
        names.append(f"{vtype} '{d.name}' ({', '.join(scalars.values())})")
    note = (f"coordinates {', '.join(names)} read as one variable per dimension, so that "
            "its thread mapping is recognised") if names else ""
    return edits, note


def _copies(unit: TranslationUnit, fn: Function, data: bytes) -> tuple[list[_Edit], str]:
    """`int tx = threadIdx.x; int bx = blockIdx.x;` never written, where replacing their
    reads by the built-ins makes a later top-level declaration a coordinate."""
    assert fn.body is not None
    parents = _parents(fn)
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
    if any(_written(u, parents) or _own(data, u) != u.name for u in uses):
        return [], ""
    helped = [d for stmt in fn.body.body if isinstance(stmt, n.DeclStmt) for d in stmt.decls
              if d.init is not None and _coordinates(d.init) is None and
              _coordinates(_substitute(d.init, copies)) is not None]
    if not helped:
        return [], ""
    edits = [_Edit(s.span.start, s.span.end, _keep_lines(_own(data, s), "")) for s in stmts]
    edits += [_Edit(u.span.start, u.span.end, _spelling(*copies[u.decl])) for u in uses]
    names = ", ".join(f"'{d.name}'" for d, _ in copies.values())
    return edits, (f"copies of the thread and block indices ({names}) read as the built-ins, "
                   f"so that '{helped[0].name}' is recognised as its thread coordinate")


def _guards(fn: Function, data: bytes) -> tuple[list[_Edit], str]:
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
    conds = [_own(data, s.cond) for s in run]  # type: ignore[attr-defined]
    end = run[-1].span.end
    semi = re.match(rb"\s*;", data[end:])  # (an if's extent may stop before its `;`)
    end += semi.end() if semi else 0
    old = data[run[0].span.start:end].decode("utf-8", errors="replace")
    text = "".join(_own(data, d) + " " for d in decls) + \
        "if (" + " || ".join(f"({c})" for c in conds) + ") return;"
    moved = ", the coordinates declared between them first" if decls else ""
    return [_Edit(run[0].span.start, end, _keep_lines(old, text))], \
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
    cond = _own(data, s.cond)
    return isinstance(then, n.Return) and then.value is None and bool(cond.strip()) and \
        re.fullmatch(r"if\s*\(\s*" + re.escape(cond) + r"\s*\)[\s\S]*", _own(data, s)) is not None


def _loads(fn: Function, data: bytes) -> tuple[list[_Edit], str]:
    """`__ldg(&p[i])`, `__ldg(p + i)`, `*(p + i)` on a pointer parameter p, as `p[i]`."""
    assert fn.body is not None
    params = {p.decl for p in fn.params if p.is_pointer}
    edits: list[_Edit] = []
    for node in fn.body.walk():
        found = _plain_load(node, params)
        if found is None:
            continue
        ref, terms = found
        text = _own(data, node)
        if not text or any(e.start <= node.span.start < e.end for e in edits):
            continue  # (inside one already respelled: the outer one keeps its text)
        if _own(data, ref) != ref.name or not all(_own(data, t) for _, t in terms):
            continue  # spelled through a macro
        index = _own(data, terms[0][1]) if len(terms) == 1 and not terms[0][0] else \
            " ".join(f"{'-' if neg else '+' if k else ''} ({_own(data, t)})".strip()
                     for k, (neg, t) in enumerate(terms))
        edits.append(_Edit(node.span.start, node.span.end, f"{ref.name}[{index}]"))
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
        arg = _bare(node.args[0])
        if isinstance(arg, n.Unary) and arg.op == "&" and isinstance(
                idx := _bare(arg.operand), n.Index):
            base = _bare(idx.base)
            if isinstance(base, n.Ref) and base.decl in params:
                return base, [(False, idx.index)]
            return None
        return _sum(arg, params)
    if isinstance(node, n.Unary) and node.op == "*" and not node.postfix:
        return _sum(_bare(node.operand), params)
    return None


def _sum(e: n.Expr, params: set[str]) -> tuple[n.Ref, Terms] | None:
    terms: Terms = []
    _flatten(e, False, terms)
    ptrs = [t for neg, t in terms if isinstance(t, n.Ref) and t.decl in params]
    if len(ptrs) != 1 or len(terms) < 2 or any(
            neg for neg, t in terms if t is ptrs[0]) or any(
            _bare(t).type.endswith("*") for _, t in terms if t is not ptrs[0]):
        return None
    return ptrs[0], [(neg, t) for neg, t in terms if t is not ptrs[0]]


def _flatten(e: n.Expr, neg: bool, out: Terms) -> None:
    e = _bare(e)
    if isinstance(e, n.Binary) and e.op in ("+", "-") and e.type.endswith("*"):
        _flatten(e.lhs, neg, out)  # pointer arithmetic: the chain goes on
        _flatten(e.rhs, neg != (e.op == "-"), out)
    else:
        out.append((neg, e))


def _bare(e: n.Expr) -> n.Expr:
    while isinstance(e, n.Cast) and not e.explicit:
        e = e.operand
    return e


def _rows(fn: Function, data: bytes) -> tuple[list[_Edit], str]:
    """`float *row = p + y * w; ... row[x]` with p a pointer parameter, the local never
    written, only subscripted, and its offset reading only parameters and locals that are
    never written: every `row[e]` becomes `p[(y * w) + (e)]` and the declaration goes."""
    assert fn.body is not None
    params = {p.decl for p in fn.params if p.is_pointer}
    parents = _parents(fn)
    written = {r.decl for x in fn.body.walk() for r in [_written_ref(x)] if r is not None}
    edits: list[_Edit] = []
    names: list[str] = []
    for stmt in fn.body.walk():
        if not (isinstance(stmt, n.DeclStmt) and len(stmt.decls) == 1):
            continue
        d = stmt.decls[0]
        found = _sum(_bare(d.init), params) if d.init is not None and \
            d.var_type.rstrip().endswith("*") else None
        if found is None or d.decl in written:
            continue
        base, terms = found
        if any(isinstance(r, n.Ref) and r.kind == "local" and r.decl in written
               for _, t in terms for r in t.walk()) or any(_impure(t) for _, t in terms):
            continue
        uses = [x for x in fn.body.walk() if isinstance(x, n.Ref) and x.decl == d.decl]
        subs = [parents.get(id(u)) for u in uses]
        if not uses or not all(isinstance(i, n.Index) and _bare(i.base) is u and
                               _own(data, u) == u.name and _own(data, i.index)
                               for u, i in zip(uses, subs, strict=True)):
            continue
        if not all(_own(data, t) for _, t in terms) or _own(data, base) != base.name:
            continue
        offset = " ".join(f"{'-' if neg else '+' if k else ''} ({_own(data, t)})".strip()
                          for k, (neg, t) in enumerate(terms))
        edits.append(_Edit(stmt.span.start, stmt.span.end, _keep_lines(_own(data, stmt), "")))
        for i in subs:
            assert isinstance(i, n.Index)
            edits.append(_Edit(i.span.start, i.span.end,
                               f"{base.name}[({offset}) + ({_own(data, i.index)})]"))
        names.append(d.name)
    note = (f"row pointers {', '.join(repr(x) for x in names)} read as subscripts of the "
            "buffers they point into") if names else ""
    return edits, note


def _written_ref(x: n.Node) -> n.Ref | None:
    target = None
    if isinstance(x, n.Binary) and x.is_assignment:
        target = x.lhs
    elif isinstance(x, n.Unary) and x.op in ("++", "--", "&"):
        target = x.operand
    target = _bare(target) if target is not None else None
    return target if isinstance(target, n.Ref) else None


_PURE = frozenset(("min", "max", "abs", "fminf", "fmaxf", "fabsf", "fmin", "fmax", "fabs",
                   "umin", "umax", "llmin", "llmax"))


def _helpers(unit: TranslationUnit, fn: Function, data: bytes) -> tuple[list[_Edit], str]:
    """Calls of device helpers whose body is one `return e;` (an index `idx(x, y, w)`, a
    clamp inside one, a bounds test `inside(x, y, w, h)`), as `e` over
    the call's arguments: `((int)((y) * (w) + (x)))`. Only where that means the same: the
    arguments have no side effects, e names nothing the kernel declares again, and the
    helper takes its parameters by value."""
    assert fn.body is not None
    mine = {d.name for d in fn.body.walk() if isinstance(d, n.VarDecl)} | \
        {p.name for p in fn.params}
    pointers = {p.decl for p in fn.params if p.is_pointer}
    parents = _parents(fn)
    edits: list[_Edit] = []
    names: list[str] = []
    for node in fn.body.walk():
        if not isinstance(node, n.Call) or not node.callee_decl or \
                any(e.start <= node.span.start < e.end for e in edits) or \
                not _where_it_matters(node, fn, parents, pointers):
            continue
        text = _inlined(unit, node, data, mine)
        if text is not None:
            edits.append(_Edit(node.span.start, node.span.end, text))
            names.append(node.callee)
    note = (f"calls of {', '.join(repr(x) for x in sorted(set(names)))} read as the "
            "expressions they return") if edits else ""
    return edits, note


def _where_it_matters(call: n.Call, fn: Function, parents: dict[int, n.Node],
                      pointers: set[str]) -> bool:
    """Only calls the fusion rules must see through are inlined (a helper computing a value,
    `clampf(v)`, stays a call; one handed a pointer, `fetch(tmp, x, y)`, gets an overload
    taking the view, see codegen): those in the subscript of a pointer parameter
    (`tmp[idx(x, y, w)]`) and in the condition of an early return at the top of the body
    (`if (!inside(x, y, w, h)) return;`)."""
    assert fn.body is not None
    child: n.Node = call
    node = parents.get(id(call))
    while node is not None:
        if isinstance(node, n.Index) and child is node.index and \
                isinstance(b := _bare(node.base), n.Ref) and b.decl in pointers:
            return True
        if isinstance(node, n.If) and child is node.cond:
            return any(node is s for s in fn.body.body) and _returns(node.then)
        child, node = node, parents.get(id(node))
    return False


def _returns(s: n.Stmt) -> bool:
    if isinstance(s, n.Compound) and len(s.body) == 1:
        s = s.body[0]
    return isinstance(s, n.Return) and s.value is None


def _inlined(unit: TranslationUnit, call: n.Call, data: bytes, mine: set[str]) -> str | None:
    helper = unit.callee(call.callee_decl)
    if helper is None or helper.body is None or helper.is_template or \
            helper.space not in ("device", "host_device") or len(helper.body.body) != 1 or \
            len(helper.params) != len(call.args) or "&" in helper.return_type or \
            any(p.is_reference or p.holds_pointers for p in helper.params):
        return None
    ret = helper.body.body[0]
    if not isinstance(ret, n.Return) or ret.value is None or not unit.owns(ret.value.span):
        return None
    src = unit.source_of(ret.value.span.file).data
    params = {p.decl: k for k, p in enumerate(helper.params)}
    subs: list[tuple[int, int, int]] = []
    for x in ret.value.walk():
        if isinstance(x, (n.Binary, n.Unary)) and (
                isinstance(x, n.Binary) and x.is_assignment or
                isinstance(x, n.Unary) and x.op in ("++", "--")):
            return None
        if isinstance(x, n.Call) and x.callee not in _PURE and unit.callee(x.callee_decl) is None:
            return None  # (a call of a helper stays a call, inlined in the next round)
        if isinstance(x, n.Ref) and x.decl in params:
            if _own_of(src, x) != x.name:
                return None
            subs.append((x.span.start, x.span.end, params[x.decl]))
        elif isinstance(x, n.Ref) and x.kind not in ("function", "builtin") and x.name in mine:
            return None  # the kernel declares that name again: it would capture it
    args = [_own(data, a) for a in call.args]
    if not all(args) or any(_impure(a) for a in call.args):
        return None
    body = src[ret.value.span.start:ret.value.span.end].decode("utf-8", errors="replace")
    base = ret.value.span.start
    for start, end, k in sorted(subs, reverse=True):
        # The argument converted to the parameter's type, as the call converts it (a
        # pointer converts implicitly, to the same elements).
        p = helper.params[k]
        arg = _paren(args[k])
        if not p.is_pointer and _plain(p.type) != _plain(_bare(call.args[k]).type):
            arg = f"(({_plain(p.type)}){arg})"
        body = body[:start - base] + arg + body[end - base:]
    if "\n" in body or "#" in body:
        return None  # (a multi-line or macro-laden body is left as a call)
    if _plain(helper.return_type) == _plain(_bare(ret.value).type):
        return f"({body})"
    return f"(({_plain(helper.return_type)})({body}))"


def _plain(t: str) -> str:
    """A type without its top-level const, spaces normalised."""
    return " ".join(re.sub(r"^const\s+|\s+const$", "", t.strip()).split())


def _paren(text: str) -> str:
    """`text` as an operand: bare when it is a name or a number, else parenthesised."""
    return text if re.fullmatch(r"[A-Za-z_]\w*|\d+(\.\d*)?[fFuUlL]*", text.strip()) \
        else f"({text})"


def _own_of(src: bytes, node: n.Node) -> str:
    return src[node.span.start:node.span.end].decode("utf-8", errors="replace")


def _impure(e: n.Expr) -> bool:
    """Whether evaluating `e` twice could differ from once (an assignment, an increment, a
    call other than of a pure function)."""
    for x in e.walk():
        if isinstance(x, n.Binary) and x.is_assignment or \
                isinstance(x, n.Unary) and x.op in ("++", "--"):
            return True
        if isinstance(x, n.Call) and x.callee not in _PURE:
            return True
    return False


def _coordinates(e: n.Expr) -> object | None:
    """A coordinate, or a make_int2(...) of coordinates (see _vectors), else None."""
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
    if d.array_dims or d.storage or not _INTEGRAL.match(d.var_type.strip()) or not (
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


def parse_for_fusion(path: str, options: ParseOptions) -> tuple[ParseResult, bytes | None]:
    """`path` parsed for vertical fusion: respelled (see above) and parsed again when a kernel
    needs it. The second value is the file as written when it was respelled: the output to
    keep if nothing is fused after all (a respelling alone is no reason to touch a file)."""
    result = parse_file(path, options)
    as_written = result.unit.source.original or result.unit.source.data
    notes: list[Diagnostic] = []
    for _ in range(4):  # (a helper inlined may call another: one more round each)
        found = respelled(result.unit)
        if found is None:
            break
        text, more = found
        notes += more
        result = parse_file(path, options, text=text)
    if not notes:
        return result, None
    result.diagnostics += notes
    return result, as_written
