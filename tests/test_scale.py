"""cudafuse's own cost grows linearly with its input (issue 27), guarded without timing.

Speed is never asserted (a loaded machine would make such a test flaky); instead the work
that made the tool quadratic is counted on an input and on one twice its size:
- a whole host function walked once per launch (host_locals, the pointer-alias check,
  dataflow's loops, ...): the walks of the host's body must not grow with its launches;
- the unit's lookup tables rebuilt once per kernel (the evaluator, shared_reach, CallGraph):
  they must be built once per translation unit.
benchmarks/bench_scale.py measures the times themselves (docs/benchmarks.md).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import cudafuse
from cudafuse.analysis import unit_index
from cudafuse.frontend import ParseOptions
from cudafuse.ir import nodes as n
from cudafuse.passes import run_pass
from cudafuse.passes.vertical.driver import FuseOptions
from cudafuse.passes.vertical.kernel.respell import parse_for_fusion

_BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_scale.py"


def _generate_chain(launches: int) -> str:
    spec = importlib.util.spec_from_file_location("bench_scale_gen", _BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate_chain(launches)


@pytest.fixture(scope="module")
def chains(tmp_path_factory) -> dict[int, str]:
    out = {}
    for launches in (6, 12):
        path = tmp_path_factory.mktemp("scale") / f"chain_{launches}.cu"
        path.write_text(_generate_chain(launches))
        out[launches] = str(path)
    return out


def _host_walks(monkeypatch, path: str, run) -> int:
    """How many times `run(unit)` walks the host function's whole body."""
    result, _ = parse_for_fusion(path, ParseOptions(included_kernels=True))
    unit = result.unit
    host = next(f for f in unit.functions if f.name == "pipeline")
    bodies = {id(host.body)}
    count = 0
    original = n.Compound.preorder  # (a body's walk: its flattened nodes, all of them)

    def counting(self):
        nonlocal count
        if id(self) in bodies:
            count += 1
        return original(self)

    monkeypatch.setattr(n.Compound, "preorder", counting)
    try:
        run(unit)
    finally:
        monkeypatch.setattr(n.Compound, "preorder", original)
    return count


def _plan(unit) -> None:
    run_pass("vertical", [unit], FuseOptions(fuse_all=True, siblings="never"))


def test_planning_walks_the_host_a_fixed_number_of_times(monkeypatch, chains):
    small = _host_walks(monkeypatch, chains[6], _plan)
    large = _host_walks(monkeypatch, chains[12], _plan)
    assert small > 0  # the count sees the walks at all
    # once per launch (or per pair) would make `large` grow with the launches
    assert large == small, (small, large)


def test_analysis_walks_the_host_a_fixed_number_of_times(monkeypatch, chains):
    from cudafuse.analysis.report import build_report

    small = _host_walks(monkeypatch, chains[6], build_report)
    large = _host_walks(monkeypatch, chains[12], build_report)
    assert small > 0
    assert large == small, (small, large)


def test_unit_tables_are_built_once_per_unit(monkeypatch, chains):
    builds = []
    original = unit_index._build
    monkeypatch.setattr(unit_index, "_build", lambda unit: builds.append(unit) or
                        original(unit))
    for launches in (6, 12):
        builds.clear()
        analysis = cudafuse.analyze(chains[launches])
        assert len(analysis.unit.kernels) == launches
        assert len(builds) == 1, (launches, len(builds))  # not once per kernel


def test_delayed_progress_is_silent_on_quick_runs_and_shown_on_long_ones():
    import io

    from cudafuse.progress import Progress

    now = [0.0]
    out = io.StringIO()
    progress = Progress("plan", stream=out, tty=False, delay=3.0, clock=lambda: now[0])
    progress.start("analysing kernels", 4)
    progress.step()
    assert out.getvalue() == ""  # a quick run's stderr is unchanged
    now[0] = 3.5
    progress.step()
    assert out.getvalue() == "plan: analysing kernels [2/4]\n"
    progress.close()
    assert "done: analysing kernels 2/4" in out.getvalue()
    quiet = io.StringIO()
    quick = Progress("plan", stream=quiet, tty=False, delay=3.0, clock=lambda: 0.0)
    quick.start("parsing", 1)
    quick.step()
    quick.close()
    assert quiet.getvalue() == ""


