"""Choosing fusion groups: the Hipacc recursive min-cut, and a dynamic programming search
(PolyMage's grouping DP, bounded) that is exact where its limits allow and says so.

Both maximise the same objective, the sum of the scorer's group benefits (the cost model's,
less its estimated occupancy charge), and both only ever return groups that `legal`
accepts. `legal(group)` returns None or a reason. docs/fusion.md, "Searching for the best
partition", says why a DP and what its limits mean.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace

import networkx as nx

from cudafuse.passes.vertical.plan.arch import ArchParams
from cudafuse.passes.vertical.plan.charge import estimated_charge
from cudafuse.passes.vertical.plan.costmodel import EPSILON, Partials, group_cost
from cudafuse.passes.vertical.plan.model import KernelCost, PipelineModel

Group = frozenset[int]
Legality = Callable[[Group], "str | None"]
Scorer = Callable[[Group], float]  # estimated benefit of fusing a group (cycles saved)


@dataclass(frozen=True)
class Partition:
    groups: tuple[Group, ...]  # in launch order of their first kernel
    objective: float  # sum of group benefits (the shared objective)
    edge_objective: float  # sum of w_e inside groups (the paper's Eq. 1)
    strategy: str
    search: str = ""  # how it was found, and how far it is proven
    proven: bool = False  # optimal for the objective over every legal partition
    gap: float | None = None  # objective below the proven optimum; None when unknown


def cost_scorer(model: PipelineModel, arch: ArchParams, tiles: bool = True) -> Scorer:
    """The cost model's benefit (costmodel.group_cost), less what it charges for the
    occupancy the group's estimated registers lose (resources.estimated_charge)."""

    alone: dict[int, tuple[KernelCost, int, float]] = {}  # (estimated_charge's memo)
    partials = Partials(arch, tiles)  # (groups grown from groups scored before)

    @functools.cache
    def score(group: Group) -> float:
        cost = group_cost(model, group, arch, allow_tiles=tiles, partials=partials)
        return cost.benefit - estimated_charge(model, group, cost.footprints, arch,
                                               cost.words if len(group) > 1 else None, alone)

    return score


def count_scorer(model: PipelineModel) -> Scorer:
    """One unit per producer/consumer edge kept inside a group: fuse whatever is legal.
    (--fuse-all, and tests that want fusion to happen whatever the cost model thinks.)"""

    def score(group: Group) -> float:
        return float(sum(1 for a in group for c, _ in model.consumers(a) if c in group))

    return score


def _edge_weight(score: Scorer, a: int, b: int, legal: bool) -> float:
    """The paper's w_e = max(w + gamma, epsilon) (Eq. 12), w from the pair's benefit."""
    return max(score(frozenset((a, b))), EPSILON) if legal else EPSILON


def dependence_graph(model: PipelineModel) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(range(len(model.kernels)))
    g.add_edges_from(model.all_edges())
    return g


class _Bits:
    """The dependence graph as bitmasks (bit i = launch i): ancestors, descendants and
    data-edge neighbours, so that a group's convexity costs a few integer operations."""

    def __init__(self, model: PipelineModel):
        n = len(model.kernels)
        g = dependence_graph(model)
        self.preds = [0] * n
        for a, b in g.edges:
            self.preds[b] |= 1 << a
        self.anc = [0] * n
        self.desc = [0] * n
        order = list(nx.topological_sort(g))
        for v in order:
            for u in g.predecessors(v):
                self.anc[v] |= self.anc[u] | (1 << u)
        for v in reversed(order):
            for w in g.successors(v):
                self.desc[v] |= self.desc[w] | (1 << w)
        self.data = [0] * n  # neighbours through a producer/consumer buffer
        for a, b in model.edges:
            self.data[a] |= 1 << b
            self.data[b] |= 1 << a


