"""Calls to host wrapper functions that launch kernels, as launches of the caller.

Many programs compose a pipeline from host functions that each launch one kernel, or
several in a row:

    void blur(const float *in, float *out, int w, int h) { dim3 b(16, 16), g(...);
                                                           blur_k<<<g, b>>>(in, out, w, h); }
    void pipeline(...) { blur(src, tmp, w, h); sharpen(tmp, dst, w, h); }
    void gaussian(...) { conv_rows<<<g, b>>>(in, t, w, h); conv_cols<<<g, b>>>(t, out, w, h); }

A call statement `w(args);` stands for the launches of `w`, in order, in the caller's
sequence when `w` is a *wrapper*:

* a free, non-template, non-overloaded host function of the file (the explicit
  specialisations cudafuse writes for a host template are that template's, no overloads:
  a call resolved to one is judged by its body; one of several launches is not followed),
  returning void or a value the call statement drops (`return cudaGetLastError();` last),
  that does not call itself, whose call passes every parameter (no default arguments);
* whose body is, at its top level, a straight sequence of kernel launches (each a statement
  of its own), declarations of locals and statements that are harmless between launches
  (hoststmts.py: error checks, synchronisation, printing; with several launches each such
  statement is judged against all of them); nothing else launches a kernel, and there is no
  loop that launches (a loop of host code is judged as any statement), no `return` (but a
  last one), no goto;
* that writes none of its parameters, no variable but its own locals, and none of the
  locals its launches use;
* whose launches pass each pointer parameter of their kernels a parameter of the wrapper
  (or a global), and whose call passes that parameter a plain variable of the caller
  (`tmp`, or a pointer field of a struct parameter, `img.data`: hostexprs.buffer_key; not
  `tmp + 1`): buffers are keyed by the caller's variables.

A wrapper's body may also call helpers that are wrappers themselves (followed MAX_DEPTH
levels below the caller, MAX_LAUNCHES launches at most): such a call, a statement of its
top level, stands for their launches there, read in the wrapper's terms first. And a
statement that runs a wrapper's call first and then only looks at its value stands for the
call, in the caller as in a wrapper: `CHECK(stage(...));` (a function or a `do { ... }
while (0)` macro), `if (stage(...) != cudaSuccess) { ... }`, `cudaError_t e =
stage(...);`, `return stage(...);` (held_call; not under `&&`, `||`, `?:`, in a branch or a
loop); what else it does is judged with the call read as a status. A function is one of the
file's by its definition: its first declaration may be a prototype in the program's header.

Each launch is then seen in the caller's terms: its grid, block and arguments with the
wrapper's parameters replaced by the call's arguments and the locals it uses by their
initialisers (a tree with no source span of its own, so code generation prints it). Its
span is the call's (the k-th launch's starts k bytes in, so that each has its own place;
line and column stay the call's), so notes point at the caller's line. A call of a wrapper
of several launches stands, in the caller's block, for one statement per launch
(`expanded`): the sequences see its launches one after the other.

Code generation: wrapper_codegen.py (a group ending in a one-launch wrapper's call),
helper_calls.py (groups taking launches of a wrapper of several).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.source import NO_SPAN
from cudafuse.passes.vertical.host.helper_effects import effect_statement
from cudafuse.passes.vertical.host.hostexprs import (
    _writes,
    buffer_key,
    launched_kernel,
    side_effect_free,
)
from cudafuse.passes.vertical.host.hoststmts import HostStatements, _assigned
from cudafuse.passes.vertical.host.ownmemory import OwnMemory


@dataclass(frozen=True)
class WrapperCall:
    """A call statement of the caller that is a launch through a wrapper."""

    call: n.Call  # in the caller
    fn: Function  # the wrapper
    launch: n.KernelLaunch  # the wrapper's own launch, in the wrapper's terms
    part: int = 0  # which of the wrapper's launches, in order
    count: int = 1  # how many it has
    # The calls of helpers, in `fn`'s body and then in each one's, through which `fn`
    # makes this launch: ((call in fn, helper), (call in that helper, its helper), ...);
    # `launch` is a statement of the last one's body. Empty for `fn`'s own launch.
    via: tuple[tuple[n.Call, Function], ...] = ()
    # Whether the call's value is used by the statement that makes it (`CHECK(stage(...))`,
    # `if (stage(...) != cudaSuccess) ...`): only the call is rewritten, as a copy.
    checked: bool = False
    # Whether `fn` does host work on memory of its own besides launching (keeps_own):
    # its call is then written as a copy, where that work stays, never made a comment.
    keeps: bool = False
    # Whether `fn` does anything else besides launching (helper_effects.py: printing, error
    # checks, events, synchronisation, a returned status): the call of an earlier member of
    # a group is then written as a copy, where that stays, never made a comment (a last
    # member's launcher is a copy of `fn` already).
    effects: bool = False

    @property
    def leaf(self) -> Function:
        """The function whose body holds `launch`."""
        return self.via[-1][1] if self.via else self.fn

    @property
    def copied(self) -> bool:
        """Whether code generation writes a copy of `fn` at the call (helper_calls.py)
        rather than a launcher (wrapper_codegen.py): several launches, or one through a
        helper of `fn`'s, or one whose helper does more than launch (`keeps`, `effects`).
        As a group's last launch, see `last_copied`."""
        return self.last_copied or self.effects

    @property
    def last_copied(self) -> bool:
        """Whether, as the last launch of a group, the call is written as a copy rather
        than as a call of a launcher (a copy of `fn` before the caller, which keeps what
        `fn` does besides its launch)."""
        return self.count > 1 or bool(self.via) or self.checked or self.keeps


