"""Property test: random DAGs of point and stencil kernels (random windows, border modes,
shared inputs, live or dead intermediates) fuse completely under --fuse-all and compute
exactly what the original computes, element by element.

A few examples run in `make test`; `make test-slow` (marker `slow`) runs many more."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both
from gen import BORDERS, Stage, file_source
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


@st.composite
def pipelines(draw):
    n = draw(st.integers(2, 5))
    stages = []
    for i in range(n):
        first = draw(st.integers(0, i))
        extra = draw(st.lists(st.integers(0, i), max_size=1))
        kind = draw(st.sampled_from(["point", "stencil"]))
        stages.append(Stage(kind, (first, *extra), draw(st.integers(0, 2)),
                            draw(st.integers(0, 2)), draw(st.sampled_from(BORDERS)),
                            draw(st.sampled_from(["return", "if"]))))
    consumed = sorted({j for s in stages for j in s.inputs if j > 0})
    scratch = draw(st.sets(st.sampled_from(consumed))) if consumed else set()
    w, h = draw(st.integers(3, 13)), draw(st.integers(3, 9))
    tiles = draw(st.sampled_from(["always", "never", "auto"]))
    return stages, frozenset(f"b{j}" for j in scratch), w, h, tiles


def check(stages: list[Stage], scratch: frozenset[str], w: int, h: int, tiles: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "dag.cu"
        src.write_text(file_source({"dag": stages}))
        out = Path(tmp) / "dag.fused.cu"
        result = fuse_file(src, out, scratch, fuse_all=True, tiles=tiles)
        assert all(e.fused for e in result.edges), [e.why for e in result.edges]
        assert not result.notes, result.notes
        run_both(src, out, "dag", w, h, skip=scratch)


EXAMPLES = int(os.environ.get("CUDAFUSE_DAG_EXAMPLES", "3"))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(pipelines())
def test_random_dags_fuse_and_match(case) -> None:
    check(*case)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pipelines())
def test_random_dags_fuse_and_match_many(case) -> None:
    check(*case)
