"""Partitioning: the min-cut and exact strategies on hand-built pipeline models."""

from __future__ import annotations

import itertools

import pytest

from cudafuse.passes.vertical.plan.arch import ARCHS, arch_params
from cudafuse.passes.vertical.plan.costmodel import group_cost
from cudafuse.passes.vertical.plan.model import KernelCost, PipelineModel
from cudafuse.passes.vertical.plan.partition import (
    SearchLimits,
    choose_partition,
    cost_scorer,
    count_scorer,
    exact_partition,
    make_legality,
    mincut_partition,
    structural_reason,
)

ARCH = ARCHS["sm_90"]
P = frozenset({(0, 0)})
W3 = frozenset((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1))
N = 1 << 20


def point(name, src, dst, alu=2):
    return KernelCost(name, {s: P for s in src}, (dst,), n_alu=alu, size=N)


def local(name, src, dst, alu=9, window=W3):
    return KernelCost(name, {s: window for s in src}, (dst,), n_alu=alu, size=N)


def always(_group):
    return None


def harris() -> PipelineModel:
    ks = [local("dx", ["in"], "ix"), local("dy", ["in"], "iy"),
          point("sx", ["ix"], "sx"), point("sy", ["iy"], "sy"), point("sxy", ["ix", "iy"], "sxy"),
          local("gx", ["sx"], "gx"), local("gy", ["sy"], "gy"), local("gxy", ["sxy"], "gxy"),
          point("hc", ["gx", "gy", "gxy"], "out", alu=12)]
    return PipelineModel.from_kernels(ks, frozenset({"out"}))


def brute_force(model, legal):
    """Every set partition of the kernels, filtered for legality and acyclicity."""
    n = len(model.kernels)
    best = None

    def partitions(items):
        if not items:
            yield []
            return
        head, rest = items[0], items[1:]
        for p in partitions(rest):
            for i in range(len(p)):
                yield p[:i] + [p[i] | {head}] + p[i + 1:]
            yield [frozenset({head})] + p

    import networkx as nx

    for parts in partitions(list(range(n))):
        groups = [frozenset(g) for g in parts]
        if any(len(g) > 1 and (legal(g) is not None or group_cost(model, g, ARCH).benefit <= 0)
               for g in groups):
            continue
        where = {v: i for i, g in enumerate(groups) for v in g}
        q = nx.DiGraph()
        q.add_nodes_from(range(len(groups)))
        q.add_edges_from((where[a], where[b]) for a, b in model.all_edges()
                         if where[a] != where[b])
        if not nx.is_directed_acyclic_graph(q):
            continue
        value = sum(group_cost(model, g, ARCH).benefit for g in groups if len(g) > 1)
        if best is None or value > best:
            best = value
    return best


def test_edges_follow_program_order():
    m = harris()
    assert m.edges[(0, 2)] == ("ix",)
    assert m.edges[(0, 4)] == ("ix",)
    assert (8, 0) not in m.edges
    assert m.external_inputs() == {"in"}


def test_point_chain_fuses_completely():
    ks = [point("a", ["in"], "t1"), point("b", ["t1"], "t2"), point("c", ["t2"], "out")]
    m = PipelineModel.from_kernels(ks, frozenset({"out"}))
    legal = make_legality(m, always)
    score = cost_scorer(m, ARCH)
    for part in (mincut_partition(m, score, legal), exact_partition(m, score, legal)):
        assert part.groups == (frozenset({0, 1, 2}),)
        assert part.objective > 0


def test_composed_footprint_counts_chain_recompute():
    ks = [local("a", ["in"], "t1", alu=1), local("b", ["t1"], "t2", alu=1),
          local("c", ["t2"], "out", alu=1)]
    m = PipelineModel.from_kernels(ks, frozenset({"out"}))
    cost = group_cost(m, frozenset({0, 1, 2}), ARCH, allow_tiles=False)
    assert cost.footprints == {2: 1, 1: 9, 0: 25}


def test_external_intermediate_saves_only_reads():
    ks = [point("a", ["in"], "t1"), point("b", ["t1"], "out")]
    dead = PipelineModel.from_kernels(ks, frozenset({"out"}))
    live = PipelineModel.from_kernels(ks, frozenset({"out", "t1"}))
    g = frozenset({0, 1})
    diff = group_cost(dead, g, ARCH).saved_traffic - group_cost(live, g, ARCH).saved_traffic
    assert diff == pytest.approx(N * ARCH.t_global)


def test_expensive_producer_is_not_recomputed():
    ks = [local("costly", ["in"], "t", alu=4000), local("c", ["t"], "out")]
    m = PipelineModel.from_kernels(ks, frozenset({"out"}))
    assert group_cost(m, frozenset({0, 1}), ARCH, allow_tiles=False).benefit < 0
    part = exact_partition(m, cost_scorer(m, ARCH), make_legality(m, always))
    assert all(len(g) == 1 for g in part.groups) or \
        group_cost(m, frozenset({0, 1}), ARCH).strategies[0] == "tile"


def test_convexity_refused_with_reason():
    # a -> b -> c and a -> c: {a, c} without b would leave and re-enter the group.
    ks = [point("a", ["in"], "t1"), point("b", ["t1"], "t2"), point("c", ["t1", "t2"], "out")]
    m = PipelineModel.from_kernels(ks, frozenset({"out"}))
    reason = structural_reason(m, frozenset({0, 2}))
    assert reason is not None and "'b'" in reason
    assert structural_reason(m, frozenset({0, 1, 2})) is None


