"""A results cache: one JSON file per (inputs, device, options), holding the run's report,
so that profiling the same pair again on the same machine measures nothing.

The key is a sha256 over everything that can change a measurement or the candidate set:
the cudafuse version (code generation changes between versions), both sources, the spec
(problem sizes and inputs), the device and driver, and the options (candidate options,
timing plan, arch and compile flags, the nvcc version). Anything left out of the key is a
stale result waiting to happen; anything extra only costs a re-measurement.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from cudafuse import __version__
from cudafuse.outputs import write_atomic
from cudafuse.profile.device import DeviceInfo

CACHE_FORMAT = 1
_KEY = re.compile(r"[0-9a-f]{64}")


def default_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """$CUDAFUSE_CACHE_DIR/profile (the root the runtime's build cache uses too), else
    $XDG_CACHE_HOME/cudafuse/profile, else ~/.cache/cudafuse/profile. The XDG base
    directory specification says to ignore a relative XDG_CACHE_HOME."""
    env = os.environ if environ is None else environ
    if env.get("CUDAFUSE_CACHE_DIR"):
        return Path(env["CUDAFUSE_CACHE_DIR"]) / "profile"
    xdg = env.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "cudafuse" / "profile"


def _digest(data: bytes | str) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def key_inputs(*, sources: Sequence[bytes | str], spec: bytes | str, device: DeviceInfo,
               options: Mapping[str, object], version: str = __version__
               ) -> dict[str, object]:
    """What the key is computed from (texts as their sha256), kept in the entry so that a
    person can see why two runs did not share one."""
    return {
        "cudafuse": version,
        "sources": [_digest(s) for s in sources],
        "spec": _digest(spec),
        "device": {"name": device.name,
                   "compute_capability": list(device.compute_capability),
                   "driver_version": device.driver_version},
        "options": options,
    }


def cache_key(*, sources: Sequence[bytes | str], spec: bytes | str, device: DeviceInfo,
              options: Mapping[str, object], version: str = __version__) -> str:
    """`sources` in the order given to hfuse (swapping the kernels is another fusion);
    `options` must be JSON-serialisable; its key order does not matter."""
    return digest_key(key_inputs(sources=sources, spec=spec, device=device, options=options,
                                 version=version))


def digest_key(inputs: Mapping[str, object]) -> str:
    """The key of any key inputs: sha256 of their canonical JSON (sorted keys, no
    spaces), so equal inputs give one key whatever their order."""
    canonical = json.dumps(inputs, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return _digest(canonical)


def source_digests(sources: Sequence[bytes | str]) -> list[str]:
    return [_digest(s) for s in sources]


class ResultsCache:
    def __init__(self, directory: str | os.PathLike[str] | None = None):
        self.directory = Path(directory) if directory is not None else default_cache_dir()

    def path(self, key: str) -> Path:
        if not _KEY.fullmatch(key):
            raise ValueError(f"not a cache key: '{key}'")
        return self.directory / f"{key}.json"

    def load(self, key: str) -> dict[str, object] | None:
        """The stored report, or None when there is none usable: missing, unreadable,
        another format, or (a renamed file) another key."""
        try:
            with open(self.path(key), encoding="utf-8") as fh:
                entry = json.load(fh)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return None
        if not isinstance(entry, dict) or entry.get("format") != CACHE_FORMAT or \
                entry.get("key") != key or not isinstance(entry.get("report"), dict):
            return None
        return entry["report"]

    def store(self, key: str, report: Mapping[str, object],
              inputs: Mapping[str, object] | None = None) -> Path:
        """Write the entry atomically: a reader (another cudafuse run) sees the old entry
        or the whole new one, never half a file."""
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = {"format": CACHE_FORMAT, "key": key, "inputs": dict(inputs or {}),
                 "report": dict(report)}
        write_atomic(path, json.dumps(entry, indent=1) + "\n")
        return path
