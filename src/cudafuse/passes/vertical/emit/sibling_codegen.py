"""Emitting sibling pairs (siblings.py): the fused kernel or launcher, and the host edits.

Thread form: each kernel's body becomes a `__device__ __forceinline__` function of its own
parameters, verbatim (so a `return` ends that body only), and the fused kernel calls both
with its parameters, one per distinct host argument: an input both read is passed once.
The fused kernel's pointer parameters are `__restrict__` (siblings write nothing the other
touches, and distinct buffers are assumed not to alias, as for vertical fusion), so nvcc may
keep a load common to both bodies at the same element in a register instead of loading it
twice.

Block form: the horizontal pass's block split (`cudafuse hfuse --mode block`), run through
passes.run_pass; its fused kernel and launcher go before the host function, and the host
calls the launcher with both launches' arguments, grids and dynamic shared memory.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from cudafuse.codegen.splice import Rewriter
from cudafuse.codegen.templates import KernelRef
from cudafuse.diagnostics import CudafuseError
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.passes.vertical.emit.codegen import (
    CodegenError,
    _statement_end,
    declare_var,
    expr_text,
    param_key,
)
from cudafuse.passes.vertical.host.hostexprs import spells_kernel
from cudafuse.passes.vertical.host.hostview import Sequence
from cudafuse.passes.vertical.kernel.thread_private import own_elements_meaning
from cudafuse.passes.vertical.plan.legality import LaunchInfo
from cudafuse.passes.vertical.plan.model import KernelCost
from cudafuse.passes.vertical.plan.siblings import (
    SiblingNote,
    SiblingPair,
    SiblingPlanner,
    conflict,
    dependence_reach,
)


def _restrict(type_: str) -> str:
    if "restrict" in type_ or not type_.rstrip().endswith("*"):
        return type_
    return type_.rstrip() + "__restrict__"


def _short(key: str) -> str:
    return key.split(":", 1)[-1].split("@")[0]


def _pointee(type_: str) -> str:
    return " ".join(type_.replace("const", " ").replace("*", " ").split())


class SiblingEmitter:
    """Per-file state: names of fused kernels, helper copies the block split made."""

    def __init__(self, unit: TranslationUnit, prefix: str):
        self.unit, self.prefix = unit, prefix
        self.count = 0
        self.copied: set[str] = set()

    def thread_code(self, pair: SiblingPair, name: str) -> tuple[str, list[n.Expr]]:
        """The part functions and the fused kernel; the host arguments, in order."""
        params: dict[str, list] = {}  # key -> [type, host arg]
        for info in pair.members:
            for p, arg in info.site.bindings:
                key = param_key(p, arg)
                assert key is not None
                if key not in params:
                    params[key] = [p.type, arg]
                elif p.is_pointer:
                    if _pointee(p.type) != _pointee(params[key][0]):
                        raise CodegenError(f"'{expr_text(self.unit, arg)}' is passed as "
                                           f"'{params[key][0]}' and as '{p.type}'")
                    if "const" not in p.type.split("*")[0]:
                        params[key][0] = p.type
        keys = list(params)
        knames = {k: f"{self.prefix}_p{j}" for j, k in enumerate(keys)}
        parts, calls = [], []
        for k, info in enumerate(pair.members):
            fn = info.site.kernel
            assert fn.body is not None
            part = f"{name}_{k}_{fn.name}"
            decls = ", ".join(declare_var(p.type, p.name) for p in fn.params)
            parts.append(f"__device__ __forceinline__ void {part}({decls})\n"
                         f"{self.unit.text(fn.body.span)}\n")
            args = ", ".join(knames[param_key(p, a)] for p, a in info.site.bindings)  # type: ignore[index]
            calls.append(f"  {part}({args});")
        # A buffer one part writes and the other reads is reached by both: no __restrict__.
        sig = ", ".join(declare_var(_restrict(params[k][0]) if params[k][0].rstrip().endswith("*")
                                 and k not in pair.serial else params[k][0], knames[k])
                        for k in keys)
        bounds = pair.a.site.kernel.launch_bounds or pair.b.site.kernel.launch_bounds
        lb = f"__launch_bounds__({bounds}) " if bounds else ""
        what = (f"launches of {', '.join(i.site.kernel.name for i in pair.members)}, one "
                "thread runs each in turn: each thread touches only its own "
                f"elements of {', '.join(_short(k) for k in pair.serial)}"
                if pair.serial else
                f"sibling launches of {pair.a.site.kernel.name} and "
                f"{pair.b.site.kernel.name}, one thread runs both")
        text = (f"// cudafuse: {what} (see cudafuse fuse --explain)\n" + "".join(parts) +
                f"__global__ void {lb}{name}({sig}) {{\n" + "\n".join(calls) + "\n}\n")
        return text, [params[k][1] for k in keys]

    def block_code(self, pair: SiblingPair, planner: SiblingPlanner, name: str) -> str:
        from cudafuse.passes import run_pass
        from cudafuse.passes.horizontal.driver import HFuseOptions
        from cudafuse.passes.horizontal.parts import Shape

        shapes = []
        for info in (pair.a, pair.b):
            dims = planner.constant_dim3(info.site.launch.block)
            assert dims is not None
            shapes.append(Shape(*dims))
        opts = HFuseOptions(shapes[0], shapes[1], mode="block", name=name,
                            block_sources=("its launch", "its launch"))
        try:
            res = run_pass("horizontal", [self.unit, self.unit], opts,
                           kernels=(KernelRef(pair.a.site.kernel), KernelRef(pair.b.site.kernel)))
        except CudafuseError as exc:
            first = exc.diagnostics[0].message if getattr(exc, "diagnostics", None) else str(exc)
            raise CodegenError(f"the block split refuses it: {first}") from None
        copies = {f"{p.index}:{h.name}" for p in res.parts for h in p.copies.functions}
        if copies & self.copied or (any(p.uses_coop for p in res.parts) and "coop" in self.copied):
            raise CodegenError("another block split in this file already copies the same "
                               "helpers (their copies would clash)")
        self.copied |= copies | ({"coop"} if any(p.uses_coop for p in res.parts) else set())
        return res.generated.decode("utf-8").lstrip("\n")

    def emit(self, pair: SiblingPair, planner: SiblingPlanner, host: Function,
             rw: Rewriter) -> tuple[str, str]:
        """The code to insert before the host function and the fused kernel's (or
        launcher's) name; the host edits go into `rw`, whole or not at all."""
        pair = _spelled_at_kept(pair)
        late = [i.site.kernel.name for i in pair.members
                if self.unit.main_end(i.site.kernel.span) > host.span.start]
        if late:
            raise CodegenError(f"'{late[0]}' is defined after '{host.name}'")
        for info in pair.members:
            callee = info.site.launch.callee_span
            if not spells_kernel(self.unit.text(callee), info.site.kernel.name):
                raise CodegenError(f"the launch of '{info.site.kernel.name}' is written inside "
                                   "a macro invocation")
        name = f"{self.prefix}_{host.name.replace('::', '_')}_sib{self.count}"
        kept = pair.members[-1] if pair.at_second else pair.a
        gones = [i for i in pair.members if i is not kept]
        applied = len(rw.edits)
        try:
            if pair.form == "thread":
                code, host_args = self.thread_code(pair, name)
                launch = kept.site.launch
                rw.replace(launch.callee_span, name, "sibling launch")
                data = self.unit.source.data
                open_ = data.find(b"(", launch.config_span.end, launch.span.end)
                if open_ < 0 or data[launch.span.end - 1:launch.span.end] != b")":
                    raise CodegenError("cannot find the launch's argument list")
                args = ", ".join(expr_text(self.unit, a) for a in host_args)
                rw.replace_range(open_, launch.span.end, f"({args})", "sibling arguments")
                shown = name
            else:
                code = self.block_code(pair, planner, name)
                call = self._launcher_call(pair, name)
                rw.replace(kept.site.launch.span, call, "sibling launcher")
                shown = f"{name}_launch"
            how = "siblings" if not pair.serial else "one thread runs both" \
                if not pair.more else "one thread runs them in turn"
            for gone in gones:
                rw.replace(gone.site.stmt.span, f"/* cudafuse: {gone.site.kernel.name} fused "
                           f"into {shown} ({how}) */",
                           f"launch of {gone.site.kernel.name} fused")
            if pair.checks:
                self._versioned(pair, kept, rw)
        except CodegenError:
            del rw.edits[applied:]
            raise
        self.count += 1
        return code, shown

    def _versioned(self, pair: SiblingPair, kept: LaunchInfo, rw: Rewriter) -> None:
        """`if (<checks>) { <fused launch> } else { <the original launches> }` at the fused
        launch's statement; the other launch is written there with the kept launch's grid
        and block (equal as values: the thread form asks it) and its own arguments as named
        there."""
        data = self.unit.source.data
        stmt = kept.site.stmt
        end = _statement_end(data, stmt.span.end)
        launch = kept.site.launch
        config = self.unit.text(launch.config_span)[
            launch.callee_span.end - launch.config_span.start:]
        originals = []
        for info in pair.members:
            if info is kept:
                text = self.unit.text(stmt.span)
                originals.append(text if text.rstrip().endswith(";") else text + ";")
            else:
                args = ", ".join(expr_text(self.unit, a) for _, a in info.site.bindings)
                originals.append(f"{self.unit.text(info.site.launch.callee_span)}{config}"
                                 f"({args});")
        rw.insert(stmt.span.start, "if (" + " && ".join(f"({c})" for c in pair.checks) +
                  ") { ", "fused launch under its run-time conditions")
        rw.insert(end, " } else { /* cudafuse: the original launches */ " +
                  " ".join(originals) + " }", "the original launches otherwise")

    def _launcher_call(self, pair: SiblingPair, name: str) -> str:
        args = [expr_text(self.unit, a) for info in (pair.a, pair.b)
                for _, a in info.site.bindings]
        args += [expr_text(self.unit, info.site.launch.grid) for info in (pair.a, pair.b)]
        for info in (pair.a, pair.b):
            s = info.site.launch.shared
            args.append("0" if s is None else expr_text(self.unit, s))
        stream = pair.a.site.launch.stream
        args.append("0" if stream is None else expr_text(self.unit, stream))
        return f"{name}_launch({', '.join(args)})"


