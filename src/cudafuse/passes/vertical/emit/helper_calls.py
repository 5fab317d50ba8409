"""Calls of host wrappers of several launches (host/wrappers.py) that fused groups take
launches of.

    void gaussian(const float *in, float *t, float *out, int w, int h) {
      dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
      conv_rows<<<g, b>>>(in, t, w, h);
      conv_cols<<<g, b>>>(t, out, w, h);
    }
    void edges(...) { gaussian(src, t0, t1, w, h); sobel<<<g, b>>>(t1, mag, w, h); }

When a group takes a launch of the wrapper, its call `gaussian(src, t0, t1, w, h)` becomes a
copy of the wrapper written at the call site: a lambda with the wrapper's parameter list and
body, called with the call's arguments.

    /* cudafuse: a copy of 'gaussian' */ [](const float *in, float *t, float *out, int w,
        int h, float *cf_edges_fused0_x0) {
      dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
      /* cudafuse: conv_rows fused into cf_edges_fused0 */
      cf_edges_fused0<<<g, b>>>(in, out, w, h, cf_edges_fused0_x0);
    }(src, t0, t1, w, h, mag);

Its parameters and locals are its own, so no name of the caller's can clash with them, and
what it did between its launches (error checks, synchronisation, printing) stays where it
was. In the copy, a launch whose work a later launch takes over becomes a comment; the
launch of a group's last kernel starts the fused kernel, with the wrapper's own arguments
where it has them and else extra parameters the call passes (the caller's variables);
other launches stay as written. The wrapper's definition stays for its other calls.

A call standing for launches of helpers the wrapper calls (host/wrappers.py) becomes a copy
too, in which each such inner call is itself written as a copy of its helper (to any
depth), given the outer copy's extra parameters by name; a call checked by its statement
(`CHECK(stage(...))`) keeps the statement, the call alone becoming the copy, which returns
what the helper returns (`-> cudaError_t`), parenthesised in a macro's argument.

Several groups may take launches of one call: each writes the call anew, from what all of
them did so far (kept per Rewriter), replacing the edit where it stands in the Rewriter's
list, after every step that may fail (a group is rewritten whole or not at all).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from cudafuse.codegen.splice import Edit, OverlappingEdits
from cudafuse.ir import nodes as n
from cudafuse.passes.vertical.emit.codegen import CodegenError, GroupEmitter, _Slice, expr_text
from cudafuse.passes.vertical.emit.wrapper_codegen import (
    _hidden,
    copy_problem,
    launcher_scope,
    param_list,
    sink_edits,
    spelled_call,
)
from cudafuse.passes.vertical.host.api_launches import status_used
from cudafuse.passes.vertical.host.hostexprs import spells_kernel

if TYPE_CHECKING:
    from cudafuse.codegen.splice import Rewriter
    from cudafuse.ir.program import Function
    from cudafuse.passes.vertical.host.hostview import LaunchSite
    from cudafuse.passes.vertical.host.wrappers import WrapperCall

TextEdit = tuple[int, int, str]


@dataclass
class _Call:
    """What groups did so far to the launches of one call of a wrapper."""

    wrapper: WrapperCall
    parts: dict[int, list[TextEdit]] = field(default_factory=dict)  # launch -> its edits
    # launch -> its WrapperCall (which helpers of the wrapper's it is made through)
    sites: dict[int, WrapperCall] = field(default_factory=dict)
    extra: list[tuple[str, str, str]] = field(default_factory=list)  # (type, name, arg)
    edit: Edit | None = None  # the Rewriter's edit of the call now


# id(Rewriter) -> (the Rewriter, call offset -> _Call)
_STATE: dict[int, tuple[weakref.ref, dict[int, _Call]]] = {}


def _calls(rw: Rewriter) -> dict[int, _Call]:
    got = _STATE.get(id(rw))
    if got is None or got[0]() is not rw:
        for key in [k for k, (ref, _) in _STATE.items() if ref() is None]:
            del _STATE[key]
        got = _STATE[id(rw)] = (weakref.ref(rw), {})
    return got[1]


def _helper_part(site: LaunchSite) -> bool:
    return site.wrapper is not None and site.wrapper.copied


def _statement(em: GroupEmitter, site: LaunchSite) -> n.ExprStmt:
    """The wrapper's statement of this launch, after checking the copy can be written."""
    w = site.wrapper
    assert w is not None and w.leaf.body is not None
    unit, host = em.unit, site.host
    if em.group.checks:
        raise CodegenError("its producers' coverage is only known at run time, and "
                           f"'{w.fn.name}' launches '{site.kernel.name}'")
    why = copy_problem(unit, w.fn, w.call, host)
    enclosing = [host, w.fn]
    for call, inner in w.via:  # (a copy of each helper is written inside its caller's copy)
        why = why or copy_problem(unit, inner, call, host) or next(
            (x for f in enclosing if (x := _hidden(unit, inner, f)) is not None), None)
        enclosing.append(inner)
    if why is not None:
        raise CodegenError(why)
    leaf = w.leaf
    assert leaf.body is not None
    if not spells_kernel(unit.text(w.launch.callee_span), site.kernel.name):
        raise CodegenError(f"the launch of '{site.kernel.name}' in '{leaf.name}' is written "
                           "inside a macro invocation")
    stmt = next((s for s in leaf.body.body if isinstance(s, n.ExprStmt) and
                 s.expr is w.launch), None)
    if stmt is None or not unit.owns(stmt.span):
        raise CodegenError(f"the launch of '{site.kernel.name}' in '{leaf.name}' is no "
                           "statement of its own text")
    return stmt


