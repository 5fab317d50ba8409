"""`cudafuse hfuse --from-profile REPORT`: the configuration a profiling report chose, made
again from the report's records (no GPU needed), as hfuse options."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from cudafuse.diagnostics import error
from cudafuse.profile.report import ReportError, read_report, reselect
from cudafuse.profile.select import Selection, SelectionError


@dataclass(frozen=True)
class Applied:
    mode: str  # thread | block | streams
    regcap: int | None
    threads: tuple[int, int] | None  # the parts' thread counts (None: keep the natives')
    choice: str  # the chosen record's id
    lines: tuple[str, ...]  # why, in words


def from_report(path: str | os.PathLike[str], kernels: Sequence[str]) -> Applied:
    """The choice of the report at `path` for the kernels named `kernels` (as hfuse shows
    them); errors name the report."""
    where = os.fspath(path)
    try:
        doc = read_report(path)
        selection = reselect(doc)
    except (ReportError, SelectionError) as exc:
        raise error(str(exc), where) from None
    profiled = doc.get("kernels")
    if isinstance(profiled, list) and profiled and profiled != list(kernels):
        raise error(f"the report profiles kernels {', '.join(map(str, profiled))}, not "
                    f"{', '.join(kernels)}", where)
    return from_selection(selection)


def from_selection(selection: Selection) -> Applied:
    """The hfuse configuration a selection stands for (the streams launcher when it kept
    the native kernels)."""
    choice = selection.choice
    mode = "streams" if selection.native else choice.kind
    return Applied(mode, choice.regcap if choice.fused else None,
                   choice.threads if choice.fused else None, choice.id,
                   tuple(selection.lines))
