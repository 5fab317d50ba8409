"""The front end: the only package that imports clang.cindex."""

from cudafuse.frontend.parse import ParseOptions, parse_file

__all__ = ["ParseOptions", "parse_file"]
