"""Hypothesis-generated pipelines mixing every style of gen.py within a pipeline: indexing
styles (plain, macro, rowcol, flat), partial guards (interior only, lower bounds, early
returns), if/else stores at the own element and in-place updates (`a[i] = a[i] * ... + b[i]`,
`a[i] += ...`), of intermediates and of an extra read-write buffer `io0`.

Every buffer (intermediates included) starts as the same garbage in both programs, so what a
partially guarded stage skips must keep it; every output and every live intermediate is
compared element by element at odd sizes, once with every buffer live and once with every
buffer but the last stage's scratch.

Where a style makes the tool refuse (an in-place update whose buffer must still be stored, a
partially guarded consumer that would store intermediates, a consumer updating its
producer's output in place), the
refusal must name the kernels and buffers that cause it (`expected`), and a pipeline with
nothing fused must come out unchanged; a pipeline where none of those applies must fuse
completely or, where a group of pairs that each fuse is refused as a whole
(group_refused: partial guards on a producer and on the last stage), keep as many edges
fused as any partition can.

With `channels` (issue 15), stages may also store K channels of their element, planar or
interleaved in any of gen.LAYOUTS' spellings, and read them at constant channels of their
own element; buffers of channels are K images long (plus canaries), all of them compared.
The refusals of channels (a stencil over a plane, a read of a channel its producer does
not store, channels stored in a loop, a producer's guard with a lower bound or an
interior-only one) are predicted with the line they name (channel_refusals), and each must
be given on its edge.

`make test` runs one small batch (the named pipelines, channel ones included, and a few
drawn ones); `make test-slow` (marker `slow`) runs CUDAFUSE_MIXED_PIPELINES generated
pipelines (default 1,000) and CUDAFUSE_CHANNEL_PIPELINES with channel stages (default 400)
and prints the counts."""

from __future__ import annotations

import itertools
import os
import re
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both
from gen import (
    BORDERS,
    GUARDS,
    IO,
    LAYOUTS,
    PARTIAL_GUARDS,
    STYLES,
    ChannelRead,
    Stage,
    buffer_name,
    channel_index,
    file_source,
    own_index,
)
from gen import written as written_by
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

SIZES = ((13, 7), (5, 11))  # odd, and narrower than a block in one dimension

# ---------------------------------------------------------------------------------------
# Strategies


@st.composite
def stages(draw, n: int, channels: bool = False) -> list[Stage]:
    """n stages; with `channels`, some store channels of their element (gen.Stage.channels)
    and their consumers read them (channels_of)."""
    out: list[Stage] = []
    avail = [0]  # buffers holding a value: in0, io0 once updated, each stage's own output
    chan: dict[int, Stage] = {}  # buffers holding channels, by their producer
    for i in range(n):
        kind = draw(st.sampled_from(("point", "stencil")))
        # (gridstride2d stages have no guard and no store variants: test_generated_styles)
        style = draw(st.sampled_from([s for s in STYLES if s != "gridstride2d"]))
        guard = draw(st.sampled_from(("return", "if")) | st.sampled_from(PARTIAL_GUARDS))
        store = draw(st.sampled_from(("plain", "plain", "ifelse") +
                                     (("inplace", "addto") if kind == "point" else ())))
        if store in ("inplace", "addto"):  # (never a buffer of channels)
            target = draw(st.sampled_from([IO] + [b for b in avail if b > 0 and b not in chan]))
            others = [b for b in avail if b != target]
            first = target
        elif channels and chan and draw(st.booleans()):  # often a buffer of channels
            first = draw(st.sampled_from(sorted(chan)))
            others = [b for b in avail if b != first]
        else:
            first = draw(st.sampled_from(avail))
            others = avail if first not in chan else [b for b in avail if b != first]
        extra = draw(st.lists(st.sampled_from(others), max_size=1)) if others else []
        stage = Stage(kind, (first, *extra), draw(st.integers(0, 2)), draw(st.integers(0, 2)),
                      draw(st.sampled_from(BORDERS)), guard, style, store)
        if channels:
            stage = draw(channels_of(stage, chan))
        out.append(stage)
        b = written_by(out, i)
        if b not in avail:
            avail.append(b)
        if stage.channels:
            chan[b] = stage
    return out