def test_commands_report_their_phases_through_reporting(chains):
    import io

    from cudafuse.analysis.report import build_report
    from cudafuse.progress import Progress, reporting

    unit = cudafuse.analyze(chains[6]).unit
    out = io.StringIO()
    with reporting(Progress("analyze", stream=out, tty=False)):
        build_report(unit)
    lines = out.getvalue().splitlines()
    assert "analyze: analysing kernels [6/6]" in lines
    assert "analyze: analysing host functions [1/1]" in lines
    out = io.StringIO()
    build_report(unit)  # outside a command: nothing reported
    assert out.getvalue() == ""


def test_plan_shows_progress_lines_once_the_delay_is_over(chains, cudafuse_exe):
    import os
    import subprocess

    env = {**os.environ, "CUDAFUSE_PROGRESS_DELAY": "0", "CUDAFUSE_PROGRESS": "plain"}
    res = subprocess.run([cudafuse_exe, "plan", chains[6]], capture_output=True, text=True,
                         env=env, check=False)
    assert res.returncode == 0, res.stderr
    assert "plan: analysing the launches of 'pipeline' [6/6]" in res.stderr.splitlines()
    assert "plan: choosing the groups of 6 launches of 'pipeline' [1/1]" in res.stderr


def test_the_collector_is_paused_only_while_the_ir_is_built(chains: dict[int, str],
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """No collection while a file is lowered and its kernels analysed (they reclaim nothing
    there); the caller's setting is back afterwards, whether it was on or off."""
    import gc

    from cudafuse.analysis import report
    from cudafuse.collector import paused
    from cudafuse.frontend.lower import Lowerer

    states: list[tuple[str, bool]] = []
    lower, analyze_kernel = Lowerer.function, report.analyze_kernel

    def lowering(self, c):  # type: ignore[no-untyped-def]
        states.append(("lower", gc.isenabled()))
        return lower(self, c)

    def analysing(*args):  # type: ignore[no-untyped-def]
        states.append(("analyse", gc.isenabled()))
        return analyze_kernel(*args)

    monkeypatch.setattr(Lowerer, "function", lowering)
    monkeypatch.setattr(report, "analyze_kernel", analysing)
    assert gc.isenabled()
    cudafuse.analyze(chains[6])
    assert {"lower", "analyse"} == {what for what, _ in states}
    assert not any(on for _, on in states)
    assert gc.isenabled()
    gc.disable()
    try:
        with paused(), paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    with paused():
        with paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_what_a_pause_made_goes_to_the_oldest_generation() -> None:
    """No young collection walks a large IR after the pause (the first one did, 0.24 CPU-s
    after a 20,000-line analysis); a full collection still reaches it, a small block's
    objects stay young, and a caller's frozen objects stay frozen."""
    import gc

    from cudafuse.collector import paused

    def generation(obj: object) -> int | None:
        return next((g for g in range(3) if any(x is obj for x in gc.get_objects(g))), None)

    from cudafuse.collector import LARGE

    with paused():
        made: list[list[int]] = [[] for _ in range(LARGE)]
        assert generation(made) == 0
    assert generation(made) == 2 and generation(made[0]) == 2
    assert gc.get_freeze_count() == 0
    with paused():
        few: list[list[int]] = [[] for _ in range(10)]
    assert generation(few) != 2  # a small block's are left young, collected promptly
    kept = [[1]]
    gc.freeze()
    try:
        with paused():
            again: list[list[int]] = [[] for _ in range(LARGE)]
        assert gc.get_freeze_count() > 0 and generation(kept) is None  # still frozen
        assert generation(again) != 2  # (left young: thawing would thaw the caller's too)
    finally:
        gc.unfreeze()


def _n_loads_calls(monkeypatch: pytest.MonkeyPatch, path: str) -> int:
    """How many times planning `path` (the cost model's search) reads a kernel's n_loads."""
    from cudafuse.passes.vertical.plan.model import KernelCost

    count = 0
    original = KernelCost.n_loads.fget
    assert original is not None

    def counting(self: KernelCost) -> int:
        nonlocal count
        count += 1
        return original(self)

    result, _ = parse_for_fusion(path, ParseOptions(included_kernels=True))
    monkeypatch.setattr(KernelCost, "n_loads", property(counting))
    try:
        run_pass("vertical", [result.unit], FuseOptions(siblings="never"))
    finally:
        monkeypatch.setattr(KernelCost, "n_loads", property(original))
    return count


def test_the_search_prices_each_kernel_alone_once(monkeypatch, chains):
    """The partition search scores thousands of groups; each member's figures alone (its
    issue, words and time: costmodel.alone) are computed once per kernel, not once per
    group it is in (which made them 40% of group_cost on a 200-launch chain)."""
    small = _n_loads_calls(monkeypatch, chains[6])
    large = _n_loads_calls(monkeypatch, chains[12])
    assert small >= 6  # the count sees them at all
    # per group scored, 12 launches would read them ~6x as often as 6 (n^3 kernel-groups)
    assert large <= 2 * small + 4, (small, large)


def test_the_figures_alone_follow_the_kernel_and_the_arch():
    """The memo answers only for the KernelCost and ArchParams it was made from."""
    import dataclasses

    from cudafuse.passes.vertical.plan.arch import ARCHS
    from cudafuse.passes.vertical.plan.costmodel import alone, kernel_issue, kernel_time
    from cudafuse.passes.vertical.plan.model import KernelCost, PipelineModel

    k0 = KernelCost("a", {"x": frozenset({(0, 0)})}, ("y",), n_alu=3, size=100)
    k1 = KernelCost("b", {"y": frozenset({(0, 0), (1, 0), (-1, 0)})}, ("z",), size=100)
    model = PipelineModel.from_kernels([k0, k1], frozenset({"z"}))
    arch = next(iter(ARCHS.values()))
    first = alone(model, 1, arch)
    assert (first.issue, first.time) == (kernel_issue(model, 1, arch),
                                         kernel_time(model, 1, arch))
    model.kernels[1] = dataclasses.replace(k1, n_alu=40)
    assert alone(model, 1, arch).issue == kernel_issue(model, 1, arch) != first.issue
    slow = dataclasses.replace(arch, c_alu=arch.c_alu * 2)
    assert alone(model, 1, slow).issue == kernel_issue(model, 1, slow) > first.issue


def _edge_scans(monkeypatch: pytest.MonkeyPatch, path: str) -> int:
    """How many times planning `path` walks every edge of the pipeline model."""
    from cudafuse.passes.vertical.plan.model import PipelineModel

    count = 0

    class Counting(dict):
        def items(self):  # type: ignore[no-untyped-def]
            nonlocal count
            count += 1
            return super().items()

    original = PipelineModel.from_kernels.__func__  # type: ignore[attr-defined]

    def counted(cls, kernels, live_out):  # type: ignore[no-untyped-def]
        model = original(cls, kernels, live_out)
        model.edges = Counting(model.edges)
        return model

    result, _ = parse_for_fusion(path, ParseOptions(included_kernels=True))
    monkeypatch.setattr(PipelineModel, "from_kernels", classmethod(counted))
    run_pass("vertical", [result.unit], FuseOptions(siblings="never"))
    return count


def test_legality_does_not_walk_every_edge_per_group(monkeypatch, chains):
    """The legality of each group the search looks at (thousands on a long chain) reads
    the edges leaving its members (PipelineModel.consumers), not every edge of the model:
    per group scored, the walks grow with the square of the launches (1,000 launches:
    ~6 million edge visits)."""
    small = _edge_scans(monkeypatch, chains[6])
    large = _edge_scans(monkeypatch, chains[12])
    assert small > 0  # the count sees the walks at all
    assert large <= 2 * small + 2, (small, large)  # per group emitted, not per group scored


def test_group_cost_counts_the_words_group_words_counts() -> None:
    """The search hands GroupCost.words to estimated_charge instead of counting them again:
    they must be group_words's, for groups that store an intermediate read outside them
    and groups that do not."""
    from cudafuse.passes.vertical.plan.arch import ARCHS
    from cudafuse.passes.vertical.plan.costmodel import group_cost, group_words
    from cudafuse.passes.vertical.plan.model import KernelCost, PipelineModel

    point = frozenset({(0, 0)})
    kernels = [KernelCost("a", {"x": point}, ("y",)),
               KernelCost("b", {"y": frozenset({(0, 0), (1, 0)})}, ("z",)),
               KernelCost("c", {"z": point, "y": point}, ("w",)),
               KernelCost("d", {"w": point, "x": point}, ("v",))]
    model = PipelineModel.from_kernels(kernels, frozenset({"v"}))
    arch = next(iter(ARCHS.values()))
    groups = [frozenset(g) for g in ({0, 1}, {1, 2}, {0, 1, 2}, {2, 3}, {1, 2, 3},
                                     {0, 1, 2, 3})]
    counts = [group_cost(model, g, arch).words for g in groups]
    assert counts == [group_words(model, g) for g in groups]
    assert len(set(counts)) > 1  # (the groups differ in what they store and read)


def test_ranges_answer_as_a_scan_of_every_range() -> None:
    """passes/vertical/ranges.Ranges (bisection over merged ranges, for the offsets of
    thousands of launches) says what any(a <= at < b) says: overlapping, nested, touching
    and empty ranges included."""
    import random

    from cudafuse.passes.vertical.ranges import Ranges

    rng = random.Random(27)
    for _ in range(200):
        spans = []
        for _ in range(rng.randrange(0, 8)):
            a = rng.randrange(0, 60)
            spans.append((a, a + rng.randrange(0, 12)))
        ranges = Ranges(spans)
        for at in range(-2, 75):
            assert (at in ranges) == any(a <= at < b for a, b in spans), (spans, at)


def test_group_costs_follow_the_model_they_read() -> None:
    """group_cost's per-kernel records (costmodel._member, kept on the model) answer only
    for the kernels, edges, live-out buffers and no-tile reasons they were made from: after
    each change the cost is a fresh model's."""
    import dataclasses

    from cudafuse.passes.vertical.plan.arch import ARCHS
    from cudafuse.passes.vertical.plan.costmodel import group_cost
    from cudafuse.passes.vertical.plan.model import KernelCost, PipelineModel

    square = frozenset((dx, dy) for dx in range(-2, 3) for dy in range(-2, 3))
    kernels = [KernelCost("a", {"x": frozenset({(0, 0)})}, ("y",), block=(16, 16)),
               KernelCost("b", {"y": square}, ("z",), block=(16, 16)),
               KernelCost("c", {"z": square, "y": frozenset({(0, 0)})}, ("w",),
                          block=(16, 16))]
    arch = next(iter(ARCHS.values()))
    model = PipelineModel.from_kernels(list(kernels), frozenset({"w"}))
    group = frozenset({0, 1, 2})

    def fresh() -> object:
        other = PipelineModel.from_kernels(list(model.kernels), model.live_out)
        other.no_tile = dict(model.no_tile)
        return group_cost(other, group, arch)

    seen = [group_cost(model, group, arch)]
    assert seen[0] == fresh()
    model.kernels[1] = dataclasses.replace(kernels[1], n_alu=30)
    seen.append(group_cost(model, group, arch))
    model.live_out = frozenset({"w", "y"})
    seen.append(group_cost(model, group, arch))
    assert seen[-1] == fresh()
    assert seen[-1].strategies[1] == "tile"  # (so that the next change changes it)
    model.no_tile = {(2, "z"): "test"}
    seen.append(group_cost(model, group, arch))
    assert seen[-1] == fresh()
    assert len({repr(c) for c in seen}) == len(seen)  # (each change changed the cost)


def _reason_calls(monkeypatch: pytest.MonkeyPatch, path: str) -> int:
    """How many times planning `path` asks Legality for a kernel's or an edge's reason."""
    from cudafuse.passes.vertical.plan.legality import Legality

    count = 0
    for name in ("kernel_reason", "edge_reason"):
        original = getattr(Legality, name)

        def counting(self, *args, _original=original, **kwargs):  # type: ignore[no-untyped-def]
            nonlocal count
            count += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Legality, name, counting)
    result, _ = parse_for_fusion(path, ParseOptions(included_kernels=True))
    try:
        run_pass("vertical", [result.unit], FuseOptions(siblings="never"))
    finally:
        monkeypatch.undo()
    return count


