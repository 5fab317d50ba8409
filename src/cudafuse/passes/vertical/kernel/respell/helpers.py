"""Calls of one-return device helpers (`idx(x, y, w)`, `inside(x, y, w, h)`) where the fusion
rules must see through them, respelled into the expression they return."""

from __future__ import annotations

import re

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.passes.vertical.kernel.respell.text import (
    PURE,
    Edit,
    bare,
    impure,
    own_text,
    parent_map,
    text_of,
)

_INDEXES = ("threadIdx", "blockIdx", "blockDim")


def helpers(unit: TranslationUnit, fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """Calls of device helpers whose body is one `return e;` (an index `idx(x, y, w)`, a
    clamp inside one, a bounds test `inside(x, y, w, h)`), as `e` over
    the call's arguments: `((int)((y) * (w) + (x)))`. Only where that means the same: the
    arguments have no side effects, e names nothing the kernel declares again, and the
    helper takes its parameters by value."""
    assert fn.body is not None
    mine = {d.name for d in fn.body.walk() if isinstance(d, n.VarDecl)} | \
        {p.name for p in fn.params}
    pointers = {p.decl for p in fn.params if p.is_pointer}
    parents = parent_map(fn)
    edits: list[Edit] = []
    names: list[str] = []
    for node in fn.body.walk():
        if not isinstance(node, n.Call) or not node.callee_decl or \
                any(e.start <= node.span.start < e.end for e in edits) or \
                not _where_it_matters(unit, node, fn, parents, pointers):
            continue
        text = _inlined(unit, node, data, mine)
        if text is not None:
            edits.append(Edit(node.span.start, node.span.end, text))
            names.append(node.callee)
    note = (f"calls of {', '.join(repr(x) for x in sorted(set(names)))} read as the "
            "expressions they return") if edits else ""
    return edits, note


def _where_it_matters(unit: TranslationUnit, call: n.Call, fn: Function,
                      parents: dict[int, n.Node], pointers: set[str]) -> bool:
    """Only calls the fusion rules must see through are inlined (a helper computing a value,
    `clampf(v)`, stays a call; one handed a pointer, `fetch(tmp, x, y)`, gets an overload
    taking the view, see codegen): those in the subscript of a pointer parameter
    (`tmp[idx(x, y, w)]`), in the condition of an early return at the top of the body
    (`if (!inside(x, y, w, h)) return;`) and as the initialiser of a declaration at the top
    of the body that reads the thread's index (`int x = gx();`: a coordinate)."""
    assert fn.body is not None
    child: n.Node = call
    node = parents.get(id(call))
    while node is not None:
        if isinstance(node, n.Index) and child is node.index and \
                isinstance(b := bare(node.base), n.Ref) and b.decl in pointers:
            return True
        if isinstance(node, n.If) and child is node.cond:
            return any(node is s for s in fn.body.body) and _returns(node.then)
        if isinstance(node, n.VarDecl) and child is node.init:
            # (a coordinate from a helper, `int x = gx();`: a declaration at the top of the
            # body whose helper reads the thread's or block's index)
            return any(isinstance(s, n.DeclStmt) and node in s.decls for s in fn.body.body) \
                and _reads_builtins(unit, call)
        child, node = node, parents.get(id(node))
    return False


def _reads_builtins(unit: TranslationUnit, call: n.Call) -> bool:
    """Whether the helper a call names reads threadIdx, blockIdx or blockDim."""
    helper = unit.callee(call.callee_decl)
    return helper is not None and helper.body is not None and any(
        isinstance(x, n.Ref) and x.kind == "builtin" and x.name in _INDEXES
        for x in helper.body.walk())


def _returns(s: n.Stmt) -> bool:
    if isinstance(s, n.Compound) and len(s.body) == 1:
        s = s.body[0]
    return isinstance(s, n.Return) and s.value is None


def _inlined(unit: TranslationUnit, call: n.Call, data: bytes, mine: set[str]) -> str | None:
    helper = unit.callee(call.callee_decl)
    if helper is None or helper.body is None or helper.is_template or helper.parent or \
            helper.space not in ("device", "host_device") or len(helper.body.body) != 1 or \
            len(helper.params) != len(call.args) or \
            re.search(r"&|\bauto\b|decltype", helper.return_type) or \
            any(p.is_reference or p.holds_pointers for p in helper.params):
        return None  # (a member function's body names its object's members: not inlined)
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
        if isinstance(x, n.Call) and x.callee not in PURE and unit.callee(x.callee_decl) is None:
            return None  # (a call of a helper stays a call, inlined in the next round)
        if isinstance(x, n.Ref) and x.decl in params:
            if text_of(src, x) != x.name:
                return None
            subs.append((x.span.start, x.span.end, params[x.decl]))
        elif isinstance(x, n.Ref) and x.kind not in ("function", "builtin") and x.name in mine:
            return None  # the kernel declares that name again: it would capture it
    args = [own_text(data, a) for a in call.args]
    if not all(args) or any(impure(a) for a in call.args):
        return None
    body = src[ret.value.span.start:ret.value.span.end].decode("utf-8", errors="replace")
    base = ret.value.span.start
    for start, end, k in sorted(subs, reverse=True):
        # The argument converted to the parameter's type, as the call converts it (a
        # pointer converts implicitly, to the same elements).
        p = helper.params[k]
        arg = _paren(args[k])
        if not p.is_pointer and _plain(p.type) != _plain(bare(call.args[k]).type):
            arg = f"(({_plain(p.type)}){arg})"
        body = body[:start - base] + arg + body[end - base:]
    if "\n" in body or "#" in body:
        return None  # (a multi-line or macro-laden body is left as a call)
    if _plain(helper.return_type) == _plain(bare(ret.value).type):
        return f"({body})"
    return f"(({_plain(helper.return_type)})({body}))"


def _plain(t: str) -> str:
    """A type without its top-level const, spaces normalised."""
    return " ".join(re.sub(r"^const\s+|\s+const$", "", t.strip()).split())


def _paren(text: str) -> str:
    """`text` as an operand: bare when it is a name or a number, else parenthesised."""
    return text if re.fullmatch(r"[A-Za-z_]\w*|\d+(\.\d*)?[fFuUlL]*", text.strip()) \
        else f"({text})"
