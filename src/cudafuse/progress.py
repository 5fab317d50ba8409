"""Progress of long runs (hfuse-plan, --profile) on stderr, so that no run is silent.

On a terminal: one line, rewritten in place (`\\r`), per phase. Without one (make, CI, a
pipe): plain lines, the phase's start, its end, and in between at most one line every
`interval` seconds, so a log shows the run moving without a line per candidate. Every line
names its tool and phase (`profile: verifying and timing [3/12] ...`), so a counter that
starts again belongs visibly to another phase. The closing summary is built from the same
phase records as the lines, so the two always agree.

`CUDAFUSE_PROGRESS` chooses: `auto` (default: a terminal or not, as above), `plain` (plain
lines even on a terminal), `off` or `0` (nothing; `--quiet` where a command has it).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

INTERVAL = 5.0  # seconds between plain lines inside a phase


@dataclass
class Phase:
    name: str
    total: int
    done: int = 0


class Progress:
    def __init__(self, tool: str, *, quiet: bool = False, stream: TextIO | None = None,
                 tty: bool | None = None, interval: float = INTERVAL,
                 clock: Callable[[], float] = time.monotonic):
        mode = os.environ.get("CUDAFUSE_PROGRESS", "auto").strip().lower()
        self.tool = tool
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet or mode in ("off", "0", "none", "quiet")
        if tty is None:
            tty = mode != "plain" and bool(getattr(self.stream, "isatty", lambda: False)())
        self.tty, self.interval, self.clock = tty, interval, clock
        self.phases: list[Phase] = []
        self._open = False  # a terminal line without its newline yet
        self._last = 0.0

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
        """End the run with its summary line (and `outcome`, what it came to)."""
        done = self.summary()
        text = "; ".join(t for t in (f"done: {done}" if done else "", outcome) if t)
        if text:
            self.line(text)
        else:
            self.end()

    def _show(self, detail: str, force: bool) -> None:
        phase = self.current
        if self.quiet or phase is None:
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
        self.stream.write(text)
        self.stream.flush()


def phase_step(progress: Progress | None, detail: str = "") -> None:
    """`progress.step(detail)` when there is a progress to report to."""
    if progress is not None:
        progress.step(detail)


def phase_start(progress: Progress | None, name: str, total: int) -> None:
    if progress is not None:
        progress.start(name, total)
