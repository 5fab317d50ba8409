"""Producers that are point-wise in their stored element, read at run-time loop indices.

A consumer that loops over an intermediate with run-time bounds (llm.c's attention reading
the keys of a causal row, `for (t2 = 0; t2 <= t; t2++) ... k[base + t2 * HS + d]`; a row sum
`for (c = 0; c < h; ++c) acc += tr[r * h + c]`) reads elements cudafuse cannot list. When
the producer's value at element e is a function of e alone, computed from loads at
positions that are themselves functions of e (a copy, a permute, a transpose, a scale, a
cast: any point-wise expression of loads, no loop, no exchange between threads), it can be
recomputed at every read whatever the index, for about the loads the read replaced.

The facts are read from the evaluated IR (analysis/evaluate.py), not from the text:

- the store map: the producer stores the buffer at its own element (`KernelView.stores`:
  element x in 1-D, y * S + x in 2-D), so the thread that stores element e is e itself, or
  (e % S, e / S); its value function (`_at(i)`, docs/fusion.md) inverts it. Another store
  map (a transpose written by its reads' thread, `out[x * h + y] = in[y * w + x]`) is
  refused here, not inverted;
- every load of the producer is at an index of the thread's coordinates, parameters and
  constants (no loop variable, nothing loaded, no local reassigned in a way the evaluator
  does not follow), and there are at most MAX_LOADS of them (an update in place, `data[i]
  -= mean[j]`, is one: it loads its own element, which the group does not store);
- the producer (and each helper it calls) has no loop, and it shares nothing between
  threads (shared memory, barriers, warp operations, atomics) nor builds its output in
  memory (accumulations).

A producer that is not point-wise (PolyBench's matrix-vector products and column sums) is
refused with the reason: recomputing it at each read would repeat its loop, about n times
its work, where reading it costs one load.

The legality of the read itself (the producer's value function exact at any element: it
keeps its guard, legality._any_index_exact) and its cost (one evaluation per read,
loop_reads) are asked by legality and the cost model.
"""

from __future__ import annotations

from cudafuse.analysis.callgraph import CallGraph
from cudafuse.analysis.evaluate import Access
from cudafuse.analysis.kernel_facts import KernelFacts
from cudafuse.ir import nodes as n
from cudafuse.ir.program import TranslationUnit
from cudafuse.passes.vertical.kernel.view import KernelView

MAX_LOADS = 8  # loads per element: more is not "about the load it replaces"
# How many times the cost model takes an element to be read again by a read site that
# repeats in a loop with run-time bounds not in its index, or that folds threads together
# (the trip count, or the number of threads, is known only when the program runs).
LOOP_TRIPS = 16

# Atoms an index may hold for its element to be a function of the thread's indices alone.
_UNFOLLOWED = {"load", "var", "ptrvar", "call", "float", "opaque", "pred", "global"}
# A loop's variable: of a `for` without constant bounds (loopvar), of one too long to
# enumerate (bigloop), or a local stepped in a `while` (var: assigned more than once).
_LOOP = {"loopvar", "bigloop"}
_STEPPED = _LOOP | {"var"}


def _loads(facts: KernelFacts, pname: str) -> list[Access]:
    return [a for a in facts.accesses
            if a.base_kind == "param" and a.base.split("@")[0] == pname]


def loop_variable(facts: KernelFacts, pname: str) -> str | None:
    """The loop variable a kernel's reads of `pname` depend on, when every access of it is a
    load at an index of the thread's indices, parameters, constants and the variables of
    loops (one of them at least of a loop without constant bounds, or a local a `while`
    steps); None otherwise (a store, an escape, an index loaded from memory or otherwise
    not followed). Where the index falls does not matter to correctness (the producer's
    value function is exact at any element, which legality asks); what it reads does."""
    accesses = _loads(facts, pname)
    if not accesses or any(a.mode != "load" or a.note for a in accesses):
        return None
    found = None
    for a in accesses:
        for atom in a.index.atoms():
            if atom.kind in _UNFOLLOWED - _STEPPED:
                return None
            if atom.kind in _STEPPED and found is None:
                found = atom.name.split("#")[0]
    return found


