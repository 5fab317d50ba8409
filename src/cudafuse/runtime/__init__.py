"""Run .cu programs: load(path, backend="emu"|"nvcc") -> Library with call() and launch()."""

from cudafuse.runtime.convert import ArgumentError
from cudafuse.runtime.errors import KernelError
from cudafuse.runtime.library import BACKENDS, Library, load

__all__ = ["BACKENDS", "ArgumentError", "KernelError", "Library", "load"]
