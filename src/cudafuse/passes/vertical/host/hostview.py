"""The host side of a pipeline: straight-line launch sequences and what may move.

Fusion moves a producer's work from its own launch to the launch of the group's last kernel.
That is only sound if nothing in between changes what the producer would have computed: no
host statement between them may write a variable the launches use, or call anything that
might touch device memory (hoststmts.py decides which statements are harmless). Launch
arguments must be free of side effects, since they are evaluated once, at the fused launch.
"""

from __future__ import annotations

import bisect
import dataclasses
import os
import re
from dataclasses import dataclass, field

from cudafuse.analysis.callgraph import CallGraph
from cudafuse.analysis.memo import per_object
from cudafuse.codegen.exprprint import Unprintable, to_c
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, Param, TranslationUnit
from cudafuse.ir.source import Span
from cudafuse.ir.types import unqualified
from cudafuse.passes.vertical.host.byvalue import ByValue
from cudafuse.passes.vertical.host.hostexprs import (
    _writes,
    launched_kernel,
    part_root,
    root_variable,
    shared_variables,
    struct_field,
    touched_key,
    with_root,
    write_target,
)
from cudafuse.passes.vertical.host.hostexprs import buffer_key as buffer_key
from cudafuse.passes.vertical.host.hostexprs import side_effect_free as side_effect_free
from cudafuse.passes.vertical.host.hoststmts import HostStatements
from cudafuse.passes.vertical.host.members import member_alias_reason, this_member
from cudafuse.passes.vertical.host.pointervalues import PointerValues, Value
from cudafuse.passes.vertical.host.pointsto import PointsTo, Roots, parity_pairs
from cudafuse.passes.vertical.host.settled import settled_locals
from cudafuse.passes.vertical.host.stmtnodes import _assigned
from cudafuse.passes.vertical.host.table_elements import why_unfollowed
from cudafuse.passes.vertical.host.unread import (
    line_of,
    unread_between,
    unread_inits,
    unread_inside,
)
from cudafuse.passes.vertical.host.wrappers import WrapperCall, Wrappers


@dataclass(frozen=True)
class LaunchSite:
    index: int  # position in the host function's sequence
    stmt: n.ExprStmt
    launch: n.KernelLaunch
    kernel: Function
    bindings: tuple[tuple[Param, n.Expr], ...]  # kernel parameter -> host argument
    host: Function
    wrapper: WrapperCall | None = None  # a call of a wrapper (wrappers.py)
    # In a sequence that continues across pointer rotations: the buffer each pointer
    # argument's key stands for (pointervalues.py), to name it at another launch.
    values: tuple[tuple[str, Value], ...] = field(default=(), compare=False, repr=False)
    evaluator: PointerValues | None = field(default=None, compare=False, repr=False)
    # Where later statements of its sequence assign host variables its statement names
    # (their byte offsets; its grid, block and scalar arguments are read by the values
    # those held at it, byvalue.py): the text of its statement, run past one of them, would
    # launch with other values.
    by_value: tuple[int, ...] = field(default=(), compare=False)

    def arg_for(self, param_name: str) -> n.Expr | None:
        return next((a for p, a in self.bindings if p.name == param_name), None)

    def spelled_at(self, at: LaunchSite) -> LaunchSite:
        """This launch with its pointer arguments named as at launch `at` (where a fused
        launch that takes over this one's work stands): after `std::swap(a, b)` between
        them, this launch's `a` is `at`'s `b`. Raises ValueError when no variable names
        one of its buffers there."""
        if not self.values or at is self:
            return self
        assert at.evaluator is not None
        vals = dict(self.values)
        out = []
        for p, a in self.bindings:
            r = _ref(a) or _ref(part_root(a))
            if r is not None and p.is_pointer and r.decl in vals:
                held = at.evaluator.holder(at.stmt, vals[r.decl], prefer=r.decl)
                if held is None:
                    raise ValueError(f"no variable names the buffer '{r.name}' of the launch "
                                     f"of '{self.kernel.name}' at line {self.launch.span.line}"
                                     f" where the launch of '{at.kernel.name}' stands")
                if held[1] != r.name:
                    new = dataclasses.replace(r, name=held[1])
                    a = _put_root(a, r, new)
            out.append((p, a))
        return dataclasses.replace(self, bindings=tuple(out))

    def renamed_at(self, at: LaunchSite) -> bool:
        """Whether some pointer argument of this launch has another name at `at`."""
        return self.spelled_at(at).bindings != self.bindings


@dataclass
class Sequence:
    """Launches that may be fused with each other (same host block, nothing in between
    that could observe or change their effects)."""

    host: Function
    launches: list[LaunchSite] = field(default_factory=list)
    scope: Scope | None = None
    # Its pointer arguments are keyed by the buffers they hold (pointervalues.py), not by
    # variable: it continues across pointer rotations, or a launch needed their values.
    evaluated: bool = False
    # _Splitter._may_alias's index of the launches' buffers, grown as launches are added
    # (None: rebuilt from `launches` when next asked; set so when they are replaced).
    alias_index: _AliasIndex | None = field(default=None, repr=False, compare=False)


class _AliasIndex:
    """The buffers a sequence's launches touch, in the order they are first touched, and
    which of them each buffer root may name (PointsTo.roots): _may_alias looks a pointer's
    possible aliases up by root instead of testing it against every other buffer, so a
    sequence of n launches costs O(n) keys and roots, not O(n^2) (each added launch asked
    again about every launch before it)."""

    __slots__ = ("sites", "keys", "order", "roots", "unknown", "by_root", "selected")

    def __init__(self) -> None:
        self.sites: list[LaunchSite] = []  # indexed, in order (the last may be a candidate)
        self.keys: dict[str, tuple[int, n.Expr]] = {}  # key -> (position, first argument)
        self.order: list[str] = []  # keys by position
        self.roots: list[Roots | None] = []  # roots of order[:len(roots)] (filled lazily)
        self.unknown: list[int] = []  # positions whose roots are unknown (None)
        self.by_root: dict[str, list[int]] = {}  # root -> positions that may name it
        self.selected: set[str] = set()  # decls set once to a choice (_selections)

    def add(self, site: LaunchSite, selections: tuple[str, ...]) -> None:
        self.sites.append(site)
        self.selected.update(selections)
        for p, a in site.bindings:
            k = touched_key(a) if p.is_pointer else None
            if k is not None and k not in self.keys:
                self.keys[k] = (len(self.order), a)
                self.order.append(k)

    def fill_roots(self, points: PointsTo) -> None:
        """Roots of the keys not looked up yet (only once some key is paired: before, no
        pair is checked)."""
        for pos in range(len(self.roots), len(self.order)):
            r = points.roots(self.keys[self.order[pos]][1])
            self.roots.append(r)
            if r is None:
                self.unknown.append(pos)
            else:
                for root in r:
                    self.by_root.setdefault(root, []).append(pos)

    def first_alias(self, pos: int, skip: set[int]) -> int | None:
        """The first position (in key order) whose buffer may be the one at `pos` (not
        provably disjoint: the roots of either unknown, or sharing one), `skip` excepted."""
        lists = [self.unknown]
        r = self.roots[pos]
        if r is None:
            return next((q for q in range(len(self.order)) if q not in skip), None)
        lists += [self.by_root[root] for root in r]
        best = None
        for positions in lists:
            q = next((q for q in positions if q not in skip), None)
            if q is not None and (best is None or q < best):
                best = q
        return best


