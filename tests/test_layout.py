"""The house's plan holds: every pass is found from passes/, no module imports another
that imports it back (at any depth, lazy imports included), the lower floors (frontend/,
ir/, analysis/) never import the passes or the command line, the emulator's headers include
one another without a circle, no old package remains."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

SRC = Path(__file__).resolve().parent.parent / "src"


def _modules() -> dict[str, Path]:
    out = {}
    for p in (SRC / "cudafuse").rglob("*.py"):
        parts = list(p.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def _runtime_imports(path: Path, modules: dict[str, Path], typing: bool = False) -> set[str]:
    """Modules `path` imports when it runs (inside functions too; `if TYPE_CHECKING:`
    blocks are never run, so they count only with `typing`)."""
    tree = ast.parse(path.read_text())
    typing_only = {id(sub) for node in ast.walk(tree)
                   if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                   for sub in ast.walk(node)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only and not typing:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.update(f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules
                         else node.module for a in node.names)
    return found & set(modules)


def test_no_import_circle() -> None:
    modules = _modules()
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_edges_from((name, dep) for dep in _runtime_imports(path, modules)
                             if dep != name)
    assert list(nx.simple_cycles(graph)) == []


def test_the_circle_check_sees_lazy_imports(tmp_path: Path) -> None:
    mod = tmp_path / "m.py"
    mod.write_text("def f():\n    from cudafuse.api import fuse\n"
                   "from typing import TYPE_CHECKING\n"
                   "if TYPE_CHECKING:\n    from cudafuse.cli import main\n")
    assert _runtime_imports(mod, _modules()) == {"cudafuse.api"}


# The floors that stand below the passes and the command line: what they import lives
# beside or beneath them, so a pass (or the CLI) can change without reaching down into them.
_LOWER = ("cudafuse.frontend", "cudafuse.ir", "cudafuse.analysis")
_UPPER = ("cudafuse.passes", "cudafuse.cli")


def _within(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def test_lower_floors_never_import_the_passes_or_the_cli() -> None:
    modules = _modules()
    upward = sorted((name, dep) for name, path in modules.items() if _within(name, _LOWER)
                    for dep in _runtime_imports(path, modules, typing=True)
                    if _within(dep, _UPPER))
    assert upward == []


def test_the_upward_check_sees_typing_imports(tmp_path: Path) -> None:
    mod = tmp_path / "m.py"
    mod.write_text("from typing import TYPE_CHECKING\n"
                   "if TYPE_CHECKING:\n    from cudafuse.passes.horizontal.parts import Part\n")
    assert _runtime_imports(mod, _modules(), typing=True) == {"cudafuse.passes.horizontal.parts"}


_QUOTED_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)


def _include_graph(root: Path) -> nx.DiGraph:
    """Each header under `root` -> the headers it includes with quotes (resolved next to it,
    then under `root`, as the emulator's -I puts them); system headers do not count."""
    graph = nx.DiGraph()
    for header in root.rglob("*"):
        if not header.is_file() or header.suffix not in ("", ".h", ".inc"):
            continue
        graph.add_node(header.resolve())
        for name in _QUOTED_INCLUDE.findall(header.read_text(errors="replace")):
            target = next((c.resolve() for c in (header.parent / name, root / name)
                           if c.is_file()), None)
            if target is not None:
                graph.add_edge(header.resolve(), target)
    return graph


def test_no_include_circle_among_the_emulator_headers() -> None:
    graph = _include_graph(SRC / "cudafuse" / "emu" / "include")
    assert graph.number_of_edges() > 20
    assert [[p.name for p in c] for c in nx.simple_cycles(graph)] == []


def test_the_include_check_sees_a_circle(tmp_path: Path) -> None:
    (tmp_path / "a.h").write_text('#pragma once\n#include "b.h"\n')
    (tmp_path / "b.h").write_text('#pragma once\n  #  include "a.h"  // back\n#include <vector>\n')
    assert len(list(nx.simple_cycles(_include_graph(tmp_path)))) == 1


def test_passes_live_in_passes() -> None:
    from cudafuse.passes import REGISTRY

    pkg = SRC / "cudafuse"
    assert not (pkg / "fusion").exists() and not (pkg / "hfuse").exists()
    for info in REGISTRY.values():
        assert info.entry.startswith(f"cudafuse.passes.{info.name}.")
        assert (pkg / "passes" / info.name / "__init__.py").is_file()


def test_package_data_ships_every_stand_in_header() -> None:
    """A non-editable install carries what the front end and the emulator include: nested
    (nvtx3/, cuda/std/) and extension-less (<cuda/barrier>) headers too."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    pyproject = tomllib.loads((SRC.parent / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["cudafuse"]
    pkg = SRC / "cudafuse"
    shipped = {p for pat in patterns for p in pkg.glob(pat) if p.is_file()}
    for root in ("frontend/include", "emu/include", "cuda_api"):
        wanted = {p for p in (pkg / root).rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".py"}
        assert wanted - shipped == set()
