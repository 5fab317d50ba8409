"""What a helper's call does besides its launches (issue 25/27, session 12).

When a group fuses a helper's launch into a later launch, the call of the helper cannot
simply go: whatever else the helper does must still happen there.

    static void stage1(const float *in, float *t, int n) {
      scale<<<(n + 127) / 128, 128>>>(in, t, n);
      printf("stage1: %d blocks\n", (n + 127) / 128);
      CHECK(cudaGetLastError());
    }

wrappers.py has already judged every such statement harmless to move launches past (it
touches no memory a launch uses and assigns only the helper's locals), but harmless to the
outputs is not nothing: a `printf` prints, an error check may end the process, an event is
recorded, a status is cleared. A call whose helper does any of that is written as a copy
at the call site (helper_calls.py), its launch a comment and the rest as written.

This module says whether a helper does anything at all besides its launches, by what its
statements evaluate: declarations of locals whose initialisers compute values only
(arithmetic, `dim3`, casts, `sizeof`, the math functions, and functions of the program whose
body is one `return` of such an expression, `div_up(n, 128)`, followed a few levels) and
empty statements do nothing; any other statement (a call, a check, a synchronisation, an
event, a returned status, a constructor that may do anything) is an effect. Only a helper
doing nothing else leaves a comment for an earlier member's call.
"""

from __future__ import annotations

from cudafuse.analysis.mathfuncs import MATH
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.passes.vertical.host.stmtnodes import _quiet

# How many levels of one-return helpers an initialiser is followed through.
MAX_DEPTH = 4


def effect_statement(unit: TranslationUnit, fn: Function, stmts: list[n.Stmt],
                     launches: set[int]) -> n.Stmt | None:
    """The first of `fn`'s top-level statements `stmts` (ids of the launch statements in
    `launches` left out) that does something besides computing a local's value; None when
    there is none (the helper's call may then go with its launch)."""
    for s in stmts:
        if id(s) in launches:
            continue
        if not _quiet_statement(unit, s):
            return s
    return None


def _quiet_statement(unit: TranslationUnit, s: n.Stmt) -> bool:
    if isinstance(s, n.Compound):
        return all(_quiet_statement(unit, x) for x in s.body)  # (`;`, `{}`)
    if isinstance(s, n.DeclStmt):
        return all(_quiet_statement(unit, d) for d in s.decls)
    if isinstance(s, n.VarDecl):
        if s.storage & {"static", "extern"} and not _constant(s):
            return False  # (a static's initialiser runs once, in the helper's own copy)
        return all(_value(unit, e, ()) for e in (*s.array_dims, s.init) if e is not None)
    return False


def _value(unit: TranslationUnit, e: n.Expr, stack: tuple[str, ...]) -> bool:
    """Whether evaluating `e` only computes a value: no assignment, no increment, no call
    but `dim3`, a math function or a one-return function of the program of such a body."""
    for node in e.walk():
        if isinstance(node, n.Binary) and node.is_assignment or \
                isinstance(node, n.Unary) and node.op in ("++", "--"):
            return False
        if isinstance(node, n.KernelLaunch) or \
                isinstance(node, n.OtherExpr) and not _quiet(node):  # (a lambda, `new`...)
            return False
        if isinstance(node, n.Call) and not _pure_call(unit, node, stack):
            return False
    return True


def _pure_call(unit: TranslationUnit, call: n.Call, stack: tuple[str, ...]) -> bool:
    fn = unit.callee(call.callee_decl) if call.callee_decl else None
    if fn is None:
        fn = next((f for f in unit.header_functions if f.decl == call.callee_decl and
                   f.body is not None), None) if call.callee_decl else None
    if fn is None:  # (the library's: known by name)
        return call.callee == "dim3" or call.callee in MATH
    if fn.decl in stack or len(stack) >= MAX_DEPTH or fn.body is None or fn.parent or \
            fn.space == "global" or any(p.is_reference for p in fn.params):
        return False
    body = fn.body.body
    if len(body) != 1 or not isinstance(body[0], n.Return) or body[0].value is None:
        return False
    return _value(unit, body[0].value, (*stack, fn.decl))


def names_itself(unit: TranslationUnit, fn: Function) -> n.StrLit | None:
    """A string in `fn`'s body that is its own name without being written so: `__func__`,
    `__FUNCTION__` or `__PRETTY_FUNCTION__`, directly or in a macro (`CHECK(x)` printing
    where it failed), which the front end reads as the literal it evaluates to. A copy of
    `fn` written at a call, a lambda, would print another name (`operator()`)."""
    if fn.body is None:
        return None
    written = unit.text(fn.body_span) if unit.owns(fn.body_span) else ""
    for s in fn.body.walk():
        if not isinstance(s, n.StrLit) or fn.name not in s.text:
            continue
        value = s.text[1:-1] if s.text[:1] == '"' else s.text
        if (value == fn.name or f"{fn.name}(" in value) and s.text not in written:
            return s  # (a literal the body spells, in a macro's argument too, is its text's)
    return None


def static_local(fn: Function) -> n.VarDecl | None:
    """A `static` local of `fn`: a copy of `fn` (at a call, or a launcher) has its own, so
    the helper's other calls and the copy would no longer share its value."""
    if fn.body is None:
        return None
    return next((d for d in fn.body.walk() if isinstance(d, n.VarDecl) and
                 "static" in d.storage and not _constant(d)), None)


def _constant(d: n.VarDecl) -> bool:
    """`static const int threads = 256;`: a value no call changes, alike in every copy."""
    kind = d.var_type.replace("constexpr", "const")
    return "const" in kind.rsplit("*", 1)[-1].split()  # (of the variable, not what it points to)