def value_key(e: n.Expr, type_: str) -> str:
    """Identity of a scalar argument: its expression, printed structurally, and the type it
    converts to (the same host value passed as int and as float are different values)."""
    return f"{_shape(e)}::{type_}"


def param_key(p: Param, arg: n.Expr) -> str | None:
    """The identity of a launch argument: `buf:<buffer>` for a pointer (None when it is not a
    plain buffer variable), `val:<value>` for a scalar. Legality, planning and code generation
    compare launches' arguments through it."""
    if p.is_pointer:
        k = buffer_key(arg)
        return None if k is None else f"buf:{k}"
    return f"val:{value_key(arg, p.type)}"


def touch_key(p: Param, arg: n.Expr) -> str | None:
    """The buffer a launch's argument touches, for the dependences between launches: its
    param_key, or for an offset into a buffer variable (`t + off`, `&t[k]`:
    hostexprs.part_root) that variable's `buf:` key. Such a launch is no member of a fused
    group (its param_key is None), but the launches around it see it use `t`."""
    k = param_key(p, arg)
    if k is None and p.is_pointer:
        t = touched_key(arg)
        return None if t is None else f"buf:{t}"
    return k


def _shape(e: n.Node) -> str:
    field_name = this_member(e) if isinstance(e, n.Member) else None
    if field_name is not None:  # `w_` and `this->w_` are one value
        return f"Member|this->{field_name}()"
    parts = [type(e).__name__]
    for attr in ("value", "name", "decl", "op", "field_name", "callee", "postfix"):
        if hasattr(e, attr):
            parts.append(f"{attr}={getattr(e, attr)!r}")
    inner = ",".join(_shape(c) for c in e.children() if c is not None)
    return f"{'|'.join(parts)}({inner})"


SWAPS = frozenset({"swap", "std::swap"})


@dataclass(frozen=True)
class Scope:
    """The block a sequence's launches are statements of: the host function's body, a loop
    body or a branch. A fused group stays inside its block, so a loop body's group runs once
    per iteration, as its launches did."""

    what: str  # "the body of 'f'", "the body of the for loop at line 18", ...
    # Enclosing loops, outermost first; a lambda counts as one (it may be called again).
    loops: tuple[n.Node, ...] = ()


@dataclass(frozen=True)
class Placement:
    """Where one launch of a host function went: a sequence, or why none."""

    index: int
    launch: n.KernelLaunch
    scope: Scope | None
    sequence: int | None = None  # position in the list `sequences` returns
    why: str = ""


_LOOP_NAMES = {n.For: "for loop", n.While: "while loop"}


def _loop_name(stmt: n.Stmt) -> str:
    if isinstance(stmt, n.While) and stmt.do_while:
        return "do-while loop"
    return _LOOP_NAMES.get(type(stmt), "loop")


def _block(stmt: n.Stmt) -> tuple[n.Stmt, ...]:
    return stmt.body if isinstance(stmt, n.Compound) else (stmt,)


def _launches_in(stmt: n.Node) -> list[n.KernelLaunch]:
    return [x for x in stmt.walk() if isinstance(x, n.KernelLaunch)]


def _lambda_bodies(stmt: n.Node) -> list[tuple[n.OtherExpr, n.Compound]]:
    """The outermost lambdas in a statement that launch kernels, with their bodies."""
    out: list[tuple[n.OtherExpr, n.Compound]] = []

    def visit(node: n.Node) -> None:
        if isinstance(node, n.OtherExpr) and node.kind == "LAMBDA_EXPR":
            body = next((c for c in node.children() if isinstance(c, n.Compound)), None)
            if body is not None and _launches_in(body):
                out.append((node, body))
            return
        for c in node.children():
            if c is not None:
                visit(c)

    visit(stmt)
    return out


def _foreign_param(host: Function, launch: n.KernelLaunch, points: PointsTo | None = None
                   ) -> str | None:
    """An argument that is a parameter of a lambda, not of the host function, and may be a
    pointer (a generic lambda's `auto` too): the caller of the lambda may pass any buffer,
    another argument's included."""
    params = {p.decl for p in host.params}
    for arg in launch.args:
        r = _ref(arg) or _ref(part_root(arg)) or (points.element(arg) if points else None)
        if r is not None and r.kind == "param" and r.decl not in params and \
                not _SCALAR.fullmatch(r.type):
            return f"pointer '{r.name}' is a parameter of a lambda (it may name any buffer)"
    return None


def _hidden_memory(unit: TranslationUnit, calls: CallGraph, kernel: Function | None,
                   launch: n.KernelLaunch) -> str | None:
    """Memory the kernel reaches other than through its pointer parameters: pointers carried
    inside a parameter (a struct of buffers, a reference, a `float **`), or a global
    pointer variable (`__constant__ float *c_src`, set with cudaMemcpyToSymbol) read or
    written by it or a function it calls. Which buffers those are is not tracked, so no
    launch may move across such a launch or be merged with it."""
    if kernel is None or kernel.body is None:
        return None
    for p, arg in zip(kernel.params, launch.args, strict=False):
        if kernel.is_template and p.holds_pointers and _SCALAR.fullmatch(arg.type):
            continue  # a template's `T k` instantiated with a scalar here
        if p.holds_pointers or p.is_pointer and p.pointee.rstrip().endswith("*"):
            return (f"kernel '{kernel.name}' takes '{p.name}' ({p.type}), which may carry "
                    "pointers: the memory it reaches through them is not followed")
    fns = [kernel, *calls.transitive(kernel)]
    # (`__constant__` memory is read-only on the device: taking its address in a kernel,
    # `return &c_taps[0];`, is no write, and it cannot be assigned there)
    shared = shared_variables(unit, fns) | {g.decl for g in unit.globals
                                             if g.space == "constant"}
    for fn in fns:
        where = f" (in '{fn.name}')" if fn is not kernel else ""
        for node in fn.body.walk() if fn.body is not None else ():
            if isinstance(node, n.Ref) and node.kind == "global" and (
                    node.type.rstrip().endswith("*") or "*" in node.type and "[" in node.type):
                return (f"kernel '{kernel.name}' reaches memory through global pointer "
                        f"'{node.name}'{where}, which may be any buffer")
            target = _written_root(node)
            if target is not None and target.kind == "global" and target.decl not in shared:
                return (f"kernel '{kernel.name}' writes global '{target.name}'{where}, which "
                        "other launches may read: no launch moves across it")
    return None


def _written_root(node: n.Node) -> n.Ref | None:
    """The variable an assignment, increment, address-of or atomic writes (through
    subscripts, members and casts), if any."""
    target = write_target(node)
    if isinstance(node, n.Call) and node.callee.startswith("atomic") and node.args:
        target = node.args[0]  # atomicAdd(&g_count, 1)
        while isinstance(target, (n.Unary, n.Cast)) and (
                not isinstance(target, n.Unary) or target.op == "&"):
            target = target.operand
    return root_variable(target)


