"""The results cache: what the key covers, where entries live, and what load refuses."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from cudafuse.profile.cache import CACHE_FORMAT, ResultsCache, cache_key, default_cache_dir
from cudafuse.profile.device import DeviceInfo
from cudafuse.profile.report import read_report

H100 = DeviceInfo("NVIDIA H100 80GB HBM3", (9, 0), 13000)
BASE = {"sources": [b"__global__ void a() {}", b"__global__ void b() {}"],
        "spec": "n = 4096", "device": H100,
        "options": {"candidates": {"step": 128, "threads": [256, 128]}, "arch": "sm_90"},
        "version": "0.1.0"}
REPORT = {"format": 1, "device": {"name": "x"}, "candidates": [], "choice": {}}


def key(**changes: object) -> str:
    return cache_key(**{**BASE, **changes})  # type: ignore[arg-type]


def test_key_is_stable_and_covers_every_input() -> None:
    k = key()
    assert len(k) == 64 and k == key()
    # The same inputs spelled differently give the same key.
    assert key(sources=[s.decode() for s in BASE["sources"]]) == k  # type: ignore[union-attr]
    assert key(options={"arch": "sm_90", "candidates": {"threads": [256, 128],
                                                        "step": 128}}) == k
    changed = [
        key(version="0.2.0"),
        key(sources=[b"__global__ void a() { }", b"__global__ void b() {}"]),
        key(sources=list(reversed(BASE["sources"]))),  # type: ignore[call-overload]
        key(sources=BASE["sources"][:1]),  # type: ignore[index]
        key(spec="n = 8192"),
        key(device=replace(H100, name="NVIDIA H200")),
        key(device=replace(H100, compute_capability=(8, 0))),
        key(device=replace(H100, driver_version=12080)),
        key(options={**BASE["options"], "arch": "sm_80"}),  # type: ignore[dict-item]
        key(options={"candidates": {"step": 256, "threads": [256, 128]}, "arch": "sm_90"}),
    ]
    assert k not in changed and len(set(changed)) == len(changed)
    # The SM count and clocks are the device's name's business, not the key's.
    assert key(device=replace(H100, multiprocessors=132, max_sm_clock_khz=1)) == k


def test_default_directory() -> None:
    home = Path.home()
    assert default_cache_dir({}) == home / ".cache" / "cudafuse" / "profile"
    assert default_cache_dir({"XDG_CACHE_HOME": "/c"}) == Path("/c/cudafuse/profile")
    assert default_cache_dir({"XDG_CACHE_HOME": "rel"}) == \
        home / ".cache" / "cudafuse" / "profile"
    assert default_cache_dir({"CUDAFUSE_CACHE_DIR": "/r", "XDG_CACHE_HOME": "/c"}) == \
        Path("/r/profile")


def test_store_and_load(tmp_path: Path) -> None:
    cache = ResultsCache(tmp_path / "deep" / "dir")
    k = key()
    assert cache.load(k) is None
    path = cache.store(k, REPORT, {"spec": "x"})
    assert path == tmp_path / "deep" / "dir" / f"{k}.json"
    assert cache.load(k) == REPORT
    entry = json.loads(path.read_text())
    assert entry == {"format": CACHE_FORMAT, "key": k, "inputs": {"spec": "x"},
                     "report": REPORT}
    assert [p.name for p in path.parent.iterdir()] == [f"{k}.json"]  # no temporary left
    # A cache entry serves as a report for re-selection elsewhere.
    assert read_report(path) == REPORT


def test_load_refuses_unusable_entries(tmp_path: Path) -> None:
    cache = ResultsCache(tmp_path)
    k = key()
    path = cache.store(k, REPORT)
    entry = json.loads(path.read_text())
    for text in ("{not json", "\xff\xfe", "[]", json.dumps({**entry, "format": 99}),
                 json.dumps({**entry, "key": "0" * 64}), json.dumps({**entry, "report": 1})):
        path.write_bytes(text.encode("latin-1"))
        assert cache.load(k) is None
    path.unlink()
    path.mkdir()  # a directory where the file should be
    assert cache.load(k) is None
    with pytest.raises(ValueError, match="not a cache key"):
        cache.path("../escape")
