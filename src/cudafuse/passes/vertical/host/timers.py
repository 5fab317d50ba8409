"""Events recorded between launches only to time them (issue 25: Udacity's `GpuTimer`).

`timer.Start(); k1<<<>>>(...); timer.Stop(); ... timer.Elapsed(); timer.Start();
k2<<<>>>(...)`: the methods wrap `cudaEventRecord`, `cudaEventSynchronize` and
`cudaEventElapsedTime` on the timer's own events. Fusing k1 and k2 moves k1's work past the
records, so the events then mark an earlier point of the stream: the timer measures a
different split of the same work (as a host timer does), and nothing the kernels compute
changes, *unless* something waits on the event to order work or to read memory:

* another stream waiting on it (`cudaStreamWaitEvent`), or a host callback: its work would
  start before k1's has run;
* the host polling it (`cudaEventQuery`) or synchronising on it and then reading memory a
  kernel may still write: managed or mapped host memory (`cudaMallocManaged`, `__managed__`,
  `cudaMallocHost`, `cudaHostAlloc`, `cudaHostRegister`), or memory on a stream other than
  the default one, which a transfer after the wait would not wait for.

So a record between launches is harmless only when the file does none of these: it creates
no stream, waits on and polls no event, registers no callback, allocates no memory the host
and the device share; when the event is the function's own (`own_event`: a local, an
element of a local array, or a member of a timer object declared by value, given to no
call but the event calls and the object's own methods: no other code can wait on it); and
the host function reads no memory through a pointer its launches
are given (were a buffer that the file receives from elsewhere managed, the host could read
it after the wait). Buffers that other files pass in are taken to be device memory, as
distinct pointer parameters are taken not to alias.
"""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.passes.vertical.host.stmtnodes import _deref_base, _root

# The event calls a timer makes: what they read from the event is its time stamp.
TIMING = frozenset({"cudaEventRecord", "cudaEventSynchronize", "cudaEventElapsedTime"})

# The calls an event of the function's own may be given (besides the timing ones).
EVENT_CALLS = TIMING | {"cudaEventCreate", "cudaEventCreateWithFlags", "cudaEventDestroy"}

# Calls after which a record may order work or memory, not only time it.
ORDERING = frozenset({
    "cudaStreamWaitEvent", "cudaEventQuery", "cudaStreamCreate", "cudaStreamCreateWithFlags",
    "cudaStreamCreateWithPriority", "cudaLaunchHostFunc", "cudaStreamAddCallback",
    "cudaMallocManaged", "cudaMallocHost", "cudaHostAlloc", "cudaHostRegister",
    "cudaHostGetDevicePointer", "cudaEventRecordWithFlags",
})


def _bodies(unit: TranslationUnit) -> list[Function]:
    return [f for f in (*unit.functions, *unit.methods, *unit.header_functions)
            if f.body is not None]


def event_record_reason(unit: TranslationUnit, host: Function) -> str | None:
    """Why a `cudaEventRecord` between launches of `host` may order work or memory (then it
    splits the launch sequence), or None when it can only time them."""
    for g in unit.globals:
        # (libclang exposes no cursor kind for the managed attribute: the front end lowers
        # such a global as a host one, so its declaration is read)
        if g.space == "managed" or g.span.file == unit.path and \
                "__managed__" in unit.text(g.span):
            return f"the file declares managed memory ('{g.name}')"
    for fn in _bodies(unit):
        assert fn.body is not None
        for node in fn.body.walk():
            if isinstance(node, n.Call) and node.callee in ORDERING:
                return f"'{fn.name}' calls '{node.callee}'"
    assert host.body is not None
    buffers = {r.decl for la in host.body.walk() if isinstance(la, n.KernelLaunch)
               for a in la.args if (r := _root(a)) is not None}
    for node in host.body.walk():
        base = _deref_base(node)
        root = _root(base) if base is not None else None
        if root is not None and root.decl in buffers:
            return f"'{host.name}' reads memory through '{root.name}', a buffer its launches use"
    return None


def timing_arguments(call: n.Call) -> list[n.Expr]:
    """The arguments of a timing event call (the events it records, waits on or reads)."""
    if call.callee not in TIMING:
        return []
    return [_strip(a) for a in call.args if a is not None]  # type: ignore[misc]


def _variable(e: n.Expr | None) -> n.Ref | None:
    """The variable an event expression is part of: `ev`, `&ev`, `marks[i]`, `timer.stop`."""
    while True:
        e = _strip(e)
        if isinstance(e, n.Unary) and e.op == "&":
            e = e.operand
        elif isinstance(e, n.Index):
            e = e.base
        elif isinstance(e, n.Member) and not e.arrow:
            e = e.base
        else:
            return e if isinstance(e, n.Ref) else None


def own_event(fn: Function, e: n.Expr) -> str | None:
    """Why the event (or timer object) `e` of `fn` may be waited on by code other than fn's
    own timing calls, or None: it is a local declared by value (an array of events, a
    timer object), given to no call but the event calls and its own methods, copied
    nowhere."""
    v = _variable(e)
    assert fn.body is not None
    decls = {d.decl: d for d in fn.body.walk() if isinstance(d, n.VarDecl)}
    d = decls.get(v.decl) if v is not None and v.kind == "local" else None
    if v is None or d is None or "&" in d.var_type or "*" in d.var_type:
        return "the event is not a local of the function"
    allowed: set[int] = set()
    for node in fn.body.walk():
        if not isinstance(node, n.Call):
            continue
        if node.callee in EVENT_CALLS:
            allowed |= {id(r) for a in node.args if (r := _variable(a)) is not None}
        if isinstance(node.callee_expr, n.Member) and not node.callee_expr.arrow:
            r = _strip(node.callee_expr.base)  # its own method: read for what it does
            if isinstance(r, n.Ref):
                allowed.add(id(r))
    for node in fn.body.walk():
        if isinstance(node, n.Ref) and node.decl == v.decl and id(node) not in allowed:
            return f"'{v.name}' is used other than by the event calls and its own methods"
    return None