_SCALAR = re.compile(r"(?:const\s+)?(?:(?:unsigned|signed|short|long|int|char|bool|float|"
                     r"double|size_t|std::size_t)\s*)+(?:const\s*)?")


def _no_definition(unit: TranslationUnit, launch: n.KernelLaunch) -> str:
    """Why a launch's kernel has no body here: defined in another file, or a kernel template
    declared in an included file (frontend/included_kernels.py lowers no template there)."""
    where = launch.kernel_decl.partition("@")[2].rpartition(":")[0]
    why = unit.instances.get(launch.callee_span.start)
    if isinstance(why, str):  # (frontend/instantiate.py tried)
        return (f"kernel '{launch.kernel}' is a template of the included "
                f"'{os.path.basename(where)}' whose instantiation is not made: {why}")
    if launch.template_args and where and where != unit.path:
        return (f"kernel '{launch.kernel}' is a template declared in the included "
                f"'{os.path.basename(where)}' (cudafuse lowers no kernel template of an "
                "included file)")
    return f"kernel '{launch.kernel}' has no definition in this file"


def _launch_of(stmt: n.Stmt) -> n.KernelLaunch | None:
    return stmt.expr if isinstance(stmt, n.ExprStmt) and \
        isinstance(stmt.expr, n.KernelLaunch) else None


