"""Generated pipelines in the spellings of third-party code (issue 25; gen.py's module
docstring): coordinates from __device__ helpers, locals declared before the guard, clamped
borders as reassigned locals and conditionals, struct px elements as intermediates, a
shared-memory tiled stencil as the last stage, whole pipelines launched one block per row
with no guard; host functions spelling buffers through pointer variables, exchanging two
with std::swap between launches, passing them in a struct by value to a helper that
launches, allocating their intermediates themselves, checking errors with a macro. Each
drawn independently of the others and of gen.py's styles, borders and whole guards.

Each file of PER_FILE pipelines is fused twice (every buffer live, no tiles; all but the last
scratch, tiles always), and every output of every pipeline is compared element by element
with the original's under the emulator, every buffer starting as the same garbage, at odd
sizes. Every producer/consumer edge must fuse, except where the tool refuses a spelling it
cannot read (REFUSALS, each with the reason it must give); nothing else may be refused.

`make test` runs one file; `make test-slow` (marker `slow`) runs CUDAFUSE_SPELLING_PIPELINES
pipelines (default 1,000) and prints how many fused and matched."""

from __future__ import annotations

import dataclasses
import os
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both
from gen import (
    BORDERS,
    HELPER_STYLES,
    LINEAR_STYLES,
    RESPELLED_STYLES,
    STYLES,
    WHOLE_GUARDS,
    Host,
    Stage,
    buffer_name,
    file_source,
)

PER_FILE = 20
SIZES = ((13, 7), (5, 11))  # odd, and narrower than a block in one dimension



def allowed(stages: list[Stage], host: str) -> list[str]:
    """Regular expressions of the refusals a spelling may cause in `host` (its edges may
    fuse instead). A tiled stage copying threadIdx into const locals is not read today
    (`const int tx = threadIdx.x, ty = threadIdx.y;`: its tile's reads are not seen as at
    the thread's own coordinates, nor its grid as 2-D): an edge into it may be refused,
    saying so. A stage storing the one member of its px element (`out[i].v = ...`) stores
    the whole element (respell/member_stores.py), so it usually fuses; these refusals stay
    allowed for a store the respelling leaves as written: it is then not recomputed as a
    producer, as a group's last kernel it has no store of its own element before which live
    intermediates could be stored, and it shows no row stride to a 1-D (linear) kernel."""
    out = []
    last = len(stages) - 1

    def rows(k: str) -> str:  # no row stride that a 1-D kernel's bound could be checked on
        other = f"'{host}_k\\d+'"
        return (f"^not fused: ('{k}' and {other}|{other} and '{k}') do not provably have the "
                "same iteration space \\(a 1-D kernel's bound must be the 2-D one's width "
                "times height, its rows as wide as its width\\)$")

    if stages[last].tiled == "const":
        k = f"{host}_k{last}"
        out += [f"^not fused: '{k}' reads 's0' at run-time offsets in dimensions other than "
                "its own coordinates$", rows(k)]
    for i, s in enumerate(stages):
        k = f"{host}_k{i}"
        if s.px == "member":
            out += [f"^not fused: '{k}' cannot be recomputed: pointer 'out' is written through "
                    "a member of its element \\(line \\d+\\): a store to part of an element "
                    "is not a value a consumer can recompute$",
                    f"^not fused: '{k}' has no store at its own element before which the "
                    "group's intermediates could be stored$", rows(k)]
    return out


# Refusals that follow from another: the rest of the pipeline split around a refused edge.
CONSEQUENCES = (r"^not fused: launch \d+ \('\w+'\) depends on the group and the group "
                r"depends on it$",
                r"^not fused: launch of '\w+' between the group's launches depends on '\w+'$",
                r"^not fused: '\w+' and '\w+' both write '\w+'$",
                r"^not fused: the partition that maximises the total benefit \(\w+\) keeps "
                r"them apart$")


def random_stage(rng: random.Random, i: int, style: str) -> Stage:
    inputs = (rng.randint(0, i), *rng.sample(range(i + 1), rng.randint(0, 1)))
    kind = rng.choice(("point", "stencil"))
    border = rng.choice(BORDERS)
    return Stage(
        kind, inputs, rng.randint(0, 2), rng.randint(0, 2), border, rng.choice(WHOLE_GUARDS),
        style,
        coords="helper" if style in HELPER_STYLES and rng.random() < 0.4 else "",
        late=style not in ("linear", "rowblock") and rng.random() < 0.3,
        clamp="locals" if kind == "stencil" and border == "clamp" and rng.random() < 0.6 else "",
        px=rng.choice(("member", "whole", "pair")) if rng.random() < 0.3 else "")


