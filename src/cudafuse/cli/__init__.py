"""The command line: one module per command (analyze, fuse/plan, hfuse, hfuse_plan, run/verify,
verify_hfuse), the click group and the helpers they share in group.py. Each command module is
imported only when its command runs (group.LazyGroup), so `cudafuse --help` stays fast."""

import os
import signal
import sys
import threading


def _interrupted_at_start(signum: int, frame: object) -> None:
    # Ctrl-C while the command line is still being imported: nothing has been read or
    # written yet, so exit as an interrupt does once a command runs (130, one line), not
    # with a traceback from the middle of an import.
    sys.stderr.write("cudafuse: interrupted\n")
    os._exit(130)


# Only the main thread may set a handler; one the user set (or SIG_IGN) is left alone.
_quiet = threading.current_thread() is threading.main_thread() and \
    signal.getsignal(signal.SIGINT) is signal.default_int_handler
if _quiet:
    signal.signal(signal.SIGINT, _interrupted_at_start)
try:
    from cudafuse.cli.group import CLANG_ARCHS, main
finally:
    if _quiet:
        signal.signal(signal.SIGINT, signal.default_int_handler)

__all__ = ["CLANG_ARCHS", "main"]
