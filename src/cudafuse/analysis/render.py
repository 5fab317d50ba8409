"""Text and Graphviz renderings of the `analyze` report (placeholder)."""

from __future__ import annotations

from typing import Any


def render_text(report: dict[str, Any]) -> str:
    return "".join(f"kernel {k['name']}\n" for k in report["kernels"])


def render_dot(report: dict[str, Any]) -> str:
    return "digraph pipeline {\n}\n"