class _Splitter:
    """Splits every block of a host function that launches kernels (the body, loop bodies,
    branches) into sequences, and places every launch."""

    def __init__(self, unit: TranslationUnit, host: Function):
        self.unit, self.host = unit, host
        self.calls = CallGraph(unit)  # (built once per host: each launch's kernel asks it)
        self.wrappers = Wrappers(unit, host)  # calls of wrappers count as launches
        self.index = {la.span.start: i for i, la in enumerate(self._held(host.body))} \
            if host.body is not None else {}
        self.seqs: list[Sequence] = []
        self.breaks: list[tuple[n.Stmt, str]] = []
        self.places: dict[int, Placement] = {}
        self.alone: dict[int, str] = {}  # launch index -> why it may be alone
        self.cut: dict[int, str] = {}  # launch index -> why its sequence was cut there
        self.stmts = HostStatements(unit, host)
        self.stmts.buffers |= self.wrappers.buffers
        self.points = self.stmts.points
        self.parity = parity_pairs(self.points)
        self._selected: dict[int, tuple[str, ...]] = {}  # launch index -> _selections
        self.values = pointer_values(unit, host, self.points)
        self.position: dict[int, int] = {}  # a launch statement's index in its list
        self.inits = unread_inits(unit, host.body) if host.body is not None else {}
        self.by_value = ByValue(unit, host, host_locals(host), _writes(host.body),
                                self.stmts.writes_global) \
            if host.body is not None else None

    def _held(self, node: n.Node) -> list[n.KernelLaunch]:
        return sorted(_launches_in(node) + self.wrappers.launches_in(node),
                      key=lambda la: la.span.start)

    def _launch(self, stmt: n.Stmt) -> n.KernelLaunch | None:
        return _launch_of(stmt) or self.wrappers.launch_of(stmt)

    def place(self, launch: n.KernelLaunch, scope: Scope | None, why: str) -> None:
        i = self.index[launch.span.start]
        self.places.setdefault(i, Placement(i, launch, scope, None, why))

    def nested(self, stmt: n.Stmt, scope: Scope) -> str | None:
        """Recurse into a statement holding launches; return how it splits its block."""
        line = stmt.span.line
        if isinstance(stmt, (n.For, n.While)):
            name = _loop_name(stmt)
            self.block(_block(stmt.body), Scope(f"the body of the {name} at line {line}",
                                                (*scope.loops, stmt)))
            return f"it launches kernels inside a {name} (its body is a sequence of its own)"
        if isinstance(stmt, n.If):
            self.block(_block(stmt.then), Scope(f"the if branch at line {line}", scope.loops))
            if stmt.else_ is not None:
                self.block(_block(stmt.else_),
                           Scope(f"the else branch of the if at line {line}", scope.loops))
            return "it launches kernels inside an if (each branch is a sequence of its own)"
        if isinstance(stmt, n.Compound):
            self.block(stmt.body, Scope(f"the block at line {line}", scope.loops))
            return "it launches kernels inside a nested block (a sequence of its own)"
        lambdas = _lambda_bodies(stmt)
        if lambdas and {id(la) for la in self._held(stmt)} <= {
                id(la) for _, body in lambdas for la in self._held(body)}:
            # Each lambda's body is a block of its own, run whenever the lambda is called:
            # like a loop body, what it writes may be read by its next run.
            for lam, body in lambdas:
                self.block(body.body, Scope(f"the body of the lambda at line {lam.span.line}",
                                            (*scope.loops, lam)))
            return "it defines a lambda that launches kernels (its body is a sequence of its own)"
        where = "a lambda" if lambdas else \
            f"a statement cudafuse does not split ({type(stmt).__name__})"
        for la in self._held(stmt):
            self.place(la, None, f"it is inside {where}")
        return f"it launches kernels inside {where}"

    def block(self, stmts: tuple[n.Stmt, ...], scope: Scope) -> None:
        stmts = self.wrappers.expanded(stmts)  # (a call of a wrapper of several launches)
        current = Sequence(self.host, scope=scope)
        items: list[tuple[n.Stmt, str | None]] = []  # launch statements and breaks, in order
        for k, stmt in enumerate(stmts):
            unread = self._unread(stmts, k) if current.launches and \
                any(self._held(s) for s in stmts[k:]) else None
            if unread is not None:  # code the IR does not hold (unread.py): nothing moves
                self.breaks.append(unread)
                items.append(unread)
                self.seqs.append(current)
                current = Sequence(self.host, scope=scope)
            launch = self._launch(stmt)
            if launch is None:
                if self._held(stmt):
                    why = self.nested(stmt, scope)
                    items.append((stmt, why))
                else:
                    # A call of a helper that launches kernels of its own is judged, like
                    # any call, by what its body touches (effects.py); with no launch before
                    # it in the sequence, it is noted with why it is no wrapper.
                    why = self.stmts.statement_reason(
                        stmt, (s.launch for s in current.launches), SWAPS,
                        self.values.modelled)
                    if current.launches:
                        why = self._respell(current, stmts, k, why)
                    if why is None and current.launches and self._rotates(stmt):
                        why = self._carry(current, stmt)
                    if id(stmt) in self.wrappers.refused and (
                            not current.launches or why is not None and
                            not self.stmts.effects_read(stmt)):
                        why = self.wrappers.refused[id(stmt)]
                    if why is None:
                        continue
                    if id(stmt) in self.wrappers.refused:  # a launch of its own: always noted
                        self.breaks.append((stmt, why))
                    items.append((stmt, why))
                if current.launches:
                    self.seqs.append(current)
                current = Sequence(self.host, scope=scope)
                continue
            kernel = launched_kernel(self.unit, launch)
            old = pointer_alias_reason(self.host, launch, self.points, self.parity)
            rest = self._escaped_reason(launch) or self._unread_init(launch) or \
                _struct_reason(launch, self.points) or \
                member_alias_reason(self.unit, self.host, launch) or \
                _foreign_param(self.host, launch, self.points) or \
                _hidden_memory(self.unit, self.calls, kernel, launch) or \
                _unfollowed_pointer(self.unit, kernel, launch, self.points,
                                    evaluated=old is not None)
            alias = old or rest
            index = self.index[launch.span.start]
            site = None
            if kernel is not None and kernel.body is not None and \
                    len(launch.args) == len(kernel.params) and rest is None:
                wrapper = self.wrappers.wrapper_of(stmt)
                self.position[id(stmt)] = k
                valued = launch if wrapper is not None or self.by_value is None else \
                    self.by_value.at_launch(launch, kernel.params, stmts, k)
                site = LaunchSite(index, stmt, valued, kernel,
                                  tuple(zip(kernel.params, valued.args, strict=True)),
                                  self.host, wrapper)
                if old is not None or current.evaluated:
                    # Which buffer each pointer holds here, by evaluating the host code.
                    got = self._evaluate(site)
                    if isinstance(got, str) and old is not None:
                        alias = got
                    elif isinstance(got, str):  # cannot join the launches before it
                        self._cut(current, site, got)
                        current = Sequence(self.host, scope=scope)
                        alias = None
                    else:
                        alias = None
                        site = got
                        if current.launches and not current.evaluated:
                            why = self._evaluate_all(current)
                            if why is not None:
                                self._cut(current, site, why)
                                current = Sequence(self.host, scope=scope)
                        current.evaluated = True
            if site is not None and alias is None:
                if not site.values and not current.evaluated:
                    site = dataclasses.replace(site, bindings=tuple(
                        (p, self._aliased(a)) for p, a in site.bindings))
                if current.evaluated:
                    cut = self._value_conflict(current.launches, [site])
                elif current.launches:
                    cut = self._may_alias(current, site)
                else:
                    cut = None
                if cut:
                    evaluated = current.evaluated
                    self._cut(current, site, cut)
                    current = Sequence(self.host, scope=scope, evaluated=evaluated)
                current.launches.append(site)
                items.append((stmt, None))
                continue
            if kernel is None or kernel.body is None:
                why = _no_definition(self.unit, launch)
            else:
                why = alias or "its argument count does not match the kernel"
            self.place(launch, scope, why)
            self.breaks.append((stmt, why))
            items.append((stmt, why))
            if current.launches:
                self.seqs.append(current)
            current = Sequence(self.host, scope=scope)
        if current.launches:
            self.seqs.append(current)
        self._note_breaks(items)
        self._note_alone(items, scope)

    def _unread(self, stmts: tuple[n.Stmt, ...], k: int) -> tuple[n.Stmt, str] | None:
        """Code the IR does not hold, before statement k or inside it when it is no launch
        (unread.py): a statement standing for it, and why it splits the sequence."""
        at = unread_between(self.unit, stmts[k - 1], stmts[k]) if k else None
        if at is None and self._launch(stmts[k]) is None:
            at = unread_inside(self.unit, stmts[k])
        if at is None:
            return None
        line = line_of(self.unit, at)
        col = at - self.unit.source.data.rfind(b"\n", 0, at)
        where = n.OtherStmt(kind="unread", span=Span(self.unit.path, at, at + 1, line, col))
        return where, (f"line {line} holds code cudafuse did not read (clang dropped it: a "
                       "name it does not know, from a header not found?), so no launch's "
                       "work may move across it")

    def _cut(self, current: Sequence, site: LaunchSite, cut: str) -> None:
        """End `current` before `site`, saying why at both launches."""
        if not current.launches:
            return
        prev = current.launches[-1].launch
        launch = site.launch
        why = (f"the launches of '{prev.kernel}' at line {prev.span.line} and "
               f"'{launch.kernel}' at line {launch.span.line} are not fused: {cut}")
        self.cut.setdefault(current.launches[-1].index, why)
        self.cut.setdefault(site.index, why)
        self.seqs.append(current)  # the launches before it go on their own

    # ---- scalars by value (byvalue.py) --------------------------------------------------------

    def _respell(self, current: Sequence, stmts: tuple[n.Stmt, ...], k: int,
                 why: str | None) -> str | None:
        """Statement k assigns host scalars (`grid = dim3(...)`, `n = w * h`): the launches
        of the sequence before it re-spelled by the values those held at them, and marked
        when their statements name what it assigns; when that leaves the statement no
        reason to split the sequence, None (`current` updated), else `why`."""
        stmt = stmts[k]
        decls = {r.decl for x in stmt.walk() for r in _assigned(x)
                 if r.kind in ("local", "param") and "*" not in r.type and "[" not in r.type}
        if not decls or self.by_value is None:
            return why
        sites = []
        for s_ in current.launches:
            j = self.position.get(id(s_.stmt))  # (a statement of this list, before k)
            if s_.wrapper is not None or j is None:
                sites.append(s_)
                continue
            launch = self.by_value.respell(s_.launch, s_.kernel.params, decls, stmts, j)
            # Its statement's text names a variable assigned here: run at the fused
            # launch, after this statement, it would launch with other values.
            written = s_.by_value + ((stmt.span.start,) if any(
                isinstance(x, n.Ref) and x.decl in decls for x in s_.stmt.walk()) else ())
            bindings = tuple((p, a if old is new else new)
                             for (p, a), old, new in zip(s_.bindings, s_.launch.args,
                                                         launch.args, strict=True))
            sites.append(s_ if launch is s_.launch and written == s_.by_value else
                         dataclasses.replace(s_, launch=launch, bindings=bindings,
                                             by_value=written))
        if why is not None and self.stmts.statement_reason(
                stmt, (s.launch for s in sites), SWAPS, self.values.modelled) is not None:
            return why
        current.launches[:] = sites
        current.alias_index = None
        return None

    # ---- pointers by value (pointervalues.py) -------------------------------------------------

    def _escaped_reason(self, launch: n.KernelLaunch) -> str | None:
        """A pointer argument (or the variable it aliases) that may change unseen."""
        for a in launch.args:
            r = _ref(a) or _ref(part_root(a)) or self.points.element(a)
            root = self.points.stable_alias(r) if r is not None else None
            for v in (r, root):
                if v is not None and v.decl in self.values.escaped:
                    return (f"pointer '{v.name}' may be changed through a reference, a kept "
                            "address or a lambda")
        return None

    def _unread_init(self, launch: n.KernelLaunch) -> str | None:
        """A pointer argument declared with a value the IR does not hold (unread.py)."""
        for a in launch.args:
            r = _ref(a) or _ref(part_root(a)) or self.points.element(a)
            root = self.points.stable_alias(r) if r is not None else None
            for v in (r, root):
                if v is not None and v.decl in self.inits:
                    return (f"pointer '{v.name}' is initialised at line {self.inits[v.decl]} "
                            "by code cudafuse did not read (clang dropped it: a name it does "
                            "not know, from a header not found?): it may name any buffer, so "
                            "no launch's work may move across it")
        return None

    def _rotates(self, stmt: n.Stmt) -> bool:
        """Does the statement change pointer variables in a way the evaluation follows
        (an exchange, a copy)?"""
        return any(id(x) in self.values.modelled for x in stmt.walk())

    def _evaluate(self, site: LaunchSite) -> LaunchSite | str:
        """The site with each pointer variable argument keyed by the buffer it holds at
        this launch, or why that is not known."""
        stmt = site.stmt
        if not self.values.recorded(stmt):
            return "its pointers are not evaluated in this block"
        out, vals = [], []
        for p, a in site.bindings:
            r = _ref(a) or _ref(part_root(a)) or self.points.element(a)
            if p.is_pointer and r is not None and r.decl in self.values.vars:
                v = self.values.value(stmt, r)
                if v is None:
                    return f"pointer '{r.name}' is not followed at this launch"
                why = self.values.known(v)
                if why is not None:
                    return f"pointer '{r.name}' may name any buffer at this launch ({why})"
                new = dataclasses.replace(r, decl=v.key())
                a = _put_root(a, r, new)
                vals.append((v.key(), v))
            out.append((p, a))
        return dataclasses.replace(site, bindings=tuple(out), values=tuple(vals),
                                   evaluator=self.values)

    def _evaluate_all(self, current: Sequence) -> str | None:
        """Key every launch of the sequence by value (it is about to continue across a
        rotation, or a launch needs values); why not, if it cannot be."""
        sites = []
        for s_ in current.launches:
            plain = dataclasses.replace(s_, bindings=tuple(
                zip(s_.kernel.params, s_.launch.args, strict=True)))
            got = self._evaluate(plain)
            if isinstance(got, str):
                return got
            sites.append(got)
        why = self._value_conflict([], sites)
        if why is None:
            current.launches[:] = sites
            current.alias_index = None
            current.evaluated = True
        return why

    def _carry(self, current: Sequence, stmt: n.Stmt) -> str | None:
        """Why the sequence cannot continue across a statement that rotates pointers: its
        launches cannot be keyed by value, or a buffer of theirs is named by no variable
        after it (the fused launch, after it, could not name it)."""
        if not current.evaluated:
            why = self._evaluate_all(current)
            if why is not None:
                return why
        for s_ in current.launches:
            names = {touched_key(a): _ref(a) or _ref(part_root(a))
                     for p, a in s_.bindings if p.is_pointer}
            for key, v in s_.values:
                if self.values.holder(stmt, v, after=True) is None:
                    r = names.get(key)
                    return (f"after it no variable names the buffer '{r.name if r else '?'}' "
                            f"of the launch of '{s_.kernel.name}' at line "
                            f"{s_.launch.span.line}")
        return None

    def _value_conflict(self, old: list[LaunchSite], new: list[LaunchSite]) -> str | None:
        """Two pointer arguments of the launches with different keys that may be the same
        buffer (or one key for values that may differ)."""
        def entries(sites: list[LaunchSite]) -> list[tuple[str, Value, str]]:
            out = []
            for s_ in sites:
                vals = dict(s_.values)
                for (p, a), orig in zip(s_.bindings, s_.launch.args, strict=True):
                    k = touched_key(a) if p.is_pointer else None
                    if k is None:
                        continue
                    whole = orig if buffer_key(orig) is not None else \
                        self.points.element(orig) or part_root(orig)
                    v = vals.get(k) or (self.values.value(s_.stmt, whole)
                                        if whole is not None else None)
                    if v is not None:
                        r = _ref(a) or _ref(part_root(a))
                        out.append((k, v, r.name if r is not None else _text_of(a)))
            return out
        before, added = entries(old), entries(new)
        for i, (k1, v1, n1) in enumerate(added):
            for k2, v2, n2 in added[i + 1:] + before:
                if k1 == k2 and self.values.same(v1, v2):
                    continue
                if k1 == k2 or self.values.same(v1, v2) or not self.values.distinct(v1, v2):
                    return f"pointer '{n1}' may name the same buffer as '{n2}'"
        return None

    def _aliased(self, arg: n.Expr) -> n.Expr:
        """A pointer argument that is a stable alias of another variable (`const float
        *src = in;`, pointsto.py) as that variable, so that both spellings are one buffer;
        its span is kept, so the emitted code still spells it as written (the same value)."""
        part = part_root(arg)
        if part is not None:  # `src + off` with `src` an alias of `in`: `in + off`
            return with_root(arg, self._aliased(part))
        elem = self.points.element(arg)
        if elem is not None:  # `bufs[0]` of `float *bufs[] = {t, out};`: `t`
            return self._aliased(elem)
        root = self.points.stable_alias(arg)
        if root is None:
            return arg
        inner = arg
        while isinstance(inner, n.Cast):
            inner = inner.operand
        assert isinstance(inner, n.Ref)
        swapped: n.Expr = dataclasses.replace(inner, name=root.name, decl=root.decl,
                                              kind=root.kind)
        if unqualified(root.type) != unqualified(inner.type):
            # `sample *p = reinterpret_cast<sample *>(buf);`: the same buffer, printed as the
            # root converted back to the alias's type (what its initialiser did), so that the
            # fused launch passes what the kernel's parameter takes.
            swapped = n.Cast(type=inner.type, span=inner.span, operand=dataclasses.replace(
                swapped, type=root.type))
        return swapped if inner is arg else _replace_inner(arg, swapped)

    def _may_alias(self, current: Sequence, site: LaunchSite) -> str | None:
        """Buffers are keyed by variable, and distinct keys are taken as distinct buffers.
        A pointer rotated by parity (pointsto.parity_pairs) may name different buffers at
        different steps: it is distinct from its partner there, and from any variable
        whose buffers it provably never names; with anything else, no fusion. So is a
        pointer set once to a choice (`float *dst = flip ? out : buf;`): one buffer, but
        which one is known only at run time. The first such pair in the order the
        launches touch their buffers is named. The sequence's buffers are indexed once
        (_AliasIndex), `site` added to them: it either joins the sequence or the sequence
        ends."""
        index = self._alias_index(current)
        index.add(site, self._selections(site))
        paired: dict[str, frozenset[str]] = {
            d: pair for pair, (a, b) in self.parity.items()
            if a <= site.launch.span.start < b for d in pair}
        for decl in index.selected:
            paired.setdefault(decl, frozenset())
        if not paired:
            return None
        index.fill_roots(self.points)
        for pos in sorted(index.keys[k][0] for k in paired if k in index.keys):
            k = index.order[pos]
            skip = {pos} | {index.keys[k2][0] for k2 in paired[k]
                            if k2 in index.keys and k in paired.get(k2, ())}
            q = index.first_alias(pos, skip)
            if q is not None:
                a, a2 = index.keys[k][1], index.keys[index.order[q]][1]
                names = [x.name if isinstance(x, n.Ref) else _text_of(x) for x in (a, a2)]
                return (f"pointer '{names[0]}' may name the same buffer as "
                        f"'{names[1]}'")
        return None

    def _alias_index(self, current: Sequence) -> _AliasIndex:
        """The sequence's index, brought up to its launches (made again when they are not
        the launches it indexed: replaced, or a candidate that did not join)."""
        index = current.alias_index
        m = len(index.sites) if index is not None else 0
        if index is None or m > len(current.launches) or \
                m and current.launches[m - 1] is not index.sites[-1]:
            index = current.alias_index = _AliasIndex()
            m = 0
        for s_ in current.launches[m:]:
            index.add(s_, self._selections(s_))
        return index

    def _selections(self, site: LaunchSite) -> tuple[str, ...]:
        """The site's pointer arguments set once to a choice of buffers (memoised: asked
        again for every later launch of its sequence)."""
        if site.index not in self._selected:
            self._selected[site.index] = tuple(
                r.decl for p, a in site.bindings
                if p.is_pointer and (r := _ref(a) or _ref(part_root(a))) is not None and
                self.points.selection(r))
        return self._selected[site.index]

    def _note_breaks(self, items: list[tuple[n.Stmt, str | None]]) -> None:
        """A statement other than a launch is worth a note when it separates launches of
        this block."""
        holds = [i for i, (s, _) in enumerate(items) if self._held(s)]
        for i, (stmt, why) in enumerate(items):
            if why is not None and self._launch(stmt) is None and holds and \
                    holds[0] < i < holds[-1] and id(stmt) not in self.wrappers.refused:
                self.breaks.append((stmt, why))

    def _note_alone(self, items: list[tuple[n.Stmt, str | None]], scope: Scope) -> None:
        """For each launch of this block that could fuse but may end up alone: what splits
        it from the nearest launch before or after it (the nearer one first, the one before
        on a tie) that a statement with a reason separates it from. Found from the nearest
        such statement on either side, not by scanning between every pair of launches (a
        block of n launches is O(n log n), not O(n^3))."""
        holds = [i for i, (s, _) in enumerate(items) if self._held(s)]
        before: list[int] = []  # before[i]: the last item < i with a reason, or -1
        last = -1
        for i, (_, why) in enumerate(items):
            before.append(last)
            if why:
                last = i
        after = [len(items)] * len(items)  # after[i]: the first item > i with a reason
        nxt = len(items)
        for i in range(len(items) - 1, -1, -1):
            after[i] = nxt
            if items[i][1]:
                nxt = i
        for i, (stmt, why) in enumerate(items):
            if why is not None:
                continue
            launch = self._launch(stmt)  # (of a call of a helper: its span in the call's)
            index = self.index[launch.span.start if launch is not None else
                               stmt.expr.span.start]  # type: ignore[attr-defined]
            reason = self.cut.get(index, f"it is the only launch in {scope.what}")
            # the nearest launch at or past the split after i, at or before the one before i
            k = bisect.bisect_left(holds, after[i])
            late = holds[k] if k < len(holds) else None
            k = bisect.bisect_right(holds, before[i]) - 1
            early = holds[k] if before[i] >= 0 and k >= 0 else None
            if early is not None and (late is None or i - early <= late - i):
                j, split = early, items[before[i]]
            elif late is not None:
                j, split = late, items[after[i]]
            else:
                j = None
            if j is not None:
                other = self._held(items[j][0])[0]
                reason = (f"line {split[0].span.line} separates it from the launch of "
                          f"'{other.kernel}' at line {other.span.line}: {split[1]}")
            self.alone[index] = reason

