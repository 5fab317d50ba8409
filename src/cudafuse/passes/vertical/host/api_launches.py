"""Launches through the runtime API, read as the launches they are.

    void *args[] = {&in, &tmp, &n};
    cudaLaunchKernel((const void *)blur, grid, block, args, 0, stream);

starts `blur` exactly as `blur<<<grid, block, 0, stream>>>(in, tmp, n)` does: the runtime
reads each argument through its pointer in `args` when the call is made, so the launch's
arguments are the values those variables hold at the call. Such a call statement becomes a
KernelLaunch of the host function's IR (its span the call's, its callee span the kernel's
name inside the call, no configuration span), so that sequences, legality and planning see
it as any other launch; a fused group whose last launch is one has the call rewritten into
a `<<<...>>>` launch (is_api_launch tells codegen so).

Only what is provably that launch is read so; anything else stays an opaque call (which
splits its sequence, as before):

* a statement that is the call alone (`(void)` allowed), or one that keeps or checks its
  status (`err = cudaLaunchKernel(...);`, `CHECK(cudaLaunchKernel(...));`, the call found
  in the statement's text when a macro hides its span) and otherwise does nothing that
  matters between launches: with the status taken as cudaSuccess, what remains is harmless
  after every launch of the function, its own included (hoststmts.py: error checks,
  printing, exits; not a copy of the buffer it writes), and no launch reads a variable it
  assigns. The statement then stays as written around the call's replacement:
  `cudaSuccess` for a launch fused away, `(fused<<<...>>>(...), cudaPeekAtLastError())`
  for the one that starts the fused kernel (status_used);
* the kernel named through casts and `&` (`(void *)k`, `(const void *)&k`, `k`), a
  kernel of the unit, or an instantiation of a kernel template (`(void *)k<float, 3>`)
  of which the front end made a concrete copy (frontend/instantiate.py);
* `args` a local array of `void *` initialised from a list of `&variable`, one per kernel
  parameter, each variable of the parameter's type up to qualifiers (or a pointer for a
  pointer parameter: the runtime copies its bytes, and pointers share a representation),
  and used nowhere but as the argument list of such calls (not written, not passed on).

The arrays' declarations are kept in the text and emptied in the IR (only the variables'
values are read, at the call; the addresses taken do not let anything else write them).

`cudaLaunchKernelEx` (CUDA 12's typed launch with a cudaLaunchConfig_t, whose attributes
may ask for clusters or programmatic serialisation) and `cudaLaunchCooperativeKernel` (grid
synchronisation) are not read: they stay calls.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from cudafuse.frontend.instantiate import API_LAUNCH, api_kernel
from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.source import NO_SPAN, Span
from cudafuse.ir.substitute import replace_nodes
from cudafuse.ir.types import unqualified
from cudafuse.passes.vertical.host.stmtnodes import _assigned

API = API_LAUNCH


def is_api_launch(launch: n.KernelLaunch) -> bool:
    """Whether a launch was read from a runtime-API call (its text is the call's, not
    `k<<<...>>>(...)`): its kernel's name lies inside the call, after its start."""
    return launch.config_span == NO_SPAN and launch.callee_span.start > launch.span.start


def _present(e: n.Expr | None) -> n.Expr | None:
    """An argument as written; None for a default argument (no text of its own)."""
    if e is None or isinstance(e, n.OtherExpr) and e.span == NO_SPAN:
        return None
    return e


def _kernel(unit: TranslationUnit, call: n.Call) -> tuple[Function, n.Ref] | None:
    """The kernel a call starts (for a template, the concrete copy of its instantiation
    the front end made: frontend/instantiate.py), and its name in the call."""
    e = api_kernel(call)
    if e is None:
        return None
    fn = next((f for f in unit.functions if f.decl == e.decl and f.space == "global" and
               f.body is not None), None)
    if fn is not None and fn.is_template:
        made = unit.instances.get(e.span.start) if e.span.end > e.span.start else None
        fn = made if isinstance(made, Function) else None
    return None if fn is None else (fn, e)


def _same_type(var: str, param: str) -> bool:
    v, p = unqualified(var), unqualified(param)
    return v == p or v.endswith("*") and p.endswith("*")


def _arg_list(d: n.VarDecl, fn: Function) -> tuple[n.Expr, ...] | None:
    """The variables a `void *args[] = {&a, &b}` array points at, as the kernel's
    arguments (None when it is not such a list for `fn`)."""
    if not d.array_dims or unqualified(d.var_type).split("[")[0].strip() != "void *":
        return None
    init = strip_casts(d.init) if d.init is not None else None
    if not isinstance(init, n.InitList) or len(init.items) != len(fn.params):
        return None
    out: list[n.Expr] = []
    for item, p in zip(init.items, fn.params, strict=True):
        x = strip_casts(item)
        if not (isinstance(x, n.Unary) and x.op == "&"):
            return None
        var = strip_casts(x.operand)
        if not (isinstance(var, n.Ref) and var.kind in ("local", "param", "global") and
                _same_type(var.type, p.type)):
            return None
        out.append(var)
    return tuple(out)