# How far calls are followed into helpers that call helpers: levels below the caller, and
# launches one call may stand for. A deeper or larger tree is refused with its place.
MAX_DEPTH = 4
MAX_LAUNCHES = 64


@dataclass(frozen=True)
class _Part:
    """A launch a helper makes, in the helper's terms (`launch`), as the statement of its
    own or of a helper it calls written (`own`, in `via[-1]`'s terms)."""

    launch: n.KernelLaunch
    own: n.KernelLaunch
    via: tuple[tuple[n.Call, Function], ...] = ()


def _subst(e: n.Expr, env: dict[str, n.Expr]) -> n.Expr:
    """`e` with Refs whose decl `env` maps replaced; rebuilt nodes lose their span."""
    if isinstance(e, n.Ref) and e.decl in env:
        return env[e.decl]
    changes: dict[str, object] = {}
    for f in dataclasses.fields(e):
        if f.name == "span":
            continue
        v = getattr(e, f.name)
        if isinstance(v, n.Expr):
            nv = _subst(v, env)
            if nv is not v:
                changes[f.name] = nv
        elif isinstance(v, tuple) and any(isinstance(x, n.Expr) for x in v):
            nt = tuple(_subst(x, env) if isinstance(x, n.Expr) else x for x in v)
            if any(a is not b for a, b in zip(nt, v, strict=True)):
                changes[f.name] = nt
    return dataclasses.replace(e, span=NO_SPAN, **changes) if changes else e  # type: ignore[arg-type]


def _launches(node: n.Node) -> list[n.KernelLaunch]:
    return [x for x in node.walk() if isinstance(x, n.KernelLaunch)]


def _text(unit: TranslationUnit, e: n.Expr) -> str:
    if e.span.file == unit.path and e.span.end > e.span.start:
        return unit.text(e.span)
    return "?"