def _spelled_at_kept(pair: SiblingPair) -> SiblingPair:
    """The pair with both launches' pointer arguments named as where the fused launch
    stands (they differ across a pointer rotation: host/hostview.py)."""
    at = (pair.members[-1] if pair.at_second else pair.a).site
    try:
        sites = [i.site.spelled_at(at) for i in pair.members]
    except ValueError as exc:
        raise CodegenError(str(exc)) from None
    infos = [dataclasses.replace(i, site=s) for i, s in zip(pair.members, sites, strict=True)]
    return dataclasses.replace(pair, a=infos[0], b=infos[1], more=tuple(infos[2:]))


def fuse_siblings(emitter: SiblingEmitter, infos: list[LaunchInfo], costs: list[KernelCost],
                  taken: set[int], planner: SiblingPlanner, host: Function, rw: Rewriter
                  ) -> tuple[list[str], list[SiblingNote], int]:
    """Pair the launches of a sequence that no fused group took (positions not in `taken`),
    in launch order, each with the first later one it may fuse with; emit each pair. Also
    returns how many pairs were refused untried (their launches between: see below)."""
    free = [i for i in range(len(infos)) if i not in taken]
    done: set[int] = set()
    code: list[str] = []
    notes: list[SiblingNote] = []
    # A pair with a launch between that depends on the first and one between that the
    # second depends on is refused whatever else holds (SiblingPlanner.between_reason: the
    # fused launch can stand at neither place): it is counted, not tried, so that a long
    # sequence of dependent launches costs no pair per two of them.
    after, before = dependence_reach(infos)
    blocked = 0
    for x, i in enumerate(free):
        if i in done:
            continue
        for j in free[x + 1:]:
            if j in done:
                continue
            if after[i] < j and before[j] > i:
                blocked += 1
                continue
            pair, why, benefit = planner.pair(i, j)
            a, b = infos[i], infos[j]
            chained: list[SiblingNote] = []
            if pair is not None and pair.serial and pair.at_second:
                pair, chained = _chain(pair, planner, free, done, i, j, host)
            note = SiblingNote(host.name, a.site.kernel.name, b.site.kernel.name,
                               a.site.index, b.site.index, False, why, "", "", benefit,
                               (), b.site.launch.span.line, b.site.launch.span.col)
            notes.append(note)
            if pair is None:
                continue
            try:
                text, shown = emitter.emit(pair, planner, host, rw)
            except CodegenError as exc:
                note.why = f"not fused: {exc}"
                continue
            note.fused, note.form, note.name = True, pair.form, shown
            note.shared_inputs = tuple(k.split(":", 1)[-1].split("@")[0] for k in pair.shared)
            how = ("one thread runs both bodies" if pair.form == "thread" else
                   "a block split: the first grid's blocks run the first kernel, the rest "
                   "the second")
            if pair.serial:
                names = [f"'{m.site.kernel.name}'" for m in pair.members]
                how = (f"one thread runs {', then '.join(names)}: "
                       "each thread reads and writes only its own elements of "
                       f"{', '.join(_short(k) for k in pair.serial)}")
                if pair.checks:
                    how += (f"; when {' && '.join(pair.checks)} ("
                            f"{own_elements_meaning(', '.join(_short(k) for k in pair.serial))}"
                            ": not shown from the text), the original launches otherwise")
            note.serial = bool(pair.serial)
            note.why = f"fused into {shown} ({how}" + (f"; {why})" if why else ")")
            code.append(text)
            done |= {i, j} | {infos.index(c) for c in pair.more}
            for c in chained:
                c.fused, c.form, c.name, c.serial = True, "thread", shown, True
                c.why = note.why
            notes.extend(chained)
            break
    return code, notes, blocked