def test_legality_asks_each_kernel_and_edge_once(monkeypatch, chains):
    """The search asks the legality of thousands of groups that share their kernels and
    edges: each kernel's and each edge's reason is worked out once, not once per group it
    is in (a 12-launch chain has 78 connected groups)."""
    small = _reason_calls(monkeypatch, chains[6])
    large = _reason_calls(monkeypatch, chains[12])
    assert small > 0
    assert large <= 2 * small + 6, (small, large)


def _random_model(rng):  # type: ignore[no-untyped-def]
    """A pipeline of 3-9 kernels over 4 buffers: reads at point, stencil, row or odd windows
    (some gathered), writes that overwrite or ping-pong, blocks known or not, some tiles
    refused and some buffers live after the sequence."""
    from cudafuse.passes.vertical.plan.model import KernelCost, PipelineModel

    windows = [frozenset({(0, 0)}),
               frozenset((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)),
               frozenset({(-2, 0), (0, 0), (2, 0)}), frozenset({(1, 1), (0, 0), (-1, 2)})]
    buffers = ["a", "b", "c", "d"]
    kernels = []
    for i in range(rng.randrange(3, 10)):
        reads = {b: rng.choice(windows) for b in rng.sample(buffers, rng.randrange(1, 3))}
        writes = tuple(rng.sample(buffers, rng.randrange(1, 3)))
        gathers = frozenset(b for b in reads if rng.random() < 0.15)
        kernels.append(KernelCost(f"k{i}", reads, writes, n_alu=rng.randrange(1, 30),
                                  n_sfu=rng.randrange(0, 3),
                                  shared_bytes=rng.choice((0, 0, 1024)),
                                  size=rng.choice((4096, 65536)),
                                  block=rng.choice((None, (16, 16), (32, 8))),
                                  gathers=gathers))
    model = PipelineModel.from_kernels(kernels, frozenset(rng.sample(buffers, 1)))
    model.no_tile = {(c, b): "test" for (_, c), bufs in model.edges.items() for b in bufs
                     if rng.random() < 0.2}
    return model