@st.composite
def channels_of(draw, stage: Stage, chan: dict[int, Stage]) -> Stage:
    """`stage` reading the buffers of channels among its inputs at constant channels of its
    own element (any of the stored ones, in any order, repeated; sometimes one its producer
    leaves unstored) or, as a stencil's first input, over one plane; and perhaps storing
    K channels itself (a plain store only), sometimes all but one, sometimes in a loop."""
    reads: list[ChannelRead | None] = []
    kind = stage.kind
    for p, b in enumerate(stage.inputs):
        producer = chan.get(b)
        if producer is None:
            reads.append(None)
            continue
        layout = draw(st.sampled_from([x for x in LAYOUTS
                                       if LAYOUTS[x] == LAYOUTS[producer.layout]]))
        stored = producer.stored
        if p == 0 and kind == "stencil" and not draw(st.integers(0, 3)):
            reads.append(ChannelRead(layout, producer.channels, (draw(st.sampled_from(stored)),)))
            continue  # a stencil over one plane (refused)
        if p == 0:
            kind = "point"
        chans = draw(st.lists(st.sampled_from(stored), min_size=1, max_size=4))
        if producer.skip >= 0 and not draw(st.integers(0, 3)):  # an unstored one (refused)
            chans.insert(draw(st.integers(0, len(chans))), producer.skip)
        reads.append(ChannelRead(layout, producer.channels, tuple(chans)))
    k = draw(st.sampled_from((0, 0, 2, 3, 4))) if stage.store == "plain" else 0
    layout, skip, loop = "planar", -1, False
    if k:
        # Not generated: a stage with an interior-only guard storing channels none of which
        # is its plain element (interleaved, PLANE(c, i), planar without channel 0) that
        # consumes another stage. It has no row stride, and the pair is refused for that
        # (it crashed legality once; test_fuse_channels.py has the case), a refusal these
        # predictions do not model: it stores planar channels with channel 0 spelled plainly.
        plain0 = stage.guard in INTERIOR and any(b != 0 for b in stage.inputs)
        layout = draw(st.sampled_from(sorted(x for x in LAYOUTS if not plain0 or x in (
            "planar", "planar_local", "planar_after"))))
        # Not generated, for the same reason: a stage storing channels in a loop under a
        # partial guard, or reading an in-place updated buffer, as a consumer (refused for
        # its missing row stride): a loop stage reads only in0. (Its loop is unrolled,
        # kernel/respell/unroll.py, into the statements the stage would otherwise have,
        # so under a partial guard it is not drawn: those predictions name its text.)
        # (drawn as before it was, so that the seeds draw the same pipelines)
        loop = stage.inputs == (0,) and not draw(st.integers(0, 3))
        if k >= 3 and not loop and not draw(st.integers(0, 2)):
            skip = draw(st.integers(1 if plain0 else 0, k - 1))
        loop = loop and stage.guard not in PARTIAL_GUARDS
    return Stage(kind, stage.inputs, stage.rx, stage.ry, stage.border, stage.guard,
                 stage.style, stage.store, k, layout, skip, loop,
                 tuple(reads) if any(reads) else ())


def pipelines(min_size: int = 2, max_size: int = 4, channels: bool = False):
    return st.integers(min_size, max_size).flatmap(lambda n: stages(n, channels))


# ---------------------------------------------------------------------------------------
# What the tool may refuse, and why


def kname(host: str, i: int) -> str:
    return f"{host}_k{i}"


def outputs(stages_: list[Stage]) -> list[str]:
    """The pipeline's read-write buffers, in the host function's order."""
    names = ["io0"] if any(IO in s.inputs for s in stages_) else []
    return names + [f"b{i + 1}" for i, s in enumerate(stages_) if not s.in_place]


def scratch_for(stages_: list[Stage], live: bool) -> frozenset[str]:
    """Live: nothing is scratch. Otherwise every buffer but the one the last stage writes."""
    if live:
        return frozenset()
    last = buffer_name(written_by(stages_, len(stages_) - 1))
    return frozenset(outputs(stages_)) - {last}


def _offsets(s: Stage) -> str:
    parts = [f"{-r:+d}..{r:+d} in {d}" for d, r in (("x", s.rx), ("y", s.ry)) if r]
    return ", ".join(parts)


