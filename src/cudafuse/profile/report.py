"""The `--report` JSON document of a profiling run, and re-selection from it.

The report holds every record with its raw timings, so the choice can be made again
anywhere (a CPU-only machine, a different margin) without running anything:
`reselect(read_report(path))`. The schema is documented in docs/profiling.md.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone

from cudafuse import __version__
from cudafuse.profile.device import DeviceInfo
from cudafuse.profile.records import Record
from cudafuse.profile.select import DEFAULT_MARGIN, Selection, select

REPORT_FORMAT = 1


class ReportError(ValueError):
    """A report (or cache entry) that cannot be read back."""


def build_report(records: Sequence[Record], selection: Selection, device: DeviceInfo, *,
                 kernels: Sequence[str] = (), options: Mapping[str, object] | None = None,
                 date: datetime | None = None, version: str = __version__,
                 clocks: Mapping[str, object] | None = None) -> dict[str, object]:
    """`options`: what the run was asked to do (candidate options, timing plan, arch and
    compile flags), recorded as given. `clocks`: profile.clocks samples taken before and
    after the timing ({"before": ..., "after": ...}), when known."""
    when = (date or datetime.now(timezone.utc)).astimezone(timezone.utc)
    return {
        "format": REPORT_FORMAT,
        "tool": {"name": "cudafuse", "version": version},
        "date": when.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "device": device.to_json(),
        "kernels": list(kernels),
        "options": dict(options or {}),
        "candidates": [r.to_json() for r in records],
        "clocks": dict(clocks) if clocks is not None else None,
        "choice": {
            "id": selection.choice.id,
            "native": selection.native,
            "fastest_fused": selection.fastest_fused.id if selection.fastest_fused else None,
            "margin": selection.margin,
            "why": list(selection.lines),
        },
    }


def dumps(report: Mapping[str, object]) -> str:
    return json.dumps(report, indent=2) + "\n"


def check_report(doc: object) -> dict[str, object]:
    """`doc` as a report of this format, or ReportError saying what is wrong."""
    if not isinstance(doc, dict):
        raise ReportError("a profiling report is a JSON object")
    if "format" not in doc:
        raise ReportError("not a cudafuse profiling report (it has no 'format')")
    if doc.get("format") != REPORT_FORMAT:
        raise ReportError(f"report format {doc.get('format')!r}; this cudafuse reads "
                          f"format {REPORT_FORMAT}")
    if not isinstance(doc.get("candidates"), list):
        raise ReportError("the report has no 'candidates' list")
    if not isinstance(doc.get("device"), dict):
        raise ReportError("the report has no 'device' object")
    return doc


def read_report(path: str | os.PathLike[str]) -> dict[str, object]:
    """A report from a `--report` file or from a cache entry (which wraps one)."""
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except OSError as exc:  # the caller names the file: say only why
        raise ReportError(f"cannot read the profiling report: {exc.strerror or exc}") \
            from exc
    except UnicodeDecodeError as exc:
        raise ReportError("cannot read a profiling report: not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise ReportError(f"cannot read a profiling report: not JSON ({exc.msg}, line "
                          f"{exc.lineno} column {exc.colno})") from exc
    if isinstance(doc, dict) and "report" in doc and "key" in doc:
        doc = doc["report"]
    return check_report(doc)


def records_from_report(doc: Mapping[str, object]) -> list[Record]:
    items = check_report(dict(doc))["candidates"]
    assert isinstance(items, list)
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ReportError(f"candidate {i} is not an object")
        try:
            out.append(Record.from_json(item))
        except ValueError as exc:
            raise ReportError(f"candidate {i}: {exc}") from exc
    return out


def reselect(doc: Mapping[str, object], margin: float | None = None) -> Selection:
    """The choice made again from a report's records: with the report's margin unless
    another is given. Needs no GPU."""
    if margin is None:
        choice = doc.get("choice")
        stored = choice.get("margin") if isinstance(choice, dict) else None
        margin = float(stored) if isinstance(stored, int | float) else DEFAULT_MARGIN
    return select(records_from_report(doc), margin)


def device_from_report(doc: Mapping[str, object]) -> DeviceInfo:
    device = check_report(dict(doc))["device"]
    assert isinstance(device, dict)
    try:
        return DeviceInfo.from_json(device)
    except ValueError as exc:
        raise ReportError(f"report device: {exc}") from exc
