"""The analyses over the shared corpus (tests/corpus): no crash, deterministic, and the border
files are recognised as what their names say."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from cudafuse.analysis.report import build_report
from cudafuse.frontend import parse_file
from cudafuse.frontend.parse import ParseResult

# Not `from conftest import ...`: with several conftest.py files in the tree that name is
# ambiguous (whichever was imported first wins).
CORPUS = Path(__file__).parents[1] / "corpus"
FILES = sorted(CORPUS.glob("*.cu"))


@functools.cache
def parse_corpus_file(path: Path) -> ParseResult:
    return parse_file(str(path))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_report_is_deterministic(path):
    unit = parse_corpus_file(path).unit
    a = json.dumps(build_report(unit))
    assert a == json.dumps(build_report(unit))


@pytest.mark.parametrize("mode", ["clamp", "constant", "mirror", "mirror101", "wrap"])
def test_border_files(mode):
    path = CORPUS / f"border_{mode}.cu"
    if not path.exists():
        pytest.skip(f"{path.name} not in the corpus")
    rep = build_report(parse_corpus_file(path).unit)
    stencils = [c for k in rep["kernels"] for c in k["loads"] if c["class"] == "stencil"]
    assert stencils
    assert all(set(c["border"].values()) <= {mode, "interior" if mode == "constant" else mode}
               for c in stencils)