def expected(host: str, stages_: list[Stage], scratch: frozenset[str], text: str = ""
             ) -> tuple[list[str], list[str]]:
    """Regular expressions for the refusals (edges) and notes the tool may give `host`, each
    naming the kernels and buffers that cause it. Empty lists: it must fuse completely.
    (`text`, the file's source, gives the lines channel refusals name.)"""
    reasons = [r for rs in channel_refusals(host, stages_, text).values() for r in rs]
    notes: list[str] = []
    writers: dict[int, list[int]] = {}
    for i, s in enumerate(stages_):
        k = re.escape(kname(host, i))
        b = written_by(stages_, i)
        bufs = [buffer_name(written_by(stages_, j)) for j in range(i)]
        if s.guard in PARTIAL_GUARDS and bufs:
            # It would store intermediates (live ones, or scratch ones read outside a group
            # that another refusal split), but only where its own guard holds.
            live = "|".join(re.escape(x) for x in bufs)
            reasons.extend(f"^not fused: '{kname(host, j)}' and '{k}' do not provably have "
                           f"the same iteration space: '{k}' must still store '({live})', but "
                           f"only where its own guard holds, which may miss elements "
                           f"'{kname(host, j)}' writes$" for j in range(i))
            # Bounded from below, it stores them before its guard over each producer's
            # bounds (legality._union_reason) unless the shapes or the producer prevent it.
            reasons.extend(f"^not fused: '{k}' writes only the interior, so the fused kernel "
                           f"must store '({live})' before its guard, at every element "
                           f"'{kname(host, j)}' writes: .+$" for j in range(i))
        if s.in_place and writers.get(b):
            # It updates a buffer an earlier stage of the pipeline wrote.
            reasons.append(f"^not fused: '{k}' writes through 's0'$")
        if s.in_place:
            name = re.escape(buffer_name(b))
            reasons.append(f"^not fused: '{k}' updates '{name}' in place and the fused kernel "
                           f"must still store '{name}': a read of it after the store would see "
                           "the new value$")
            for j in range(i + 1, len(stages_)):
                t = stages_[j]
                if t.kind == "stencil" and t.inputs[0] == b and (t.rx or t.ry):
                    reasons.append(
                        f"^not fused: '{kname(host, j)}' reads 's0' at offset "
                        f"{re.escape(_offsets(t))}, an element another thread of the fused "
                        f"kernel may already have overwritten \\('{k}' updates '{name}' in "
                        f"place and '{name}' must still be stored\\)$")
            for j in range(i):
                if b in stages_[j].inputs:  # read before the update: from memory
                    reasons.append(f"^not fused: '{kname(host, j)}' reads '{name}' from memory, "
                                   "which the fused kernel writes$")
        writers.setdefault(b, []).append(i)
    # A launch between two others that depends on the first and the second on it (reading
    # what it writes, or updating in place what it reads): the pair cannot fuse without it.
    dep = _depends(stages_)
    for q in range(len(stages_)):
        kq = re.escape(kname(host, q))
        for a in range(q):
            if dep[a][q]:
                reasons.append(f"^not fused: launch of '{kq}' between the group's launches "
                               f"depends on '{kname(host, a)}'$")
                if any(dep[q][c] for c in range(q + 1, len(stages_))):
                    reasons.append(f"^not fused: launch {q} \\('{kq}'\\) depends on the group "
                                   "and the group depends on it$")
    return reasons, notes


# Guards bounding x and y by w - 1 and h - 1: the tool does not see the element y * w + x
# (nor channels of it) in such a kernel.
INTERIOR = ("interior", "interior_gt", "interior_return")


def _line(text: str, kernel: str, needle: str) -> int:
    """The line (from 1) of the first occurrence of `needle` in `kernel`'s definition."""
    start = text.index(f"__global__ void {kernel}(")
    return text.count("\n", 0, text.index(needle, start)) + 1


def _describe(s: Stage) -> str:
    layout = "planar (c * plane + i)" if LAYOUTS[s.layout] == "planar" else \
        f"interleaved (i * {s.channels} + c)"
    return re.escape(f"{layout} channels, c = {', '.join(map(str, s.stored))}")