def loop_reads(facts: KernelFacts, pname: str) -> int:
    """Reads of each element of `pname` the cost model counts (each recomputes the producer
    once), summed over the kernel's load sites. A site whose index is one-to-one in the
    thread's indices and its loops' variables (`tr[r * h + c]` in c's loop: each element
    once) counts 1; each loop with run-time bounds around it whose variable its index does
    not use (`q[row * HS + d]` inside t2's loop) multiplies by LOOP_TRIPS, and so does an
    index that folds threads together (`k[(row - row % T) * HS + t2 * HS + d]`: every row of
    a head reads the same keys), since how many times is known only at run time."""
    total = 0
    for a in _loads(facts, pname):
        # (by name: a local a while loop steps is one atom per assignment, `k#1`, `k#2`)
        used = {x.name.split("#")[0] for x in a.index.atoms() if x.kind in _STEPPED}
        around = {x.name.split("#")[0] for p in a.path for x in p.atoms()
                  if x.kind in _STEPPED}
        repeats = len(around - used) + (1 if _folds_threads(a) else 0)
        total += LOOP_TRIPS ** min(repeats, 2)
    return max(total, 1)


def _folds_threads(a: Access) -> bool:
    """Whether the index takes the thread's indices through an operation that maps several
    threads to one value (a division, a remainder, a min or max...), not only linearly."""
    for m, _ in a.index.terms:
        for atom in m:
            if atom.kind in ("coord", "builtin", "param", *_STEPPED):
                continue
            if any(x.kind in ("coord", "builtin") for x in atom.atoms()):
                return True
    return False


def _first_loop(unit: TranslationUnit | None, view: KernelView) -> tuple[str, int] | None:
    """(function, line) of a loop of the producer or a helper it calls, other than its own
    grid-stride loops."""
    fns = [view.fn]
    if unit is not None:
        fns += CallGraph(unit).transitive(view.fn)
    own = {id(x) for x in (view.loop, view.inner_loop) if x is not None}
    for fn in fns:
        if fn.body is None:
            continue
        for loop in fn.body.nodes_of((n.For, n.While)):
            if id(loop) not in own:
                return fn.name, loop.span.line
    return None


def pointwise_reason(unit: TranslationUnit | None, view: KernelView, facts: KernelFacts,
                     pname: str) -> str | None:
    """Why producer `view` cannot be recomputed at any read of the `pname` it stores for
    about the cost of one load (None: it is point-wise in its stored element)."""
    name = view.fn.name
    if pname not in view.stores:
        return (f"'{name}' does not store '{pname}' at its own element (its store map is not "
                "inverted: which thread stores an element is not known)")
    for what, ops in (("shared memory", facts.shared), ("barriers", facts.barriers),
                      ("warp operations", facts.warp_ops), ("atomics", facts.atomics)):
        if ops:
            return f"'{name}' shares values between its threads ({what})"
    escape = next((a for a in facts.accesses if a.mode == "escape"), None)
    if escape is not None:
        return (f"'{name}' hands '{escape.name}' where it cannot be followed (line "
                f"{escape.span.line})")
    loop = _first_loop(unit, view)
    if loop is not None:
        where = f"line {loop[1]}" if loop[0] == name else f"'{loop[0]}', line {loop[1]}"
        return (f"'{name}' computes each element with a loop ({where}; a reduction or a "
                "recurrence): recomputing it at every read would repeat the loop, where "
                "reading it costs one load")
    if pname in view.accumulators:
        return (f"'{name}' builds each element of '{pname}' in memory over several "
                "statements (an accumulation), not as one value")
    if view.channels:
        return f"'{name}' stores several channels per element, not one value"
    loads = [a for a in facts.accesses if a.mode == "load" and a.base_kind == "param"]
    for a in loads:
        bad = next((x for x in a.index.atoms() if x.kind in _UNFOLLOWED | _LOOP), None)
        if bad is not None:
            return (f"'{name}' loads '{a.name}' (line {a.span.line}) at an index that is not "
                    "a function of its element")
    if len(loads) > MAX_LOADS:
        return (f"'{name}' makes {len(loads)} loads per element (more than {MAX_LOADS}): "
                "recomputing it at every read costs more than the load it replaces")
    return None


def loop_window(facts: KernelFacts, pname: str) -> frozenset[tuple[int, int]]:
    """The cost model's window for reads at run-time loop indices: loop_reads distinct
    offsets (a row of them), so that the producer is charged one evaluation per read and
    the consumer alone one load per read. Which elements they are is unknown: no tile."""
    k = loop_reads(facts, pname)
    return frozenset((dx, 0) for dx in range(-(k // 2), k - k // 2))