_VALUES: dict[tuple[int, int], tuple[TranslationUnit, Function, PointerValues]] = {}


def pointer_values(unit: TranslationUnit, host: Function, points: PointsTo | None = None
                   ) -> PointerValues:
    """The host function's pointers evaluated (pointervalues.py), once per host (the last
    few kept)."""
    key = (id(unit), id(host))
    hit = _VALUES.get(key)
    if hit is not None and hit[0] is unit and hit[1] is host:
        return hit[2]
    stmts = HostStatements(unit, host) if points is None else None
    values = PointerValues(host, points or stmts.points,  # type: ignore[union-attr]
                           lambda call: _definition(unit, call))
    _VALUES[key] = (unit, host, values)
    while len(_VALUES) > 16:
        _VALUES.pop(next(iter(_VALUES)))
    return values


def _definition(unit: TranslationUnit, call: n.Call) -> Function | None:
    decl = call.callee_decl
    if not decl:
        return None
    return unit.callee(decl) or next((f for f in unit.header_functions if f.decl == decl),
                                     None)


def moved_buffers(unit: TranslationUnit, host: Function
                  ) -> dict[str, frozenset[str] | None]:
    """Each pointer variable the function writes after its declaration, with the buffers
    (roots) it may hold (None: any): a launch sequence keyed by value (pointervalues.py)
    names a buffer by its root, which such a variable may read later under its own name."""
    values = pointer_values(unit, host)
    return {d: values.points.sets.get(d) for d in values.written}


