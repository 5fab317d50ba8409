"""The house's plan holds: every pass is found from passes/, no module imports another
that imports it back (at any depth, lazy imports included), no old package remains."""

from __future__ import annotations

import ast
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


def _runtime_imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Modules `path` imports when it runs (inside functions too; `if TYPE_CHECKING:`
    blocks are never run, so they do not count)."""
    tree = ast.parse(path.read_text())
    typing_only = {id(sub) for node in ast.walk(tree)
                   if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                   for sub in ast.walk(node)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
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
    for root in ("frontend/include", "emu/include"):
        wanted = {p for p in (pkg / root).rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts}
        assert wanted - shipped == set()