def _chain(pair: SiblingPair, planner: SiblingPlanner, free: list[int], done: set[int],
           i: int, j: int, host: Function) -> tuple[SiblingPair, list[SiblingNote]]:
    """A dependent pair fused at its second launch's place, extended with the later free
    launches one thread may run after it in turn (SiblingPlanner.extend), each with a note
    per earlier member it depends on (their edges are fused too)."""
    members = [i, j]
    serial, checks = set(pair.serial), list(pair.checks)
    notes: list[SiblingNote] = []
    for k in free:
        if k <= j or k in done:
            continue
        got = planner.extend(members, k)
        if isinstance(got, str):
            continue
        for m in members:
            a, c = planner.infos[m], planner.infos[k]
            if conflict(a, c):
                notes.append(SiblingNote(host.name, a.site.kernel.name, c.site.kernel.name,
                                         a.site.index, c.site.index, False, "", line=
                                         c.site.launch.span.line, col=c.site.launch.span.col))
        members.append(k)
        serial |= set(got[0])
        checks += [x for x in got[1] if x not in checks]
    more = tuple(planner.infos[k] for k in members[2:])
    return dataclasses.replace(pair, more=more, serial=tuple(sorted(serial)),
                               checks=tuple(checks)), notes


def sibling_pass(planner: Any, seq: Sequence, plan: Any, emitter: SiblingEmitter,
                 rw: Rewriter) -> tuple[list[str], list[SiblingNote]]:
    """Siblings among the launches of `seq` that the plan's fused groups left alone
    (`planner`, `plan`: the vertical driver's _Planner and SequencePlan)."""
    infos = planner.infos(seq)
    costs = [planner.cost(i) for i in infos]
    position = {li: k for k, li in enumerate(plan.launch_indices)}
    taken = {position[i] for g in plan.groups for i in g.launches}
    opts = planner.opts
    sp = SiblingPlanner(planner.unit, infos, planner.arch, opts.size, opts.siblings,
                        opts.fuse_all, costs)
    code, notes, plan.siblings_blocked = fuse_siblings(emitter, infos, costs, taken, sp,
                                                      seq.host, rw)
    return code, notes
