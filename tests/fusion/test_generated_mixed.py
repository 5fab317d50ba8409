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
completely.

`make test` runs one small batch; `make test-slow` (marker `slow`) runs
CUDAFUSE_MIXED_PIPELINES generated pipelines (default 1,000) and prints the counts."""

from __future__ import annotations

import os
import re
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both
from gen import BORDERS, GUARDS, IO, PARTIAL_GUARDS, STYLES, Stage, buffer_name, file_source
from gen import written as written_by
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

SIZES = ((13, 7), (5, 11))  # odd, and narrower than a block in one dimension

# ---------------------------------------------------------------------------------------
# Strategies


@st.composite
def stages(draw, n: int) -> list[Stage]:
    out: list[Stage] = []
    avail = [0]  # buffers holding a value: in0, io0 once updated, each stage's own output
    for i in range(n):
        kind = draw(st.sampled_from(("point", "stencil")))
        # (gridstride2d stages have no guard and no store variants: test_generated_styles)
        style = draw(st.sampled_from([s for s in STYLES if s != "gridstride2d"]))
        guard = draw(st.sampled_from(("return", "if")) | st.sampled_from(PARTIAL_GUARDS))
        store = draw(st.sampled_from(("plain", "plain", "ifelse") +
                                     (("inplace", "addto") if kind == "point" else ())))
        if store in ("inplace", "addto"):
            target = draw(st.sampled_from([IO] + [b for b in avail if b > 0]))
            others = [b for b in avail if b != target]
            first = target
        else:
            first = draw(st.sampled_from(avail))
            others = avail
        extra = draw(st.lists(st.sampled_from(others), max_size=1)) if others else []
        out.append(Stage(kind, (first, *extra), draw(st.integers(0, 2)), draw(st.integers(0, 2)),
                         draw(st.sampled_from(BORDERS)), guard, style, store))
        b = written_by(out, i)
        if b not in avail:
            avail.append(b)
    return out


def pipelines(min_size: int = 2, max_size: int = 4):
    return st.integers(min_size, max_size).flatmap(stages)


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


def expected(host: str, stages_: list[Stage], scratch: frozenset[str]
             ) -> tuple[list[str], list[str]]:
    """Regular expressions for the refusals (edges) and notes the tool may give `host`, each
    naming the kernels and buffers that cause it. Empty lists: it must fuse completely."""
    reasons, notes = [], []
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
            reasons, notes = expected(host, stages_, scratch)
            edges = [e for e in result.edges if e.host == host]
            groups = [g for g in result.groups if g.host == host]
            host_notes = [n for n in result.notes if n.startswith(f"{host}:")]
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
            in_group = {k for g in groups for k in g.kernels}
            for e in edges:  # (a last kernel storing under an if/else stores them first)
                assert not e.fused or (e.src in in_group and e.dst in in_group), (
                    f"{host}: edge {e.src} -> {e.dst} reported fused but in no fused group",
                    stages_)
            if not primary and not primary_notes:
                assert all(e.fused for e in edges), (host, [e.why for e in edges], stages_)
            if not groups:  # nothing fused: the pipeline comes out as it went in
                assert _host_text(text, host) in fused_text, host
            if tally is not None:
                tally["refusals" if primary else "notes" if primary_notes else "fused"] += 1
                tally["pipelines"] += 1
            for w, h in SIZES if run else ():
                run_both(src, out, host, w, h, skip=scratch, garbage=True)


def drawn(count: int, max_stages: int, derandomize: bool = False,
          from_seed: int | None = None) -> list[list[Stage]]:
    """`count` pipelines drawn by Hypothesis (one emulated build per file of many pipelines
    is what makes a large run affordable, so examples are collected, then checked in files;
    a failure names the pipeline's stages)."""
    got: list[list[Stage]] = []

    @settings(max_examples=count, derandomize=derandomize, database=None, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(pipelines(2, max_stages))
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
}


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
    pipes = dict(NAMED)
    pipes |= {f"m{i}": s for i, s in enumerate(drawn(8, 4, derandomize=True))}
    tally: Counter = Counter()
    check_batch(pipes, tally)
    assert tally["pipelines"] == 2 * len(pipes)
    assert tally["fused"] and tally["refusals"] and not tally["notes"], tally


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
          f"{tally['refusals']} had a predicted refusal, {tally['notes']} were left unfused "
          f"by a note")
    assert len(pipes) >= count and tally["pipelines"] == 2 * len(pipes)