def channel_refusals(host: str, stages_: list[Stage], text: str
                     ) -> dict[tuple[int, int], list[str]]:
    """For each edge (producer, consumer) of a buffer of channels that the tool must refuse,
    the regular expressions of its reasons: the producer's (channels under an interior-only
    guard, not read as channels) or the consumer's reads (over a plane, or of a channel the
    producer does not store)."""
    out: dict[tuple[int, int], list[str]] = {}
    for i, s in enumerate(stages_):
        if not s.channels:
            continue
        ki = kname(host, i)
        # (a stage storing its channels in a loop over c has it unrolled and fuses like
        # one storing them by statements: kernel/respell/unroll.py)
        if s.guard in INTERIOR:  # not seen as channels of y * w + x at all: as stores
            # other than at the element (beside a plain store of channel 0), or no store there
            mine = [f"^not fused: '{ki}' cannot be recomputed: pointer 'out' is written other "
                    "than at the thread's element$",
                    f"^not fused: '{ki}' cannot be recomputed: it stores no value at the "
                    "thread's own element \\(out\\[y \\* w \\+ x\\] = \\.\\.\\.\\)$"]
        else:
            # (a guard with a lower bound is served by the channels' memory fallback:
            # channels.Channels, domain.keeps_guard)
            mine = []
        for j in range(i + 1, len(stages_)):
            t = stages_[j]
            if i + 1 not in t.inputs:
                continue
            kj = kname(host, j)
            p = t.inputs.index(i + 1)
            r = t.read_of(p)
            assert r is not None, (t, p)
            why = ""
            if mine:
                pass
            elif t.guard in INTERIOR:
                why, line = "other than at a constant channel of its own element", _line(
                    text, kj, f"s{p}[")
            elif p == 0 and t.kind == "stencil":
                why, line = "other than at a constant channel of its own element", _line(
                    text, kj, "acc += wt * ")
            elif s.skip in r.chans:
                why = "at a channel its producer does not store"
                unstored = channel_index(r.layout, r.k, s.skip, own_index(t.style))
                line = _line(text, kj, f"s{p}[{unstored}]")
            theirs = [f"^not fused: '{kj}' reads 's{p}' \\(line {line}\\) {why} "
                      f"\\({_describe(s)}\\)$"] if why else []
            if mine or theirs:
                out[(i, j)] = mine + theirs
    return out


def _depends(stages_: list[Stage]) -> list[list[bool]]:
    """dep[a][c]: launch c must follow launch a (it reads what a writes, or writes what a
    reads or writes), directly or through launches between them."""
    n = len(stages_)
    reads = [set(s.inputs) for s in stages_]
    writes = [{written_by(stages_, i)} for i in range(n)]
    dep = [[a < c and bool(reads[c] & writes[a] or writes[c] & (reads[a] | writes[a]))
            for c in range(n)] for a in range(n)]
    for c in range(n):
        for a in range(c - 1, -1, -1):
            dep[a][c] = dep[a][c] or any(dep[a][m] and dep[m][c] for m in range(a + 1, c))
    return dep


def group_refused(stages_: list[Stage], group: frozenset[int], scratch: frozenset[str]) -> bool:
    """A group no single edge refuses but the tool cannot fuse as one kernel: its last stage
    has a partial guard (every one of PARTIAL_GUARDS bounds a coordinate from below), so the
    fused kernel stores the intermediates it must keep before that guard, over each
    producer's own bounds (legality._union_reason), which it cannot do for a producer that
    also has a partial guard ("'k' too writes only part of its elements"). Each pair of
    such a chain fuses (a lower-bounded consumer after a whole-image producer, a
    whole-image stage between them), only the group of all three is refused."""
    last = max(group)
    if stages_[last].guard not in PARTIAL_GUARDS:
        return False
    for j in group - {last}:
        b = written_by(stages_, j)
        stored = buffer_name(b) not in scratch or any(
            b in stages_[c].inputs for c in range(j + 1, len(stages_)) if c not in group)
        if stages_[j].guard in PARTIAL_GUARDS and stored:
            return True
    return False


def most_fused_edges(stages_: list[Stage], edges: list[tuple[int, int]],
                     scratch: frozenset[str]) -> int:
    """The most producer/consumer edges (the tool's, by launch) a partition of the pipeline
    into schedulable groups can keep inside groups, none of them group_refused: what
    --fuse-all (one unit per fused edge) must reach when no pair is refused."""
    n, dep = len(stages_), _depends(stages_)

    def partitions(rest: list[int]):
        if not rest:
            yield []
            return
        first, others = rest[0], rest[1:]
        for k in range(len(others) + 1):
            for tail in itertools.combinations(others, k):
                left = [v for v in others if v not in tail]
                for p in partitions(left):
                    yield [frozenset((first, *tail)), *p]

    def connected(g: frozenset[int]) -> bool:
        seen, todo = {min(g)}, [min(g)]
        while todo:
            v = todo.pop()
            for a, c in edges:
                for u, w in ((a, c), (c, a)):
                    if u == v and w in g and w not in seen:
                        seen.add(w)
                        todo.append(w)
        return seen == g

    def ok(part: list[frozenset[int]]) -> bool:
        of = {v: gi for gi, g in enumerate(part) for v in g}
        after = {(of[a], of[c]) for a in range(n) for c in range(n)
                 if dep[a][c] and of[a] != of[c]}
        if any((y, x) in after for x, y in after):  # two groups each before the other
            return False
        return all(len(g) < 2 or (connected(g) and not group_refused(stages_, g, scratch))
                   for g in part) and _acyclic(len(part), after)

    return max(sum(1 for a, c in edges if any(a in g and c in g for g in p))
               for p in partitions(list(range(n))) if ok(p))


