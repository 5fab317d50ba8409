"""What a vertical fusion run tells the user besides its output: every refused edge and every
break of a launch sequence as a note at its line, the run's warnings, launches the text spells
where fusion never looked, and 'nothing to fuse' (with the horizontal pass's command line when
the file has two kernels of its own). The API (and through it the CLI) shows them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from cudafuse.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from cudafuse.ir.program import TranslationUnit
    from cudafuse.passes.vertical.driver import FuseResult


def fuse_diagnostics(fused: FuseResult, unit: TranslationUnit, file: str) -> list[Diagnostic]:
    """The notes and warnings of a vertical fusion run: every refused edge and break of a
    sequence at its line, then the run's warnings, then 'nothing to fuse' when so."""
    notes = [Diagnostic(Severity.NOTE, f"{e.src} -> {e.dst}: {e.why}", file, e.line, e.col)
             for e in fused.edges if e.refused]
    notes += [Diagnostic(Severity.NOTE, why, file, line, col,
                         detail=_aside(fused, host, line, why))
              for host, line, col, why in fused.breaks]
    out = sorted(notes, key=lambda d: (d.line, d.col))
    out += [Diagnostic(Severity.WARNING, note, file) for note in fused.notes]
    out += _unanalysed_launches(unit, file)
    if not (fused.edges or fused.breaks):
        # The output would be a silent copy of the input (or the plan an empty line).
        out.append(Diagnostic(Severity.WARNING, "nothing to fuse: no host function launches "
                              "two or more dependent kernels", file))
        kernels = [f.name for f in unit.functions if f.space == "global" and f.body is not None
                   and f.span.file == unit.path]  # (hfuse takes the file's own kernels only)
        if len(kernels) >= 2:
            out.append(Diagnostic(
                Severity.NOTE, f"to fuse two independent kernels horizontally: cudafuse "
                f"hfuse {file} --kernels {kernels[0]},{kernels[1]} -o OUT.cu", file))
    return out


def _aside(fused: FuseResult, host: str, line: int, why: str) -> bool:
    """A statement that ends no pipeline: no launch of its host function both before and
    after it (`main` calling the function that launches). Its note is a detail, shown with
    -v or --explain; a launch's own note never is."""
    if not why.startswith("launches in "):  # the driver's words for a statement break
        return False
    lines = [ln.line for ln in fused.launches if ln.host == host]
    return not (any(ln < line for ln in lines) and any(ln > line for ln in lines))


def _unanalysed_launches(unit: TranslationUnit, file: str) -> list[Diagnostic]:
    """Launches the text spells outside every function the front end lowered (member
    functions, lambdas at namespace scope; a macro's definition is a directive, not counted):
    fusion never saw them, which the user must hear rather than only 'nothing to fuse'."""
    from cudafuse.frontend.kernel_census import spelled_launches
    from cudafuse.passes.vertical.ranges import Ranges

    # (a file of a thousand launches has a thousand functions: Ranges bisects)
    bodies = Ranges((f.span.start, f.span.end) for f in (*unit.functions, *unit.method_hosts)
                    if f.body is not None and f.span.file == unit.path)
    data = unit.source.data
    # Every launch the scan finds starts where the bytes spell `<<<`: when each such place is
    # in a lowered function, none is unseen, and the scan (a token per identifier of the
    # file) is not needed.
    if all(o in bodies for o in _occurrences(data, b"<<<")):
        return []
    unseen = [o for o in spelled_launches(data) if o not in bodies]
    if not unseen:
        return []
    line, col = unit.source.line_col(unseen[0])
    return [Diagnostic(Severity.NOTE, f"{len(unseen)} kernel launch(es) of this file are in code "
                       "cudafuse does not analyse for fusion (a member function of a class "
                       "template, a lambda outside a function) and were not considered", file,
                       line, col)]


def _occurrences(data: bytes, text: bytes) -> Iterator[int]:
    """Offsets where `text` starts in `data` (overlapping ones too)."""
    at = data.find(text)
    while at >= 0:
        yield at
        at = data.find(text, at + 1)
