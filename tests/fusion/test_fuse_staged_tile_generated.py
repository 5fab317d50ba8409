"""Generated pipelines whose stencils stage their input's tile and halo in shared memory
(gen.py's tiled stages) at any place in the chain, not only last: a tiled stage that is not
the last kernel of its group is recomputed reading its input (kernel/staged_tile.py), one
that is keeps its tile and has its loads served by the producers' views. Each file's
pipelines are fused (--fuse-all; every buffer live, and all but the last scratch with tiles
always) and every output compared with the original's under the emulator, every element,
every buffer starting as the same garbage, at odd sizes (partial 8x4 blocks). Every edge
must fuse, except the refusals known for a tiled stage that copies threadIdx into const
locals (`allowed`) and what follows from them.

Slow only (marker `slow`): CUDAFUSE_TILED_PIPELINES pipelines (default 100)."""

from __future__ import annotations

import os
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both
from gen import WHOLE_GUARDS, Host, Stage, buffer_name, file_source

PER_FILE = 10
SIZES = ((13, 7), (5, 11))
MODES = ((True, "never"), (False, "always"))  # (every buffer live, tiles)
CONSEQUENCES = (r"^not fused: launch \d+ \('\w+'\) depends on the group and the group "
                r"depends on it$",
                r"^not fused: launch of '\w+' between the group's launches depends on '\w+'$",
                r"^not fused: the partition that maximises the total benefit \(\w+\) keeps "
                r"them apart$")


def random_pipeline(rng: random.Random) -> list[Stage]:
    stages = []
    for i in range(rng.randint(2, 4)):
        inputs = (rng.randint(0, i), *rng.sample(range(i + 1), rng.randint(0, 1)))
        if rng.random() < 0.5:
            stages.append(Stage("stencil", inputs, rng.randint(1, 2), rng.randint(0, 2),
                                tiled=rng.choice(("int", "int", "const"))))
        else:
            stages.append(Stage(rng.choice(("point", "stencil")), inputs, rng.randint(0, 2),
                                rng.randint(0, 2), guard=rng.choice(WHOLE_GUARDS)))
    return stages


def allowed(stages: list[Stage], host: str) -> list[str]:
    """A tiled stage copying threadIdx into const locals (`const int tx = threadIdx.x, ty =
    threadIdx.y;`) is not read as 2-D today (respell/coords.py's `_builtin` takes a const
    local's storage, {'const'}, for a storage class and leaves it): as the last kernel its
    tile's reads are not at its own coordinates, as a producer its mapping is unread (the
    tile shown complete, cooperation's reason stands), and its iteration space is not shown
    to be its neighbours'."""
    out = []
    for i, s in enumerate(stages):
        if s.tiled == "const":
            k, other = f"'{host}_k{i}'", f"'{host}_k\\d+'"
            out += [f"^not fused: {k} reads 's0' at run-time offsets in dimensions other "
                    "than its own coordinates$",
                    f"^not fused: {k} cannot be recomputed: threads exchange data through "
                    "shared memory \\(line \\d+\\): it stages a tile that other threads read$",
                    f"^not fused: ({k} and {other}|{other} and {k}) do not provably have the "
                    "same iteration space"]
    return out


def check_file(seed: int, tmp: Path, tally: Counter) -> int:
    rng = random.Random(seed)
    pipes = {f"t{seed}_{i}": random_pipeline(rng) for i in range(PER_FILE)}
    src = tmp / f"tiled_{seed}.cu"
    src.write_text(file_source(pipes, {name: Host() for name in pipes}))
    for live, tiles in MODES:
        scratch = frozenset() if live else frozenset(
            buffer_name(i + 1) for stages in pipes.values() for i in range(len(stages) - 1))
        out = tmp / f"tiled_{seed}_{tiles}.fused.cu"
        result = fuse_file(src, out, scratch, fuse_all=True, tiles=tiles)
        by_pipe: dict[str, list] = {}
        for e in result.edges:
            by_pipe.setdefault(e.host, []).append(e)
        for pipe, edges in by_pipe.items():
            stages = pipes[pipe]
            primary = [e for e in edges if not e.fused and
                       any(re.search(r, e.why) for r in allowed(stages, pipe))]
            for e in edges:
                tiled_src = stages[int(e.src.rsplit("_k", 1)[1])].tiled
                tally["edges"] += 1
                tally["edges from a tiled stage"] += bool(tiled_src)
                if e.fused:
                    tally["fused"] += 1
                    tally["fused from a tiled stage"] += bool(tiled_src)
                    continue
                assert e in primary or primary and any(
                    re.search(r, e.why) for r in CONSEQUENCES), (
                    f"{e.host}: {e.src} -> {e.dst} refused: {e.why}", stages)
        for name in pipes:
            for w, h in SIZES:
                run_both(src, out, name, w, h, skip=scratch, garbage=True)
            tally["runs"] += 1
    return len(pipes)


@pytest.mark.slow
def test_generated_tiled_stages(tmp_path: Path) -> None:
    total = int(os.environ.get("CUDAFUSE_TILED_PIPELINES", "100"))
    tally: Counter = Counter()
    checked = sum(check_file(seed, tmp_path, tally)
                  for seed in range(500, 500 + -(-total // PER_FILE)))
    print(f"\n{checked} generated pipelines with tiled stages matched element for element, "
          f"each fused twice; {tally['fused']} of {tally['edges']} edges fused, "
          f"{tally['fused from a tiled stage']} of {tally['edges from a tiled stage']} from a "
          "tiled stage")
    assert tally["fused from a tiled stage"]
