"""Work of plan/fuse that grew faster than the launches (issue 27), counted, not timed:
- the grouping search (plan/partition.exact_partition) placed a fan-out's consumers, once
  their producer was placed, as every subset of them (kept to the best 2,000 per step): its
  moves grew with the square of the consumers, bounded only by the beam;
- the sibling search (emit/sibling_codegen.fuse_siblings) tried every pair of unfused
  launches, though a pair with a dependent launch between on both sides can never fuse
  (ping-pong chains: a -> b -> a -> b ...).
Each count is taken at two sizes and must grow no faster than the launches.
"""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import pytest

from cudafuse.passes.vertical.plan import partition
from cudafuse.passes.vertical.plan.arch import ARCHS
from cudafuse.passes.vertical.plan.model import KernelCost, PipelineModel
from cudafuse.passes.vertical.plan.partition import (
    SearchLimits,
    cost_scorer,
    count_scorer,
    exact_partition,
    make_legality,
)

_BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_scale.py"


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_scale_s12", _BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fanout(consumers: int) -> PipelineModel:
    """One producer of t, `consumers` kernels each reading t and writing their own output."""
    ks = [KernelCost("p", {"in": frozenset({(0, 0)})}, ("t",), 2)]
    ks += [KernelCost(f"c{i}", {"t": frozenset({(0, 0)})}, (f"o{i}",), 2)
           for i in range(consumers)]
    return PipelineModel.from_kernels(ks, frozenset(f"o{i}" for i in range(consumers)))


def _moves(model: PipelineModel, legal_group) -> tuple[int, object]:  # type: ignore[no-untyped-def]
    before = partition.WORK.moves
    # (groups of two kernels enumerated whole, no more: the moves, not the enumeration)
    part = exact_partition(model, count_scorer(model), make_legality(model, legal_group),
                           SearchLimits(work=8 * len(model.kernels)))
    return partition.WORK.moves - before, part


def test_fanout_search_grows_linearly() -> None:
    # Groups of at most two kernels: the producer with one consumer.
    def pairs_only(group: frozenset[int]) -> str | None:
        return None if len(group) <= 2 else "at most two"

    small, part = _moves(_fanout(8), pairs_only)
    large, _ = _moves(_fanout(16), pairs_only)
    assert len(part.groups) == 8 and part.objective == 1.0  # type: ignore[attr-defined]
    # (before: 1,000-odd moves at 8 consumers, 130,000-odd at 16: every subset of the
    # consumers a state, each placing one more)
    assert small > 0
    assert large <= 2.5 * small, (small, large)


def _brute(model: PipelineModel, score, legal) -> float:  # type: ignore[no-untyped-def]
    """The best objective over every partition into legal groups that schedules."""
    n = len(model.kernels)
    best = 0.0

    def parts(rest: list[int]):  # type: ignore[no-untyped-def]
        if not rest:
            yield []
            return
        first, others = rest[0], rest[1:]
        for k in range(len(others) + 1):
            for extra in itertools.combinations(others, k):
                group = frozenset((first, *extra))
                if len(group) > 1 and (legal(group) is not None or score(group) <= 0):
                    continue
                left = [v for v in others if v not in extra]
                for tail in parts(left):
                    yield [group, *tail]

    import networkx as nx

    for groups in parts(list(range(n))):
        where = {v: gi for gi, g in enumerate(groups) for v in g}
        dag = nx.DiGraph()
        dag.add_nodes_from(range(len(groups)))
        dag.add_edges_from((where[a], where[b]) for a, b in model.all_edges()
                           if where[a] != where[b])
        if nx.is_directed_acyclic_graph(dag):
            best = max(best, sum(score(g) for g in groups if len(g) > 1))
    return best


@pytest.mark.parametrize("refuse", [frozenset(), frozenset({2}), frozenset({1, 4})])
def test_fanout_search_is_still_exact(refuse: frozenset[int]) -> None:
    """Placing the kernels that can only stay alone at once loses no partition: the search
    equals a brute force over every partition of a small fan-out (with a point chain after
    one consumer), some consumers refused, under the cost model's scores."""
    ks = [KernelCost("p", {"in": frozenset({(0, 0)})}, ("t",), 2)]
    ks += [KernelCost(f"c{i}", {"t": frozenset({(0, 0)})}, (f"o{i}",), 2 + i)
           for i in range(4)]
    ks.append(KernelCost("d", {"o0": frozenset({(0, 0)}), "o3": frozenset({(0, 0)})},
                         ("out",), 3))
    model = PipelineModel.from_kernels(ks, frozenset({"out", "o1", "o2"}))

    def kernel_legal(group: frozenset[int]) -> str | None:
        return "refused" if group & refuse and len(group) > 1 else None

    legal = make_legality(model, kernel_legal)
    score = cost_scorer(model, ARCHS["sm_90"])
    part = exact_partition(model, score, legal)
    assert part.proven
    assert abs(part.objective - _brute(model, score, legal)) <= 1e-6 * max(1.0, part.objective)


def _fuse_counting(tmp_path: Path, monkeypatch, source: str, name: str) -> dict[str, int]:  # type: ignore[no-untyped-def]
    import cudafuse
    from cudafuse.passes.vertical.plan import siblings

    counts = {"pair": 0}
    pair = siblings.SiblingPlanner.pair

    def counting_pair(self, i, j):  # type: ignore[no-untyped-def]
        counts["pair"] += 1
        return pair(self, i, j)

    monkeypatch.setattr(siblings.SiblingPlanner, "pair", counting_pair)
    monkeypatch.setenv("CUDAFUSE_NO_PTXAS", "1")
    monkeypatch.setenv("CUDAFUSE_NO_NVCC_CHECK", "1")
    path = tmp_path / name
    path.write_text(source)
    fused = cudafuse.fuse(str(path))
    counts["notes"] = sum(len(p["siblings"]) for p in fused.report["sequences"])
    counts["fused"] = sum(len(p["fused"]) for p in fused.report["sequences"])
    return counts


def test_pingpong_sibling_pairs_grow_linearly(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    bench = _bench()
    small = _fuse_counting(tmp_path, monkeypatch, bench.generate_pingpong(9), "pp9.cu")
    large = _fuse_counting(tmp_path, monkeypatch, bench.generate_pingpong(18), "pp18.cu")
    # (the pairs fuse as before: a producer and its point consumer, a stencil left alone)
    assert small["fused"] == 3 and large["fused"] == 6, (small, large)
    # Before: 3 and 15 sibling pairs tried (every pair of the unfused stencils), a note each.
    for key in ("pair", "notes"):
        assert large[key] <= 2 * small[key] + 1, (key, small, large)