def _call_of(stmt: n.Node) -> n.Call | None:
    if not isinstance(stmt, n.ExprStmt):
        return None
    c = strip_casts(stmt.expr)  # `(void)cudaLaunchKernel(...)`
    return c if isinstance(c, n.Call) and api_kernel(c) is not None else None


def _block_statements(body: n.Node) -> list[n.Stmt]:
    """The statements that are items of a block (or a loop's or branch's whole body)."""
    out: list[n.Stmt] = []
    for x in body.walk():
        if isinstance(x, n.Compound):
            out.extend(x.body)
        elif isinstance(x, (n.For, n.While)) and not isinstance(x.body, n.Compound):
            out.append(x.body)
        elif isinstance(x, n.If):
            out.extend(b for b in (x.then, x.else_)
                       if b is not None and not isinstance(b, n.Compound))
    return out


_CALL = re.compile(rb"\b" + API.encode() + rb"\s*\(")


def _call_text(unit: TranslationUnit, stmt: n.Stmt, name: str) -> tuple[Span, Span] | None:
    """Where the statement's text spells its one cudaLaunchKernel call, and the kernel's
    name in its first argument (a call written inside a macro invocation has no span of
    its own: `CHECK(cudaLaunchKernel(...))`)."""
    if stmt.span.file != unit.path:
        return None
    code = unit.code
    found = list(_CALL.finditer(code, stmt.span.start, stmt.span.end))
    if len(found) != 1:
        return None
    start, depth, at, comma = found[0].start(), 0, found[0].end() - 1, -1
    for at in range(found[0].end() - 1, stmt.span.end):
        c = code[at:at + 1]
        if c in b"(<[{" and c != b"<":
            depth += 1
        elif c in b")]}":
            depth -= 1
            if depth == 0:
                break
        elif c == b"," and depth == 1 and comma < 0:
            comma = at
    if depth != 0 or comma < 0:
        return None
    first = code[found[0].end():comma]
    names = list(re.finditer(rb"\b" + re.escape(name.encode()) + rb"\b", first))
    if len(names) != 1:
        return None
    k = found[0].end() + names[0].start()
    return unit.source.span(start, at + 1), unit.source.span(k, k + len(name))


def status_used(stmt: n.Stmt, launch: n.KernelLaunch) -> bool:
    """Whether an API launch's statement does more than make the call (checks or keeps its
    status): its replacement then stands for the call alone, inside the statement."""
    return is_api_launch(launch) and launch.span != stmt.span


def _checked(unit: TranslationUnit, host: Function, stmt: n.Stmt, call: n.Call,
             judge: Callable[[n.Stmt], str | None]) -> bool:
    """Whether a statement that holds the call and uses its status (`err = call;`,
    `CHECK(call);`) does nothing else that matters between launches: with the call's
    status taken as cudaSuccess, what remains is harmless (hoststmts: error checks,
    printing, exits), and no launch reads a variable it assigns."""
    if any(isinstance(x, n.KernelLaunch) for x in stmt.walk()) or \
            sum(api_kernel(x) is not None for x in stmt.walk()) != 1:
        return False
    rest = replace_nodes(stmt, lambda x: n.IntLit(span=x.span, type="cudaError_t", value=0)
                         if x is call else None)
    assert isinstance(rest, n.Stmt)
    if judge(rest) is not None:
        return False
    assigned = {r.decl for x in rest.walk() for r in _assigned(x)}
    assert host.body is not None
    return not any(isinstance(r, n.Ref) and r.decl in assigned
                   for la in host.body.walk()
                   if isinstance(la, n.KernelLaunch) or api_kernel(la) is not None
                   for r in la.walk())