class Wrappers:
    """The wrapper calls among one host function's statements: the launches they stand
    for, and for calls to functions that launch kernels but do not qualify, why."""

    def __init__(self, unit: TranslationUnit, host: Function):
        self.unit, self.host = unit, host
        self.sites: dict[int, tuple[n.KernelLaunch, WrapperCall]] = {}  # id(stmt) ->
        self.refused: dict[int, str] = {}  # id(stmt) -> why
        self.buffers: set[str] = set()  # decls of the caller's pointers wrappers are given
        self._judged: dict[str, str | None] = {}
        # id(call statement of a wrapper of several launches) -> a statement per launch
        # (the first is the call statement itself); id(statement) -> the launches it holds
        self._parts: dict[int, tuple[n.Stmt, ...]] = {}
        self._held: dict[int, list[n.KernelLaunch]] = {}
        self._flats: dict[tuple[str, int], list[_Part] | str] = {}
        self._keeps: set[str] = set()  # decls of helpers doing work on memory of their own
        self._more: dict[str, bool] = {}  # decl -> whether it does more than launch
        self._launching = launching(unit)
        self._stmts: HostStatements | None = None  # (made when a call's value is checked)
        if host.body is None:
            return
        covered: set[int] = set()  # (statements inside one that stands for a call)
        last = host.body.body[-1] if host.body.body else None
        for stmt in host.body.walk():
            if not isinstance(stmt, n.Stmt) or id(stmt) in covered:
                continue
            call = self.held_call(stmt, returns=stmt is last)
            if call is None:
                continue
            covered |= {id(x) for x in stmt.walk()}
            fn = self._helper(call)
            assert fn is not None
            checked = not isinstance(stmt, n.ExprStmt) or call is not _strip(stmt.expr)
            found = self._site(call, fn, stmt)
            if checked and not isinstance(found, str):
                found = self._check_reason(stmt, call, found) or found
            if isinstance(found, str):
                self.refused[id(stmt)] = (f"its call to '{fn.name}' launches a kernel through "
                                          f"a function cudafuse does not fuse across: {found}")
                continue
            flat = self._flat(fn)
            assert not isinstance(flat, str)
            parts: list[n.Stmt] = []
            for k, (launch, inner) in enumerate(zip(found, flat, strict=True)):
                part = stmt if k == 0 else dataclasses.replace(stmt)  # (a new object)
                parts.append(part)
                self.sites[id(part)] = (launch, WrapperCall(call, fn, inner.own, k, len(flat),
                                                            inner.via, checked,
                                                            fn.decl in self._keeps,
                                                            self._does_more(fn)))
                self._held[id(part)] = [launch]
                for a in launch.args:
                    r = _strip(a)
                    if isinstance(r, n.Ref) and "*" in r.type:
                        self.buffers.add(r.decl)
            self._held[id(stmt)] = list(found)
            if len(parts) > 1:
                self._parts[id(stmt)] = tuple(parts)

    # ---- the caller's view ------------------------------------------------------------------

    def launch_of(self, stmt: n.Stmt) -> n.KernelLaunch | None:
        site = self.sites.get(id(stmt))
        return site[0] if site else None

    def wrapper_of(self, stmt: n.Stmt) -> WrapperCall | None:
        site = self.sites.get(id(stmt))
        return site[1] if site else None

    def launches_in(self, node: n.Node) -> list[n.KernelLaunch]:
        """The launches wrapper calls inside `node` stand for."""
        if id(node) in self._held:  # (a statement standing for one launch of several)
            return list(self._held[id(node)])
        return [la for x in node.walk() for la in self._held.get(id(x), ())]

    def expanded(self, stmts: tuple[n.Stmt, ...]) -> tuple[n.Stmt, ...]:
        """A block's statements with each call of a wrapper of several launches standing as
        one statement per launch, in order (the first is the call statement itself)."""
        if not any(id(s) in self._parts for s in stmts):
            return stmts
        return tuple(x for s in stmts for x in self._parts.get(id(s), (s,)))

    def _does_more(self, fn: Function) -> bool:
        """Whether `fn` does anything besides its launches and the calls of helpers that
        launch (each such call is written as a copy of its own): any statement with an
        effect (helper_effects.py)."""
        got = self._more.get(fn.decl)
        if got is None:
            body = _statements(fn) or []
            skip = {id(s) for s in body if isinstance(s, n.ExprStmt) and
                    isinstance(s.expr, n.KernelLaunch) or self.held_call(s) is not None}
            got = self._more[fn.decl] = effect_statement(self.unit, fn, body, skip) is not None
        return got

    # ---- judging a wrapper --------------------------------------------------------------------

    def held_call(self, stmt: n.Stmt, returns: bool = True) -> n.Call | None:
        """The call of a helper that launches kernels which `stmt` stands for: the whole
        statement (`stage(a, b, n);`), or the one such call in a statement that runs it
        first and only then looks at its value: `CHECK(stage(...));` (a function or a
        `do { ... } while (0)` macro), `if (stage(...) != cudaSuccess) { ... }`,
        `cudaError_t e = stage(...);`, `return stage(...);` (`returns`: allowed here).
        None when it holds no such call, several, a launch, or the call runs only on some
        paths (`ok && stage(...)`, in a branch or a loop)."""
        if isinstance(stmt, (n.Compound, n.For)) or isinstance(stmt, n.While) and \
                not _do_once(stmt) or isinstance(stmt, n.Return) and not returns:
            return None
        if isinstance(stmt, n.ExprStmt):
            whole = _strip(stmt.expr)
            if isinstance(whole, n.Call) and self._helper(whole) is not None:
                return whole
        if not isinstance(stmt, (n.ExprStmt, n.DeclStmt, n.VarDecl, n.If, n.While,
                                 n.Return)):
            return None
        calls = [x for x in stmt.walk() if isinstance(x, n.Call) and
                 self._helper(x) is not None]
        if len(calls) != 1 or any(isinstance(x, n.KernelLaunch) for x in stmt.walk()):
            return None
        return calls[0] if _runs_first(stmt, calls[0]) else None

    def _check_reason(self, stmt: n.Stmt, call: n.Call, launches: list[n.KernelLaunch]
                      ) -> str | None:
        """Why the code around a helper's call in a statement that checks its value may not
        stay where it is while the launches before it move past it (judged with the call
        reading as a status, against every launch of the caller: which of them a group
        will move is not known here)."""
        if self._stmts is None:
            self._stmts = HostStatements(self.unit, self.host)
        rest = _replaced(stmt, call, n.IntLit(0, type="cudaError_t", span=call.span))
        every = [*launches, *_launches(self.host.body)]  # type: ignore[arg-type]
        every += [la for _, (la, _) in self.sites.items()]
        why = self._stmts.statement_reason(rest, every, frozenset())  # type: ignore[arg-type]
        return None if why is None else f"the code checking its value: {why}"

    def _helper(self, call: n.Call) -> Function | None:
        """The file's host function the call runs when it launches kernels, itself or
        through helpers of its own. (Its definition must be the file's: its first
        declaration may be a prototype in the program's header, `void blur(...);` in a
        blur.h the .cu includes, which names the call's declaration.)"""
        fn = _definition(self.unit, call.callee_decl) if call.callee_decl else None
        if fn is None or fn.body is None or fn.space == "global" or \
                fn.decl not in self._launching:
            return None
        return fn

    def _site(self, call: n.Call, fn: Function, stmt: n.Stmt | None = None
              ) -> list[n.KernelLaunch] | str:
        """The wrapper's launches in the caller's terms at this call, or why not. Each
        takes its place in the call's text (in the statement's, `stmt`, for a call
        written in a macro's argument, whose span is empty)."""
        flat = self._flat(fn)
        if isinstance(flat, str):
            return flat
        launches = self._expand(call, fn, flat)
        if isinstance(launches, str):
            return launches
        at = call.span if call.span.end > call.span.start or stmt is None else stmt.span
        if len(launches) > max(at.end - at.start, 1):
            return f"'{fn.name}' launches more kernels than its call has characters"
        given = {id(x) for a in call.args for x in a.walk()}
        out = []
        for k, launch in enumerate(launches):
            why = self._foreign_name(fn, launch, launch.args, given)
            if why is not None:
                return why
            span = at._replace(start=at.start + k)
            out.append(dataclasses.replace(launch, span=span))
        return out

    def _flat(self, fn: Function, depth: int = 0, stack: tuple[str, ...] = ()
              ) -> list[_Part] | str:
        """The launches `fn` makes, its own and those of the helpers it calls (followed
        MAX_DEPTH levels down), in order and in `fn`'s terms; or why it is no wrapper."""
        key = (fn.decl, depth)
        got = self._flats.get(key)
        if got is None:
            got = self._flats[key] = self._flatten(fn, depth, stack)
        return got

    def _flatten(self, fn: Function, depth: int, stack: tuple[str, ...]) -> list[_Part] | str:
        assert fn.body is not None
        if fn.decl in stack:
            return f"'{fn.name}' calls itself through the helpers it calls"
        why = self.wrapper_reason(fn, depth, (*stack, fn.decl))
        if why is not None:
            return why
        out: list[_Part] = []
        for s in _statements(fn) or ():
            launch = s.expr if isinstance(s, n.ExprStmt) else None
            if isinstance(launch, n.KernelLaunch):
                out.append(_Part(launch, launch))
                continue
            call = self.held_call(s)
            inner = self._helper(call) if call is not None else None
            if inner is None:
                continue
            assert call is not None
            parts = self._flat(inner, depth + 1, (*stack, fn.decl))
            assert not isinstance(parts, str)  # (wrapper_reason judged it)
            got = self._expand(call, inner, parts)
            assert not isinstance(got, str)
            out += [_Part(la, p.own, ((call, inner), *p.via)) for la, p in zip(got, parts,
                                                                              strict=True)]
        return out

    def _expand(self, call: n.Call, fn: Function, parts: list[_Part]
                ) -> list[n.KernelLaunch] | str:
        """The launches `parts` of `fn` in the terms of the function that makes `call`,
        or why they cannot be read so."""
        assert fn.body is not None
        if len(call.args) != len(fn.params):
            return f"the call leaves parameters of '{fn.name}' to their defaults"
        launches = [p.launch for p in parts]
        env: dict[str, n.Expr] = {p.decl: a for p, a in zip(fn.params, call.args, strict=True)}
        for launch in launches:
            kernel = launched_kernel(self.unit, launch)
            if kernel is None:
                continue
            for kp, arg in zip(kernel.params, launch.args, strict=False):
                if not kp.is_pointer:
                    continue
                inner = _strip(arg)
                wp = next((p for p in fn.params if isinstance(inner, n.Ref) and
                           inner.decl == p.decl), None)
                if wp is None:
                    if isinstance(inner, n.Ref) and inner.kind == "global" and \
                            "[" not in inner.name:
                        continue
                    if isinstance(inner, n.Ref) and inner.kind == "global":
                        # (table_elements.py: its position is read in the wrapper's terms)
                        return (f"'{fn.name}' passes '{inner.name}', an element of a table "
                                f"of buffers, to pointer parameter '{kp.name}' of "
                                f"'{kernel.name}'")
                    return (f"'{fn.name}' passes '{_text(self.unit, arg)}', not one of its "
                            f"parameters, to pointer parameter '{kp.name}' of "
                            f"'{kernel.name}'")
                given = env[wp.decl]
                if buffer_key(given) is None:
                    return (f"its argument '{_text(self.unit, given)}' for pointer "
                            f"parameter '{wp.name}' is not a plain variable")
        for p, a in zip(fn.params, call.args, strict=True):
            if not side_effect_free(a):
                return f"its argument '{_text(self.unit, a)}' for '{p.name}' has side effects"
        for d in (x for x in fn.body.walk() if isinstance(x, n.VarDecl)):
            if d.init is not None:  # in order: a later local's initialiser uses earlier ones
                env[d.decl] = _subst(d.init, env)
        out = []
        for launch in launches:
            grid, block = _subst(launch.grid, env), _subst(launch.block, env)
            shared = None if launch.shared is None else _subst(launch.shared, env)
            stream = None if launch.stream is None else _subst(launch.stream, env)
            args = tuple(_subst(a, env) for a in launch.args)
            out.append(dataclasses.replace(launch, grid=grid, block=block, shared=shared,
                                           stream=stream, args=args))
        return out

    def _foreign_name(self, fn: Function, launch: n.KernelLaunch, args: tuple[n.Expr, ...],
                      given: set[int]) -> str | None:
        """Why the launch's arguments, read in the caller's terms, cannot be written in the
        caller: code generation prints them there (a fused kernel's arguments), so a name
        the wrapper's body gives them (`shift`, a global) must mean there what it means in
        the wrapper: not a parameter or local of the caller's (which would hide it), and
        the caller neither in another namespace nor a member function (where a name of the
        wrapper's namespace or a class member may be found instead)."""
        host = self.host
        assert host.body is not None
        mine: dict[str, n.Node] = {p.name: p for p in host.params}
        for d in host.body.walk():
            if isinstance(d, n.VarDecl):
                mine.setdefault(d.name, d)
        kernel = launched_kernel(self.unit, launch)
        to = f"'{kernel.name}'" if kernel is not None else "its kernel"
        for arg in args:
            for r in arg.walk():
                if not isinstance(r, n.Ref) or id(r) in given or r.kind == "builtin" or \
                        "[" in r.name:
                    continue
                text = _text(self.unit, r)
                if text.startswith("::"):
                    continue  # (named from the global namespace)
                name = text if text != "?" else r.name
                if r.name in mine:
                    return (f"'{fn.name}' passes '{name}' to {to}, which in "
                            f"'{host.name}' names its own '{r.name}' (line "
                            f"{mine[r.name].span.line})")
                if [x for x, _ in fn.namespaces] != [x for x, _ in host.namespaces]:
                    return (f"'{fn.name}' passes '{name}' to {to}, a name of its namespace "
                            f"that '{host.name}', in another, may not mean alike")
                if host.parent:
                    return (f"'{fn.name}' passes '{name}' to {to}, which in member function "
                            f"'{host.name}' may name a member")
        return None

    def wrapper_reason(self, fn: Function, depth: int = 0, stack: tuple[str, ...] = ()
                       ) -> str | None:
        """Why `fn` is not a wrapper of its launches (None when it is). Its top-level
        statements that call helpers launching kernels (`stage(a, t, n);`, a last
        `return stage(...);`) stand for those helpers' launches when they are wrappers too
        (judged `depth` + 1 levels below the caller; `stack`: the helpers above)."""
        assert fn.body is not None
        name = fn.name
        if fn.span.file != self.unit.path and not (
                self.unit.owns(fn.body_span) and fn.body_span.end > fn.body_span.start):
            # (frontend/header_callees.py lowers a header's host functions without their
            # text: a copy of one could not be written)
            return (f"'{name}' is defined in the included "
                    f"'{os.path.basename(fn.span.file)}' (line {fn.span.line}), whose text "
                    "cudafuse does not hold: a copy of it cannot be written")
        if fn.is_template:
            return f"'{name}' is a template"
        if fn.parent:
            return f"'{name}' is a member function"
        if len({tuple(p.type for p in f.params) for f in _overloads(self.unit, fn)}) > 1:
            return f"'{name}' is overloaded"
        if any(isinstance(x, n.Call) and x.callee_decl == fn.decl for x in fn.body.walk()):
            return f"'{name}' is recursive"
        body = _statements(fn)
        if body is None:
            return f"'{name}' returns a value"
        launches = _launches(fn.body)
        # The top-level calls of helpers that launch, each judged as a wrapper of its own.
        nested: dict[int, list[n.KernelLaunch]] = {}
        held: dict[int, n.Call] = {}  # id(statement) -> the helper call it stands for
        for s in body:
            call = self.held_call(s)
            inner = self._helper(call) if call is not None else None
            if inner is None:
                continue
            assert call is not None
            held[id(s)] = call
            if depth + 2 > MAX_DEPTH:  # (`fn` is depth + 1 levels below the caller)
                return (f"'{name}' calls '{inner.name}' (line {call.span.line}), a helper "
                        f"{depth + 2} levels below the caller: cudafuse follows helpers "
                        f"{MAX_DEPTH} levels deep")
            if inner.decl in stack:
                return (f"'{name}' calls '{inner.name}' (line {call.span.line}), which "
                        "calls it back")
            parts = self._flat(inner, depth + 1, stack)
            if isinstance(parts, str):  # (the deepest call named only)
                return parts if parts.startswith("its call to ") else \
                    f"its call to '{inner.name}' (line {call.span.line}): {parts}"
            got = self._expand(call, inner, parts)
            if isinstance(got, str):
                return f"its call to '{inner.name}' (line {call.span.line}): {got}"
            if [x for x, _ in inner.namespaces] != [x for x, _ in fn.namespaces]:
                return (f"'{name}' calls '{inner.name}' (line {call.span.line}), of another "
                        "namespace")
            nested[id(s)] = got
        total = len(launches) + sum(len(v) for v in nested.values())
        if total > MAX_LAUNCHES:
            return (f"'{name}' stands for {total} launches through the helpers it calls: "
                    f"cudafuse follows {MAX_LAUNCHES} at most")
        if total > 1 and _instance(self.unit, fn):
            return (f"'{name}' launches {total} kernels, and is an instance of a "
                    "template (its calls are not followed into it)")
        tops = {id(s.expr): s for s in body if isinstance(s, n.ExprStmt)}
        inside = next((la for la in launches if id(la) not in tops), None)
        if inside is not None:
            if total == 1:
                return f"'{name}' launches its kernel inside control flow"
            return f"'{name}' launches a kernel inside control flow (line {inside.span.line})"
        top_calls = {id(c) for c in held.values()}
        for x in fn.body.walk():
            if isinstance(x, n.Call) and id(x) not in top_calls and \
                    (inner := self._helper(x)) is not None:
                loop = next((lp for lp in fn.body.walk() if isinstance(lp, (n.For, n.While))
                             and not _do_once(lp) and any(y is x for y in lp.walk())), None)
                if loop is not None:
                    return (f"'{name}' launches kernels inside a loop (line "
                            f"{loop.span.line}), a sequence of their own that a call cannot "
                            "stand for")
                return (f"'{name}' calls '{inner.name}', which launches kernels, inside "
                        f"control flow or an expression (line {x.span.line})")
        stmts = HostStatements(self.unit, fn, memory_calls=False)
        own = {d.decl for d in fn.body.walk() if isinstance(d, n.VarDecl)}
        launch_stmts = {id(tops[id(la)]) for la in launches} | set(nested)
        every = [la for s in body for la in (
            [s.expr] if isinstance(s, n.ExprStmt) and isinstance(s.expr, n.KernelLaunch)
            else nested.get(id(s), []))]
        # (one launch: its statements go with it, judged as they stand; several: the
        # statements stay between launches whose work may move past them, so each is
        # judged against all of them)
        before: list[n.KernelLaunch] = [] if total == 1 else every
        mine: OwnMemory | None = None
        mem: HostStatements | None = None
        for s in body:
            if id(s) in launch_stmts:
                before = every
                call = held.get(id(s))
                if call is None or isinstance(s, n.ExprStmt) and _strip(s.expr) is call:
                    continue
                # (a call whose value is checked: the check stays after the launches)
                s = _replaced(s, call, n.IntLit(0, type="cudaError_t", span=call.span))  # type: ignore[assignment]
            for x in s.walk():
                if isinstance(x, (n.For, n.While)) and not _do_once(x) and (
                        _launches(x) or any(isinstance(c, n.Call) and self._helper(c)
                                            for c in x.walk())):
                    # (a loop of host math, `for (...) taps[i] = ...;`, is judged as any
                    # statement: what it touches)
                    return (f"'{name}' launches kernels inside a loop (line {x.span.line}), "
                            "a sequence of their own that a call cannot stand for")
                if isinstance(x, (n.Return, n.OtherStmt)):
                    return (f"'{name}' contains a statement cudafuse does not follow "
                            f"(line {x.span.line})")
                for r in _assigned(x):  # the call of an earlier member goes, and this too
                    if r.decl not in own:
                        return (f"'{name}' assigns '{r.name}' (line {x.span.line}), which a "
                                "fused call would no longer do")
            why = stmts.statement_reason(s, before, frozenset())
            if why is not None:
                # Work on memory only `fn` can name (ownmemory.py) stays where it is: the
                # statement is judged with those calls read as statuses.
                mine = mine or OwnMemory(fn, stmts.points, every)
                calls = mine.calls(s)
                if isinstance(calls, str):
                    return f"'{name}' {calls}"
                rest: n.Node = s
                for c in calls:
                    rest = _replaced(rest, c, n.IntLit(0, type="cudaError_t", span=c.span))
                if calls and stmts.statement_reason(rest, before, frozenset()) is None:  # type: ignore[arg-type]
                    self._keeps.add(fn.decl)
                    continue
                # (a memory call: named with the buffer it may share with a launch)
                mem = mem or HostStatements(self.unit, fn)
                why = mem.statement_reason(rest, every, frozenset()) or why  # type: ignore[arg-type]
                what = "launch its kernel" if total == 1 else "launch its kernels"
                return f"'{name}' does more than {what} (line {s.span.line}: {why})"
        used: set[str] = set()
        for la in launches:
            used |= _used(fn, la)
        for s in body:
            if id(s) in nested:
                used |= _used(fn, s)
        written = sorted(_writes(fn.body) & used)
        if written:
            names = {d: d.split("@")[0] for d in written}
            its = "its launch uses" if total == 1 else "its launches use"
            return f"'{name}' assigns '{names[written[0]]}', which {its}"
        locals_ = {d.decl: d for d in fn.body.walk() if isinstance(d, n.VarDecl)}
        for d in sorted(used & set(locals_)):
            v = locals_[d]
            if v.init is None or v.array_dims or v.storage & {"static", "extern"}:
                its = "its launch uses" if total == 1 else "its launches use"
                return f"{its} '{v.name}', a local cudafuse cannot follow"
        return None


