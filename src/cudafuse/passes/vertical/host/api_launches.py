"""Launches through the runtime API, read as the launches they are.

    void *args[] = {&in, &tmp, &n};
    cudaLaunchKernel((const void *)blur, grid, block, args, 0, stream);

starts `blur` exactly as `blur<<<grid, block, 0, stream>>>(in, tmp, n)` does: the runtime
reads each argument through its pointer in `args` when the call is made, so the launch's
arguments are the values those variables hold at the call. Such a call statement becomes a
KernelLaunch of the host function's IR (its span the call's, its callee span the kernel's
name inside the call, no configuration span), so that sequences, legality and planning see
it as any other launch; a fused group whose last launch is one is rewritten whole into a
`<<<...>>>` launch (is_api_launch tells codegen so).

Only what is provably that launch is read so; anything else stays an opaque call (which
splits its sequence, as before):

* a statement that is the call alone (its cudaError_t unused; `(void)` allowed): a value
  used (`err = cudaLaunchKernel(...)`, `CHECK(cudaLaunchKernel(...))`) has no `<<<>>>`
  spelling to put in its place;
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

from cudafuse.frontend.instantiate import API_LAUNCH, api_kernel
from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.source import NO_SPAN
from cudafuse.ir.substitute import replace_nodes
from cudafuse.ir.types import unqualified

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


def _rewrite(unit: TranslationUnit, host: Function) -> Function:
    """`host` with its runtime-API launches as KernelLaunch nodes (itself when none)."""
    assert host.body is not None
    arrays = {d.decl: d for d in host.body.walk() if isinstance(d, n.VarDecl)}
    launches: dict[int, n.KernelLaunch] = {}  # id of the call -> its launch
    used_as_list: dict[str, int] = {}  # array decl -> uses as a converted call's list
    for stmt in host.body.walk():
        call = _call_of(stmt)
        if call is None:
            continue
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
        launches[id(call)] = n.KernelLaunch(
            span=call.span, type="void", kernel=name.name, grid=call.args[1],
            block=call.args[2], shared=shared, stream=stream, args=args,
            kernel_decl=fn.decl, callee_span=name.span, config_span=NO_SPAN)
        used_as_list[lst.decl] = used_as_list.get(lst.decl, 0) + 1
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

    def change(x: n.Node) -> n.Node | None:
        if id(x) in ok:
            return ok[id(x)]
        if isinstance(x, n.VarDecl) and x.decl in emptied:
            return dataclasses.replace(x, init=None)
        return None

    body = replace_nodes(host.body, change)
    return dataclasses.replace(host, body=body)


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