def sequences(unit: TranslationUnit, host: Function
              ) -> tuple[list[Sequence], list[tuple[n.Stmt, str]]]:
    """Split the host function's blocks into fusible launch sequences; also return the
    statements that split them, with the reason."""
    seqs, breaks, _ = host_view(unit, host)
    return seqs, breaks


def host_view(unit: TranslationUnit, host: Function
              ) -> tuple[list[Sequence], list[tuple[n.Stmt, str]], list[Placement]]:
    """The sequences of two or more launches (in the host function's body, in loop bodies,
    in branches), the statements that split them, and where every launch went."""
    assert host.body is not None
    sp = _Splitter(unit, host)
    sp.block(host.body.body, Scope(f"the body of '{host.name}'"))
    result = []
    for seq in sorted(sp.seqs, key=lambda q: q.launches[0].index):
        if len(seq.launches) > 1:
            for site in seq.launches:
                sp.places[site.index] = Placement(site.index, site.launch, seq.scope,
                                                  len(result))
            result.append(seq)
        else:
            site = seq.launches[0]
            sp.places[site.index] = Placement(site.index, site.launch, seq.scope, None,
                                              sp.alone[site.index])
    for la in sp._held(host.body):  # anywhere else: inside an expression
        sp.place(la, None, "it is inside an expression cudafuse does not split")
    breaks = sorted(sp.breaks, key=lambda b: b[0].span.start)
    return result, breaks, [sp.places[i] for i in sorted(sp.places)]


ALLOCATORS = frozenset({"cudaMalloc", "cudaMallocManaged", "cudaMallocAsync", "cudaMallocPitch"})


def _put_root(a: n.Expr, r: n.Ref, new: n.Expr) -> n.Expr:
    """Argument `a` (the variable `r`, perhaps cast, or an offset into it) naming `new`."""
    if a is r:
        return new
    return with_root(a, new) if part_root(a) is r else _replace_inner(a, new)


def _replace_inner(e: n.Expr, ref: n.Expr) -> n.Expr:
    if isinstance(e, n.Cast):
        return dataclasses.replace(e, operand=_replace_inner(e.operand, ref))
    return ref


@per_object()
def alias_roots(host: Function) -> dict[str, str]:
    """Each local pointer that is a stable alias of another variable (pointsto.py): its
    decl -> that variable's decl (one buffer under two names)."""
    assert host.body is not None
    points = PointsTo(host)
    out = {}
    for d in host.body.walk():
        if isinstance(d, n.VarDecl) and d.init is not None:
            ref = n.Ref(name=d.name, kind="local", decl=d.decl, type=d.var_type)
            root = points.stable_alias(ref)
            if root is not None:
                out[d.decl] = root.decl
    return out