def _runs_first(stmt: n.Stmt, call: n.Call) -> bool:
    """Whether `call` runs each time `stmt` runs, before anything of `stmt` could jump
    (not under `&&`, `||` or `?:`, not in a branch or a loop body, not in a lambda; in a
    `do { ... } while (0)` only in its first statement)."""
    parent: dict[int, n.Node] = {}
    for node in stmt.walk():
        for kid in node.children():
            if kid is not None:
                parent[id(kid)] = node
    node: n.Node = call
    while node is not stmt:
        up = parent.get(id(node))
        if up is None:
            return False
        if isinstance(up, n.Binary) and up.op in ("&&", "||") and node is up.rhs or \
                isinstance(up, n.Cond) and node is not up.cond or \
                isinstance(up, n.If) and node is not up.cond or \
                isinstance(up, (n.For, n.OtherExpr, n.OtherStmt)) or \
                isinstance(up, n.While) and (not _do_once(up) or node is not up.body) or \
                isinstance(up, n.Compound) and (not up.body or node is not up.body[0]):
            return False
        node = up
    return True


def _replaced(node: n.Node, target: n.Node, new: n.Node) -> n.Node:
    """`node` with `target` (by identity) replaced by `new`; what holds it is rebuilt."""
    if node is target:
        return new
    changes: dict[str, object] = {}
    for f in dataclasses.fields(node):  # type: ignore[arg-type]
        if f.name == "span":
            continue
        v = getattr(node, f.name)
        if isinstance(v, n.Node):
            nv = _replaced(v, target, new)
            if nv is not v:
                changes[f.name] = nv
        elif isinstance(v, tuple) and any(isinstance(x, n.Node) for x in v):
            nt = tuple(_replaced(x, target, new) if isinstance(x, n.Node) else x for x in v)
            if any(a is not b for a, b in zip(nt, v, strict=True)):
                changes[f.name] = nt
    return dataclasses.replace(node, **changes) if changes else node  # type: ignore[type-var]


