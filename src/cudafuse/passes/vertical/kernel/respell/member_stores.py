"""A whole struct element stored member by member, respelled as one store of the element:

    out[i].r = r;                       pixel cf_out; cf_out.r = r;
    out[i].g = g;                  ->   cf_out.g = g;
    out[i].b = b;                       cf_out.b = b; out[i] = cf_out;

A store to one member of an element is no value a consumer can recompute (the element's
other members keep what memory holds), but a thread that stores every member of the element
stores the whole element (a compound assignment `p[i].x += v` too: its value is `p[i].x + v`,
read before that member is stored, `cf_p.x = (p[i].x) + (v)`): the view then reads the copy
as the element's value, as it reads `out[i] = px` (kinap's canny pixel_t {red, green,
blue}; a one-member `struct { float gray; }` is the same with one store).

Read from the IR, not from the text: the members are the pointee class's (Param.
pointee_members, from libclang's record: a plain class whose members fill it without
padding, so the copy writes exactly the bytes the member stores wrote); the stores are the
`p[e].m = v` statements of one statement list, each member once, at one element (`e` the
same integer polynomial), and nothing else in the kernel writes through `p`. The copy stores
what the member stores did only if nothing between the first and the last of them observes
the element half written, so that stretch must not leave (return, break, continue, goto),
change a variable of the element's index, read memory that may be the element (`p` or a
pointer of its element type or a char pointer, unless one of the two is `__restrict__`, a
dereference, a call that may read memory), except a member not stored yet (`out[i].g =
in[i].g * k` after `out[i].r = ...` reads `g`, which an in-place launch has not overwritten
yet either). Anything else is left as written
(the view then says why it cannot recompute the kernel).
"""

from __future__ import annotations

from cudafuse.analysis.mathfuncs import MATH
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, Param, TranslationUnit
from cudafuse.passes.vertical.kernel.channels import poly
from cudafuse.passes.vertical.kernel.respell.text import (
    PURE,
    Edit,
    bare,
    fresh_name,
    keep_lines,
    parent_map,
    text_of,
)

_ASSIGN = ("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=")
_CHARS = ("char", "signed char", "unsigned char", "std::byte")


def whole_elements(unit: TranslationUnit, fn: Function, data: bytes) -> tuple[list[Edit], str]:
    """The edits that respell each whole element a kernel stores member by member, and a
    note naming the buffers; nothing when no buffer qualifies."""
    assert fn.body is not None
    # (a volatile element is not assigned from a plain local: left as written)
    params = {p.decl: p for p in fn.params if p.is_pointer and p.pointee_members and
              not p.pointee_const and "volatile" not in p.type.split("*")[0]}
    if not params or any(isinstance(x, n.OtherStmt) and x.kind in ("GOTO_STMT", "LABEL_STMT")
                         for x in fn.body.walk()):
        return [], ""
    parents = parent_map(fn)
    edits: list[Edit] = []
    names: list[str] = []
    taken = data
    for p in params.values():
        groups = _groups(fn, p, parents)
        if groups is None:
            continue
        found: list[Edit] = []
        for stmts, group in groups:
            local = fresh_name(f"cf_{p.name}", taken)
            done = _respell(unit, fn, p, stmts, group, parents, data, local)
            if done is None:
                found = []
                break
            found += done
            taken += f" {local}".encode()
        if found:
            edits += found
            names.append(p.name)
    if not edits:
        return [], ""
    return edits, (f"stores each member of its element of {', '.join(repr(x) for x in names)}"
                   " in turn: respelled as one store of the element")


def _member_store(s: n.Stmt, p: Param) -> tuple[n.Index, str, n.Expr] | None:
    """(element, member, value) of a statement `p[e].m = v;` (or `p[e].m += v;`, any
    compound assignment: its value is `p[e].m + v`, read before the member is stored)."""
    if not (isinstance(s, n.ExprStmt) and isinstance(s.expr, n.Binary) and
            s.expr.op in _ASSIGN):
        return None
    lhs = bare(s.expr.lhs)
    if not (isinstance(lhs, n.Member) and not lhs.arrow and isinstance(bare(lhs.base), n.Index)):
        return None
    elem = bare(lhs.base)
    assert isinstance(elem, n.Index)
    base = bare(elem.base)
    if not (isinstance(base, n.Ref) and base.decl == p.decl):
        return None
    return elem, lhs.field_name, s.expr.rhs


def _op(s: n.Stmt) -> str:
    return s.expr.op if isinstance(s, n.ExprStmt) and isinstance(s.expr, n.Binary) else ""


