"""Code for fused groups whose last member is a call of a host wrapper (wrappers.py).

The group's fused kernel is started by a new host function `<group>_launch`: a copy of the
last wrapper (its locals, error checks and launch configuration) whose launch starts the
fused kernel instead. Its parameters are the wrapper's, then one per argument of the fused
kernel that only an earlier member's call supplies. The last member's call statement calls
it, with the call's arguments and those; the earlier members' call statements become
comments. The wrappers themselves stay as they are (other callers may use them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cudafuse.ir import nodes as n
from cudafuse.passes.vertical.emit.codegen import (
    CodegenError,
    GroupEmitter,
    _find_args,
    _Slice,
    expr_text,
    param_key,
)
from cudafuse.passes.vertical.host.api_launches import is_api_launch, status_used
from cudafuse.passes.vertical.host.hostexprs import spells_kernel

if TYPE_CHECKING:
    from cudafuse.codegen.splice import Rewriter


def launcher(em: GroupEmitter) -> tuple[str, list[str]]:
    """The host function that replaces the call of the group's last wrapper: the wrapper's
    text, its launch starting the fused kernel; and the caller's texts of the fused kernel's
    arguments that come from earlier members (the call passes them after its own)."""
    unit, sink = em.unit, em.sink
    w = sink.wrapper
    assert w is not None and w.fn.body is not None
    if w.fn.span.end > sink.host.span.start:
        raise CodegenError(f"wrapper '{w.fn.name}' is defined after '{sink.host.name}'")
    data = unit.source.data
    orig = w.launch
    for site in em.group.launches:
        if site.wrapper is not None:
            call = site.wrapper.call
            if not unit.text(call.span).startswith(site.wrapper.fn.name):
                raise CodegenError(f"the call of '{site.wrapper.fn.name}' is written inside "
                                   "a macro invocation")
    if not spells_kernel(unit.text(orig.callee_span), sink.kernel.name):
        raise CodegenError(f"the launch in '{w.fn.name}' is written inside a macro invocation")
    at = {param_key(p, a): i for i, (p, a) in enumerate(sink.bindings)}
    args: list[str] = []
    extra: list[tuple[str, str, str]] = []  # (declared type, name, the caller's text)
    for gp in em.params:
        i = at.get(gp.key)
        # The wrapper's own argument, unless the fused kernel needs it writable (the sink
        # reads through a const pointer what an earlier member writes): the caller's then.
        if i is not None and i < len(orig.args) and sink.bindings[i][0].type == gp.type:
            args.append(expr_text(unit, orig.args[i]))
        else:
            name = f"{em.prefix}_x{len(extra)}"
            extra.append((gp.type, name, expr_text(unit, gp.host_arg)))
            args.append(name)
    body = _Slice(unit.source, w.fn.body_span)
    if is_api_launch(orig):  # the wrapper's cudaLaunchKernel call (host/api_launches.py)
        config = ", ".join(expr_text(unit, e) for e in (
            orig.grid, orig.block, orig.shared, orig.stream) if e is not None)
        text = f"{em.group.name}<<<{config}>>>({', '.join(args)})"
        assert w.fn.body is not None
        stmt = next((s for s in w.fn.body.walk()
                     if isinstance(s, n.ExprStmt) and s.expr is orig), None)
        if stmt is None or status_used(stmt, orig):
            text = f"({text}, cudaPeekAtLastError())"
        body.replace(orig.span, text)
    else:
        body.replace(orig.callee_span, em.group.name)
        close = _find_args(unit.source, orig.config_span.end, orig.span.end)
        body.replace_range(close[0], close[1], f"({', '.join(args)})")
    if em.group.launch_block is not None:
        kparams = [p.name for p in sink.kernel.params]
        opened = data.find(b"<<<", orig.callee_span.end, orig.config_span.end)
        body.replace_range(opened, orig.config_span.end, em.launch_config(
            lambda name: expr_text(unit, orig.args[kparams.index(name)]), orig))
    open_ = data.find(b"(", w.fn.name_span.end, w.fn.body_span.start)
    shut = data.rfind(b")", open_, w.fn.body_span.start)
    params = data[open_ + 1:shut].decode("utf-8").strip()
    more = [f"{t} {nm}" if not t.endswith("*") else f"{t}{nm}" for t, nm, _ in extra]
    plist = ", ".join(x for x in [params if params != "void" else "", *more] if x)
    text = (f"// cudafuse: '{w.fn.name}' launching {em.group.name}\n"
            f"static void {em.group.name}_launch({plist})\n{body.text()}\n")
    return text, [t for _, _, t in extra]


def host_edits(em: GroupEmitter, rw: Rewriter, extra: list[str]) -> None:
    """The last member's call calls the launcher; the earlier members' statements go."""
    unit, sink = em.unit, em.sink
    assert sink.wrapper is not None
    if em.group.checks:  # (the original launches are not statements of this function)
        raise CodegenError("its producers' coverage is only known at run time, and its last "
                           "launch is a wrapper's")
    call = sink.wrapper.call
    args = [expr_text(unit, a) for a in call.args] + extra
    rw.replace(call.span, f"{em.group.name}_launch({', '.join(args)})", "fused launch")
    for site in em.group.launches[:-1]:
        rw.replace(site.stmt.span,
                   f"/* cudafuse: {site.kernel.name} fused into {em.group.name} */",
                   f"launch of {site.kernel.name} fused")