_STATEMENTS: dict[int, tuple[Function, list[n.Stmt] | None]] = {}


def _statements(fn: Function) -> list[n.Stmt] | None:
    """`fn`'s top-level statements, a last `return v;` as the statement `v;` (the value
    goes; what computing it does stays); None when `fn` returns a value otherwise. The same
    objects each time (statements are told apart by identity)."""
    got = _STATEMENTS.get(id(fn))
    if got is not None and got[0] is fn:
        return got[1]
    assert fn.body is not None
    body: list[n.Stmt] | None = list(fn.body.body)
    assert body is not None
    void = fn.return_type.strip() == "void"
    returned: n.Stmt | None = None
    if body and isinstance(body[-1], n.Return) and (body[-1].value is None) == void:
        last = body.pop()
        if last.value is not None:
            returned = n.ExprStmt(span=last.span, expr=last.value)
            body.append(returned)
    if not void and returned is None:
        body = None
    if len(_STATEMENTS) > 4096:
        _STATEMENTS.clear()
    _STATEMENTS[id(fn)] = (fn, body)
    return body


def _instance(unit: TranslationUnit, fn: Function) -> bool:
    """Whether `fn` is the explicit specialisation cudafuse wrote for a host template's
    instantiation (frontend/host_instances.py)."""
    return any(not isinstance(c, str) and any(s <= fn.span.start < e for s, e in c)
               for c in unit.host_instances.values())


