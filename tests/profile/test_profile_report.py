"""The --report document: content, the documented schema, and re-selection from a copy."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from cudafuse.profile.candidates import CandidateOptions, generate
from cudafuse.profile.device import DeviceInfo
from cudafuse.profile.occupancy import DeviceLimits, occupancy
from cudafuse.profile.records import Record
from cudafuse.profile.report import (
    ReportError,
    build_report,
    device_from_report,
    dumps,
    read_report,
    records_from_report,
    reselect,
)
from cudafuse.profile.select import select
from cudafuse.profile.stats import summarize

DOC = Path(__file__).parents[2] / "docs" / "profiling.md"
H100 = DeviceInfo("NVIDIA H100 80GB HBM3", (9, 0), 13000, 132, 52428800, 1980000, 2619000)
DATE = datetime(2026, 11, 3, 12, 0, 5, tzinfo=timezone.utc)


def run_records() -> list[Record]:
    """What a profiling run of a 256 + 128 pair with bound 64 would record."""
    cands = generate(CandidateOptions(512, 512, modes=("thread",)),
                     lambda mode, t1, t2: 64)
    limits = DeviceLimits.for_arch("sm_90")
    times = {None: 0.9, 56: 0.7, 64: 0.75}
    records = [Record.of(c, registers=c.regcap or 60, shared_bytes=0, spill_stores=0,
                         spill_loads=0, occupancy=occupancy(limits, c.threads, c.regcap or 60),
                         verified=True, timing=summarize([times[c.regcap], times[c.regcap]]))
               for c in cands.candidates]
    records += [Record.of(s) for s in cands.skipped]
    records += [Record.of(b, verified=True, timing=summarize([1.0, 1.01, 0.99]))
                for b in cands.baselines]
    return records


def test_report_content() -> None:
    records = run_records()
    report = build_report(records, select(records), H100, kernels=("a", "b"),
                          options={"arch": "sm_90"}, date=DATE, version="9.9")
    assert report["format"] == 1 and report["date"] == "2026-11-03T12:00:05Z"
    assert report["tool"] == {"name": "cudafuse", "version": "9.9"}
    assert report["device"] == {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0",
                                "driver_version": 13000, "multiprocessors": 132,
                                "l2_bytes": 52428800,
                                "clocks": {"max_sm_khz": 1980000, "max_memory_khz": 2619000}}
    ids = [c["id"] for c in report["candidates"]]
    assert ids == ["thread:512+512:rnone", "thread:512+512:r56", "thread:512+512:r64",
                   "thread:512+512:r72", "thread:512+512:r80", "streams", "sequential"]
    capped = report["candidates"][1]
    assert capped["threads"] == [512, 512] and capped["regcap"] == 56
    assert capped["timing"]["median_ms"] == 0.7 and capped["timing"]["samples_ms"] == [0.7, 0.7]
    # 1024 threads x 56: 1792 per warp, 16384 // 1792 = 9 per sub-partition, 36 warps: 1 block.
    assert capped["occupancy"]["blocks_per_sm"] == 1
    assert report["candidates"][3]["skip"].startswith("regcap 72 with 1024 threads")
    assert report["candidates"][3]["verified"] is None
    assert report["choice"]["id"] == "thread:512+512:r56"
    assert report["choice"]["native"] is False and report["choice"]["margin"] == 0.03
    assert report["choice"]["why"][0].startswith("chose thread:512+512:r56: median 0.7 ms")


def _schema() -> dict[str, object]:
    text = DOC.read_text()
    block = re.search(r"## Report.*?```json\n(.*?)```", text, re.S)
    assert block, "docs/profiling.md has no JSON schema block"
    return json.loads(block.group(1))


def _check(value: object, schema: dict[str, object], where: str = "$") -> list[str]:
    """The JSON Schema keywords the documented schema uses: type, enum, required,
    properties, additionalProperties: false, items."""
    kinds = {"object": dict, "array": list, "string": str, "boolean": bool,
             "null": type(None)}
    errors = []

    def is_a(kind: str) -> bool:
        if kind == "integer":
            return isinstance(value, int) and not isinstance(value, bool)
        if kind == "number":
            return isinstance(value, int | float) and not isinstance(value, bool)
        return isinstance(value, kinds[kind])

    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(is_a(t) for t in types):
            return [f"{where}: {value!r} is not {types}"]
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} not in {schema['enum']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        errors += [f"{where}: missing '{k}'" for k in schema.get("required", [])
                   if k not in value]
        if schema.get("additionalProperties") is False:
            errors += [f"{where}: unexpected '{k}'" for k in value if k not in props]
        for k, sub in props.items():
            if k in value:
                errors += _check(value[k], sub, f"{where}.{k}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            errors += _check(item, schema["items"], f"{where}[{i}]")
    return errors


def test_report_matches_documented_schema() -> None:
    records = run_records()
    report = json.loads(dumps(build_report(records, select(records), H100, date=DATE)))
    schema = _schema()
    assert _check(report, schema) == []
    # The checker does check: a wrong kind and a missing key are caught.
    report["candidates"][0]["kind"] = "warp"
    del report["choice"]["why"]
    assert len(_check(report, schema)) == 2


def test_reselect_from_a_copied_report(tmp_path: Path) -> None:
    records = run_records()
    original = select(records)
    path = tmp_path / "report.json"
    path.write_text(dumps(build_report(records, original, H100, date=DATE)))
    doc = read_report(path)
    again = reselect(doc)
    assert again.choice.id == original.choice.id and again.lines == original.lines
    assert [r.id for r in records_from_report(doc)] == [r.id for r in records]
    # Every record comes back equal, occupancy and timing (from its samples) included.
    assert records_from_report(doc) == records
    # With a margin above the 30% gain, the native kernels are kept.
    assert reselect(doc, margin=0.35).native
    assert device_from_report(doc) == H100


def test_read_report_rejects_what_it_cannot_use(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    for text, message in (("{", "cannot read"), ("[]", "JSON object"),
                          ('{"format": 2}', "format 2"),
                          ('{"format": 1, "device": {}}', "candidates")):
        bad.write_text(text)
        with pytest.raises(ReportError, match=message):
            read_report(bad)
    with pytest.raises(ReportError, match="cannot read"):
        read_report(tmp_path / "missing.json")
    doc = {"format": 1, "device": {}, "candidates": [{"id": "x", "kind": "thread",
                                                      "verified": "yes"}]}
    with pytest.raises(ReportError, match="candidate 0: .*verified"):
        records_from_report(doc)
