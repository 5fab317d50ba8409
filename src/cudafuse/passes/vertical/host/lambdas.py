"""Which lambda a call of `operator()` runs (issue 31: error checks judged by their bodies).

`auto ok = [](cudaError_t e) { ... }; ok(cudaGetLastError());` and the same lambda held by a
`std::function` call the lambda's body, which the IR keeps under the LAMBDA_EXPR that
initialises the variable. The caller judges that body like a helper's (hoststmts.py). The
lambda is known only when the variable is a local of the host function initialised with it
and never assigned or given by address afterwards (a std::function may be rebound); for a
closure variable the call's operator() must be the lambda's own (its declaration is where the
lambda expression starts), and the variable must be used only by being called. Anything else
is not resolved, and the call stays unknown.
"""

from __future__ import annotations

import re

from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.host.stmtnodes import _assigned


def _lambda_init(e: n.Expr | None) -> n.OtherExpr | None:
    """The lambda expression an initialiser is, through the conversions clang leaves
    unexposed (a std::function built from a lambda)."""
    while e is not None:
        e = _strip(e)
        if isinstance(e, n.OtherExpr) and e.kind == "LAMBDA_EXPR":
            return e
        if isinstance(e, n.OtherExpr) and e.kind == "UNEXPOSED_EXPR" and len(e.items) == 1 \
                and isinstance(e.items[0], n.Expr):
            e = e.items[0]
            continue
        if isinstance(e, n.Call) and len(e.args) == 1 and e.callee in ("function", "") and \
                e.type.startswith("std::function<"):
            e = e.args[0]  # std::function's converting constructor
            continue
        return None
    return None


def called_lambda(host: Function, call: n.Call) -> n.OtherExpr | None:
    """The lambda whose body `call` (an `operator()`) runs, or None when it is not known."""
    if call.callee != "operator()" or not call.args or host.body is None:
        return None
    obj = _strip(call.args[0])
    if not isinstance(obj, n.Ref) or obj.kind != "local":
        return None
    decl = next((d for d in host.body.walk() if isinstance(d, n.VarDecl) and
                 d.decl == obj.decl), None)
    if decl is None or any(c in re.sub(r"<.*>", "", decl.var_type) for c in "&*"):
        return None  # a reference or pointer to a closure may be rebound elsewhere
    lam = _lambda_init(decl.init)
    if lam is None:
        return None
    if any(r.decl == obj.decl for node in host.body.walk() for r in _assigned(node)):
        return None  # rebound (or its address taken): the lambda it holds is not known
    called = {id(x) for c in host.body.walk() if isinstance(c, n.Call) and
              c.callee == "operator()" and c.args
              for e in (c.args[0], c.callee_expr) if e is not None for x in e.walk()}
    if any(isinstance(r, n.Ref) and r.decl == obj.decl and id(r) not in called
           for r in host.body.walk()):
        return None  # used otherwise too (given by reference to a function may rebind it)
    held = re.sub(r"^(?:const\s+|volatile\s+)+", "", decl.var_type)  # `const auto ok = [..]`
    if held.startswith("(lambda at "):
        # a closure: its call operator is declared where the lambda expression begins
        where = call.callee_decl.rpartition(":")[2]
        return lam if where == str(lam.span.start) else None
    if held.startswith(("std::function<", "function<")):
        return lam
    return None


def lambda_body(lam: n.OtherExpr) -> n.Stmt | None:
    """The compound statement of a lambda expression."""
    return next((i for i in lam.items if isinstance(i, n.Compound)), None)


def declared_inside(lam: n.OtherExpr, decl: str) -> bool:
    """Whether a declaration (`name@file:offset`) is the lambda's own (a parameter or a
    local of its body): its offset lies inside the lambda expression."""
    file, _, off = decl.partition("@")[2].rpartition(":")
    return file == lam.span.file and off.isdigit() and \
        lam.span.start <= int(off) < lam.span.end