def _overloads(unit: TranslationUnit, fn: Function) -> list[Function]:
    """The file's functions named as `fn` is, less the template `fn` is a copy of and that
    template's other copies. cudafuse writes an explicit specialisation for each
    instantiation of a host template the file uses (frontend/host_instances.py); clang
    resolves a call `run_t<float>(...)` or `run_t(...)` to that copy, which belongs to its
    template and is no overload of it: it is judged by its own body."""
    for template, copies in unit.host_instances.items():
        if isinstance(copies, str) or \
                not any(s <= fn.span.start < e for s, e in copies):
            continue
        return [f for f in unit.functions if f.name == fn.name and f.span.start != template
                and (f is fn or not any(s <= f.span.start < e for s, e in copies))]
    return [f for f in unit.functions if f.name == fn.name]


def _do_once(x: n.Stmt) -> bool:
    """`do { ... } while (0)`, the body of a statement-like macro: not a loop."""
    return isinstance(x, n.While) and x.do_while and isinstance(_strip(x.cond), n.IntLit) \
        and _strip(x.cond).value == 0  # type: ignore[union-attr]


def _used(fn: Function, launch: n.Node) -> set[str]:
    """Decls the launch (or a call of a helper) reads, directly or through the
    initialisers of locals."""
    assert fn.body is not None
    inits = {d.decl: d.init for d in fn.body.walk() if isinstance(d, n.VarDecl)}
    out: set[str] = set()
    todo = [launch]
    while todo:
        node = todo.pop()
        for r in node.walk():
            if isinstance(r, n.Ref) and r.decl and r.decl not in out:
                out.add(r.decl)
                init = inits.get(r.decl)
                if init is not None:
                    todo.append(init)
    return out


