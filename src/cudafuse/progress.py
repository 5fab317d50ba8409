"""Progress of long runs (hfuse-plan, --profile) on stderr, so that no run is silent.

On a terminal: one line, rewritten in place (`\\r`), per phase. Without one (make, CI, a
pipe): plain lines, the phase's start, its end, and in between at most one line every
`interval` seconds, so a log shows the run moving without a line per candidate. Every line
names its tool and phase (`profile: verifying and timing [3/12] ...`), so a counter that
starts again belongs visibly to another phase. The closing summary is built from the same
phase records as the lines, so the two always agree.

`CUDAFUSE_PROGRESS` chooses: `auto` (default: a terminal or not, as above), `plain` (plain
lines even on a terminal), `off` or `0` (nothing; `--quiet` where a command has it).

Commands that are usually quick (analyze, plan, fuse) make theirs with a `delay` (DELAY, 3 s
or CUDAFUSE_PROGRESS_DELAY): nothing is shown until the run has taken that long, so a small
file's output is unchanged and a large one's run is not silent. They hand it to the library
code through `reporting(...)`, which the analyses and passes ask with `active()`; library
calls made outside a command report nothing.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TextIO

INTERVAL = 5.0  # seconds between plain lines inside a phase


def _delay() -> float:
    try:
        return max(0.0, float(os.environ.get("CUDAFUSE_PROGRESS_DELAY", "3")))
    except ValueError:
        return 3.0


# A quick command's progress is shown once its run has taken this long (seconds;
# CUDAFUSE_PROGRESS_DELAY, which the test suite sets high so that stderr stays as asserted).
DELAY = _delay()


@dataclass
class Phase:
    name: str
    total: int
    done: int = 0


class Progress:
    def __init__(self, tool: str, *, quiet: bool = False, stream: TextIO | None = None,
                 tty: bool | None = None, interval: float = INTERVAL,
                 clock: Callable[[], float] = time.monotonic, delay: float = 0.0):
        mode = os.environ.get("CUDAFUSE_PROGRESS", "auto").strip().lower()
        self.tool = tool
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet or mode in ("off", "0", "none", "quiet")
        if tty is None:
            tty = mode != "plain" and bool(getattr(self.stream, "isatty", lambda: False)())
        self.tty, self.interval, self.clock = tty, interval, clock
        self.phases: list[Phase] = []
        self._open = False  # a terminal line without its newline yet
        self._last = float("-inf")  # (the first line after a delay is shown at once)
        self.delay = delay  # nothing shown before the run has taken this long
        self._started = clock()
        self.shown = False  # a line was written
        self._lock = threading.RLock()  # (reporting's timer may show the line)

    @property
    def current(self) -> Phase | None:
        return self.phases[-1] if self.phases else None

    def start(self, name: str, total: int) -> None:
        """A new phase of `total` steps (ends the previous one)."""
        self.end()
        self.phases.append(Phase(name, total))
        self._show("", force=True)

    def step(self, detail: str = "", done: int | None = None) -> None:
        """One more step of the current phase finished (or `done` of them)."""
        phase = self.current
        if phase is None:
            raise RuntimeError("progress: step() before start()")
        phase.done = phase.done + 1 if done is None else done
        self._show(detail, force=phase.done >= phase.total)

    def end(self) -> None:
        with self._lock:
            if self._open:
                self._write("\n")
                self._open = False

    def line(self, text: str) -> None:
        """A whole line of its own (a note, the summary), after any open terminal line."""
        self.end()
        if not self.quiet:
            self._write(f"{self.tool}: {text}\n")

    def summary(self) -> str:
        """Every phase run, with the counts its lines showed: `compiling candidates 31/31,
        building 14/14`."""
        return ", ".join(f"{p.name} {p.done}/{p.total}" for p in self.phases)

    def close(self, outcome: str = "") -> None:
        """End the run with its summary line (and `outcome`, what it came to); a delayed
        progress that never showed a line ends silently."""
        if self.delay and not self.shown:
            return
        done = self.summary()
        text = "; ".join(t for t in (f"done: {done}" if done else "", outcome) if t)
        if text:
            self.line(text)
        else:
            self.end()

    def wake(self) -> None:
        """Show the current phase now if nothing was shown yet (reporting's timer: a phase
        that is one long step, a parse, still gets its line once the delay is over)."""
        with self._lock:
            if not self.shown and self.current is not None:
                self._show("", force=True)

    def _show(self, detail: str, force: bool) -> None:
        with self._lock:
            self._show_locked(detail, force)

    def _show_locked(self, detail: str, force: bool) -> None:
        phase = self.current
        if self.quiet or phase is None:
            return
        if self.delay and not self.shown and self.clock() - self._started < self.delay:
            return
        text = f"{self.tool}: {phase.name} [{phase.done}/{phase.total}]"
        if detail:
            text += f" {detail}"
        if self.tty:
            self._write(f"\r\033[K{text}")
            self._open = True
            return
        now = self.clock()
        if force or now - self._last >= self.interval:
            self._write(text + "\n")
            self._last = now

    def _write(self, text: str) -> None:
        self.shown = True
        self.stream.write(text)
        self.stream.flush()


_ACTIVE: ContextVar[Progress | None] = ContextVar("cudafuse_progress", default=None)


@contextlib.contextmanager
def reporting(progress: Progress) -> Iterator[Progress]:
    """`progress` is where the library code run inside reports (`active()`); its line is
    ended when the block ends (no summary: the command prints its own result)."""
    token = _ACTIVE.set(progress)
    timer = None
    if progress.delay and not progress.quiet:
        timer = threading.Timer(progress.delay + 0.05, progress.wake)
        timer.daemon = True
        timer.start()
    try:
        yield progress
    finally:
        if timer is not None:
            timer.cancel()
        _ACTIVE.reset(token)
        progress.end()


def active() -> Progress | None:
    """The progress of the command running, if it reports one."""
    return _ACTIVE.get()


def phase_step(progress: Progress | None, detail: str = "") -> None:
    """`progress.step(detail)` when there is a progress to report to."""
    if progress is not None:
        progress.step(detail)


def phase_start(progress: Progress | None, name: str, total: int) -> None:
    if progress is not None:
        progress.start(name, total)