def _acyclic(n: int, after: set[tuple[int, int]]) -> bool:
    indeg = Counter(y for _, y in after)
    ready = [v for v in range(n) if not indeg[v]]
    done = 0
    while ready:
        v = ready.pop()
        done += 1
        for x, y in after:
            if x == v:
                indeg[y] -= 1
                if not indeg[y]:
                    ready.append(y)
    return done == n


# Refusals that follow from another: the rest of the pipeline split around a refused pair.
CONSEQUENCES = (r"^not fused: '\w+' and '\w+' both write '\w+'$",)


def _host_text(src: str, host: str) -> str:
    start = src.index(f'extern "C" void {host}(')
    return src[start:src.index("\n}\n", start) + 3]


def check_file(pipes: dict[str, list[Stage]], tmp: Path, tally: Counter | None = None,
               run: bool = True) -> None:
    """Fuse the file of `pipes` with every buffer live and with all but the last scratch;
    check each pipeline's refusals against `expected` and every element of both programs."""
    src = tmp / "mixed.cu"
    text = file_source(pipes)
    src.write_text(text)
    for live in (True, False):
        scratch_all = frozenset().union(*(scratch_for(s, live) for s in pipes.values()))
        out = tmp / f"mixed_{'live' if live else 'scratch'}.fused.cu"
        # tiles: "never" live; "always" when scratch, so a stencil of a fused producer reads
        # a shared-memory tile.
        result = fuse_file(src, out, scratch_all, fuse_all=True, siblings="never",
                           tiles="never" if live else "always")
        fused_text = out.read_text()
        for host, stages_ in pipes.items():
            scratch = scratch_for(stages_, live)
            reasons, notes = expected(host, stages_, scratch, text)
            edges = [e for e in result.edges if e.host == host]
            groups = [g for g in result.groups if g.host == host]
            # Under tiles "always", a tile the emitter cannot stage (a producer keeping its
            # guard, a grid-stride stage) is recomputed instead and says so: not a refusal.
            host_notes = [n for n in result.notes if n.startswith(f"{host}:") and not (
                not live and re.match(rf"{host}: tile of \w+ not staged: ", n))]
            primary = [e for e in edges if e.refused and any(re.search(r, e.why)
                                                             for r in reasons)]
            primary_notes = [n for n in host_notes if any(re.search(r, n) for r in notes)]
            for e in edges:
                if e.refused and e not in primary:
                    assert (primary or primary_notes) and any(
                        re.search(r, e.why) for r in CONSEQUENCES), (
                        f"{host} ({'live' if live else 'scratch'}): unexpected refusal "
                        f"{e.src} -> {e.dst}: {e.why}", stages_)
            for n in host_notes:
                assert n in primary_notes, (f"{host}: unexpected note: {n}", stages_)
            for (a, c), _ in channel_refusals(host, stages_, text).items():
                # A refusal of channels is never left unsaid (another may come first).
                e = next(e for e in edges if (e.src, e.dst) == (kname(host, a), kname(host, c)))
                assert e.refused and e in primary, (f"{host}: {e.src} -> {e.dst}: {e.why}",
                                                    stages_)
            in_group = {k for g in groups for k in g.kernels}
            for e in edges:  # (a last kernel storing under an if/else stores them first)
                assert not e.fused or (e.src in in_group and e.dst in in_group), (
                    f"{host}: edge {e.src} -> {e.dst} reported fused but in no fused group",
                    stages_)
            if not primary and not primary_notes:
                # Fused completely, or as far as group_refused allows (every edge the
                # partition leaves out is pairwise legal, and no other partition keeps more).
                index = {kname(host, i): i for i in range(len(stages_))}
                pairs = [(index[e.src], index[e.dst]) for e in edges]
                fused = sum(1 for e in edges if e.fused)
                assert fused == most_fused_edges(stages_, pairs, scratch) and all(
                    e.fused or not e.refused for e in edges), (
                    host, [e.why for e in edges], stages_)
            if not groups:  # nothing fused: the pipeline comes out as it went in
                assert _host_text(text, host) in fused_text, host
            if tally is not None:
                tally["refusals" if primary else "notes" if primary_notes else
                      "fused" if all(e.fused for e in edges) else "grouped"] += 1
                tally["pipelines"] += 1
                for e in edges:
                    if e.refused:  # by reason, names and lines left out
                        tally["why: " + re.sub(r"'\w+'|\d+", "_", e.why)] += 1
            sizes = {f"b{i + 1}": s.channels for i, s in enumerate(stages_) if s.channels}
            for w, h in SIZES if run else ():
                run_both(src, out, host, w, h, skip=scratch, garbage=True, sizes=sizes)