def test_group_costs_from_partial_states_are_the_costs_from_scratch(monkeypatch) -> None:
    """The search's group_cost starts a group from the state kept for a group with the same
    last members (costmodel.Partials): the cost, every float to the last bit, strategies and
    footprints included, must be the cost worked out from scratch, whatever the order the
    groups come in, on pipelines that are no chains (several readers, overwrites, gathers,
    tiles refused, blocks unknown)."""
    import itertools
    import random

    from cudafuse.passes.vertical.plan.arch import ARCHS
    from cudafuse.passes.vertical.plan.costmodel import Partials, group_cost

    rng = random.Random(27)
    arch = next(iter(ARCHS.values()))
    started = 0
    find = Partials.find

    def counted(self, suffix, writes):  # type: ignore[no-untyped-def]
        nonlocal started
        state = find(self, suffix, writes)
        started += state is not None
        return state

    monkeypatch.setattr(Partials, "find", counted)
    for _ in range(30):
        model = _random_model(rng)
        n = len(model.kernels)
        groups = [frozenset(g) for size in range(2, n + 1)
                  for g in itertools.combinations(range(n), size)]
        if rng.random() < 0.5:
            rng.shuffle(groups)
        for tiles in (True, False):
            partials = Partials(arch, tiles)
            for g in groups:
                got = group_cost(model, g, arch, allow_tiles=tiles, partials=partials)
                assert repr(got) == repr(group_cost(model, g, arch, allow_tiles=tiles)), g
    assert started > 1000, started  # (groups did start from a kept state)