def _statement_lists(node: n.Node) -> list[tuple[n.Node, list[n.Stmt]]]:
    """Every statement list of a body: compound statements' bodies, and a branch or loop body
    that is one statement (a list of one), with the node holding it."""
    out: list[tuple[n.Node, list[n.Stmt]]] = []
    for x in node.walk():
        if isinstance(x, n.Compound):
            out.append((x, list(x.body)))
        elif isinstance(x, n.If):
            out += [(x, [b]) for b in (x.then, x.else_)
                    if b is not None and not isinstance(b, n.Compound)]
        elif isinstance(x, (n.For, n.While)) and x.body is not None and \
                not isinstance(x.body, n.Compound):
            out.append((x, [x.body]))
    return out


def _groups(fn: Function, p: Param, parents: dict[int, n.Node]
            ) -> list[tuple[list[n.Stmt], list[int]]] | None:
    """Per statement list holding member stores of `p`: the list and the positions of its
    stores, when each list stores every member once and nothing else writes through `p`."""
    assert fn.body is not None and p.pointee_members
    out: list[tuple[list[n.Stmt], list[int]]] = []
    seen: set[int] = set()
    for _, stmts in _statement_lists(fn.body):
        at = [k for k, s in enumerate(stmts) if _member_store(s, p) is not None]
        if not at:
            continue
        members = [_member_store(stmts[k], p)[1] for k in at]  # type: ignore[index]
        if sorted(members) != sorted(p.pointee_members):
            return None
        out.append((stmts, at))
        seen |= {id(stmts[k].expr) for k in at}  # type: ignore[union-attr]
    if not out:
        return None
    for x in fn.body.walk():  # any other write through p: left as written
        target = None
        if isinstance(x, n.Binary) and x.is_assignment and id(x) not in seen:
            target = x.lhs
        elif isinstance(x, n.Unary) and x.op in ("++", "--", "&"):
            target = x.operand
        elif isinstance(x, n.Call) and x.callee == "operator=" and x.args:
            target = x.args[0]
        if target is not None and _reaches(target, p):
            return None
        if isinstance(x, n.Ref) and x.decl == p.decl and \
                not isinstance(parents.get(id(x)), (n.Index, n.Cast)):
            return None  # (p handed on, offset or copied: its element may be written there)
    return out


def _reaches(target: n.Expr, p: Param) -> bool:
    """Whether lvalue `target` designates memory through `p` (p[i].m, (p + i)->m, *p)."""
    todo = [target]
    while todo:
        x = todo.pop()
        if isinstance(x, n.Ref) and x.decl == p.decl:
            return True
        if isinstance(x, n.Cast):
            todo.append(x.operand)
        elif isinstance(x, (n.Member, n.Index)):
            todo.append(x.base)
        elif isinstance(x, n.Unary) and x.op in ("*", "&"):
            todo.append(x.operand)
        elif isinstance(x, n.Binary) and x.op in ("+", "-"):
            todo += [x.lhs, x.rhs]
    return False


def _respell(unit: TranslationUnit, fn: Function, p: Param, stmts: list[n.Stmt],
             at: list[int], parents: dict[int, n.Node], data: bytes, local: str
             ) -> list[Edit] | None:
    """The edits for one list's member stores of `p`, or None when the copy could differ."""
    parts = [_member_store(stmts[k], p) for k in at]
    assert all(x is not None for x in parts)
    elems = [x[0] for x in parts if x is not None]
    index = poly(elems[0].index, {})
    if index is None or any(poly(e.index, {}) != index for e in elems[1:]):
        return None
    index_vars = {x.decl for x in elems[0].index.walk() if isinstance(x, n.Ref) and x.decl}
    stored: set[str] = set()
    first, last = at[0], at[-1]
    for k in range(first, last + 1):
        s = stmts[k]
        part = _member_store(s, p)
        # (a compound assignment reads its member too: not stored yet, each is stored once)
        look: n.Node = part[2] if part is not None and _op(s) == "=" else s
        if k == first:
            look = n.IntLit(0)  # (its value is computed before any member is stored)
        if not _observes_nothing(unit, look, p, stored, index_vars, parents):
            return None
        if part is not None:
            if isinstance(bare(part[2]), n.InitList) or not _inside(part[2], s) or \
                    not _inside(part[0], s):
                return None  # (`= {..}` is no value a local member takes; a macro's text)
            stored.add(part[1])
        elif any(isinstance(x, (n.Return, n.Break, n.Continue)) for x in s.walk()):
            return None
    elem_text = text_of(data, elems[-1])
    edits: list[Edit] = []
    for j, k in enumerate(at):
        s = stmts[k]
        _, member, value = parts[j]  # type: ignore[misc]
        assert isinstance(s, n.ExprStmt) and isinstance(s.expr, n.Binary)
        text = f"({text_of(data, value)})"
        if s.expr.op != "=":  # (p[e].m op= v: the member's value op v)
            text = f"({text_of(data, s.expr.lhs)}) {s.expr.op[:-1]} {text}"
        text = f"{local}.{member} = {text}"
        if j == 0:
            text = f"{p.pointee} {local}; {text}"
        if j == len(at) - 1:
            text += f"; {elem_text} = {local}"
        if len(at) == 1 and len(stmts) == 1 and not isinstance(parents.get(id(s)), n.Compound):
            # (a branch of one statement: the declaration and the copy need a block)
            end = _semicolon(data, s.span.end)
            if end is None:
                return None
            edits.append(Edit(s.span.start, end, keep_lines(
                text_of(data, s) + ";", "{ " + text + "; }")))
            continue
        edits.append(Edit(s.span.start, s.span.end, keep_lines(text_of(data, s), text)))
    return edits


