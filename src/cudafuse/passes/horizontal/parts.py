"""One input kernel of a horizontal fusion (a *part*): what it uses, and what is refused.

Refusals are errors at the construct's location: a part that cannot be fused soundly is
never fused partly.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from cudafuse.analysis.blocksize import Shape, block_dependence, bound_waiver
from cudafuse.analysis.callgraph import CallGraph
from cudafuse.analysis.shared_memory import SharedReach, shared_reach
from cudafuse.codegen.templates import KernelRef
from cudafuse.diagnostics import Diagnostic, Severity
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, GlobalVar, TemplateParam, TranslationUnit
from cudafuse.ir.source import Span
from cudafuse.passes.horizontal import coop
from cudafuse.passes.horizontal.asm import asm_hazard
from cudafuse.passes.horizontal.barrier_macros import barrier_suffix
from cudafuse.passes.horizontal.carried import carried_state
from cudafuse.passes.horizontal.helpers import (
    REDUCING,
    REDUCING_CALL,
    Copies,
    call_edits,
    helpers_to_copy,
)
from cudafuse.passes.horizontal.per_block import per_block_stores
from cudafuse.passes.horizontal.shared_split import SharedSplit, plan_split, written_out


@dataclass(frozen=True)
class Part:
    index: int  # 1 or 2: also the part's named barrier id in thread mode
    unit: TranslationUnit
    fn: Function
    block: Shape
    barriers: tuple[n.Call, ...]  # __syncthreads() calls in the kernel body
    dyn_shared: tuple[n.VarDecl, ...]  # extern __shared__ declarations in the kernel body
    dyn_globals: tuple[GlobalVar, ...]  # file-scope extern __shared__ arrays it uses
    shared_globals: tuple[GlobalVar, ...]  # file-scope static __shared__ arrays it uses
    copies: Copies  # helpers given a per-part copy (see helpers.py)
    helper_barriers: int  # __syncthreads() calls in those helpers (thread mode)
    returns: tuple[n.Return, ...]  # returns before the end of the kernel body
    warp_ops: int
    bindings: tuple[tuple[TemplateParam, str], ...] = ()  # template arguments, if a template
    # Why results may depend on the block size (see blocksize.py); empty: none found.
    block_dependence: tuple[str, ...] = ()
    block_source: str = ""  # where the block shape came from (an option, __launch_bounds__)
    # __syncthreads_count/_and/_or calls in the kernel body (thread mode: bar.red)
    reducing: tuple[n.Call, ...] = ()
    helper_reducing: int = 0  # __syncthreads_count/_and/_or in copied helpers (thread mode)
    reach: SharedReach | None = None  # every shared array the kernel reaches, and how
    split: SharedSplit = SharedSplit()  # part 2's classes copied for its region (thread mode)
    # The part's code uses cooperative groups' block group (or tiled_partition): it gets a
    # block-group type of its own (coop.py).
    uses_coop: bool = False
    group_waits: int = 0  # cooperative groups' sync() (and friends) in the body and helpers
    # Given more threads than its kernel's __launch_bounds__: why it still launches (the
    # fused kernel's own bound counts the fused block; blocksize.bound_waiver); '' if not.
    bound_note: str = ""

    @property
    def reducing_count(self) -> int:
        return len(self.reducing) + self.helper_reducing

    @property
    def display(self) -> str:
        return KernelRef(self.fn, self.bindings).display


def _diag(unit: TranslationUnit, span: Span, msg: str, sev: Severity = Severity.ERROR
          ) -> Diagnostic:
    return Diagnostic(sev, msg, span.file or unit.path, span.line, span.col,
                      unit.source.line_text(span.line) if span.file == unit.path else "")


def _early_returns(body: n.Compound) -> list[n.Return]:
    last = body.body[-1] if body.body else None
    return [s for s in body.walk() if isinstance(s, n.Return) and s is not last]


def build_part(index: int, unit: TranslationUnit, ref: KernelRef, block: Shape,
               mode: str, block_source: str = "") -> tuple[Part, list[Diagnostic]]:
    """The part for kernel `ref` and every reason it cannot be fused in `mode`."""
    fn = ref.fn
    assert fn.body is not None
    diags: list[Diagnostic] = []
    name = ref.display

    def refuse(span: Span, why: str) -> None:
        diags.append(_diag(unit, span, f"kernel '{name}' cannot be fused horizontally: {why}"))

    if block.count % 32:
        refuse(fn.name_span, f"its block of {block.count} threads ({block}) is not a multiple "
               "of 32: warps would straddle the two parts and counted barriers need whole warps")
    helpers = CallGraph(unit).transitive(fn)
    globals_by_decl = {g.decl: g for g in unit.globals}
    barriers: list[n.Call] = []
    reducing: list[n.Call] = []
    dyn: list[n.VarDecl] = []
    used_globals: dict[str, GlobalVar] = {}
    warp = 0
    for node in fn.body.walk():
        if isinstance(node, n.Asm):
            if why := asm_hazard(unit, node):
                refuse(node.span, f"it contains {why}")
        elif isinstance(node, n.Call):
            callee = node.callee.split("::")[-1]
            if callee == "__syncthreads":
                if mode == "thread" and barrier_suffix(unit, node) is None:
                    refuse(node.span, "a __syncthreads() inside a macro expansion cannot be "
                           "rewritten into the part's own barrier; write it out")
                barriers.append(node)
            elif callee in REDUCING:
                text = unit.code_text(node.span) if node.span.file == unit.path else ""
                if mode == "thread" and not REDUCING_CALL.match(text.strip()):
                    refuse(node.span, f"a {callee}() inside a macro expansion cannot be "
                           "rewritten into the part's own barrier; write it out")
                reducing.append(node)
            elif callee.startswith("__shfl") or callee in ("__ballot_sync", "__any_sync",
                                                             "__all_sync", "__syncwarp"):
                warp += 1
        elif isinstance(node, n.VarDecl) and {"shared", "extern"} <= node.storage:
            if not written_out(unit, node):
                refuse(node.span, "an extern __shared__ declaration inside a macro expansion "
                       "cannot be moved to the part's region; write it out")
            dyn.append(node)
        elif isinstance(node, n.Ref) and node.kind == "global" and node.decl in globals_by_decl:
            g = globals_by_decl[node.decl]
            if g.space == "shared":
                used_globals.setdefault(g.decl, g)
    copies = helpers_to_copy(unit, fn, mode)
    copied = {h.decl for h in copies.functions}
    helper_barriers = _check_helpers(unit, helpers, copies, mode, used_globals, refuse)
    for bad in coop.problems(unit, fn.body):
        refuse(bad.span, bad.why)
    uses_coop = bool(coop.edits(unit, fn.body, fn.body_span, "x")) or any(
        coop.edits(unit, h.body, h.span, "x") for h in copies.functions if h.body is not None)
    # A group's sync() waits like __syncthreads (in thread mode, at the part's counted
    # barrier); tiles' count too (conservative).
    waits = coop.waits(fn.body)
    helper_waits = [c for h in helpers if h.body is not None for c in coop.waits(h.body)]
    _, bad = call_edits(unit, fn.body, {d: d for d in copied})
    for span in bad:
        refuse(span, "a call of a helper that needs the part's builtins or barrier is inside a "
               "macro expansion and cannot be redirected to the part's copy")
    returns = _early_returns(fn.body)
    if mode == "thread" and returns:
        late = _barrier_after_return(unit, fn, returns, barriers + reducing + waits,
                                     helper_barriers + helper_waits, helpers)
        if late is not None:
            refuse(returns[0].span, "it returns early and waits at __syncthreads() after that "
                   f"(line {late.line}; a group's sync() counts as one); in the fused kernel "
                   "that barrier counts only this "
                   "part's threads, and threads that have exited never arrive at a counted "
                   "barrier (bar.sync), so the part's other threads would wait forever; use "
                   "--mode block, or make the threads skip work instead of returning")
    reach = shared_reach(unit, fn)
    for use in reach.uses:  # namespace-scope static arrays its member functions use too
        g = next((g for g in unit.globals if g.span == use.span), None)
        if use.kind == "global" and g is not None and not g.is_extern:
            used_globals.setdefault(g.decl, g)
    split = plan_split(unit, fn, index, mode, reach, copies.functions, refuse)
    dyn_globals = tuple(g for g in used_globals.values() if g.is_extern)
    static_globals = tuple(g for g in used_globals.values() if not g.is_extern)
    dependence = block_dependence(unit, ref, block.count) + per_block_stores(fn) + \
        carried_state(unit, fn) + [
        f"file-scope __shared__ '{g.name}' has a size fixed at compile time, which may be the "
        "block's" for g in static_globals]
    helper_reducing = sum(1 for c in helper_barriers if c.callee.split("::")[-1] in REDUCING)
    part = Part(index, unit, fn, block, tuple(barriers), tuple(dyn), dyn_globals,
                static_globals, copies, len(helper_barriers) - helper_reducing,
                tuple(returns), warp, ref.bindings, tuple(dependence),
                block_source or f"--block{index}", tuple(reducing), helper_reducing,
                reach, split, uses_coop, len(waits) + len(helper_waits),
                bound_waiver(unit, ref, block))
    return part, diags


def _barrier_after_return(unit: TranslationUnit, fn: Function, returns: list[n.Return],
                          barriers: list[n.Call], helper_barriers: list[n.Call],
                          helpers: list[Function]) -> Span | None:
    """A barrier that a thread of the part may reach after another thread returned.

    In a kernel whose threads all pass the same barriers (what __syncthreads requires), a
    thread that returns in a top-level statement after every statement holding a barrier has
    already arrived at every barrier any other thread will wait at, so its exit cannot hold
    a counted barrier up. Otherwise the first barrier at or after the first return is blamed.
    """
    assert fn.body is not None
    waiting = {id(c) for c in helper_barriers}
    holders = {h.decl for h in helpers if h.body is not None and
               any(id(x) in waiting for x in h.body.walk())}
    graph = CallGraph(unit)

    def calls_holder(x: n.Node) -> bool:
        target = graph.resolve(x) if isinstance(x, n.Call) else None
        return target is not None and target.decl in holders

    changed = True
    while changed:  # helpers calling a helper that waits wait too
        changed = False
        for h in helpers:
            if h.decl not in holders and h.body is not None and any(
                    calls_holder(x) for x in h.body.walk()):
                holders.add(h.decl)
                changed = True
    kernel_barriers = {id(c) for c in barriers}

    def waits(stmt: n.Node) -> n.Node | None:
        return next((x for x in stmt.walk() if id(x) in kernel_barriers or calls_holder(x)),
                    None)

    if any(isinstance(x, n.OtherStmt) and x.kind in ("GOTO_STMT", "INDIRECT_GOTO_STMT")
           for x in fn.body.walk()):  # a goto may lead back to a barrier: no order to rely on
        first = next((x for st in fn.body.body if (x := waits(st)) is not None), None)
        if first is not None:
            return first.span
    ret_ids = {id(r) for r in returns}
    first_return = next(i for i, st in enumerate(fn.body.body)
                        if any(id(x) in ret_ids for x in st.walk()))
    for st in fn.body.body[first_return:]:
        hit = waits(st)
        if hit is not None:
            return hit.span
    return None


def _check_helpers(unit: TranslationUnit, helpers: list[Function], copies: Copies, mode: str,
                   used_globals: dict[str, GlobalVar],
                   refuse: Callable[[Span, str], None]) -> list[n.Call]:
    """Refuse what the kernel's helpers do that no copy can fix; note the file-scope shared
    arrays they use (into used_globals). Returns their barriers (thread mode)."""
    copied = {h.decl for h in copies.functions}
    globals_by_decl = {g.decl: g for g in unit.globals}
    helper_barriers: list[n.Call] = []
    for h in helpers:
        assert h.body is not None
        if h.decl in copied:
            how = copies.reasons[copies.functions.index(h)]
            if h.is_template or h.parent or h.span.file != unit.path:
                kind = "a template" if h.is_template else "a member function" if h.parent \
                    else "defined in a header"
                refuse(h.name_span, f"helper '{h.name}' {how} and is {kind}, so it cannot be "
                       "given a per-part copy")
            _, bad = call_edits(unit, h.body, {d: d for d in copied})
            for span in bad:
                refuse(span, f"a call in helper '{h.name}' of a helper that needs a per-part "
                       "copy is inside a macro expansion and cannot be redirected")
        for node in h.body.walk():
            why = ""
            if isinstance(node, n.Asm):
                why = asm_hazard(unit, node)
            elif isinstance(node, n.Call) and node.callee.split("::")[-1] in \
                    REDUCING and mode == "thread":
                helper_barriers.append(node)
                text = unit.code_text(node.span) if node.span.file == unit.path else ""
                if not REDUCING_CALL.match(text.strip()):
                    why = f"a {node.callee}() inside a macro expansion (write it out)"
            elif isinstance(node, n.Call) and node.callee.split("::")[-1] == "__syncthreads" \
                    and mode == "thread":
                helper_barriers.append(node)
                if barrier_suffix(unit, node) is None:
                    why = "a __syncthreads() inside a macro expansion (write it out)"
            elif isinstance(node, n.Ref) and node.kind == "global" and \
                    node.decl in globals_by_decl and globals_by_decl[node.decl].space == "shared":
                # extern ones: at offset 0 they are the part's region already; part 2's
                # (thread mode) is given by its helper copy (shared_split.py)
                g = globals_by_decl[node.decl]
                if not g.is_extern:
                    used_globals.setdefault(g.decl, g)
            if why:
                refuse(node.span, f"helper '{h.name}' (called from the kernel) uses {why}")
        for bad in coop.problems(unit, h.body):
            refuse(bad.span, f"helper '{h.name}' (called from the kernel): {bad.why}")
    return helper_barriers


def _labels(part: Part) -> dict[str, Span]:
    assert part.fn.body is not None
    out: dict[str, Span] = {}
    for node in part.fn.body.walk():
        if isinstance(node, n.OtherStmt) and node.kind == "LABEL_STMT":
            m = re.match(r"\w+", part.unit.code_text(node.span))
            if m:
                out.setdefault(m.group(), node.span)
    return out


def label_conflicts(p1: Part, p2: Part) -> list[Diagnostic]:
    """Both bodies end up in one function, where a label name can be defined only once."""
    l1, l2 = _labels(p1), _labels(p2)
    return [_diag(p2.unit, l2[name], f"label '{name}' is defined in both kernels, whose "
                  "bodies share one function once fused; rename one")
            for name in sorted(set(l1) & set(l2))]


def shared_conflicts(p1: Part, p2: Part, mode: str) -> list[Diagnostic]:
    """In thread mode both parts run in one block at once: a file-scope __shared__ array
    they both use would be one array for both (helpers' own are copied per part)."""
    if mode != "thread" or p1.unit is not p2.unit:
        return []
    out: list[Diagnostic] = []
    both = {g.decl for g in p1.shared_globals} & {g.decl for g in p2.shared_globals}
    for g in p1.shared_globals:
        if g.decl in both:
            out.append(_diag(p1.unit, g.span, f"kernels '{p1.display}' and '{p2.display}' "
                             f"both use the file-scope __shared__ array '{g.name}'; in one "
                             "block they would share it (use --mode block)"))
    return out
