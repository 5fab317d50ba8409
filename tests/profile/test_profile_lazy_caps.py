"""--profile compiles the register caps only for the splits it will time
(compiled_records' `only`): the candidates left out come back as records skipped with the
given reason, and the ones it accepts are emitted and compiled."""

from __future__ import annotations

from pathlib import Path

import pytest

from cudafuse.profile.candidates import Candidate, CandidateOptions, generate
from cudafuse.profile.compiled import compiled_records

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "hfuse"
FILES = (str(SAMPLES / "histogram.cu"), str(SAMPLES / "maxpool2d.cu"))


@pytest.mark.nvcc
def test_left_out_candidates_are_records_with_the_reason() -> None:
    options = CandidateOptions(256, 256, True, True, step=512)
    emitted: list[str] = []

    def emit(c: Candidate) -> tuple[bytes, str]:
        emitted.append(c.id)
        raise AssertionError("only the natives are compiled here")

    records = compiled_records(options, emit, FILES, ("histogram_kernel", "maxpool2d_kernel"),
                               "sm_90", (str(SAMPLES),), ("CUDAFUSE_NO_MAIN",),
                               only=lambda c: False, left_out="later")
    assert emitted == []
    placeholders = [r for r in records if r.skip == "later"]
    # Every candidate of the set is there: the ones left out, and the splits skipped as a
    # whole (too many threads), whatever the bound from the natives' figures made of the
    # caps.
    ids = {r.id for r in records}
    every = generate(options, lambda mode, t1, t2: 40)
    assert {c.id for c in every.candidates if c.regcap is None} <= {r.id for r in placeholders}
    assert {s.id for s in every.skipped if s.regcap is None} <= ids
    assert all(r.registers is None and r.timing is None for r in placeholders)
