"""The AST-backed IR: frozen nodes that keep byte ranges into the original source."""

from cudafuse.ir.nodes import *  # noqa: F403
from cudafuse.ir.program import *  # noqa: F403
from cudafuse.ir.source import SourceFile, Span

__all__ = ["SourceFile", "Span"]
__all__ += [n for n in dir() if not n.startswith("_") and n[0].isupper()]
