"""Where the fused kernel can evaluate a producer once at the thread's own element.

The fused kernel is the last kernel K's body; a consumer's `l[i]` calls the producer. When K
also stores the intermediate (`cf_p3[i] = l[i], out[i] = fabsf(l[i])`), or reads it at its
own element more than once with a store in between, nvcc cannot merge the evaluations (the
store goes through a pointer that may alias what the producer reads), so a 5-point stencil
would be computed twice. Code generation instead declares `const float cf_e0 = <l at i>;`
once and uses it for the store and for K's own reads of `l` at that element.

This module finds, on K's text, where that declaration can go and which reads it serves:

- the declaration goes into the statement list that holds K's first unconditional own store
  (its anchor), as early as the variables of the store's index allow (after K's guard, after
  the declarations of the index's variables), so reads of `l[i]` before the store are served
  too; a store that is the unbraced body of an `if` or loop gets braces around it;
- a read is served when it lies in that statement list from the declaration on, is spelled
  in the file (not produced by a macro), and its index is the store's element: after the
  locals declared once and never written are replaced by their initialisers, either both are
  the coordinate (1D) or both are `y * S + x` with the same S (2D);
- anything that could make that untrue leaves K as it was (None): a variable of the index
  written anywhere in K, a `goto`, statements whose spans overlap (macro expansions).
"""

from __future__ import annotations

from dataclasses import dataclass

from cudafuse.codegen.exprprint import Unprintable, to_c
from cudafuse.ir import nodes as n
from cudafuse.passes.vertical.kernel.view import KernelView, OwnStore, own_index, writes_to


@dataclass(frozen=True)
class OwnScope:
    at: int  # byte offset where the declarations go (a statement's start)
    indent: str  # what follows a declaration there: a newline and the statement's indentation
    close: int | None  # the anchor is an unbraced statement: '}' goes here (after its ';')
    end: int  # reads before this offset (the end of the statement list) are served
    stride: str | None  # the own element's row stride as C text (2D), else None
    coords: tuple[n.VarDecl, ...]
    locals_: dict[str, n.Expr]

    # Names declared in K's body: each with its declaration id, None when declared twice.
    declared: dict[str, str | None] | None = None

    def spelled(self, index: n.Expr) -> n.Expr | None:
        """`index`, or the initialiser of the local it names (`i` of `int i = y * w + x;`)
        when no name in it can mean something else at `at` (each is declared at most once
        in K, and a name K declares is that declaration)."""
        e = index
        while isinstance(e, n.Cast) and not e.explicit:
            e = e.operand
        if not (isinstance(e, n.Ref) and e.decl in self.locals_):
            return index
        e = self.locals_[e.decl]
        declared = self.declared or {}
        for x in e.walk():
            if isinstance(x, n.Ref) and x.name in declared and declared[x.name] != x.decl:
                return None
        return e

    def is_own(self, index: n.Expr) -> bool:
        own, stride = own_index(index, list(self.coords), self.locals_)
        return own and _text(stride) == self.stride


def _text(e: n.Expr | None) -> str | None:
    if e is None:
        return None
    try:
        return to_c(e)
    except Unprintable:
        return f"<{e.span.start}:{e.span.end}>"


def _parent(root: n.Node, target: n.Node) -> n.Node | None:
    for node in root.walk():
        if any(c is target for c in node.children() if c is not None):
            return node
    return None


def _referenced(e: n.Expr, locals_: dict[str, n.Expr]) -> set[str]:
    """The declaration ids `e` depends on, through the locals it names."""
    out: set[str] = set()
    todo = [e]
    while todo:
        for x in todo.pop().walk():
            if isinstance(x, n.Ref) and x.decl and x.decl not in out:
                out.add(x.decl)
                if x.decl in locals_:
                    todo.append(locals_[x.decl])
    return out


def own_scope(data: bytes, view: KernelView, store: OwnStore) -> OwnScope | None:
    """Where K (`view`) can declare its producers' values at the element `store` writes, or
    None when that is not proven the same element everywhere it would be used."""
    body = view.fn.body
    assert body is not None
    if any(isinstance(x, n.OtherStmt) and x.kind in ("GOTO_STMT", "LABEL_STMT")
           for x in body.walk()):
        return None
    # The grid-stride loop's own step (in its header, or the while form's last statement)
    # is the one write of the coordinate that does not change the element within an
    # iteration; the scope ends before the while form's.
    step = {id(x) for part in (getattr(view.loop, "inc", None), view.loop_inc,
                               getattr(view.inner_loop, "inc", None), view.inner_inc)
            if part is not None for x in part.walk()}

    def written(decl: str) -> bool:
        return any(id(w) not in step for w in writes_to(body, decl))

    coords = {c.decl for c in view.coords}
    decls = [x for x in body.walk() if isinstance(x, n.VarDecl) and x.decl not in coords]
    locals_ = {d.decl: d.init for d in decls if d.init is not None and not written(d.decl)}
    own, stride = own_index(store.index, list(view.coords), locals_)
    if not own:
        return None
    needed = _referenced(store.index, locals_)
    if any(written(d) for d in needed):
        return None
    stmt = store.stmt
    parent = _parent(body, stmt)
    if parent is None:
        return None
    if not isinstance(parent, n.Compound):  # `if (in range) out[i] = ...;`: braces around it
        semi = data.find(b";", stmt.span.end)
        if semi < 0 or data[stmt.span.end:semi].strip():
            return None
        return OwnScope(stmt.span.start, " ", semi + 1, stmt.span.end, _text(stride),
                        view.coords, locals_, _declared(view))
    stmts = list(parent.body)
    k = next(j for j, s in enumerate(stmts) if s is stmt)
    p = 0
    for j, s in enumerate(stmts[:k]):
        if s is view.guard or any(isinstance(x, n.VarDecl) and x.decl in needed
                                  for x in s.walk()) or s in view.coord_stmts:
            p = j + 1
    # A statement list whose statements share text (a macro expanding to several) has no
    # place of its own for a declaration: move on to where spans are distinct again.
    while p < k and p > 0 and stmts[p - 1].span.end > stmts[p].span.start:
        p += 1
    if p == k and k > 0 and stmts[k - 1].span.end > stmt.span.start:
        return None
    at = stmts[p].span.start
    line = data.rfind(b"\n", 0, at) + 1
    lead = data[line:at]
    indent = "\n" + lead.decode("utf-8") if not lead.strip() else " "
    end = next((inc.span.start for inc in (view.inner_inc, view.loop_inc) if inc is not None
                and parent.span.start <= inc.span.start < parent.span.end), parent.span.end)
    return OwnScope(at, indent, None, end, _text(stride), view.coords, locals_,
                    _declared(view))