def _members(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def structural_reason(model: PipelineModel, group: Group) -> str | None:
    """Why `group` cannot be one kernel regardless of the kernels' bodies: it must be
    connected by true dependences and convex (no path leaves it and comes back)."""
    return _structural(model, _Bits(model), group)


def _structural(model: PipelineModel, bits: _Bits, group: Group) -> str | None:
    if len(group) < 2:
        return None
    mask = sum(1 << v for v in group)
    start = min(group)
    reached, todo = 1 << start, [start]
    while todo:  # connected through producer/consumer buffers inside the group
        v = todo.pop()
        new = bits.data[v] & mask & ~reached
        reached |= new
        todo.extend(_members(new))
    if reached != mask:
        return "its kernels are not connected by a producer/consumer buffer"
    desc = anc = 0
    for v in group:
        desc |= bits.desc[v]
        anc |= bits.anc[v]
    between = desc & anc & ~mask
    if between:
        u = _members(between)[0]
        return (f"launch {u} ('{model.kernels[u].name}') depends on the group and the "
                "group depends on it")
    return None


def make_legality(model: PipelineModel, kernel_legal: Legality) -> Legality:
    bits = _Bits(model)

    @functools.cache
    def legal(group: Group) -> str | None:
        return _structural(model, bits, group) or kernel_legal(group)

    return legal


def _objective(model: PipelineModel, groups: list[Group], score: Scorer,
               legal: Legality) -> tuple[float, float]:
    total = sum(score(g)
                for g in groups if len(g) > 1)
    # The edges inside each group, group by group and each group's in the model's order
    # (the sum's order), from one pass over the edges rather than one per group.
    inside: list[list[tuple[int, int]]] = [[] for _ in groups]
    where: dict[int, list[int]] = {}
    for gi, g in enumerate(groups):
        for v in g:
            where.setdefault(v, []).append(gi)
    for (a, b) in model.edges:
        for gi in where.get(a, ()):
            if b in groups[gi]:
                inside[gi].append((a, b))
    edges = 0.0
    for pairs in inside:
        for a, b in pairs:
            edges += _edge_weight(score, a, b, legal(frozenset((a, b))) is None)
    return total, edges


def _finish(model: PipelineModel, groups: list[Group], score: Scorer, legal: Legality,
            strategy: str) -> Partition:
    ordered = tuple(sorted(groups, key=min))
    obj, edges = _objective(model, list(ordered), score, legal)
    return Partition(ordered, obj, edges, strategy)


def mincut_partition(model: PipelineModel, score: Scorer, legal: Legality) -> Partition:
    """Algorithm 1 of the Hipacc paper: cut illegal blocks along Stoer-Wagner minimum cuts.

    Blocks that are legal but not beneficial (benefit <= 0) are cut too, since the paper
    treats a non-positive benefit as illegal."""
    n = len(model.kernels)
    weights: dict[frozenset[int], float] = {}
    for (a, b) in sorted(model.all_edges()):
        pair = frozenset((a, b))
        ok = (a, b) in model.edges and legal(pair) is None
        weights[pair] = weights.get(pair, 0.0) + _edge_weight(score, a, b, ok)
    work: list[Group] = [frozenset(c) for c in _components(range(n), weights)]
    ready: list[Group] = []
    while work:
        block = work.pop(0)
        if len(block) == 1 or (legal(block) is None and
                               score(block) > 0):
            ready.append(block)
            continue
        g = nx.Graph()
        g.add_nodes_from(sorted(block))
        for pair, w in sorted(weights.items(), key=lambda kv: sorted(kv[0])):
            if pair <= block and len(pair) == 2:
                g.add_edge(*sorted(pair), weight=w)
        if not nx.is_connected(g):
            work.extend(frozenset(c) for c in sorted(nx.connected_components(g), key=min))
            continue
        _, (left, right) = nx.stoer_wagner(g)
        work.extend(sorted((frozenset(left), frozenset(right)), key=min))
    part = _finish(model, ready, score, legal, "mincut")
    return replace(part, search="min-cut (Hipacc's Algorithm 1): recursive Stoer-Wagner "
                   "cuts of illegal blocks; no optimality bound")


def _components(nodes: range, weights: dict[frozenset[int], float]) -> list[set[int]]:
    g = nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(tuple(p) for p in weights if len(p) == 2)
    return sorted((set(c) for c in nx.connected_components(g)), key=min)


@dataclass(frozen=True)
class SearchLimits:
    """How far the grouping search may go before it stops being exhaustive.

    work: the kernels of the connected groups scored, summed (scoring a group costs about
    its size); groups are enumerated smallest first, a size whole or not at all. A chain of
    n kernels has n(n+1)/2 groups, n^3/6 kernels in all: the default covers every group
    of chains up to about 75 kernels, groups of up to about 28 kernels on 200 and 12 on
    1,000.
    states: placements kept per count of kernels placed (a chain has one).
    """

    work: int = 80_000
    states: int = 2000


@dataclass
class Work:
    """What the grouping search did, summed over calls (tests/test_scale_s12_*.py reads it
    to show the work grows linearly with the launches)."""

    moves: int = 0  # moves tried from every state kept
    looked: int = 0  # ready kernels looked at to place those that can only be alone


WORK = Work()
AUTO_LIMITS = SearchLimits()
MINCUT_AUTO_MAX = 128
EXACT_LIMITS = SearchLimits(work=1_500_000, states=20000)


@dataclass
class _Enumeration:
    candidates: list[Group]  # legal groups of 2+ kernels with a positive benefit
    complete: bool  # every connected group was looked at
    max_size: int  # every connected group of up to this many kernels was looked at
    scored: int


def _enumerate(model: PipelineModel, bits: _Bits, score: Scorer, legal: Legality,
               budget: int) -> _Enumeration:
    """Connected groups grown one neighbour at a time, level by level (size 2, 3, ...),
    until there are none left or the next level would take the kernels scored past
    `budget`; a level is looked at whole or not at all, so the result covers every group up
    to some size."""
    n = len(model.kernels)
    # Each group with its neighbours, descendants and ancestors (as masks), each grown from
    # the group it extends by one kernel rather than from all its members again.
    level = {1 << i: (bits.data[i] & ~(1 << i), bits.desc[i], bits.anc[i]) for i in range(n)}
    good: list[Group] = []
    size, seen, work = 1, 0, 0
    while level:
        nxt: dict[int, tuple[int, int, int]] = {}
        # (a level that cannot fit the budget is not built whole: a fan-out's next level
        # has millions of groups)
        room = (budget - work) // (size + 1)
        for mask, (around, desc, anc) in level.items():
            rest = around
            while rest:
                low = rest & -rest
                rest ^= low
                grown = mask | low
                if grown not in nxt:
                    v = low.bit_length() - 1
                    nxt[grown] = ((around | bits.data[v]) & ~grown, desc | bits.desc[v],
                                  anc | bits.anc[v])
            if len(nxt) > room:
                return _Enumeration(good, False, size, seen)
        if not nxt:
            return _Enumeration(good, True, size, seen)
        if work + len(nxt) * (size + 1) > budget:
            return _Enumeration(good, False, size, seen)
        seen += len(nxt)
        work += len(nxt) * (size + 1)
        for mask in sorted(nxt):
            _, desc, anc = nxt[mask]
            if desc & anc & ~mask:  # not convex: cannot be one kernel whatever its bodies
                continue
            group = frozenset(_members(mask))
            if score(group) > 0 and legal(group) is None:
                good.append(group)
        level = nxt
        size += 1
    return _Enumeration(good, True, size, seen)


def candidate_groups(model: PipelineModel, score: Scorer, legal: Legality) -> list[Group]:
    """Every legal, beneficial group of 2+ kernels (connected subsets grown edge by edge)."""
    found = _enumerate(model, _Bits(model), score, legal, budget=1 << 62)
    return sorted(found.candidates, key=lambda g: (len(g), sorted(g)))


def exact_partition(model: PipelineModel, score: Scorer, legal: Legality,
                    limits: SearchLimits = EXACT_LIMITS) -> Partition:
    """The best partition by dynamic programming over the kernels already placed (PolyMage's
    grouping DP, bounded as in its incremental variant).

    A state is a set of placed kernels closed under predecessors; a step places one
    candidate group (or one kernel alone) whose outside predecessors are all placed, so the
    fused program is acyclic by construction. States are visited by how many kernels they
    place, keeping the best `limits.states` of each count (beam search). On a chain the
    states are its prefixes: the search is the O(n * groups) chain DP. The result is proven
    optimal when every connected group was enumerated and no state was dropped; otherwise
    `search` says which bound applied (the largest group size enumerated whole, the beam)."""
    n = len(model.kernels)
    bits = _Bits(model)
    found = _enumerate(model, bits, score, legal, limits.work)
    cands = [(sum(1 << v for v in c), score(c), c) for c in found.candidates]
    ext_preds = []
    for mask, _, _ in cands:
        p = 0
        for v in _members(mask):
            p |= bits.preds[v]
        ext_preds.append(p & ~mask)
    by_member: list[list[int]] = [[] for _ in range(n)]
    for ci, (mask, _, _) in enumerate(cands):
        for v in _members(mask):
            by_member[v].append(ci)
    # A kernel is ready once its predecessors are placed: one with none, or a successor of
    # a placed kernel. So each state keeps its placed kernels' successors (`front`), and
    # only those and the sources are asked, not all n kernels per state (quadratic).
    succ = [0] * n
    sources = 0
    for v in range(n):
        if not bits.preds[v]:
            sources |= 1 << v
        for u in _members(bits.preds[v]):
            succ[u] |= 1 << v
    cand_succ = []
    for mask, _, _ in cands:
        out = 0
        for v in _members(mask):
            out |= succ[v]
        cand_succ.append(out)
    # A kernel every candidate of which meets the placed kernels (or that is in none) is
    # alone in every completion of the state, and placing it when it is ready commutes with
    # every other move: such kernels are placed at once, as part of the move that made them
    # so, instead of one move each in every order (a fan-out's consumers, once their
    # producer is placed, would otherwise be placed as every subset of them, beam-bounded).
    # `meets[v]`: the kernels every candidate with v holds besides v (-1: v is in none).
    meets = [-1] * n
    for mask, _, _ in cands:
        for v in _members(mask):
            meets[v] = (mask & ~(1 << v)) if meets[v] == -1 else meets[v] & mask

    def settle(done: int, front_of: int) -> tuple[int, int]:
        """`done` with every ready kernel that can only be alone placed, and its front."""
        while True:
            more = 0
            for v in _members((front_of | sources) & ~done):
                WORK.looked += 1
                if not bits.preds[v] & ~done and (meets[v] == -1 or meets[v] & done):
                    more |= 1 << v
            if not more:
                return done, front_of
            done |= more
            for v in _members(more):
                front_of |= succ[v]

    start, start_front = settle(0, 0)
    front: dict[int, int] = {start: start_front}
    full = (1 << n) - 1
    # state -> (value, previous state, candidate index or -1 - kernel placed alone, the
    # kernels placed alone with it by `settle`)
    best: dict[int, tuple[float, int, int, int]] = {start: (0.0, -1, 0, start)}
    layers: list[list[int]] = [[] for _ in range(n + 1)]
    layers[bin(start).count("1")].append(start)
    dropped = 0
    for count in range(n):
        layer = layers[count]
        if len(layer) > limits.states:
            layer.sort(key=lambda s: (-best[s][0], s))
            dropped += len(layer) - limits.states
            for s in layer[limits.states:]:
                del best[s]
            layer = layer[:limits.states]
        for done in layer:
            value = best[done][0]
            ready = [v for v in _members((front[done] | sources) & ~done)
                     if not bits.preds[v] & ~done]
            tried: set[int] = set()
            moves = [(1 << v, 0.0, -1 - v) for v in ready]
            for v in ready:
                for ci in by_member[v]:
                    mask, benefit, _ = cands[ci]
                    if ci in tried or mask & done or ext_preds[ci] & ~done:
                        continue
                    tried.add(ci)
                    moves.append((mask, benefit, ci))
            WORK.moves += len(moves)
            for mask, benefit, how in moves:
                placed = done | mask
                nxt, nfront = settle(placed, front[done] | (
                    cand_succ[how] if how >= 0 else succ[-1 - how]))
                if nxt not in best:
                    layers[bin(nxt).count("1")].append(nxt)
                    front[nxt] = nfront
                elif best[nxt][0] >= value + benefit:
                    continue
                best[nxt] = (value + benefit, done, how, nxt & ~placed)
    if full not in best:
        raise AssertionError("no schedulable partition found (singletons always are)")
    groups: list[Group] = []
    state = full
    while state != -1:
        _, prev, how, alone = best[state]
        groups.extend(frozenset((v,)) for v in _members(alone))
        if prev != -1:
            groups.append(cands[how][2] if how >= 0 else frozenset((-1 - how,)))
        state = prev
    proven = found.complete and not dropped
    if proven:
        search = (f"exact: dynamic programming over {len(cands)} legal group(s) "
                  f"(every connected group, {found.scored} looked at); optimal")
    else:
        bounds = []
        if not found.complete:
            bounds.append(f"groups of at most {found.max_size} kernels ({found.scored} "
                          "looked at, the search's limit)")
        if dropped:
            bounds.append(f"the best {limits.states} placements per step ({dropped} dropped)")
        search = ("bounded dynamic programming: optimal among partitions into "
                  + " and ".join(bounds) + "; gap to the unrestricted optimum unknown")
    part = _finish(model, groups, score, legal, "exact")
    return Partition(part.groups, part.objective, part.edge_objective, part.strategy,
                     search, proven, 0.0 if proven else None)


def choose_partition(model: PipelineModel, score: Scorer, legal: Legality,
                     strategy: str = "auto") -> tuple[Partition, list[Partition]]:
    """The chosen partition and every one computed (for --explain/reporting).

    auto: the min-cut and the dynamic programming search with the default limits, keeping
    the better; when the DP is proven optimal the chosen partition's gap is known (its
    distance to the DP's objective, 0 when the DP wins). exact: the DP with larger limits,
    which proves optimality on every chain up to about 440 kernels and on small DAGs, and
    says which bound applied otherwise; it never refuses a pipeline for its size."""
    if strategy not in ("auto", "mincut", "exact"):
        raise ValueError(f"unknown partition strategy '{strategy}'")
    results = []
    dp = None
    if strategy in ("exact", "auto"):
        dp = exact_partition(model, score, legal,
                             EXACT_LIMITS if strategy == "exact" else AUTO_LIMITS)
    # The min-cut costs O(V^3) (a Stoer-Wagner cut per block): on long pipelines auto
    # leaves it out, and says so in the search line.
    if strategy == "mincut" or (strategy == "auto" and len(model.kernels) <= MINCUT_AUTO_MAX):
        results.append(mincut_partition(model, score, legal))
    elif dp is not None:
        dp = replace(dp, search=dp.search + f"; min-cut not run (over {MINCUT_AUTO_MAX} "
                     "kernels, --partition mincut runs it)")
    if dp is not None:
        results.append(dp)
    chosen = max(results, key=lambda p: (p.objective, p.strategy == "mincut"))
    if chosen is not dp and dp is not None and dp.proven:
        at = results.index(chosen)
        chosen = results[at] = replace(chosen, gap=max(dp.objective - chosen.objective, 0.0),
                                       search=chosen.search + "; as good as the proven "
                                       "optimum (the exact search's)")
    return chosen, results