def pointer_alias_reason(host: Function, launch: n.KernelLaunch,
                         points: PointsTo | None = None,
                         parity: dict[frozenset[str], tuple[int, int]] | None = None
                         ) -> str | None:
    """Buffers are identified by the host variable passed, so a pointer variable must not
    name memory another variable also names. A parameter or global is taken as its own
    buffer (distinct pointer parameters are assumed not to alias, as with __restrict__); a
    local pointer only when it is set once, by an allocation or a fresh value, never copied
    from another pointer or offset from one. Pointers only ever exchanged with each other
    (ping-pong buffers: `std::swap(a, b)`, `t = a; a = b; b = t;`) are a permutation of
    distinct buffers at every launch, so they qualify too (see `rotations`)."""
    assert host.body is not None
    points = points if points is not None else PointsTo(host)
    parity = parity if parity is not None else parity_pairs(points)
    decls = _var_decls(host)
    rotated, why_not = rotations(host)
    assigned, written = _pointer_writes(host)
    paired = {d for pair, (a, b) in parity.items() if a <= launch.span.start < b
              for d in pair}
    why = _struct_reason(launch, points)
    if why is not None:
        return why
    for arg in launch.args:
        # An offset into a variable, or an element of a table set once from variables
        # (pointer_tables.py): judged as the variable.
        arg = part_root(arg) or points.element(arg) or arg
        while isinstance(arg, n.Cast):
            arg = arg.operand
        if not isinstance(arg, n.Ref) or arg.kind not in ("local", "param"):
            continue
        if arg.decl in rotated or arg.decl in paired or \
                points.stable_alias(arg) is not None or points.selection(arg):
            continue  # (a rotated or chosen pointer: _Splitter._may_alias)
        if arg.decl in why_not:
            return why_not[arg.decl]
        if arg.kind == "param":
            if "*" in arg.type and arg.decl in assigned:
                return f"pointer '{arg.name}' is assigned in the function"
            continue
        if arg.decl not in decls:
            continue
        if not arg.type.rstrip().endswith("*") and "*" not in decls[arg.decl].var_type:
            continue
        d = decls[arg.decl]
        if d.init is not None and not _fresh(d.init):
            return f"pointer '{d.name}' is initialised from another pointer" + \
                _may_name(points, d.decl)
        callee = written.get(d.decl)
        if callee == "":
            return f"pointer '{d.name}' is assigned after its declaration"
        if callee is not None and not (d.decl in points.helper_fresh and
                                       points.sets.get(d.decl) == frozenset({d.decl})):
            return f"the address of pointer '{d.name}' is passed to '{callee}'"
    return None


def _unfollowed_pointer(unit: TranslationUnit, kernel: Function | None,
                        launch: n.KernelLaunch, points: PointsTo, evaluated: bool = False
                        ) -> str | None:
    """A pointer argument whose buffer cudafuse does not know: an expression that is no
    buffer variable (`bufs[0]` of a std::vector, `arr[i]`, `t + off`, a call's result, a
    field of a local struct), or a local pointer whose may-point-to set is unknown (set from
    a call such as `pick(a, b)` or `thrust::raw_pointer_cast(v.data())`). It may be any
    buffer, an earlier or later launch's included, so the launch splits its sequence: no
    launch's work may move across it (fusing `k1(in, t); k2(bufs[0], o); k3(t, out)` into
    k1 + k3 would run k1 after k2, which reads `t` through `bufs[0]`). A null pointer names
    no buffer. With `evaluated`, the host function's evaluation (pointervalues.py) says
    which buffer each pointer variable holds at the launch, or splits there itself."""
    if kernel is None or len(launch.args) != len(kernel.params):
        return None
    for p, arg in zip(kernel.params, launch.args, strict=True):
        a = arg
        while isinstance(a, n.Cast):
            a = a.operand
        if not p.is_pointer or isinstance(a, n.IntLit) and a.value == 0 or \
                isinstance(a, n.OtherExpr) and a.kind == "CXX_NULL_PTR_LITERAL_EXPR":
            continue
        # `t + off`, `&t[k]`: a part of t's buffer, a use of t; `bufs[0]` of a table set
        # once: the variable it holds (pointer_tables.py).
        a = part_root(a) or points.element(a) or a
        if buffer_key(a) is None:
            why = why_unfollowed(unit, points.host, a)  # (an element of a table of buffers)
            return (f"its argument '{_source_text(unit, a)}' for '{p.name}' is no plain "
                    "buffer variable: which memory it names is not followed (any buffer, "
                    "or part of one), so no launch's work may move across it" +
                    (f" ({why})" if why else ""))
        if not evaluated and isinstance(a, n.Ref) and a.kind == "local" and \
                points.roots(a) is None and \
                points.stable_alias(a) is None and not points.selection(a):
            return (f"pointer '{a.name}' may name any buffer (a value cudafuse does not "
                    "follow: a call's result, a field, an element of an array), so no "
                    "launch's work may move across it")
    return None


def _source_text(unit: TranslationUnit, e: n.Expr) -> str:
    """The expression as written, when its text is the unit's (else a rendering of it)."""
    if unit.owns(e.span) and e.span.end > e.span.start:
        try:
            return " ".join(unit.text(e.span).split())
        except (IndexError, ValueError):
            pass
    try:
        return to_c(e)
    except Unprintable:
        return "?"


def _struct_reason(launch: n.KernelLaunch, points: PointsTo) -> str | None:
    """A pointer carried in a struct the function changes: not followed."""
    for arg in launch.args:
        while isinstance(arg, n.Cast):
            arg = arg.operand
        key = struct_field(arg)
        if key is not None and key.rpartition(".")[0] in points.changed_structs:
            assert isinstance(arg, n.Member)
            if arg.arrow:  # the caller's struct, through a pointer parameter
                return (f"the struct carrying pointer '{_text_of(arg)}' may change in the "
                        "function: its pointer is used other than to read a field, or a "
                        "member is written through another pointer")
            return (f"the struct carrying pointer '{_text_of(arg)}' is assigned, has its "
                    "address taken or is passed whole to a call in the function")
    return None


@per_object()
def _var_decls(host: Function) -> dict[str, n.VarDecl]:
    assert host.body is not None
    return {d.decl: d for d in host.body.walk() if isinstance(d, n.VarDecl)}


@per_object()
def _pointer_writes(host: Function) -> tuple[frozenset[str], dict[str, str]]:
    """Variables the host function assigns, and for each variable written after its
    declaration its first write in walk order: '' for an assignment, else the callee (not
    an allocator) it passes the variable's address to. (Once per host: asked for every
    launch.)"""
    assert host.body is not None
    assigned: set[str] = set()
    first: dict[str, str] = {}
    for node in host.body.walk():
        if isinstance(node, n.Binary) and node.is_assignment and isinstance(node.lhs, n.Ref):
            assigned.add(node.lhs.decl)
            first.setdefault(node.lhs.decl, "")
        elif isinstance(node, n.Call) and node.callee not in ALLOCATORS:
            for a in node.args:
                if isinstance(a, n.Unary) and a.op == "&" and isinstance(a.operand, n.Ref):
                    first.setdefault(a.operand.decl, node.callee)
    return frozenset(assigned), first