def _inside(e: n.Node, s: n.Node) -> bool:
    return s.span.start <= e.span.start and e.span.end <= s.span.end and \
        (e.span.start, e.span.end) != (s.span.start, s.span.end)


def _semicolon(data: bytes, end: int) -> int | None:
    i = end
    while i < len(data) and data[i:i + 1] in (b" ", b"\t"):
        i += 1
    return i + 1 if data[i:i + 1] == b";" else None


def _observes_nothing(unit: TranslationUnit, node: n.Node, p: Param, stored: set[str],
                      index_vars: set[str], parents: dict[int, n.Node]) -> bool:
    """Whether `node`, run between the first member store and the last, cannot see the
    element half written nor change where it is: no read of memory that may be the
    element, except members not stored yet, no write of the index's variables, no leaving."""
    for x in node.walk():
        if isinstance(x, n.OtherStmt) and x.kind in ("GOTO_STMT", "LABEL_STMT"):
            return False
        if isinstance(x, n.Binary) and x.is_assignment or \
                isinstance(x, n.Unary) and x.op in ("++", "--", "&"):
            target = bare(x.lhs if isinstance(x, n.Binary) else x.operand)
            if isinstance(target, n.Ref) and target.decl in index_vars:
                return False
        if isinstance(x, n.Unary) and x.op == "*":
            return False
        if isinstance(x, n.Call) and not _by_value_call(unit, x):
            return False
        if isinstance(x, n.Index) and not _harmless_read(x, p, stored, parents):
            return False
    return True


def _harmless_read(x: n.Index, p: Param, stored: set[str], parents: dict[int, n.Node]
                   ) -> bool:
    """A subscript that cannot read the element half written: of a local array, or through a
    pointer parameter whose element type is not p's (nor char), or a member of p's element
    type not stored yet."""
    base = bare(x.base)
    btype = base.type.replace("const", "").replace("volatile", "").strip()
    if "*" not in btype:
        return "[" in btype  # (a local or shared array; anything else: not known)
    if not (isinstance(base, n.Ref) and base.kind == "param"):
        return False
    if base.decl != p.decl and (p.restrict or "restrict" in btype):
        return True  # (the programmer's promise: the two never alias)
    elem = btype.rsplit("*", 1)[0].replace("__restrict__", "").strip()
    if elem in _CHARS:
        return False
    own = p.pointee.strip()
    if elem not in (own, p.pointee_canonical) and base.decl != p.decl:
        return True
    parent = parents.get(id(x))
    while isinstance(parent, n.Cast) and not parent.explicit:
        parent = parents.get(id(parent))
    return isinstance(parent, n.Member) and not parent.arrow and parent.field_name not in stored


def _by_value_call(unit: TranslationUnit, call: n.Call) -> bool:
    """A call that reads no memory: a math function, a vector constructor (`make_float3`),
    or a helper of the file whose body subscripts and dereferences nothing and calls only
    such functions (one level deep)."""
    if call.callee in MATH or call.callee in PURE or call.callee.startswith("make_"):
        return not any("*" in a.type for a in call.args)
    helper = unit.function(call.callee)
    if helper is None or helper.body is None or any("*" in a.type for a in call.args):
        return False
    return not any(isinstance(x, (n.Index, n.Asm)) or isinstance(x, n.Unary) and x.op == "*"
                   or isinstance(x, n.Ref) and x.kind == "global" or
                   isinstance(x, n.Call) and x.callee not in MATH and x.callee not in PURE
                   for x in helper.body.walk())