def _rewrite(unit: TranslationUnit, host: Function) -> Function:
    """`host` with its runtime-API launches as KernelLaunch nodes (itself when none)."""
    assert host.body is not None
    arrays = {d.decl: d for d in host.body.walk() if isinstance(d, n.VarDecl)}
    launches: dict[int, n.KernelLaunch] = {}  # id of the call -> its launch
    statements: dict[int, tuple[n.Stmt, n.Call]] = {}  # id of a checking statement ->
    used_as_list: dict[str, int] = {}  # array decl -> uses as a converted call's list
    for stmt in _block_statements(host.body):
        call = _call_of(stmt)
        where = None
        if call is not None and id(call) in launches:
            continue  # (inside a statement read whole: `do { ... } while (0)`)
        if call is None:
            inner = [x for x in stmt.walk() if isinstance(x, n.Call) and
                     api_kernel(x) is not None]
            if len(inner) != 1:
                continue
            call = inner[0]
            if id(call) in launches:
                continue  # (the outermost statement holding it is read whole)
            ref = api_kernel(call)
            assert ref is not None
            where = _call_text(unit, stmt, ref.name)
            if where is None:
                continue
            statements[id(stmt)] = (stmt, call)
        found = _kernel(unit, call)
        lst = strip_casts(call.args[3])
        if found is None or not isinstance(lst, n.Ref) or lst.decl not in arrays:
            continue
        fn, name = found
        args = _arg_list(arrays[lst.decl], fn)
        if args is None:
            continue
        shared = _present(call.args[4]) if len(call.args) > 4 else None
        stream = _present(call.args[5]) if len(call.args) > 5 else None
        # (a template's launch names the template, its kernel_decl the copy, as
        # kernel/instances.py binds a `<<<>>>` launch of one)
        span, callee = (call.span, name.span) if where is None else where
        launches[id(call)] = n.KernelLaunch(
            span=span, type="void", kernel=name.name, grid=call.args[1],
            block=call.args[2], shared=shared, stream=stream, args=args,
            kernel_decl=fn.decl, callee_span=callee, config_span=NO_SPAN)
        used_as_list[lst.decl] = used_as_list.get(lst.decl, 0) + 1
    if statements and launches:
        # What a checking statement does besides its call is judged against every launch
        # the function may have (its own included: `CHECK(call); cudaMemcpy(v, t, ...)`
        # reads what its launch writes).
        judge = _judge(unit, host, list(launches.values()))
        for i, (st, c) in list(statements.items()):
            if id(c) in launches and not _checked(unit, host, st, c, judge):
                statements.pop(i)
                launches.pop(id(c))
                lst = strip_casts(c.args[3])
                assert isinstance(lst, n.Ref)
                used_as_list[lst.decl] -= 1
    if not launches:
        return host
    # An array with any other use (written, passed on, a call not read as a launch) may
    # not hold what its initialiser says at the call: its calls stay calls.
    uses: dict[str, int] = {}
    for x in host.body.walk():
        if isinstance(x, n.Ref) and x.decl in used_as_list:
            uses[x.decl] = uses.get(x.decl, 0) + 1
    kept = {d for d, k in used_as_list.items() if uses.get(d) == k}
    ok = dict(launches)
    calls = {id(c): c for c in host.body.walk() if isinstance(c, n.Call) and id(c) in ok}
    for i, c in calls.items():
        lst = strip_casts(c.args[3])
        assert isinstance(lst, n.Ref)
        if lst.decl not in kept:
            ok.pop(i)
    if not ok:
        return host
    emptied = {strip_casts(c.args[3]).decl for i, c in calls.items() if i in ok}  # type: ignore[union-attr]

    # A statement that checks or keeps the status becomes the launch statement (its
    # launch's span the call's text in it: codegen replaces only that).
    whole = {i: n.ExprStmt(span=st.span, expr=ok[id(c)])
             for i, (st, c) in statements.items() if id(c) in ok}

    def change(x: n.Node) -> n.Node | None:
        if id(x) in whole:
            return whole[id(x)]
        if id(x) in ok:
            return ok[id(x)]
        if isinstance(x, n.VarDecl) and x.decl in emptied:
            return dataclasses.replace(x, init=None)
        return None

    body = replace_nodes(host.body, change)
    return dataclasses.replace(host, body=body)


def _judge(unit: TranslationUnit, host: Function, api: list[n.KernelLaunch]
           ) -> Callable[[n.Stmt], str | None]:
    """Why a statement may not stand after any of the host function's launches (its
    `<<<>>>` launches and the API launches `api`)."""
    from cudafuse.passes.vertical.host.hoststmts import HostStatements

    stmts = HostStatements(unit, host)
    assert host.body is not None
    every = [x for x in host.body.walk() if isinstance(x, n.KernelLaunch)] + api
    return lambda st: stmts.statement_reason(st, every, frozenset())


def _launches_of(fn: Function) -> list[n.KernelLaunch]:
    assert fn.body is not None
    found = [x for x in fn.body.walk() if isinstance(x, n.KernelLaunch)]
    return sorted(found, key=lambda la: la.span.start)


def with_api_launches(unit: TranslationUnit) -> TranslationUnit:
    """A copy of `unit` whose host functions' runtime-API launches are KernelLaunch nodes
    (`unit` itself when it has none)."""
    if API.encode() not in unit.code:
        return unit
    changed: dict[int, Function] = {}
    for f in (*unit.functions, *unit.method_hosts):
        if f.body is None or f.space == "global" or f.span.file != unit.path:
            continue
        g = _rewrite(unit, f)
        if g is not f:
            changed[id(f)] = g
    if not changed:
        return unit
    launches = dict(unit.launches)
    for g in changed.values():
        launches[g.name] = _launches_of(g)
    return dataclasses.replace(
        unit, functions=[changed.get(id(f), f) for f in unit.functions],
        method_hosts=[changed.get(id(f), f) for f in unit.method_hosts], launches=launches)