def test_partial_states_follow_the_model() -> None:
    """A Partials answers only for the model, kernels and edges it was made from: after a
    kernel changes, or on a model with an edge that goes back, the costs are a fresh
    model's."""
    import dataclasses
    import random

    from cudafuse.passes.vertical.plan.arch import ARCHS
    from cudafuse.passes.vertical.plan.costmodel import Partials, group_cost

    rng = random.Random(7)
    arch = next(iter(ARCHS.values()))
    model = _random_model(rng)
    while len(model.kernels) < 5:
        model = _random_model(rng)
    partials = Partials(arch, True)
    groups = [frozenset(range(a, b)) for a in range(len(model.kernels))
              for b in range(a + 2, len(model.kernels) + 1)]
    for g in groups:
        group_cost(model, g, arch, partials=partials)
    model.kernels[1] = dataclasses.replace(model.kernels[1], n_alu=999)
    for g in groups:
        assert repr(group_cost(model, g, arch, partials=partials)) == \
            repr(group_cost(model, g, arch))
    model.edges[(3, 1)] = model.edges.get((3, 1), ("a",))  # (backwards: no states used)
    for g in groups:
        assert repr(group_cost(model, g, arch, partials=partials)) == \
            repr(group_cost(model, g, arch))
    assert not partials.ok
