"""Why a kernel the view cannot read is no per-element computation at all, from what it does.

The view (view.py) reads a kernel by its shape: coordinates, a bounds guard, own-element
stores. When that reading fails, the refusal used to blame the spelling ("its thread-to-element
mapping is not ...", "no recognisable bounds guard"), also for kernels whose threads work
together: a block reduction (`if (tid == 0) out[blockIdx.x] = s[0];`), a histogram
(`atomicAdd(&bins[v], 1)`), a scan combining values in shared memory between barriers. No
spelling of those is a value at the thread's own element, so the reason a user (and the
survey) needs is that one.

This module asks the evaluated facts (analysis/kernel_facts.py: every access's index as a
polynomial over the thread's and block's indices, under its path condition), not the text:

- a store to a buffer by atomics;
- a store whose element does not depend on threadIdx at all (every thread of a block names
  the same element: one of them writes what the block computed);
- shared memory written again after a barrier (values combined in rounds: a scan or a
  reduction), warp shuffles or cooperative-group collectives;
- a shared array passed whole to a function (`f(s, 0, k)`): what the helper reads of it is
  followed by no shared-memory reader, said as such;
- shared memory written once and read by other threads (a tile): the gap Hipacc-style tile
  fusion would close, said as such; when each thread stores several elements of one buffer
  (eight results per thread, convolutionSeparable's), that is said instead, since the tile
  readers (staged_tile.py, tile_writers.py) take one element per thread.

Anything else keeps the view's own reason: such a kernel stores at its own element by every
fact the evaluator has, and only its spelling is unread (a real gap).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from cudafuse.analysis.evaluate import Access
from cudafuse.analysis.kernel_facts import KernelFacts
from cudafuse.analysis.symbolic import Poly
from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts
from cudafuse.ir.lvalue import written_root
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.kernel.view import KernelView

# The view's reasons that blame the spelling of the mapping or the guard.
SPELLING = ("thread-to-element mapping", "no recognisable bounds guard")
# Reasons that name a symptom of threads working together (a builtin read after the
# coordinates, a shared declaration, a barrier, work before the guard): replaced only by a
# reason that settles it (not by "stages a tile", which they already say in their words).
SYMPTOMS = ("outside its coordinate declarations", "declares shared variable",
            "(barriers, warp collectives", "does work before its bounds guard")
_BARRIERS = ("__syncthreads", "CUDAFUSE_BAR_SYNC", "bar_sync")
# Index atoms that cannot tell two threads of one block apart.
_BLOCK_WIDE = {"param", "global"}
# Atoms of the distance between two stores of one thread that are the same for every thread.
_APART = {"param", "global"}


def explained(view: KernelView, facts: Callable[[], KernelFacts]) -> KernelView:
    """`view`, its producer reason replaced by what the kernel's threads do together when the
    view refused it for its spelling (or for a symptom of working together) and the facts
    show a larger obstacle. `facts` is called only then (the planner has them for every
    launched kernel)."""
    why = view.producer_reason or ""
    spelling = any(s in why for s in SPELLING)
    if not spelling and not any(s in why for s in SYMPTOMS):
        return view
    found = cooperation_reason(view.fn, facts(), tiles=spelling)
    return dataclasses.replace(view, producer_reason=found) if found else view


def cooperation_reason(fn: Function, facts: KernelFacts, tiles: bool = True) -> str | None:
    """Why `fn`'s threads do not each compute a value at their own element, or None when the
    facts show no such obstacle. `tiles`: say so also of a tile staged once in shared memory
    (which tile fusion could serve), else only of what no fusion of one value per element
    could."""
    outputs = [a for a in facts.accesses if a.base_kind == "param"]
    for a in outputs:
        if a.mode == "atomic":
            return (f"it updates '{a.name}' with atomics (line {a.span.line}): other threads "
                    "update the same elements, so none of them holds one thread's value (a "
                    "histogram or reduction)")
    for a in outputs:
        if a.mode == "store" and _block_wide(a):
            return (f"its store to '{a.name}' (line {a.span.line}) is at an element that does "
                    "not depend on threadIdx: the threads of a block name one element, which "
                    "one of them writes (a per-block reduction or a serial step)")
    # (shared memory reached through a local pointer, `float *tile = &smem[k]`, as well)
    shared_lines = frozenset(a.span.line for a in facts.accesses
                             if a.base_kind == "shared" and a.mode in ("store", "atomic"))
    rounds = _shared_rounds(fn, shared_lines)
    if rounds is not None:
        return (f"it writes memory again after a barrier (line {rounds}): its threads "
                "exchange values in rounds (a scan, a reduction or tiles loaded in turn), "
                "not one tile staged once")
    for op in facts.warp_ops:
        return (f"its threads exchange values through '{op.name}' (line {op.line}): warp "
                "shuffles and cooperative-group collectives combine other threads' values")
    passed = _shared_passed(fn)
    if passed is not None:
        return passed
    staged = _shared_store_line(fn, shared_lines) if tiles else None
    if staged is not None and facts.barriers:
        several = _several_per_thread(fn, facts)
        if several is not None:
            return several
        return (f"threads exchange data through shared memory (line {staged}): it stages "
                "a tile that other threads read")
    return None


def _shared_passed(fn: Function) -> str | None:
    """Why a kernel that passes a shared array whole to a function (`f(s, 0, k)`, a pointer
    parameter of the helper) is not read: which elements the helper reads, and so whether
    they were staged, is followed by neither shared-memory reader (staged_copy.py,
    staged_tile.py, tile_writers.py); said before "stages a tile", which it may not."""
    shared = _shared_decls(fn)
    assert fn.body is not None
    for call in fn.body.walk():
        if not isinstance(call, n.Call) or _is_barrier(call):
            continue
        for arg in call.args:
            r = strip_casts(arg)
            if isinstance(r, n.Ref) and r.decl in shared:
                return (f"it passes shared '{r.name}' to '{call.callee}' (line "
                        f"{call.span.line}): which of its elements the callee reads, and "
                        "so whether the block staged them, is not followed")
    return None


def _several_per_thread(fn: Function, facts: KernelFacts) -> str | None:
    """Why a tiled kernel whose threads each store several elements of one buffer (a loop of
    constant trips, unrolled by the evaluator, or several stores: NVIDIA's
    convolutionSeparable, eight results per thread) is not read, when the facts show it:
    stores of one buffer parameter at elements that differ, for every thread, by amounts
    free of thread and block indices (through the parameter moved, `dst += y * w + x`,
    too)."""
    pointers = {p.decl: p.name for p in fn.params if p.is_pointer}
    stores: dict[str, list[Access]] = {}
    for a in facts.accesses:
        if a.mode == "store" and a.base in pointers:
            stores.setdefault(a.base, []).append(a)
    for base, found in stores.items():
        first = found[0].index
        apart: list[Poly] = []
        for a in found[1:]:
            d = a.index - first
            if any(atom.kind not in _APART for atom in d.atoms()):
                break  # (an element that depends on the thread: not "the same steps")
            if d.const_value != 0 and d not in apart:
                apart.append(d)
        else:
            if not apart:
                continue
            lines = [str(x) for x in dict.fromkeys(a.span.line for a in found)]
            where = f"line{'s' if len(lines) > 1 else ''} {', '.join(lines)}"
            after = ", ".join(str(d) for d in apart)
            return (f"each thread stores {len(apart) + 1} elements of '{pointers[base]}' "
                    f"({where}; {after} after its first): "
                    "a tile is read only for a kernel of one element per thread, so which "
                    "step of which thread computes an element is not singled out (several "
                    "results per thread, as NVIDIA's convolutionSeparable computes them)")
    return None


def _block_wide(a: Access) -> bool:
    """Is the stored element the same for every thread of a block: an index of parameters,
    constants and block (not thread) indices only?"""
    for atom in a.index.atoms():
        if atom.kind == "builtin" and not atom.name.startswith("threadIdx"):
            continue
        if atom.kind not in _BLOCK_WIDE:
            return False
    return True


def _shared_decls(fn: Function) -> set[str]:
    assert fn.body is not None
    return {x.decl for x in fn.body.walk()
            if isinstance(x, n.VarDecl) and "shared" in x.storage and x.decl}


def _stored_root(node: n.Node) -> n.Ref | None:
    """The variable a store, compound store or increment writes into (through subscripts,
    members and casts), if it is one."""
    if isinstance(node, n.Binary) and node.is_assignment:
        target: n.Expr = node.lhs
    elif isinstance(node, n.Unary) and node.op in ("++", "--"):
        target = node.operand
    else:
        return None
    return written_root(target)


def _is_barrier(node: n.Node) -> bool:
    return isinstance(node, n.Call) and node.callee.startswith(_BARRIERS)


def _shared_store(node: n.Node, shared: set[str], lines: frozenset[int]) -> bool:
    """Does `node` store into shared memory: a variable declared __shared__, or memory the
    evaluator saw stored as shared on that line (through a pointer into it)?"""
    root = _stored_root(node)
    if root is None:
        return False
    return root.decl in shared or node.span.line in lines


def _shared_store_line(fn: Function, lines: frozenset[int]) -> int | None:
    shared = _shared_decls(fn)
    assert fn.body is not None
    for node in fn.body.walk():
        if _shared_store(node, shared, lines):
            return node.span.line
    return None


def _shared_rounds(fn: Function, lines: frozenset[int]) -> int | None:
    """The line of a store to shared memory that runs after a barrier of the same thread:
    one following a barrier in program order, or one in a loop whose body has a barrier
    (the next iteration's store follows it); or of a store to a buffer parameter in such a
    loop. A tile staged once has none (its output store follows the barrier, in no loop)."""
    shared = _shared_decls(fn)
    if fn.body is None:
        return None
    seen = False

    def visit(node: n.Node, in_barrier_loop: bool) -> int | None:
        nonlocal seen
        if _is_barrier(node):
            seen = True
            return None
        if (seen or in_barrier_loop) and _shared_store(node, shared, lines):
            return node.span.line
        root = _stored_root(node)
        if in_barrier_loop and root is not None and root.kind == "param":
            return node.span.line  # (a scan in global memory: `a[i] += a[i - s]` per round)
        loop = isinstance(node, (n.For, n.While)) and any(_is_barrier(x) for x in node.walk())
        for child in node.children():
            if child is None:  # (an absent part: an if without else)
                continue
            found = visit(child, in_barrier_loop or loop)
            if found is not None:
                return found
        return None

    return visit(fn.body, False)
