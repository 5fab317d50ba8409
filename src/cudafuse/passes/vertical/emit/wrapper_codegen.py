"""Code for fused groups whose last member is a call of a host wrapper (wrappers.py).

A one-launch wrapper: the group's fused kernel is started by a new host function
`<group>_launch`: a copy of the last wrapper (its locals, error checks and launch
configuration) whose launch starts the fused kernel instead. Its parameters are the
wrapper's, then one per argument of the fused kernel that only an earlier member's call
supplies. The last member's call statement calls it, with the call's arguments and those;
the earlier members' call statements become comments (copies, helper_calls.py, when their
wrapper does more than launch: host/helper_effects.py). The wrappers themselves stay as they
are (other callers may use them).

A wrapper of several launches: its call becomes a copy of it written at the call site
(helper_calls.py), which starts the fused kernel where the wrapper started the last member.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from cudafuse.ir import nodes as n
from cudafuse.ir.source import Span
from cudafuse.passes.vertical.emit.codegen import (
    CodegenError,
    GroupEmitter,
    _find_args,
    _Slice,
    expr_text,
    param_key,
)
from cudafuse.passes.vertical.host.api_launches import is_api_launch, status_used
from cudafuse.passes.vertical.host.helper_effects import names_itself, static_local
from cudafuse.passes.vertical.host.hostexprs import spells_kernel

if TYPE_CHECKING:
    from cudafuse.ir.program import Function, TranslationUnit

# (start, end, text): an edit of the source's bytes, made in a copy of them
Edit = tuple[int, int, str]


_CALLEE = re.compile(r"\s*(?:::)?(?:\w+\s*::\s*)*(\w+)\s*(?:<[^()]*>)?\s*\(", re.S)


def spelled_call(unit: TranslationUnit, call: n.Call, name: str
                 ) -> tuple[int, int, list[str]] | None:
    """Where the text of a call of `name` lies in the file and its arguments' texts. A call
    written in a macro's argument (`CHECK(stage(a, b, n))`) has an empty span at the
    macro's name: its text is then looked for in the invocation's parentheses, where it
    must be the one call of `name`, with as many arguments as the IR's. None when it is
    not found so (the call comes from the macro's body: a copy cannot be written there)."""
    if not unit.owns(call.span):
        return None
    data = unit.source_of(call.span.file).data  # (a helper's body may be a header's)
    text = unit.text(call.span)
    if call.span.end > call.span.start:
        got = _CALLEE.match(text)
        if got is None or got.group(1) != name:
            return None
        return call.span.start, call.span.end, [expr_text(unit, a) for a in call.args]
    head = re.compile(rb"\s*\w+\s*\(").match(data, call.span.start)
    if head is None:
        return None
    shut = _closing(data, head.end() - 1)
    if shut is None:
        return None
    found = [m for m in re.finditer(rb"(?<![\w.>:])" + re.escape(name.encode()) + rb"\s*\(",
                                    data[head.end():shut]) if _outside_literals(
                                        data, head.end(), head.end() + m.start())]
    if len(found) != 1:
        return None
    start = head.end() + found[0].start()
    open_ = head.end() + found[0].end() - 1
    close = _closing(data, open_)
    if close is None:
        return None
    args = _split_args(data[open_ + 1:close].decode("utf-8", "replace"))
    if len(args) != len(call.args):
        return None
    return start, close + 1, args


def _closing(data: bytes, open_: int) -> int | None:
    """The offset of the parenthesis closing the one at `open_` (literals skipped)."""
    depth, i, quote = 0, open_, b""
    while i < len(data):
        c = data[i:i + 1]
        if quote:
            if c == b"\\":
                i += 1
            elif c == quote:
                quote = b""
        elif c in (b'"', b"'"):
            quote = c
        elif c == b"(":
            depth += 1
        elif c == b")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _outside_literals(data: bytes, start: int, at: int) -> bool:
    quote, i = b"", start
    while i < at:
        c = data[i:i + 1]
        if quote:
            if c == b"\\":
                i += 1
            elif c == quote:
                quote = b""
        elif c in (b'"', b"'"):
            quote = c
        i += 1
    return not quote


def _split_args(text: str) -> list[str]:
    """A call's argument list split at its top-level commas."""
    if not text.strip():
        return []
    out, depth, cur, quote = [], 0, "", ""
    for i, c in enumerate(text):
        if quote:
            if c == quote and text[i - 1] != "\\":
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += c
    out.append(cur.strip())
    return out


def copy_problem(unit: TranslationUnit, fn: Function, call: n.Call, host: Function,
                 at: str = "call") -> str | None:
    """Why what a group writes for a call of wrapper `fn` in `host` cannot be written. The
    call must name `fn`, not be a macro's (`at` "comment": the call only goes). A copy of
    the wrapper names what its body names, unqualified, and so must be written where those
    names mean what they mean in the wrapper: after it, and in its namespace. A copy at the
    call (`at` "call", helper_calls.py) is in the caller's scope: the caller must be in the
    wrapper's namespace. A launcher (`at` "launcher") is written before the caller, in the
    wrapper's namespace, reopened there (launcher_scope): the caller's namespaces must be
    the wrapper's outermost ones, so that they can be."""
    if at == "comment" or at == "launcher":
        got = _CALLEE.match(unit.text(call.span))
        if got is None or got.group(1) != fn.name:
            return f"the call of '{fn.name}' is written inside a macro invocation"
    elif spelled_call(unit, call, fn.name) is None:
        return f"the call of '{fn.name}' is written inside a macro invocation"
    if at == "comment":
        return None
    named = names_itself(unit, fn)
    if named is not None:  # (host/helper_effects.py)
        return (f"'{fn.name}' names its own function (line {named.span.line}: `__func__` or "
                "a macro using it), which a copy of it written for the group would name "
                "otherwise")
    kept = static_local(fn)
    if kept is not None:
        return (f"'{fn.name}' keeps a static local '{kept.name}' (line {kept.span.line}), which "
                "a copy of it written for the group would not share")
    if not unit.owns(fn.body_span) or fn.body_span.end <= fn.body_span.start:
        return (f"wrapper '{fn.name}' is defined in the included "
                f"'{os.path.basename(fn.span.file)}', whose text cudafuse does not hold (it "
                "lowers the text of a header with kernels only)")
    if unit.main_end(fn.span) > host.span.start:  # (a header's: where it is included)
        return f"wrapper '{fn.name}' is defined after '{host.name}'"
    inner = [x for x, _ in fn.namespaces]
    outer = [x for x, _ in host.namespaces]
    if at == "call" and inner == outer:
        return _hidden(unit, fn, host)
    if inner == outer or (at == "launcher" and inner[:len(outer)] == outer):
        return None
    where = "::".join(x or "(anonymous)" for x in inner)
    where = f"namespace '{where}'" if where else "the global namespace"
    if at == "launcher":
        return (f"wrapper '{fn.name}' is declared in {where}, which cannot be reopened where "
                f"'{host.name}' is: a copy of it there could not name what its body names")
    return (f"wrapper '{fn.name}' is declared in {where}, not where '{host.name}' is: a "
            "copy of it there could not name what its body names")


def _hidden(unit: TranslationUnit, fn: Function, host: Function) -> str | None:
    """Why a copy of `fn`'s body at a call in `host` would read a name otherwise: the
    caller's parameter or local of a name the body gives a global (a captureless lambda
    still reads a constant it hides), or a member of the caller's class."""
    assert fn.body is not None and host.body is not None
    own = {p.decl for p in fn.params} | {d.decl for d in fn.body.walk()
                                         if isinstance(d, n.VarDecl)}
    mine: dict[str, n.Node] = {p.name: p for p in host.params}
    for d in host.body.walk():
        if isinstance(d, n.VarDecl):
            mine.setdefault(d.name, d)
    for r in fn.body.walk():
        if not isinstance(r, n.Ref) or r.decl in own or r.kind in ("builtin", "function"):
            continue
        if unit.text(r.span).startswith("::"):
            continue
        if r.name in mine:
            return (f"'{fn.name}' names '{r.name}' (line {r.span.line}), which a copy of it in "
                    f"'{host.name}' would read as its own (line {mine[r.name].span.line})")
        if host.parent:
            return (f"'{fn.name}' names '{r.name}' (line {r.span.line}), which a copy of it in "
                    f"member function '{host.name}' may read as a member")
    return None


def launcher_scope(fn: Function, host: Function) -> tuple[str, str, str]:
    """Where the launcher copying wrapper `fn` is written, before `host`: the wrapper's
    namespaces the caller is not in, reopened (their opening and closing text), and how the
    caller names it (`::img::`, absolute, an anonymous namespace left out: its members are
    found through the enclosing one). Nothing when the caller is in the wrapper's namespace."""
    rest = fn.namespaces[len(host.namespaces):]
    if not rest:
        return "", "", ""
    opening = "".join(f"{'inline ' if inline else ''}namespace {name}{' ' if name else ''}{{\n"
                      for name, inline in rest)
    closing = "".join(f"}}  // namespace {name}\n" for name, _ in reversed(rest))
    return opening, closing, "::" + "".join(f"{x}::" for x, _ in fn.namespaces if x)


def sink_edits(em: GroupEmitter, extra_name: str) -> tuple[list[Edit], list[tuple[str, str, str]]]:
    """The edits of the wrapper's text that make its launch of the group's last kernel start
    the fused kernel, and the arguments of the fused kernel it lacks: (declared type, name
    `extra_name` + number, the caller's text), to be passed by the call."""
    unit, sink = em.unit, em.sink
    w = sink.wrapper
    assert w is not None and w.leaf.body is not None
    orig = w.launch
    source = unit.source_of(orig.span.file)  # (the launch may be in a header's helper)
    data = source.data
    for site in em.group.launches:
        if site.wrapper is not None:
            copied = site.wrapper.last_copied if site is sink else site.wrapper.copied
            at = "call" if copied else "launcher" if site is sink else "comment"
            why = copy_problem(unit, site.wrapper.fn, site.wrapper.call, site.host, at)
            if why is not None:
                raise CodegenError(why)
    if not spells_kernel(unit.text(orig.callee_span), sink.kernel.name):
        raise CodegenError(f"the launch in '{w.leaf.name}' is written inside a macro "
                           "invocation")
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
            name = f"{extra_name}{len(extra)}"
            extra.append((gp.type, name, expr_text(unit, gp.host_arg)))
            args.append(name)
    edits: list[Edit] = []
    if is_api_launch(orig):  # the wrapper's cudaLaunchKernel call (host/api_launches.py)
        config = ", ".join(expr_text(unit, e) for e in (
            orig.grid, orig.block, orig.shared, orig.stream) if e is not None)
        text = f"{em.group.name}<<<{config}>>>({', '.join(args)})"
        stmt = next((s for s in w.leaf.body.walk()
                     if isinstance(s, n.ExprStmt) and s.expr is orig), None)
        if stmt is None or status_used(stmt, orig):
            text = f"({text}, cudaPeekAtLastError())"
        edits.append((orig.span.start, orig.span.end, text))
    else:
        edits.append((orig.callee_span.start, orig.callee_span.end, em.group.name))
        close = _find_args(source, orig.config_span.end, orig.span.end)
        edits.append((close[0], close[1], f"({', '.join(args)})"))
    if em.group.launch_block is not None:
        kparams = [p.name for p in sink.kernel.params]
        opened = data.find(b"<<<", orig.callee_span.end, orig.config_span.end)
        edits.append((opened, orig.config_span.end, em.launch_config(
            lambda name: expr_text(unit, orig.args[kparams.index(name)]), orig)))
    return edits, extra


def param_list(unit: TranslationUnit, fn: Function, more: list[tuple[str, str, str]]) -> str:
    """A wrapper's parameter list as written (between its name and its body), less its
    default arguments (a call of a wrapper passes every argument, and a default before the
    parameters `more` appends would not parse), then `more`."""
    data = unit.source_of(fn.span.file).data
    body_start = fn.body_span.start
    open_ = data.find(b"(", fn.name_span.end, body_start)
    shut = data.rfind(b")", open_, body_start)
    cuts = [c for p in fn.params if (c := _default_start(data, p.span, open_, shut)) is not None]
    text = bytearray(data[open_ + 1:shut])
    for start, end in sorted(cuts, reverse=True):
        del text[start - open_ - 1:end - open_ - 1]
    params = text.decode("utf-8").strip()
    extra = [f"{t} {nm}" if not t.endswith("*") else f"{t}{nm}" for t, nm, _ in more]
    return ", ".join(x for x in [params if params != "void" else "", *extra] if x)


def _default_start(data: bytes, span: Span, open_: int, shut: int) -> tuple[int, int] | None:
    """The bytes of a parameter's default argument (` = 3.0f`, from the space before the
    `=` to the end of the parameter), when its span lies in the written list: the first `=`
    outside brackets that is no comparison (`==`, `<=`, `>=`, `!=`)."""
    if not open_ < span.start <= span.end <= shut:
        return None
    depth = 0
    for i in range(span.start, span.end):
        c = data[i:i + 1]
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
        elif c == b"=" and depth == 0 and data[i + 1:i + 2] != b"=" and \
                data[i - 1:i] not in (b"=", b"<", b">", b"!"):
            start = i
            while start > span.start and data[start - 1:start].isspace():
                start -= 1
            return start, span.end
    return None


def launcher(em: GroupEmitter) -> tuple[str, list[str]]:
    """The host function that replaces the call of the group's last wrapper: the wrapper's
    text, its launch starting the fused kernel; and the caller's texts of the fused kernel's
    arguments that come from earlier members (the call passes them after its own). Nothing
    for a wrapper of several launches (helper_calls.py writes its copy at the call)."""
    w = em.sink.wrapper
    assert w is not None
    if w.last_copied:
        return "", []
    edits, extra = sink_edits(em, f"{em.prefix}_x")
    body = _Slice(em.unit.source_of(w.fn.span.file), w.fn.body_span)
    for start, end, text in edits:
        body.replace_range(start, end, text)
    plist = param_list(em.unit, w.fn, extra)
    opening, closing, _ = launcher_scope(w.fn, em.sink.host)
    text = (f"// cudafuse: '{w.fn.name}' launching {em.group.name}\n{opening}"
            f"static {w.fn.return_type.strip()} {em.group.name}_launch({plist})\n"
            f"{body.text()}\n{closing}")
    return text, [t for _, _, t in extra]
