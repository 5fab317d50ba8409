"""cudafuse: a source-to-source CUDA compiler that fuses kernels.

The command line (`cudafuse --help`) and a Python API over the same passes (docs/api.md):

    cudafuse.analyze(path, **parse_opts)         -> Analysis (.report, .text, .diagnostics)
    cudafuse.fuse(path, **options)               -> Fused (.text, .report, .explain, ...)
    cudafuse.hfuse(path1, path2=None, **options) -> HFused (.text, .name, .report, ...)
    cudafuse.Error                               the exception bad input raises
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Error", "analyze", "fuse", "hfuse"]

if TYPE_CHECKING:
    from cudafuse.api import Error, analyze, fuse, hfuse


def __getattr__(name: str) -> Any:
    # Imported on first use: `import cudafuse` (and the CLI's start-up) must not load
    # libclang bindings and the analyses for a --version.
    if name in __all__:
        from cudafuse import api

        return getattr(api, name)
    raise AttributeError(f"module 'cudafuse' has no attribute '{name}'")