def drawn(count: int, max_stages: int, derandomize: bool = False,
          from_seed: int | None = None, channels: bool = False) -> list[list[Stage]]:
    """`count` pipelines drawn by Hypothesis (one emulated build per file of many pipelines
    is what makes a large run affordable, so examples are collected, then checked in files;
    a failure names the pipeline's stages)."""
    got: list[list[Stage]] = []

    @settings(max_examples=count, derandomize=derandomize, database=None, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(pipelines(2, max_stages, channels))
    def collect(p: list[Stage]) -> None:
        got.append(p)

    (collect if from_seed is None else seed(from_seed)(collect))()
    return got


def check_batch(pipes: dict[str, list[Stage]], tally: Counter | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        check_file(pipes, Path(tmp), tally)


# ---------------------------------------------------------------------------------------
# Tests

# Each guard and each store once, refusals included (in place with the buffer live, a
# neighbour read of a buffer updated in place; an if/else store as the last stage fuses).
NAMED = {f"g_{g}": [Stage("point", (0,), guard=g, style="macro"),
                    Stage("stencil", (1,), guard="return", style="rowcol")] for g in GUARDS}
NAMED |= {
    "s_ifelse": [Stage("stencil", (0,), store="ifelse"),
                 Stage("point", (1,), store="ifelse", style="flat", guard="if")],
    "s_inplace": [Stage("stencil", (0,)), Stage("point", (IO, 1), store="inplace"),
                  Stage("stencil", (IO,), guard="interior")],
    "s_addto": [Stage("point", (0,)), Stage("point", (1, 0), store="addto"),
                Stage("point", (1,), style="flat")],
    "s_mixed": [Stage("point", (0,), style="macro", guard="interior_gt"),
                Stage("stencil", (1,), rx=2, style="rowcol", guard="lower_y", border="wrap"),
                Stage("point", (IO, 2), store="addto", style="flat", guard="if"),
                Stage("point", (IO, 1), style="plain")],
    # (chunk 1's m23 of 100, reduced) Each pair fuses, but not all four with their
    # intermediates live: the last stage's interior guard and the second's lower bound
    # (group_refused), so --fuse-all keeps two of the three edges; all four when scratch.
    "s_partial_chain": [
        Stage("stencil", (0, 0), rx=0, ry=0, guard="if", style="flat", store="ifelse"),
        Stage("stencil", (1,), rx=0, ry=0, guard="lower_y", style="rowcol", store="ifelse"),
        Stage("stencil", (2,), rx=1, ry=2, guard="if", style="rowcol"),
        Stage("point", (3, 0), guard="interior_return", style="flat")],
}


# Channel stages (issue 15): each layout's spelling as a producer and as a reader, in each
# indexing style, in chains, beside in-place updates, and each refusal (an unstored channel,
# a stencil over a plane, an interior-only guard), which channel_refusals predicts with the
# line it names; a producer's guard with a lower bound (c_lower) fuses, falling back to
# memory where it stores nothing.
R = ChannelRead
NAMED_CHANNELS = {
    "c_planar": [Stage("point", (0,), channels=3),
                 Stage("point", (1,), style="macro", reads=(R("planar_macro", 3, (2, 0, 2)),))],
    "c_local": [Stage("point", (0,), guard="if", style="rowcol", channels=4,
                      layout="planar_local"),
                Stage("point", (1, 0), style="flat", reads=(R("planar_after", 4, (3, 1)),))],
    "c_inter": [Stage("point", (0,), style="macro", channels=3, layout="interleaved"),
                Stage("point", (1,), style="rowcol", reads=(R("interleaved_k", 3, (1, 1, 0)),)),
                Stage("point", (0, 1), guard="if", reads=(None, R("interleaved_c", 3, (2,))))],
    "c_chain": [Stage("stencil", (0,), rx=2, channels=2, layout="interleaved_c"),
                Stage("point", (1,), style="flat", channels=3, layout="planar_after",
                      reads=(R("interleaved", 2, (1, 0)),)),
                Stage("point", (2,), style="rowcol", store="ifelse",
                      reads=(R("planar", 3, (0, 2, 1)),))],
    "c_skip": [Stage("point", (0,), channels=3, layout="interleaved_k", skip=1),
               Stage("point", (1,), reads=(R("interleaved", 3, (0, 2)),)),
               Stage("point", (1,), style="macro", reads=(R("interleaved_c", 3, (2, 1)),))],
    "c_plane": [Stage("point", (0,), channels=2),
                Stage("stencil", (1,), rx=1, ry=0, reads=(R("planar_local", 2, (1,)),))],
    "c_loop": [Stage("point", (0,), channels=3, layout="interleaved", loop=True),
               Stage("point", (1,), reads=(R("interleaved", 3, (0, 1, 2)),))],
    "c_lower": [Stage("point", (0,), guard="lower_x", channels=2, layout="planar_macro"),
                Stage("point", (1,), reads=(R("planar", 2, (1,)),))],
    "c_interior": [Stage("point", (0,), guard="interior", channels=3),
                   Stage("point", (1,), reads=(R("planar", 3, (2,)),))],
    "c_inplace": [Stage("point", (0,), channels=4, layout="interleaved_k"),
                  Stage("point", (IO, 1), store="addto",
                        reads=(None, R("interleaved_k", 4, (3, 0)),))],
}


def test_partition_model_keeps_what_a_group_refusal_allows() -> None:
    chain = NAMED["s_partial_chain"]
    edges = [(0, 1), (1, 2), (2, 3)]
    assert group_refused(chain, frozenset(range(4)), frozenset())
    assert not group_refused(chain, frozenset((0, 1, 2)), frozenset())
    assert not group_refused(chain, frozenset((2, 3)), frozenset())
    assert most_fused_edges(chain, edges, frozenset()) == 2
    assert most_fused_edges(chain, edges, scratch_for(chain, False)) == 3
    # b2 read after the group by a fifth stage: stored again, so refused again
    longer = [*chain, Stage("point", (2,))]
    assert group_refused(longer, frozenset(range(4)), scratch_for(longer, False))


def test_channel_stages_are_spelled_as_documented() -> None:
    text = file_source(NAMED_CHANNELS)
    for spelled in ("out[2 * w * h + y * w + x] = sqrtf(fabsf(v)) - s0[y * w + x];",
                    "  const int plane = w * h;", "out[plane + row * w + col] = ",
                    "out[3 * plane + row * w + col] = 0.75f - v * s0[row * w + col];",
                    "(s0[PLANE(2, IDX(x, y))] + 0.5f * s0[PLANE(0, IDX(x, y))] + "
                    "0.25f * s0[PLANE(2, IDX(x, y))])", "(s0[idx + 3 * w * h] + 0.5f * s0[",
                    "out[IDX(x, y) * 3 + 1] = ", "s0[3 * (row * w + col) + 1]",
                    "0.5f * (s1[2 + (y * w + x) * 3])", "out[(y * w + x) * 2] = v;",
                    "out[idx + 2 * w * h] = ",
                    "  for (int c = 0; c < 3; ++c)\n    out[(y * w + x) * 3 + c] = ",
                    "out[3 * (y * w + x)] = v;\n  out[3 * (y * w + x) + 2] = "):
        assert spelled in text, spelled
    assert "out[3 * (y * w + x) + 1]" not in text  # c_skip leaves channel 1 unstored
    refusals = {h: channel_refusals(h, s, text) for h, s in NAMED_CHANNELS.items()}
    assert {h for h, r in refusals.items() if r} == {
        "c_skip", "c_plane", "c_interior"}, refusals
    assert list(refusals["c_skip"]) == [(0, 2)]


def test_styles_are_spelled_as_documented() -> None:
    text = file_source(NAMED)
    assert "if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1)" in text
    assert "if (x > 0 && x < w - 1 && y > 0 && y < h - 1)" in text
    assert "if (x < 1 || x >= w - 1 || y < 1 || y >= h - 1) return;" in text
    assert "if (row > 0 && row < h && col < w) {" in text
    assert "s0[y * w + x] = sqrtf(fabsf(s0[y * w + x])) - 0.5f + 0.5f * s1[y * w + x];" in text
    assert "s0[idx] += 0.5f * s1[idx];" in text
    assert "  if (s0[idx] > 0.5f)\n    out[idx] = " in text
    assert 'extern "C" void s_addto(const float *in0, float *b1, float *b3, int w, int h)' \
        in text
    assert 'extern "C" void s_mixed(const float *in0, float *io0, float *b1, float *b2, ' \
        'float *b4, int w, int h)' in text


def test_mixed_pipelines_fuse_or_refuse_precisely() -> None:
    """The named pipelines (channel ones included) and a few drawn ones, in one file (its
    three emulated builds are most of the time)."""
    pipes = dict(NAMED) | NAMED_CHANNELS
    pipes |= {f"m{i}": s for i, s in enumerate(drawn(8, 4, derandomize=True))}
    tally: Counter = Counter()
    check_batch(pipes, tally)
    assert tally["pipelines"] == 2 * len(pipes)
    assert tally["fused"] and tally["refusals"] and tally["grouped"] and not tally["notes"], tally


CHUNKS = 4  # the slow run in chunks, so that `make test-slow` (-n 2) runs them in parallel


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_many_mixed_pipelines(chunk: int) -> None:
    """CUDAFUSE_MIXED_PIPELINES pipelines in all (default 1,000), of 2-5 stages, drawn from
    seed CUDAFUSE_MIXED_SEED (default 0) plus the chunk."""
    total = int(os.environ.get("CUDAFUSE_MIXED_PIPELINES", "1000"))
    count = -(-total // CHUNKS)
    per_file = 25
    pipes = drawn(count, 5, from_seed=int(os.environ.get("CUDAFUSE_MIXED_SEED", "0")) + chunk)
    tally: Counter = Counter()
    for k in range(0, len(pipes), per_file):
        check_batch({f"m{k + i}": s for i, s in enumerate(pipes[k:k + per_file])}, tally)
    print(f"\nchunk {chunk}: {len(pipes)} generated mixed-style pipelines matched element for "
          f"element, each fused twice (every buffer live; all but the last scratch); of the "
          f"{tally['pipelines']} fusions, {tally['fused']} fused completely, "
          f"{tally['refusals']} had a predicted refusal, {tally['grouped']} fused as far as "
          f"a group refusal allows, {tally['notes']} were left unfused by a note")
    assert len(pipes) >= count and tally["pipelines"] == 2 * len(pipes)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_many_channel_pipelines(chunk: int) -> None:
    """CUDAFUSE_CHANNEL_PIPELINES pipelines with channel stages in all (default 400), of 2-5
    stages, drawn from seed CUDAFUSE_CHANNEL_SEED (default 0) plus the chunk; prints the
    refusals by reason."""
    total = int(os.environ.get("CUDAFUSE_CHANNEL_PIPELINES", "400"))
    count = -(-total // CHUNKS)
    per_file = 25
    pipes = drawn(count, 5, from_seed=int(os.environ.get("CUDAFUSE_CHANNEL_SEED", "0")) + chunk,
                  channels=True)
    tally: Counter = Counter()
    for k in range(0, len(pipes), per_file):
        check_batch({f"c{k + i}": s for i, s in enumerate(pipes[k:k + per_file])}, tally)
    whys = "".join(f"\n  {n} x {k[5:]}" for k, n in tally.most_common() if k.startswith("why: "))
    print(f"\nchunk {chunk}: {len(pipes)} generated pipelines with channel stages "
          f"({sum(bool(s.channels) for p in pipes for s in p)} channel stages, "
          f"{sum(bool(s.reads) for p in pipes for s in p)} readers of channels) matched element "
          f"for element, each fused twice; of the {tally['pipelines']} fusions, "
          f"{tally['fused']} fused completely, {tally['refusals']} had a predicted refusal, "
          f"{tally['grouped']} fused as far as a group refusal allows, "
          f"{tally['notes']} were left unfused by an if/else store; refused edges by reason:"
          f"{whys}")
    assert len(pipes) >= count and tally["pipelines"] == 2 * len(pipes)