def _spelled(em: GroupEmitter, call: n.Call, fn: Function) -> tuple[int, int, list[str]]:
    got = spelled_call(em.unit, call, fn.name)
    if got is None:
        raise CodegenError(f"the call of '{fn.name}' is written inside a macro invocation")
    return got


def _in_macro(call: n.Call) -> bool:
    """A call written in a macro's argument: its copy is parenthesised there (the
    preprocessor splits arguments at commas outside parentheses, `int l = 0, r = 1;` in
    the copied body's braces among them)."""
    return call.span.end <= call.span.start


def _render(em: GroupEmitter, c: _Call) -> str:
    unit, fn, call = em.unit, c.wrapper.fn, c.wrapper.call
    args = _spelled(em, call, fn)[2] + [t for _, _, t in c.extra]
    line = unit.source.line_text(call.span.line)
    indent = line[:len(line) - len(line.lstrip())]  # (the copy's lines under the call's)
    text = _body(em, c, fn, ()).replace("\n", "\n" + indent)
    text = (f"/* cudafuse: a copy of '{fn.name}' */ [](" + param_list(unit, fn, c.extra) +
            f"){_returns(fn)} {text}({', '.join(args)})")
    return f"({text})" if _in_macro(call) else text


def _returns(fn: Function) -> str:
    """The copy's return type, written out when the helper returns a value (its call may
    be checked, `CHECK(stage(...))`: the copy returns what the helper does, of its type)."""
    kind = fn.return_type.strip()
    return "" if kind in ("void", "auto", "decltype(auto)") else f" -> {kind}"


def _body(em: GroupEmitter, c: _Call, fn: Function, path: tuple[int, ...]) -> str:
    """The text of `fn`'s body in the copy at the call, where `path` (the offsets of the
    helper calls leading to it from the wrapper's body) says which of its calls this copy
    stands for: the edits of the launches it makes itself, and each call of a helper that
    makes one of the group's launches written as a copy of that helper in turn (passed
    the copy's extra parameters on, by name)."""
    unit = em.unit
    body = _Slice(unit.source_of(fn.span.file), fn.body_span)  # (a header's helper too)
    nested: dict[int, tuple[n.Call, Function]] = {}
    for part in sorted(c.parts):
        via = c.sites[part].via
        chain = tuple(x.span.start for x, _ in via)
        if chain == path:
            for start, end, text in c.parts[part]:
                body.replace_range(start, end, text)
        elif chain[:len(path)] == path:
            inner_call, inner = via[len(path)]
            nested[inner_call.span.start] = (inner_call, inner)
    for start, (inner_call, inner) in sorted(nested.items()):
        at, end, spelled = _spelled(em, inner_call, inner)
        args = spelled + [nm for _, nm, _ in c.extra]
        text = _body(em, c, inner, (*path, start))
        text = (f"/* cudafuse: a copy of '{inner.name}' */ [](" +
                param_list(unit, inner, c.extra) +
                f"){_returns(inner)} {text}({', '.join(args)})")
        body.replace_range(at, end, f"({text})" if _in_macro(inner_call) else text)
    return body.text()


