"""A file's text as the compiler reads it: comments and the branches the preprocessor skipped
blanked byte for byte (offsets and line breaks kept, so the IR's spans still index it).

Checks that must read text (a `#define`, a guard, `__launch_bounds__` in a declaration's
head, a type's name) read this instead of the file's bytes: a commented-out
`/* __launch_bounds__(256, 3) */` or a `__syncthreads()` under `#if 0` is nothing clang sees,
and so nothing cudafuse may act on.
"""

from __future__ import annotations

import functools
import re

# String and character literals are matched (and kept) so that a `//` or `/*` inside one
# starts no comment; comments are blanked.
_NOISE = re.compile(rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)


def _blank(chunk: bytes) -> bytes:
    return bytes(c if c in b"\r\n" else 32 for c in chunk)


@functools.lru_cache(maxsize=32)
def blank_comments(data: bytes) -> bytes:
    """`data` with its comments blanked (string and character literals kept)."""
    return _NOISE.sub(lambda m: m.group() if m.group()[:1] in b"\"'" else _blank(m.group()),
                      data)


def code_bytes(data: bytes) -> bytes:
    """`data` with comments and string and character literals blanked, every byte of them a
    space (offsets kept): for a search that must find neither a word in a comment nor one
    in a literal."""
    return _NOISE.sub(lambda m: b" " * len(m.group()), data)


def code_only(data: bytes, inactive: list[tuple[int, int]] | tuple[()] = ()) -> bytes:
    """`data` with comments blanked, and the lines strictly inside each `inactive` range
    (clang's skipped ranges: from a conditional directive to the directive ending the
    branch) blanked too. The directive lines at both ends stay, so conditionals still
    pair up (`#ifdef X` ... `#else` is one range, its `#endif` another's or none)."""
    out = bytearray(blank_comments(data))
    for start, end in inactive:
        first = out.find(b"\n", start, end)
        last = out.rfind(b"\n", start, end)
        if first < 0 or last <= first:
            continue  # one or two lines: only the directives themselves
        out[first + 1:last + 1] = _blank(bytes(out[first + 1:last + 1]))
    return bytes(out)
