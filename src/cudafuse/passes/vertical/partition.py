"""Choosing fusion groups: the Hipacc recursive min-cut, and an exact search.

Both maximise the same objective, the sum of `group_cost(...).benefit` over the groups, and
both only ever return groups that `legal` accepts. `legal(group)` returns None or a reason.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import networkx as nx

from cudafuse.passes.vertical.arch import ArchParams
from cudafuse.passes.vertical.costmodel import EPSILON, group_cost
from cudafuse.passes.vertical.model import PipelineModel

Group = frozenset[int]
Legality = Callable[[Group], "str | None"]
Scorer = Callable[[Group], float]  # estimated benefit of fusing a group (cycles saved)
EXACT_MAX_KERNELS = 16


@dataclass(frozen=True)
class Partition:
    groups: tuple[Group, ...]  # in launch order of their first kernel
    objective: float  # sum of group benefits (the shared objective)
    edge_objective: float  # sum of w_e inside groups (the paper's Eq. 1)
    strategy: str


def cost_scorer(model: PipelineModel, arch: ArchParams, tiles: bool = True) -> Scorer:
    """The cost model's benefit (fusion.costmodel.group_cost)."""

    @functools.cache
    def score(group: Group) -> float:
        return group_cost(model, group, arch, allow_tiles=tiles).benefit

    return score


def count_scorer(model: PipelineModel) -> Scorer:
    """One unit per producer/consumer edge kept inside a group: fuse whatever is legal.
    (--fuse-all, and tests that want fusion to happen whatever the cost model thinks.)"""

    def score(group: Group) -> float:
        return float(sum(1 for (a, b) in model.edges if a in group and b in group))

    return score


def _edge_weight(score: Scorer, a: int, b: int, legal: bool) -> float:
    """The paper's w_e = max(w + gamma, epsilon) (Eq. 12), w from the pair's benefit."""
    return max(score(frozenset((a, b))), EPSILON) if legal else EPSILON


def dependence_graph(model: PipelineModel) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(range(len(model.kernels)))
    g.add_edges_from(model.all_edges())
    return g


def structural_reason(model: PipelineModel, group: Group) -> str | None:
    """Why `group` cannot be one kernel regardless of the kernels' bodies: it must be
    connected by true dependences and convex (no path leaves it and comes back)."""
    if len(group) < 2:
        return None
    g = dependence_graph(model)
    data = nx.Graph()
    data.add_nodes_from(group)
    data.add_edges_from((a, b) for (a, b) in model.edges if a in group and b in group)
    if not nx.is_connected(data):
        return "its kernels are not connected by a producer/consumer buffer"
    outside = set(g) - group
    reach_from = set().union(*(nx.descendants(g, n) for n in group)) & outside
    for u in sorted(reach_from):
        if nx.descendants(g, u) & group:
            return (f"launch {u} ('{model.kernels[u].name}') depends on the group and the "
                    "group depends on it")
    return None


def make_legality(model: PipelineModel, kernel_legal: Legality) -> Legality:
    @functools.cache
    def legal(group: Group) -> str | None:
        return structural_reason(model, group) or kernel_legal(group)

    return legal


def _objective(model: PipelineModel, groups: list[Group], score: Scorer,
               legal: Legality) -> tuple[float, float]:
    total = sum(score(g)
                for g in groups if len(g) > 1)
    edges = 0.0
    for g in groups:
        for (a, b) in model.edges:
            if a in g and b in g:
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
    return _finish(model, ready, score, legal, "mincut")


def _components(nodes: range, weights: dict[frozenset[int], float]) -> list[set[int]]:
    g = nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(tuple(p) for p in weights if len(p) == 2)
    return sorted((set(c) for c in nx.connected_components(g)), key=min)


def candidate_groups(model: PipelineModel, score: Scorer, legal: Legality) -> list[Group]:
    """Every legal, beneficial group of 2+ kernels (connected subsets grown edge by edge)."""
    adj: dict[int, set[int]] = {i: set() for i in range(len(model.kernels))}
    for a, b in model.edges:
        adj[a].add(b)
        adj[b].add(a)
    seen: set[Group] = set()
    frontier = [frozenset((i,)) for i in adj]
    while frontier:
        nxt = []
        for g in frontier:
            for u in sorted(set().union(*(adj[v] for v in g)) - g):
                h = g | {u}
                if h not in seen:
                    seen.add(h)
                    nxt.append(h)
        frontier = nxt
    good = [g for g in seen if legal(g) is None and
            score(g) > 0]
    return sorted(good, key=lambda g: (len(g), sorted(g)))


def exact_partition(model: PipelineModel, score: Scorer, legal: Legality) -> Partition:
    """The best partition by exhaustive search over legal groups (PolyMage-style DP).

    States are the sets of kernels already placed, always closed under predecessors, so
    groups are placed in a topological order of the fused program and the result is
    acyclic by construction."""
    n = len(model.kernels)
    if n > EXACT_MAX_KERNELS:
        raise ValueError(f"exact search is limited to {EXACT_MAX_KERNELS} kernels (got {n})")
    g = dependence_graph(model)
    preds = [frozenset(g.predecessors(i)) for i in range(n)]
    cands = candidate_groups(model, score, legal) + [frozenset((i,)) for i in range(n)]
    benefit = {c: (score(c) if len(c) > 1 else 0.0)
               for c in cands}
    full = frozenset(range(n))

    @functools.cache
    def best(done: frozenset[int]) -> tuple[float, tuple[Group, ...]]:
        if done == full:
            return 0.0, ()
        top = (float("-inf"), ())
        for c in cands:  # any group whose outside predecessors are all placed may go next
            if c & done:
                continue
            if any(not (preds[v] - c) <= done for v in c):
                continue
            value, rest = best(done | c)
            if benefit[c] + value > top[0]:
                top = (benefit[c] + value, (c, *rest))
        return top

    value, groups = best(frozenset())
    if value == float("-inf"):
        raise AssertionError("no schedulable partition found (singletons always are)")
    return _finish(model, list(groups), score, legal, "exact")


def choose_partition(model: PipelineModel, score: Scorer, legal: Legality,
                     strategy: str = "auto") -> tuple[Partition, list[Partition]]:
    """The chosen partition and every one computed (for --explain/reporting)."""
    results = []
    if strategy in ("mincut", "auto"):
        results.append(mincut_partition(model, score, legal))
    if strategy == "exact" or (strategy == "auto" and len(model.kernels) <= EXACT_MAX_KERNELS):
        results.append(exact_partition(model, score, legal))
    if not results:
        raise ValueError(f"unknown partition strategy '{strategy}'")
    chosen = max(results, key=lambda p: (p.objective, p.strategy == "mincut"))
    return chosen, results

