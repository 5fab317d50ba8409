"""`analyze`'s work grows linearly with its input (issue 27), counted, not timed.

Files of 3, 6 and 9 copies of the same block (the kernels and host pipeline of
benchmarks/bench_analyze.py) are analysed, and the work is counted: every call the
front end makes into libclang from Python (cursor walks, extents and locations, tokens,
spellings, types), the functions flattened by the C walk and their cursors, the walks of
the IR (Node.preorder and the nodes it visits, a block's kept walk and nodes by class asked
again) and the evaluator's statements and expressions. Each count must
grow by the same amount from 3 to 6 copies as from 6 to 9 (an affine count: a fixed cost
for the shim and the headers, then the same work per copy): work repeated per kernel
over every function, a walk of the whole unit per kernel, a lookup scanning every
cursor, would make the second step larger than the first.
"""

from __future__ import annotations

import collections
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import clang.cindex as ci
import pytest

import cudafuse
from cudafuse.analysis.evaluate import Evaluator
from cudafuse.frontend import lower
from cudafuse.ir import nodes as n

_BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_analyze.py"


def _block_file(copies: int) -> str:
    spec = importlib.util.spec_from_file_location("bench_analyze_gen", _BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    templates = (module.POINT, module.STENCIL, module.TILED, module.REDUCE, module.HOST)
    # Indices of one width (10..): names of one length in every file.
    return module.HEADER + "".join(t.format(i=10 + i) for i in range(copies)
                                   for t in templates)


def _counted(monkeypatch: pytest.MonkeyPatch, path: str) -> collections.Counter[str]:
    counts: collections.Counter[str] = collections.Counter()

    def wrap(owner: Any, name: str, key: str, size: Callable[[Any], int] | None = None
             ) -> None:
        original = getattr(owner, name)

        def counting(*args: Any, **kwargs: Any) -> Any:
            counts[key] += 1
            got = original(*args, **kwargs)
            if size is not None and got is not None:
                counts[key + " nodes"] += size(got)
            return got

        monkeypatch.setattr(owner, name, counting)

    lib = ci.conf.lib
    for name in [k for k in vars(lib) if k.startswith("clang_")]:
        wrap(lib, name, name)
    wrap(lower, "flatten", "flatten", lambda root: len(root._flat.sizes))
    # Node.preorder walks (Compound's super() call included, and the nodes each visits);
    # Compound keeps its walk and its nodes by class: asking again is counted too.
    wrap(n.Node, "preorder", "Node.preorder", len)
    wrap(n.Compound, "preorder", "Compound.preorder")
    wrap(n.Node, "nodes_of", "Node.nodes_of")
    wrap(n.Compound, "nodes_of", "Compound.nodes_of")
    wrap(Evaluator, "expr", "Evaluator.expr")
    wrap(Evaluator, "stmt", "Evaluator.stmt")
    wrap(Evaluator, "run", "Evaluator.run")
    try:
        cudafuse.analyze(path)
    finally:
        monkeypatch.undo()
    return counts


def test_analyze_work_is_affine_in_the_copies(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    warm = tmp_path / "warm.cu"
    warm.write_text(_block_file(1))
    cudafuse.analyze(str(warm))  # the shim's PCH and flatten.c's helper, outside the counts
    counts = []
    for copies in (3, 6, 9):
        path = tmp_path / f"copies_{copies}.cu"
        path.write_text(_block_file(copies))
        counts.append(_counted(monkeypatch, str(path)))
    c3, c6, c9 = counts
    # The counts see the work at all: one C walk per function (5 per copy), one evaluation
    # per kernel (4 per copy), libclang asked from Python.
    assert c6["flatten"] - c3["flatten"] == 15, (c3["flatten"], c6["flatten"])
    assert c6["Evaluator.run"] - c3["Evaluator.run"] == 12
    assert c3["clang_parseTranslationUnit2"] + c3.get("clang_parseTranslationUnit", 0) >= 1
    assert sum(v for k, v in c3.items() if k.startswith("clang_")) > 100
    grew = {k: (c6[k] - c3[k], c9[k] - c6[k]) for k in set(c3) | set(c6) | set(c9)}
    superlinear = {k: d for k, d in grew.items() if d[1] > d[0]}
    assert not superlinear, superlinear
