"""The command line: one module per command (analyze, fuse/plan, hfuse, hfuse_plan, run/verify,
verify_hfuse), the click group and the helpers they share in group.py. Each command module is
imported only when its command runs (group.LazyGroup), so `cudafuse --help` stays fast."""

from cudafuse.cli.group import CLANG_ARCHS, main

__all__ = ["CLANG_ARCHS", "main"]