def random_pipeline(rng: random.Random) -> tuple[list[Stage], Host]:
    n = rng.randint(2, 4)
    whole = "rowblock" if rng.random() < 0.15 else ""
    stages = [random_stage(rng, i, whole or rng.choice(
        [s for s in STYLES if s != "gridstride2d"] + list(RESPELLED_STYLES + LINEAR_STYLES)))
        for i in range(n)]
    if not whole and rng.random() < 0.3:  # the last stage a tiled stencil
        last = stages[-1]
        stages[-1] = dataclasses.replace(last, kind="stencil", border="clamp", style="plain",
                                         coords="", late=False, clamp="", px="",
                                         tiled=rng.choice(("int", "int", "const")),
                                         rx=rng.randint(1, 2), ry=rng.randint(0, 2))
    outs = list(range(1, n + 1))
    swap = None
    if rng.random() < 0.35:
        a, b = rng.sample(outs, 2)
        swap = (a, b, tuple(sorted(rng.sample(range(n - 1), rng.randint(1, n - 1)))))
    host = Host(ptrvars=rng.random() < 0.35, swap=swap, struct=rng.random() < 0.3,
                malloc=rng.random() < 0.3, check=rng.random() < 0.4)
    return stages, host


def spellings(stages: list[Stage], host: Host) -> set[str]:
    """The issue 25 spellings a pipeline draws."""
    out = {f"host {k}" for k in ("ptrvars", "swap", "struct", "malloc", "check")
           if getattr(host, k)}
    for s in stages:
        out |= {f"coords {s.coords}", f"clamp {s.clamp}", f"px {s.px}", f"tiled {s.tiled}",
                f"style {s.style}"} - {"coords ", "clamp ", "px ", "tiled "}
        out |= {"late"} if s.late else set()
    return out


ALL = {"host ptrvars", "host swap", "host struct", "host malloc", "host check", "late",
       "coords helper", "clamp locals", "px member", "px whole", "px pair", "tiled int",
       "tiled const", "style rowblock"}


def params(stages: list[Stage], host: Host) -> list[str]:
    """The entry's read-write buffers."""
    local = host.allocated(stages)
    return [buffer_name(i + 1) for i in range(len(stages)) if i + 1 not in local]


MODES = ((True, "never"), (False, "always"))  # (every buffer live, tiles)


def check_batch(seed: int, tmp: Path, tally: Counter, per_file: int = PER_FILE,
                modes: tuple[tuple[bool, str], ...] = MODES) -> int:
    """One file of `per_file` pipelines from `seed`, fused in each mode and run at both
    sizes each."""
    rng = random.Random(seed)
    drawn = {f"q{seed}_{i}": random_pipeline(rng) for i in range(per_file)}
    for stages, host in drawn.values():
        tally.update(f"drew {x}" for x in spellings(stages, host) & ALL)
    pipes = {name: stages for name, (stages, _) in drawn.items()}
    hosts = {name: host for name, (_, host) in drawn.items()}
    src = tmp / f"spellings_{seed}.cu"
    src.write_text(file_source(pipes, hosts))
    for live, tiles in modes:
        scratch = frozenset() if live else frozenset(
            b for name, stages in pipes.items() for b in params(stages, hosts[name])
            if b != buffer_name(len(stages)))
        out = tmp / f"spellings_{seed}_{tiles}.fused.cu"
        result = fuse_file(src, out, scratch, fuse_all=True, tiles=tiles)
        refused = {}
        for e in result.edges:
            tally["edges"] += 1
            if e.fused:
                tally["fused"] += 1
            else:
                refused.setdefault(e.host.removesuffix("_run"), []).append(e)  # (struct)
        for pipe, edges in refused.items():
            reasons = allowed(pipes[pipe], pipe)
            primary = [e for e in edges if any(re.search(r, e.why) for r in reasons)]
            for e in edges:  # each refusal predicted, or a consequence of one
                assert e in primary or primary and any(
                    re.search(r, e.why) for r in CONSEQUENCES), (
                    f"{e.host}: {e.src} -> {e.dst} refused: {e.why}", drawn[pipe])
            tally["refused: " + re.sub(r"'\w+'|\d+", "_", e.why)] += 1
        # The only notes allowed: a tile cudafuse could not stage (recomputed instead).
        notes = [m for m in result.notes if not re.search(r": tile of \w+ not staged: ", m)]
        assert not notes, notes
        for name, stages in pipes.items():
            pairs = {f"b{i + 1}": 2 for i, s in enumerate(stages) if s.px == "pair"}
            for w, h in SIZES:
                run_both(src, out, name, w, h, skip=scratch, garbage=True, sizes=pairs)
            tally["runs"] += 1
    return len(pipes)