def _definition(unit: TranslationUnit, decl: str) -> Function | None:
    """The definition of the program's function `decl` names: the file's, or one of the
    program's own headers (TranslationUnit.header_functions: `inline void stage(...)` in a
    stages.cuh the .cu includes; a copy of it is written in the .cu, the header untouched)."""
    fn = unit.callee(decl)
    if fn is not None:
        return fn if fn.span.file == unit.path else None
    return next((f for f in unit.header_functions if f.decl == decl and f.body is not None
                 and not f.parent), None)


def launching(unit: TranslationUnit) -> frozenset[str]:
    """Decls of the file's host functions (and its headers' that it calls) that launch
    kernels, themselves or through calls of such functions (at any depth; Wrappers judges
    how deep it follows). Kept per unit."""
    fns = unit.functions
    got = unit.__dict__.get("_cf_launching")
    if got is not None and got[0] is fns and got[1] == len(fns):
        return got[2]
    hosts = [f for f in (*fns, *unit.header_functions)
             if f.body is not None and f.space != "global"]
    found = {f.decl for f in hosts if _launches(f.body)}  # type: ignore[arg-type]
    callees = {f.decl: {x.callee_decl for x in f.body.walk()  # type: ignore[union-attr]
                        if isinstance(x, n.Call) and x.callee_decl}
               for f in hosts if f.decl not in found}
    grew = True
    while grew:
        grew = False
        for decl, called in callees.items():
            if decl not in found and called & found:
                found.add(decl)
                grew = True
    out = frozenset(found)
    unit.__dict__["_cf_launching"] = (fns, len(fns), out)
    return out


def hosts_with_wrappers(unit: TranslationUnit) -> list[Function]:
    """unit.hosts(), and the file's host functions that launch only through calls of the
    file's functions that launch kernels, themselves or through helpers of their own (a
    pipeline of wrapper calls), in source order."""
    hosts = unit.hosts()
    seen = {id(h) for h in hosts}
    deep = launching(unit)
    for f in unit.functions:
        if id(f) in seen or f.body is None or f.space == "global" or f.is_template or \
                f.span.file != unit.path:
            continue
        if any(isinstance(c, n.Call) and c.callee_decl in deep for c in f.body.walk()):
            hosts.append(f)  # (a call statement, or a call whose status is checked)
    return sorted(hosts, key=lambda f: f.span.start)
