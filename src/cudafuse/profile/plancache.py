"""`cudafuse hfuse-plan`'s results cache: the compiled candidate set, kept like
`--profile`'s results (profile.cache), so asking again for the same plan compiles nothing.

The key covers what changes a plan: the cudafuse version (code generation), the two inputs
and every file they include, the candidate options (native blocks, which parts may change
size, the split step), the kernels, the arch and the compile flags, and the nvcc version
(ptxas's register allocation changes between releases). The entries live beside
`--profile`'s, in the same directory; their inputs carry `"command": "hfuse-plan"`, so the
two never share a key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from cudafuse import __version__
from cudafuse.profile.cache import ResultsCache, digest_key, source_digests
from cudafuse.profile.records import Record

COMMAND = "hfuse-plan"


def plan_key_inputs(*, sources: Sequence[bytes], options: Mapping[str, object],
                    version: str = __version__) -> dict[str, object]:
    """`sources`: the inputs' texts, then their included files' (in a fixed order)."""
    return {"command": COMMAND, "cudafuse": version, "sources": source_digests(sources),
            "options": dict(options)}


def cached_plan(cache: ResultsCache | None, inputs: Mapping[str, object],
                compute: Callable[[], list[Record]]) -> tuple[list[Record], Path | None]:
    """The plan's records and, when they came from the cache, the entry's path. Without a
    cache (--no-cache) `compute` runs and nothing is stored."""
    if cache is None:
        return compute(), None
    key = digest_key(inputs)
    stored = cache.load(key)
    if stored is not None:
        try:
            items = stored.get("candidates")
            if isinstance(items, list):
                return [Record.from_json(c) for c in items], cache.path(key)
        except (ValueError, TypeError, KeyError):
            pass  # an entry this version cannot read: computed again and replaced
    records = compute()
    try:
        cache.store(key, {"candidates": [r.to_json() for r in records]}, inputs)
    except OSError:
        pass  # a cache that cannot be written costs the next run its compiles, nothing more
    return records, None
