"""gcc-style diagnostics: every message a user sees names a file, line and column."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Severity(str, Enum):
    NOTE = "note"
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True)
class Diagnostic:
    severity: Severity
    message: str
    file: str = ""
    line: int = 0
    col: int = 0
    source_line: str = ""  # the offending line, for the caret display; empty to omit it
    # A note beside the user's request (a statement of `main` that no launch sequence
    # crosses): shown with --explain or -v only.
    detail: bool = False

    def format(self, caret: bool = True) -> str:
        where = self.file or "cudafuse"
        if self.line:
            where += f":{self.line}:{self.col}" if self.col else f":{self.line}"
        text = f"{where}: {self.severity.value}: {self.message}"
        if caret and self.source_line and self.col:
            text += "\n" + self.source_line.rstrip("\n") + "\n" + " " * (self.col - 1) + "^"
        return text


@dataclass
class DiagnosticSink:
    """Collects diagnostics from a run; the CLI prints them and picks the exit status."""

    items: list[Diagnostic] = field(default_factory=list)

    def add(self, diag: Diagnostic) -> None:
        if diag not in self.items:
            self.items.append(diag)

    def warn(self, message: str, file: str = "", line: int = 0, col: int = 0) -> None:
        self.add(Diagnostic(Severity.WARNING, message, file, line, col))

    def note(self, message: str, file: str = "", line: int = 0, col: int = 0) -> None:
        self.add(Diagnostic(Severity.NOTE, message, file, line, col))

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.items)


class CudafuseError(Exception):
    """A failure the user caused or can fix; carries the diagnostics that explain it."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic, status: int = 1):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = diagnostics
        self.status = status
        super().__init__("\n".join(d.format(caret=False) for d in diagnostics))


def error(message: str, file: str = "", line: int = 0, col: int = 0, status: int = 1,
          source_line: str = "") -> CudafuseError:
    return CudafuseError(Diagnostic(Severity.ERROR, message, file, line, col, source_line), status)