def _commit(em: GroupEmitter, rw: Rewriter, new: dict[int, list[TextEdit]],
            extra: tuple[int, list[tuple[str, str, str]]] | None, sites: list[LaunchSite]
            ) -> None:
    """Write the calls these launches belong to anew, with their new edits."""
    calls = _calls(rw)
    changed: dict[int, _Call] = {}
    for site in sites:
        w = site.wrapper
        assert w is not None
        key = w.call.span.start
        c = changed.get(key) or calls.get(key)
        c = replace(c, parts=dict(c.parts), extra=list(c.extra), sites=dict(c.sites)) \
            if c is not None else _Call(w)
        c.parts[w.part] = new[id(site)]
        c.sites[w.part] = w
        if extra is not None and extra[0] == id(site):
            c.extra.extend(extra[1])
        changed[key] = c
    texts = {key: _render(em, c) for key, c in changed.items()}  # (may raise)
    for key, c in changed.items():  # first the calls no group rewrote yet (may overlap)
        if c.edit is None:
            at, end, _ = _spelled(em, c.wrapper.call, c.wrapper.fn)
            try:
                rw.replace_range(at, end, texts[key], f"a copy of '{c.wrapper.fn.name}'")
            except OverlappingEdits as exc:
                raise CodegenError(str(exc)) from None
            c.edit = rw.edits[-1]
    for key, c in changed.items():  # then, in place, those rewritten before
        old = calls.get(key)
        if old is not None and old.edit is not None:
            at = next(i for i, e in enumerate(rw.edits) if e is old.edit)
            c.edit = rw.edits[at] = Edit(old.edit.start, old.edit.end, texts[key],
                                         old.edit.reason)
    calls.update(changed)


def _away(em: GroupEmitter, site: LaunchSite) -> list[TextEdit]:
    stmt = _statement(em, site)
    return [(stmt.span.start, stmt.span.end,
             f"/* cudafuse: {site.kernel.name} fused into {em.group.name} */")]


def fused_away(em: GroupEmitter, rw: Rewriter) -> None:
    """The group's earlier launches made by calls of wrappers of several launches go from
    the copies written at those calls (the caller's own statements are rewritten by the
    group's emitter)."""
    sites = [s for s in em.group.launches[:-1] if _helper_part(s)]
    if sites:
        _commit(em, rw, {id(s): _away(em, s) for s in sites}, None, sites)


def helper_sink(em: GroupEmitter, rw: Rewriter) -> None:
    """A group whose last launch is one of a wrapper of several: the copy at its call starts
    the fused kernel; the earlier members' launches go."""
    sink = em.sink
    _statement(em, sink)
    edits, extra = sink_edits(em, f"{em.group.name}_x")
    sites = [s for s in em.group.launches[:-1] if _helper_part(s)]
    new = {id(s): _away(em, s) for s in sites}
    new[id(sink)] = edits
    for site in em.group.launches[:-1]:
        if _helper_part(site):
            continue
        if site.wrapper is None and status_used(site.stmt, site.launch):
            rw.replace(site.launch.span, "cudaSuccess", f"launch of {site.kernel.name} fused")
            continue
        rw.replace(site.stmt.span,
                   f"/* cudafuse: {site.kernel.name} fused into {em.group.name} */",
                   f"launch of {site.kernel.name} fused")
    _commit(em, rw, new, (id(sink), extra), [*sites, sink])


def group_host_edits(em: GroupEmitter, rw: Rewriter) -> None:
    """The host edits of a group started by a launch of the caller's own (GroupEmitter.host_edits),
    then the copies of wrappers of several launches among its earlier members."""
    em.host_edits(rw)
    fused_away(em, rw)  # (last: a copy of a wrapper written at its call)


def wrapper_host_edits(em: GroupEmitter, rw: Rewriter, extra: list[str]) -> None:
    """The last member's call calls the launcher; the earlier members' statements go (a
    launch of a wrapper of several: its call is rewritten here). Moved here from
    wrapper_codegen.py so that no emit module imports helper_calls back (test_layout)."""
    unit, sink = em.unit, em.sink
    assert sink.wrapper is not None
    if em.group.checks:  # (the original launches are not statements of this function)
        raise CodegenError("its producers' coverage is only known at run time, and its last "
                           "launch is a wrapper's")
    if sink.wrapper.last_copied:
        helper_sink(em, rw)
        return
    call = sink.wrapper.call
    args = [expr_text(unit, a) for a in call.args] + extra
    qualifier = launcher_scope(sink.wrapper.fn, sink.host)[2]
    rw.replace(call.span, f"{qualifier}{em.group.name}_launch({', '.join(args)})",
               "fused launch")
    for site in em.group.launches[:-1]:
        if site.wrapper is not None and site.wrapper.copied:
            continue
        rw.replace(site.stmt.span,
                   f"/* cudafuse: {site.kernel.name} fused into {em.group.name} */",
                   f"launch of {site.kernel.name} fused")
    fused_away(em, rw)
