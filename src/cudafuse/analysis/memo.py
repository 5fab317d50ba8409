"""Facts computed from one immutable IR object (a frozen Function, a node), kept by the
object's identity so that a pass asking once per launch does the work once per object.

Without it, a host function of n launches walked in full for each launch costs n^2: a
1,000-launch chain did not plan in 15 minutes (issue 27). The IR is frozen, so a fact about
an object never goes stale; the object is held by the cache, so its id is not reused while
the entry lives. Only the last `size` objects are kept (a pass works on one host at a time).
Values are shared between callers: they must be read, never changed.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def per_object(size: int = 16) -> Callable[[Callable[[T], R]], Callable[[T], R]]:
    """Decorator: `fn(obj)` memoised by `obj`'s identity, for the last `size` objects."""

    def wrap(fn: Callable[[T], R]) -> Callable[[T], R]:
        entries: OrderedDict[int, tuple[Any, R]] = OrderedDict()

        @functools.wraps(fn)
        def cached(obj: T) -> R:
            key = id(obj)
            hit = entries.get(key)
            if hit is not None and hit[0] is obj:
                entries.move_to_end(key)
                return hit[1]
            value = fn(obj)
            entries[key] = (obj, value)
            if len(entries) > size:
                entries.popitem(last=False)
            return value

        cached.cache_clear = entries.clear  # type: ignore[attr-defined]
        return cached

    return wrap