def _text_of(e: n.Expr) -> str:
    while isinstance(e, n.Cast):
        e = e.operand
    if isinstance(e, n.Member):
        return f"{_text_of(e.base)}{'->' if e.arrow else '.'}{e.field_name}"
    return e.name if isinstance(e, n.Ref) else "?"


def _may_name(points: PointsTo, decl: str) -> str:
    """`, and may name 'in', 'out' or 'buf'`: what the pointer may point to, when that is
    more than one buffer (a rotation or choice cudafuse did not prove distinct)."""
    roots = points.sets.get(decl)
    if roots is None or len(roots) < 2:
        return ""
    names = sorted(f"'{r.split('@')[0]}'" for r in roots)
    return f", and may name {', '.join(names[:-1])} or {names[-1]}"


def _ref(e: n.Expr | None) -> n.Ref | None:
    while isinstance(e, n.Cast):
        e = e.operand
    return e if isinstance(e, n.Ref) and e.kind in ("local", "param") else None


def _swaps(host: Function) -> tuple[list[tuple[str, str]], set[int]]:
    """Exchanges of two pointer variables: (decl, decl) pairs, and the ids of the nodes that
    write them (so that other writes stand out)."""
    assert host.body is not None
    pairs: list[tuple[str, str]] = []
    ids: set[int] = set()
    for node in host.body.walk():
        if isinstance(node, n.Call) and node.callee in SWAPS and len(node.args) == 2:
            x, y = _ref(node.args[0]), _ref(node.args[1])
            if x is not None and y is not None and x.decl != y.decl:
                pairs.append((x.decl, y.decl))
                ids.add(id(node))
        if isinstance(node, n.Compound):
            body = node.body
            for s0, s1, s2 in zip(body, body[1:], body[2:], strict=False):
                triple = _triple(s0, s1, s2)
                if triple is not None:
                    pairs.append(triple[0])
                    ids.update(triple[1])
    return pairs, ids


def _assign(stmt: n.Stmt) -> tuple[n.Binary, n.Ref, n.Ref] | None:
    if isinstance(stmt, n.ExprStmt) and isinstance(stmt.expr, n.Binary) and \
            stmt.expr.op == "=":
        lhs, rhs = _ref(stmt.expr.lhs), _ref(stmt.expr.rhs)
        if lhs is not None and rhs is not None:
            return stmt.expr, lhs, rhs
    return None


def _triple(s0: n.Stmt, s1: n.Stmt, s2: n.Stmt
            ) -> tuple[tuple[str, str], list[int]] | None:
    """`t = x; x = y; y = t;` (t declared or assigned): x and y exchanged through t."""
    if isinstance(s0, n.DeclStmt) and len(s0.decls) == 1 and _ref(s0.decls[0].init):
        tmp, x, first = s0.decls[0].decl, _ref(s0.decls[0].init), []
    elif (a0 := _assign(s0)) is not None:
        tmp, x, first = a0[1].decl, a0[2], [id(a0[0])]
    else:
        return None
    a1, a2 = _assign(s1), _assign(s2)
    if x is None or a1 is None or a2 is None:
        return None
    if a1[1].decl == x.decl and a2[2].decl == tmp and a2[1].decl == a1[2].decl != x.decl:
        return (x.decl, a1[2].decl), [*first, id(a1[0]), id(a2[0])]
    return None


@per_object()
def rotations(host: Function) -> tuple[frozenset[str], dict[str, str]]:
    """Pointer variables that are only ever exchanged with each other, and start out naming
    distinct buffers no other launch argument names: at every launch they name distinct
    buffers. Returns their decls, and for variables that are exchanged but do not qualify,
    why."""
    assert host.body is not None
    pairs, swap_ids = _swaps(host)
    if not pairs:
        return frozenset(), {}
    group = {d: {d} for pair in pairs for d in pair}
    for x, y in pairs:
        if group[x] is not group[y]:
            merged = group[x] | group[y]
            for d in merged:
                group[d] = merged
    decls = {d.decl: d for d in host.body.walk() if isinstance(d, n.VarDecl)}
    params = {p.decl for p in host.params}
    names = {**{d: v.name for d, v in decls.items()}, **{p.decl: p.name for p in host.params}}
    why: dict[str, str] = {}
    roots: dict[str, str] = {}  # root buffer -> the rotated variable starting on it
    for d in group:
        if d not in params and d not in decls:
            why[d] = f"pointer '{names.get(d, d)}' is exchanged but not a local or parameter"
            continue
        init = decls[d].init if d in decls else None
        root = d if init is None or _fresh(init) else (
            r.decl if (r := _ref(init)) is not None and r.decl not in group else "")
        if not root:
            why[d] = f"pointer '{names[d]}' is exchanged and initialised from an expression"
        elif root in roots:
            why[d] = f"pointers '{names[roots[root]]}' and '{names[d]}' start on the same buffer"
        else:
            roots[root] = d
    for node in host.body.walk():
        target = None
        if isinstance(node, n.Binary) and node.is_assignment and id(node) not in swap_ids:
            target = _ref(node.lhs)
        elif isinstance(node, n.Unary) and node.op == "&":
            target = _ref(node.operand)
            parent_ok = any(isinstance(c, n.Call) and c.callee in ALLOCATORS and
                            any(a is node for a in c.args)
                            for c in host.body.walk())
            target = None if parent_ok else target
        if target is not None and target.decl in group:
            why.setdefault(target.decl, f"pointer '{target.name}' is assigned other than "
                                        "by exchanging it with another pointer")
    points = PointsTo(host)
    for node in host.body.walk():  # a root passed directly would alias its variable
        if isinstance(node, n.KernelLaunch):
            for arg in node.args:
                r = _ref(arg) or _ref(part_root(arg)) or points.element(arg)
                if r is not None and r.decl in roots and r.decl not in group:
                    why.setdefault(roots[r.decl], f"pointer '{names[roots[r.decl]]}' starts "
                                   f"on '{r.name}', which a launch also names")
    bad = {d for d in group if any(e in why for e in group[d])}
    for d in bad:
        why.setdefault(d, next(why[e] for e in sorted(group[d]) if e in why))
    return frozenset(d for d in group if d not in bad), why


def _fresh(e: n.Expr) -> bool:
    """nullptr, 0, or a call (an allocation): not a copy of another pointer."""
    while isinstance(e, n.Cast):
        e = e.operand
    return isinstance(e, (n.IntLit, n.Call)) or (
        isinstance(e, n.OtherExpr) and e.kind == "CXX_NULL_PTR_LITERAL_EXPR")


@per_object()
def host_locals(host: Function) -> dict[str, n.VarDecl]:
    """Locals of the host function (at any depth: a loop body's `dim3 grid(...)` too) that
    are never assigned after declaration. A declaration's id is unique, so one inside a loop
    body still names one value wherever a launch of that body uses it. (Memoised per host,
    asked for every launch: read it, never change it.)"""
    assert host.body is not None
    decls = _var_decls(host)
    written = _writes(host.body)
    # ... or assigned only right after it, to settle its value (settled.py)
    return {k: v for k, v in decls.items() if k not in written} | \
        settled_locals(host.body, written)