def _declared(view: KernelView) -> dict[str, str | None]:
    assert view.fn.body is not None
    out: dict[str, str | None] = {}
    for x in view.fn.body.walk():
        if isinstance(x, n.VarDecl):
            out[x.name] = None if x.name in out else x.decl
    return out


def own_reads(scope: OwnScope, view: KernelView, param: str) -> list[n.Index]:
    """K's reads of `param` at the anchor's element that the declaration serves."""
    return [r for r in view.reads.get(param, [])
            if scope.at <= r.span.start and r.span.end <= scope.end and scope.is_own(r.index)]


def in_loop(view: KernelView, node: n.Node, scope: OwnScope) -> bool:
    """Whether `node` sits in a loop inside the scope (it may run many times)."""
    assert view.fn.body is not None
    for x in view.fn.body.walk():
        if isinstance(x, (n.For, n.While)) and scope.at <= x.span.start and \
                x.span.start <= node.span.start < x.span.end and x is not view.loop and \
                x is not view.inner_loop:
            return True
    return False


def _statement_lists(view: KernelView) -> list[n.Compound]:
    """The statement lists of the kernel's own element: the body after its guard, the
    guard's braced body, a grid-stride loop's (innermost) braced body."""
    assert view.fn.body is not None
    lists = [view.fn.body]
    if view.guard is not None and isinstance(view.guard.then, n.Compound):
        lists.append(view.guard.then)
    for loop in (view.loop, getattr(view, "inner_loop", None)):
        if loop is not None and isinstance(loop.body, n.Compound):
            lists.append(loop.body)
    return lists


def _before_returns(view: KernelView, returns: list[n.Return]) -> n.Stmt | None:
    """A last kernel that returns early past its guard (a zero border: `if (x == 0 || ...)
    { out[i] = 0; return; }`) stores the intermediates before the first statement of its
    own statement list (after the guard) that holds a return or a store; None when a return
    lies elsewhere (in a statement every thread of the guard does not reach first)."""
    home = _statement_lists(view)[-1]
    stmts = list(home.body)
    if view.guard is not None and any(s is view.guard for s in stmts):
        stmts = stmts[next(k for k, s in enumerate(stmts) if s is view.guard) + 1:]
    stores = {id(s.stmt) for s in view.stores.values()}
    first = next((s for s in stmts if any(isinstance(x, n.Return) or id(x) in stores
                                          for x in s.walk())), None)
    if first is None:
        return None
    after = stmts[stmts.index(first):]
    inside = {id(x) for s in after for x in s.walk()}
    return first if all(id(r) in inside for r in returns) else None


def store_anchor(view: KernelView) -> tuple[n.Stmt | None, str | None]:
    """Where the last kernel stores the group's intermediates, and why it cannot when it
    cannot: before its first unconditional own store (None here: the caller uses that
    store), or, when it stores only under an if/else, before the statement of its own
    statement list that holds that if (every thread of the guard runs it, whichever branch
    stores)."""
    body = view.fn.body
    assert body is not None
    name = view.fn.name
    if not view.stores:
        return None, (f"'{name}' has no store at its own element before which the group's "
                      "intermediates could be stored")
    guard_nodes = {id(x) for x in view.guard.walk()} if view.guard else set()
    returns = [x for x in body.walk() if isinstance(x, n.Return) and id(x) not in guard_nodes]
    if returns:
        anchor = _before_returns(view, returns)
        if anchor is None:
            return None, (f"'{name}' may return before its store, so it cannot store the "
                          "group's intermediates for every element")
        return anchor, None
    if any(not s.nested for s in view.stores.values()):
        return None, None
    nested = min((s for s in view.stores.values()), key=lambda s: s.stmt.span.start)
    lists = _statement_lists(view)
    node: n.Node = nested.stmt
    while True:
        parent = _parent(body, node)
        if parent is None or isinstance(parent, (n.For, n.While)) and \
                parent not in (view.loop, getattr(view, "inner_loop", None)):
            break
        if any(parent is lst for lst in lists) and isinstance(node, n.Stmt) and \
                not any(x is view.guard for x in node.walk()):
            return node, None
        node = parent
    return None, (f"'{name}' stores only under an if/else that is not a statement of its "
                  "body, so it cannot store the group's intermediates for every element")