def test_the_spellings_are_written_as_documented() -> None:
    stages = [Stage("point", (0,), coords="helper", late=True, px="member", style="flat"),
              Stage("stencil", (1,), clamp="locals", px="whole"),
              Stage("stencil", (2, 1), rx=2, ry=1, tiled="int"),
              Stage("stencil", (0,), px="pair"), Stage("point", (4,))]
    host = Host(ptrvars=True, swap=(1, 3, (0,)), struct=True, malloc=True, check=True)
    text = file_source({"t": stages}, {"t": host})
    for spelled in ("  int x = gen_x();\n  int y = gen_y();\n  const int idx = y * w + x;\n"
                    "  const float scale = 1.0f;\n  if (x >= w || y >= h) return;",
                    "out[idx].v = scale * (", "const px *__restrict__ s0",
                    "      sx = sx < 0 ? 0 : sx;\n      if (sx >= w) sx = w - 1;",
                    "  px pix;\n  pix.v = acc;\n  out[y * w + x] = pix;",
                    "__shared__ float tile[TILE_H + 2][TILE_W + 4];",
                    "  int tx = threadIdx.x, ty = threadIdx.y;", "  __syncthreads();\n"
                    "  if (x < w && y < h) {", "0.5f * s1[y * w + x].v;",
                    "static void t_run(const float *in0, t_bufs bufs, int w, int h)",
                    "  float *db1 = bufs.b1;", "  float *pa = db1, *pb = db3;",
                    "t_k0<<<grid, block>>>(src, (px *)pa, w, h);\n"
                    "  CHECK(cudaGetLastError());\n  std::swap(pa, pb);",
                    "t_k1<<<grid, block>>>((px *)pb, (px *)db2, w, h);",
                    "  float *b1 = nullptr;\n  CHECK(cudaMalloc(&b1, ",
                    'extern "C" void t(const float *in0, float *b5, int w, int h)',
                    "  t_run(in0, bufs, w, h);\n  CHECK(cudaFree(b1));",
                    "  px2 pix;\n  pix.a = acc;\n  pix.b = pix.a * 0.5f + 0.25f;",
                    "(s0[y * w + x].a + 0.5f * s0[y * w + x].b)",
                    "t_k4<<<grid, block>>>((px2 *)db4, db5, w, h);",
                    "CHECK(cudaMalloc(&b4, (size_t)w * h * sizeof(px2)));"):
        assert spelled in text, spelled
    row = file_source({"r": [Stage("point", (0,), style="rowblock"),
                             Stage("stencil", (1,), style="rowblock")]}, {})
    assert "  const int c = threadIdx.x;\n  const int r = blockIdx.x;\n  out[r * w + c] = " \
        in row and "r_k1<<<h, w>>>(b1, b2, w, h);" in row


def test_a_batch_of_third_party_spellings(tmp_path: Path) -> None:
    """Seed 1's first six pipelines draw every spelling (ALL), fused once (all but the last
    buffer scratch, tiles always: the cheaper slice; the slow run fuses twice)."""
    tally: Counter = Counter()
    assert check_batch(1, tmp_path, tally, per_file=6, modes=MODES[1:]) == 6
    assert {k[5:] for k in tally if k.startswith("drew ")} == ALL, tally
    assert tally["fused"], tally


CHUNKS = 4  # the slow run in chunks, so that `make test-slow` (-n 2) runs them in parallel


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_many_third_party_spellings(chunk: int, tmp_path: Path) -> None:
    """CUDAFUSE_SPELLING_PIPELINES pipelines in all (default 1,000), files of PER_FILE from
    seeds CUDAFUSE_SPELLING_SEED (default 100), and on, dealt to the chunks in turn."""
    total = int(os.environ.get("CUDAFUSE_SPELLING_PIPELINES", "1000"))
    tally: Counter = Counter()
    first = int(os.environ.get("CUDAFUSE_SPELLING_SEED", "100"))
    seeds = range(first, first + -(-total // PER_FILE))
    checked = sum(check_batch(seed, tmp_path, tally) for seed in seeds[chunk::CHUNKS])
    whys = "".join(f"\n  {n} x {k[9:]}" for k, n in tally.most_common()
                   if k.startswith("refused: "))
    drew = ", ".join(f"{k[5:]} {n}" for k, n in sorted(tally.items()) if k.startswith("drew "))
    print(f"\nchunk {chunk}: {checked} generated pipelines in third-party spellings matched "
          f"element for element, each fused twice; {tally['fused']} of {tally['edges']} "
          "edges fused; "
          f"pipelines by spelling: {drew}; refused edges by reason:{whys}")
    assert checked == PER_FILE * len(seeds[chunk::CHUNKS])
