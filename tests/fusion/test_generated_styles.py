"""Generated pipelines written in the styles people use (gen.STYLES: an indexing macro, the
row first under other names, a flat index variable; point pipelines as 1-D grid-stride
loops; gen.RESPELLED_STYLES: int2 coordinates and copies of the built-ins; guards split in
two or written with `w - 1`; whole pipelines whose grid's x walks the rows), fused as
`cudafuse fuse` does (respelled first), several pipelines per file so that one emulated
build checks many: every producer/consumer edge must fuse under --fuse-all and compute
exactly what the original computes, every element.

`make test` runs one batch of ten (drawn to hold every style, border and guard); `make
test-slow` (marker `slow`) runs CUDAFUSE_STYLE_PIPELINES pipelines (default 1,000) and prints
how many fused and matched."""

from __future__ import annotations

import dataclasses
import os
import random
import re
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both
from gen import (
    BORDERS,
    LINEAR_STYLES,
    RESPELLED_STYLES,
    ROWS_FIRST_STYLES,
    STYLES,
    WHOLE_GUARDS,
    Stage,
    file_source,
)

PER_FILE = 25


def random_pipeline(rng: random.Random) -> list[Stage]:
    n = rng.randint(2, 5)
    if rng.random() < 0.2:  # point stages only, as 1-D grid-stride loops
        return [Stage("point", (rng.randint(0, i), *rng.sample(range(i + 1), rng.randint(0, 1))),
                      style="gridstride") for i in range(n)]
    stages = []
    for i in range(n):
        inputs = (rng.randint(0, i), *rng.sample(range(i + 1), rng.randint(0, 1)))
        stages.append(Stage(rng.choice(("point", "stencil")), inputs, rng.randint(0, 2),
                            rng.randint(0, 2), rng.choice(BORDERS),
                            rng.choice(WHOLE_GUARDS),
                            rng.choice(STYLES + RESPELLED_STYLES + LINEAR_STYLES)))
    if rng.random() < 0.15:  # the grid's x walking the rows, in every stage
        stages = [dataclasses.replace(s, style=ROWS_FIRST_STYLES[0]) for s in stages]
    return stages


def drawn(seed: int, count: int = PER_FILE) -> dict[str, list[Stage]]:
    rng = random.Random(seed)
    return {f"p{seed}_{i}": random_pipeline(rng) for i in range(count)}


def check_batch(seed: int, tmp: Path, count: int = PER_FILE) -> int:
    """One file of `count` pipelines from `seed`: fused completely, matched at two sizes
    (the second with intermediates dead). Returns the number of pipelines checked."""
    pipelines = drawn(seed, count)
    src = tmp / f"styles_{seed}.cu"
    src.write_text(file_source(pipelines))
    dead = frozenset(f"b{j + 1}" for j in range(4))  # b5 is always the last stage's output
    for live, tiles, (w, h) in ((True, "never", (13, 7)), (False, "always", (5, 11))):
        scratch = frozenset() if live else dead
        out = tmp / f"styles_{seed}_{tiles}.fused.cu"
        result = fuse_file(src, out, scratch, fuse_all=True, tiles=tiles)
        # Every producer/consumer edge fused (a stage nobody reads is a group of its own).
        refused = [(e.host, e.src, e.dst, e.why) for e in result.edges if not e.fused]
        # --tiles always asks a tile of every stencil edge; one the emitter cannot stage (a
        # grid-stride or 1-D stage) is recomputed instead and says so: the only note allowed.
        notes = [m for m in result.notes
                 if not (tiles == "always" and re.search(r": tile of \w+ not staged: ", m))]
        assert not refused and not notes, (refused, notes)
        assert {e.host for e in result.edges} == {
            name for name, stages in pipelines.items() if any(
                j > 0 for s in stages for j in s.inputs)}
        for name, stages in pipelines.items():
            last = f"b{len(stages)}"
            run_both(src, out, name, w, h, skip=scratch - {last})
    return len(pipelines)


# `make test`'s batch: the first ten pipelines of seed 33, which between them draw every
# style (a rows-first pipeline and a point-only grid-stride one included), every border of
# a stencil and every guard (test_the_batch_draws_every_style checks it); each emulated
# build costs about 0.05 CPU-s a kernel, and a batch of PER_FILE pipelines drew no path
# these do not (issue 27). `make test-slow` runs CUDAFUSE_STYLE_PIPELINES of them.
BATCH_SEED, BATCH = 33, 10


def test_the_batch_draws_every_style() -> None:
    stages = [s for p in drawn(BATCH_SEED, BATCH).values() for s in p]
    assert {s.style for s in stages} == {*STYLES, *RESPELLED_STYLES, *LINEAR_STYLES,
                                         *ROWS_FIRST_STYLES, "gridstride"}
    assert {s.border for s in stages if s.kind == "stencil"} == set(BORDERS)
    assert {s.guard for s in stages if s.style != "gridstride"} == set(WHOLE_GUARDS)
    assert {s.kind for s in stages} == {"point", "stencil"}
    assert any(len(s.inputs) > 1 for s in stages)  # a stage of two inputs


def test_a_batch_of_styled_pipelines(tmp_path: Path) -> None:
    assert check_batch(BATCH_SEED, tmp_path, BATCH) == BATCH


@pytest.mark.slow
def test_many_styled_pipelines(tmp_path: Path) -> None:
    total = int(os.environ.get("CUDAFUSE_STYLE_PIPELINES", "1000"))
    checked = sum(check_batch(seed, tmp_path) for seed in range(100, 100 + total // PER_FILE))
    print(f"\n{checked} generated pipelines fused completely and matched element for element")
    assert checked >= total - PER_FILE + 1