def test_exact_matches_brute_force_and_beats_or_ties_mincut():
    m = harris()

    def kernel_legal(group):
        # Pretend stencil consumers of stencil producers are refused, as a legality stand-in.
        for (a, b) in m.edges:
            if a in group and b in group and m.kernels[a].pattern == m.kernels[b].pattern \
                    == "local":
                return "local-to-local refused in this test"
        return None

    legal = make_legality(m, kernel_legal)
    exact = exact_partition(m, cost_scorer(m, ARCH), legal)
    assert exact.objective == pytest.approx(brute_force(m, legal))
    cut = mincut_partition(m, cost_scorer(m, ARCH), legal)
    assert exact.objective >= cut.objective - 1e-6
    for g in exact.groups + cut.groups:
        assert legal(g) is None
    chosen, results = choose_partition(m, cost_scorer(m, ARCH), legal, "auto")
    assert chosen.objective == max(r.objective for r in results)


@pytest.mark.parametrize("seed", range(12))
def test_exact_is_optimal_on_random_dags(seed):
    import random

    rng = random.Random(seed)
    n = rng.randint(2, 7)
    ks = []
    for i in range(n):
        srcs = rng.sample([f"t{j}" for j in range(i)] + ["in"], k=min(i + 1, rng.randint(1, 2)))
        k = local if rng.random() < 0.4 else point
        ks.append(k(f"k{i}", srcs, f"t{i}", alu=rng.randint(1, 40)))
    m = PipelineModel.from_kernels(ks, frozenset({f"t{n - 1}"}))
    forbidden = {frozenset(p) for p in itertools.combinations(range(n), 2) if rng.random() < 0.2}

    def kernel_legal(group):
        return "forbidden pair" if any(p <= group for p in forbidden) else None

    legal = make_legality(m, kernel_legal)
    exact = exact_partition(m, cost_scorer(m, ARCH), legal)
    assert exact.objective == pytest.approx(brute_force(m, legal), abs=1e-6)
    assert sorted(v for g in exact.groups for v in g) == list(range(n))


def test_arch_fallback():
    assert arch_params("sm_100").name == "sm_90"
    assert arch_params("sm_86").name == "sm_80"
    with pytest.raises(KeyError):
        arch_params("gfx90a")


def test_count_scorer_fuses_every_legal_edge():
    m = harris()
    legal = make_legality(m, always)
    part = exact_partition(m, count_scorer(m), legal)
    assert part.groups == (frozenset(range(9)),)
    assert part.objective == len(m.edges)


def chain_model(n: int) -> PipelineModel:
    """A 3x3 stencil followed by two point kernels, repeated (the bench's model chain)."""
    ks = [(local if i % 3 == 0 else point)(f"k{i}", ["in" if i == 0 else f"t{i - 1}"], f"t{i}",
                                           alu=9 if i % 3 == 0 else 4) for i in range(n)]
    return PipelineModel.from_kernels(ks, frozenset({f"t{n - 1}"}))


def interval_optimum(model: PipelineModel, score) -> float:
    """On a chain every group is an interval: the O(n^2) DP over prefixes, by hand."""
    n = len(model.kernels)
    best = [0.0] * (n + 1)
    for j in range(1, n + 1):
        best[j] = max(best[i] + (score(frozenset(range(i, j))) if j - i > 1 else 0.0)
                      for i in range(j) if j - i == 1 or score(frozenset(range(i, j))) > 0)
    return best[n]


@pytest.mark.parametrize("n", [16, 32])
def test_exact_is_proven_optimal_on_chains_up_to_32(n):
    m = chain_model(n)
    score = cost_scorer(m, ARCH)
    chosen, results = choose_partition(m, score, make_legality(m, always), "exact")
    assert chosen.proven and chosen.gap == 0.0 and "optimal" in chosen.search
    assert chosen.objective == pytest.approx(interval_optimum(m, score))
    # Groups larger than pairs: the point kernels ride along with their stencil.
    assert max(len(g) for g in chosen.groups) > 2


def test_auto_keeps_long_chains_in_groups_larger_than_pairs():
    m = chain_model(64)
    score = cost_scorer(m, ARCH)
    chosen, results = choose_partition(m, score, make_legality(m, always), "auto")
    assert len(chosen.groups) <= 22
    cut = next(r for r in results if r.strategy == "mincut")
    assert chosen.objective >= cut.objective
    assert chosen.proven  # 64 kernels: every interval is enumerated with the default limits


def test_exact_never_refuses_a_size_and_states_its_bound():
    import time

    m = chain_model(300)
    score = cost_scorer(m, ARCH)
    start = time.perf_counter()
    part = exact_partition(m, score, make_legality(m, always),
                           SearchLimits(work=20_000, states=50))
    assert time.perf_counter() - start < 20
    assert not part.proven and part.gap is None
    assert "groups of at most" in part.search and "gap to the unrestricted optimum unknown" \
        in part.search
    assert sorted(v for g in part.groups for v in g) == list(range(300))
    assert len(part.groups) <= 300 // 3 + 1  # every stencil keeps its point kernels


def test_beam_truncation_is_reported_and_partition_stays_valid():
    # Eight independent two-kernel chains: 3^8 placements of the first kernels.
    ks = []
    for j in range(8):
        ks += [point(f"a{j}", ["in"], f"u{j}"), point(f"b{j}", [f"u{j}"], f"o{j}")]
    m = PipelineModel.from_kernels(ks, frozenset(f"o{j}" for j in range(8)))
    score = cost_scorer(m, ARCH)
    legal = make_legality(m, always)
    narrow = exact_partition(m, score, legal, SearchLimits(states=3))
    wide = exact_partition(m, score, legal)
    assert wide.proven and len(wide.groups) == 8
    assert "placements per step" in narrow.search and not narrow.proven
    assert narrow.objective <= wide.objective + 1e-6
    assert all(legal(g) is None for g in narrow.groups)
