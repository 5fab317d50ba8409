"""Host locals that are assigned after their declaration, but only by the few statements right
after it that give them their value once and for all (Rodinia and older SDK samples):

    int blocks = n / BLOCK;               dim3 threads;              int bx;
    if (n % BLOCK != 0)                   threads.x = BLOCK;         bx = n / 16;
        blocks = blocks + 1;              threads.y = 1;             if (n % 16) bx++;

Each such local is read as a never-reassigned one with the value those statements leave:
`n % BLOCK != 0 ? n / BLOCK + 1 : n / BLOCK` (gridsize.py proves such grids cover),
`dim3(BLOCK, 1, 1)`. Only when every write of the local is one of those statements, they
follow the declaration in the same statement list, and nothing reads the local before the
last of them (a launch there would see another value).
"""

from __future__ import annotations

from dataclasses import replace

from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.passes.vertical.host.hostexprs import root_variable, write_target

_FIELDS = ("x", "y", "z")


def settled_locals(body: n.Compound, written: set[str]) -> dict[str, n.VarDecl]:
    """Declarations (with the value they settle on as `init`) of the locals of `body` that
    are written only by the statements that settle them."""
    out: dict[str, n.VarDecl] = {}
    writes = _write_nodes(body)
    for lst in (x for x in body.walk() if isinstance(x, n.Compound)):
        for k, stmt in enumerate(lst.body):
            if not (isinstance(stmt, n.DeclStmt) and len(stmt.decls) == 1):
                continue
            d = stmt.decls[0]
            if d.decl not in written or d.array_dims:
                continue
            got = _settle(d, list(lst.body[k + 1:]))
            if got is None:
                continue
            value, used = got
            last = max(s.span.end for s in used)
            mine = writes.get(d.decl, [])
            inside = [w for w in mine if any(s.span.start <= w.span.start < s.span.end
                                             for s in used)]
            reads = [r for r in body.walk() if isinstance(r, n.Ref) and r.decl == d.decl and
                     stmt.span.end <= r.span.start < last and
                     not any(s.span.start <= r.span.start < s.span.end for s in used)]
            if len(inside) == len(mine) and not reads:
                out[d.decl] = replace(d, init=value)
    return out


def _settle(d: n.VarDecl, after: list[n.Stmt]) -> tuple[n.Expr, list[n.Stmt]] | None:
    vtype = d.var_type.replace("const ", "").strip()
    value, used = d.init, []
    if vtype == "dim3":
        got = _members(d, after)
        if got is not None or not _default_dim3(d):
            return got
        value = None  # `dim3 grid; grid = dim3(...);`
    rest = _unrelated(after, d)
    if value is None and rest and (v := _assigned(rest[0], d)) is not None:
        value, used = v, [rest[0]]
        rest = _unrelated(rest[1:], d)
    if value is None:
        return None
    if rest and isinstance(rest[0], n.If) and rest[0].else_ is None and \
            _increments(rest[0].then, d):
        one = n.IntLit(1, type="int")
        value = n.Cond(rest[0].cond, n.Binary("+", value, one, type=vtype), value, type=vtype)
        used.append(rest[0])
    return (value, used) if used else None


def _unrelated(stmts: list[n.Stmt], d: n.VarDecl) -> list[n.Stmt]:
    """`stmts` from the first that names `d` (those before it cannot change it)."""
    for k, s in enumerate(stmts):
        if any(_is_ref(x, d) for x in s.walk() if isinstance(x, n.Expr)):
            return stmts[k:]
    return []


def _members(d: n.VarDecl, after: list[n.Stmt]) -> tuple[n.Expr, list[n.Stmt]] | None:
    """`dim3 b; b.x = ...; b.y = ...;`: each member set at most once, right after."""
    if d.init is not None and not (isinstance(d.init, n.OtherExpr) or isinstance(
            d.init, n.Call) and d.init.callee == "dim3" and all(_defaulted(a)
                                                                for a in d.init.args)):
        return None  # (an implicit default construction is fine; dim3(…) values are not)
    comps: dict[str, n.Expr] = {}
    used: list[n.Stmt] = []
    for s in after:
        if not any(_is_ref(x, d) for x in s.walk() if isinstance(x, n.Expr)):
            continue  # it cannot change d
        e = s.expr if isinstance(s, n.ExprStmt) else None
        if not (isinstance(e, n.Binary) and e.op == "=" and isinstance(e.lhs, n.Member) and
                _is_ref(e.lhs.base, d) and e.lhs.field_name in _FIELDS and
                e.lhs.field_name not in comps):
            break
        comps[e.lhs.field_name] = e.rhs
        used.append(s)
    if not used:
        return None
    args = tuple(comps.get(f, n.IntLit(1, type="unsigned int")) for f in _FIELDS)
    return n.Call("dim3", args, type="dim3"), used


def _default_dim3(d: n.VarDecl) -> bool:
    """`dim3 grid;`: constructed with no value of its own."""
    return d.init is None or isinstance(d.init, n.OtherExpr) or (
        isinstance(d.init, n.Call) and d.init.callee == "dim3" and
        all(_defaulted(a) for a in d.init.args))


def _defaulted(e: n.Expr) -> bool:
    """A default argument: an expression with no text of its own."""
    return isinstance(e, n.OtherExpr) and not e.items and e.span.end == e.span.start


def _is_ref(e: n.Expr, d: n.VarDecl) -> bool:
    e = _strip(e)
    return isinstance(e, n.Ref) and e.decl == d.decl


def _assigned(s: n.Stmt, d: n.VarDecl) -> n.Expr | None:
    e = s.expr if isinstance(s, n.ExprStmt) else None
    if isinstance(e, n.Call) and e.callee == "operator=" and len(e.args) == 2:
        lhs, rhs = e.args  # `grid = dim3(...)`: dim3's operator=
    elif isinstance(e, n.Binary) and e.op == "=":
        lhs, rhs = e.lhs, e.rhs
    else:
        return None
    if _is_ref(lhs, d) and not any(_is_ref(x, d) for x in rhs.walk() if isinstance(x, n.Expr)):
        return rhs
    return None


def _increments(s: n.Stmt, d: n.VarDecl) -> bool:
    """`v = v + 1;`, `v += 1;`, `v++;` or `++v;` (braced or not)."""
    if isinstance(s, n.Compound) and len(s.body) == 1:
        s = s.body[0]
    e = s.expr if isinstance(s, n.ExprStmt) else None
    one = (lambda x: isinstance(x, n.IntLit) and x.value == 1)  # noqa: E731
    if isinstance(e, n.Unary) and e.op == "++":
        return _is_ref(e.operand, d)
    if isinstance(e, n.Binary) and e.op == "+=":
        return _is_ref(e.lhs, d) and one(_strip(e.rhs))
    if isinstance(e, n.Binary) and e.op == "=" and _is_ref(e.lhs, d):
        r = _strip(e.rhs)
        return isinstance(r, n.Binary) and r.op == "+" and (
            _is_ref(r.lhs, d) and one(_strip(r.rhs)) or _is_ref(r.rhs, d) and one(_strip(r.lhs)))
    return False


def _write_nodes(body: n.Node) -> dict[str, list[n.Node]]:
    """Every write of each local (as hostexprs._writes sees writes), by declaration."""
    out: dict[str, list[n.Node]] = {}
    for node in body.walk():
        ref = root_variable(write_target(node))
        if ref is not None:
            out.setdefault(ref.decl or ref.name, []).append(node)
    return out
