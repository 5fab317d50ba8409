"""Kernels the main file spells, counted from its text, to catch kernels the parse lost.

Clang's error recovery can drop declarations without an error at them: after one failed
`namespace cg = cooperative_groups;` every later kernel of the file may vanish, and the file
looks like one with no kernels. Reading `__global__` from the text (outside comments, string
literals, preprocessor directives and branches the preprocessor skipped) gives the kernels a
user expects to see, whatever the parse made of them.
"""

from __future__ import annotations

import ctypes
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

import clang.cindex as ci

from cudafuse.frontend.clang_api import libclang


@dataclass(frozen=True)
class SpelledKernel:
    name: str  # unqualified, without template arguments
    offset: int  # of the `__global__` token
    defined: bool = True  # a body follows (False: a declaration `...);`)


# Tokens that matter here; everything else (numbers, punctuation we do not track) is skipped.
_NOT_CODE = (
    rb"""(?P<comment>//[^\n]*|/\*.*?\*/)"""
    rb"""|(?P<string>(?:u8|[uUL])?R"(?P<delim>[^()\\\s]{0,16})\(.*?\)(?P=delim)"|"""
    rb"""(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')"""
    rb"""|(?P<directive>^[ \t]*\#(?:\\\r?\n|[^\n])*)""")
_TOKEN = re.compile(_NOT_CODE + rb"""|(?P<ident>[A-Za-z_]\w*)|(?P<punct>::|[()<>;{}=])""",
                    re.S | re.M)

# Identifiers between `__global__` and the kernel's name that take a parenthesised argument.
_ATTRIBUTE_CALLS = frozenset({b"__launch_bounds__", b"__maxnreg__", b"__attribute__",
                              b"__declspec", b"alignas", b"__align__", b"__cluster_dims__",
                              b"decltype", b"__nv_register_params__"})


def _tokens(data: bytes, skipped: list[tuple[int, int]]) -> list[tuple[int, str, bytes]]:
    return list(_tokens_from(data, 0, sorted(skipped)))


# The same scan as _TOKEN, for finding where `__global__` can be a token without making a
# token of every identifier: comments, strings and directives exactly as _TOKEN finds them,
# and runs of code between them in one match. A run takes identifiers whole (as _TOKEN does)
# and every character that cannot start a comment, a string, a directive or an identifier;
# it stops before an identifier that may start a prefixed string (u8"...", R"(...)": only
# one whose first letter is L, R, U or u needs the look ahead), where
# _TOKEN tries the string first, and before a line that is a directive (which starts only
# at a line's start).
_SCAN = re.compile(
    _NOT_CODE + rb"""|(?P<code>(?:[A-KM-QS-TV-Za-tv-z_]\w*|(?!(?:u8|[uUL])?R?")[LRUu]\w*"""
    rb"""|[^A-Za-z_"'/\n]+|\n(?![ \t]*\#))+)"""
    rb"""|(?P<ident>[A-Za-z_]\w*)""",
    re.S | re.M)
_GLOBAL = b"__global__"


class _Stream:
    """Tokens as _tokens gives them, from a token's start on, read as far as asked."""

    def __init__(self, data: bytes, start: int, skipped: list[tuple[int, int]]):
        self._it = _tokens_from(data, start, skipped)
        self._got: list[tuple[int, str, bytes]] = []

    def get(self, i: int) -> tuple[int, str, bytes] | None:
        while len(self._got) <= i:
            nxt = next(self._it, None)
            if nxt is None:
                return None
            self._got.append(nxt)
        return self._got[i]


def _tokens_from(data: bytes, start: int, skipped: list[tuple[int, int]]
                 ) -> Iterator[tuple[int, str, bytes]]:
    """The tokens that matter here (_TOKEN's identifiers and punctuation) from `start` on,
    as (offset, kind, text), none inside a `skipped` range (sorted by start)."""
    spans = iter(skipped)
    cur = next(spans, None)
    for m in _TOKEN.finditer(data, start):
        if m.lastgroup in ("comment", "string", "directive"):
            continue
        at = m.start()
        while cur is not None and cur[1] <= at:
            cur = next(spans, None)
        if cur is None or cur[0] > at:
            yield at, m.lastgroup or "", m.group()


def _skip_parens(toks: _Stream, i: int) -> int:
    """From toks[i] == '(' to just past its matching ')'."""
    depth = 0
    while (tok := toks.get(i)) is not None:
        text = tok[2]
        if text == b"(":
            depth += 1
        elif text == b")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def _is(toks: _Stream, i: int, text: bytes) -> bool:
    tok = toks.get(i)
    return tok is not None and tok[2] == text


def _name_after(toks: _Stream, i: int) -> tuple[str, int] | None:
    """The declarator name of the function whose `__global__` is toks[i - 1]: the last
    identifier before the parameter list's '(' (or before a specialisation's '<'), and the
    index of that bracket."""
    last = None
    while (tok := toks.get(i)) is not None:
        _, kind, text = tok
        if kind == "ident":
            if text in _ATTRIBUTE_CALLS and _is(toks, i + 1, b"("):
                i = _skip_parens(toks, i + 1)
                continue
            # A macro call before the name (`C10_LAUNCH_BOUNDS_2(256, 4) k(...)`): an
            # identifier other than `noexcept` right after its ')' means it was not the
            # parameter list.
            if _is(toks, i + 1, b"("):
                after = _skip_parens(toks, i + 1)
                nxt = toks.get(after)
                if nxt is not None and nxt[1] == "ident" and \
                        nxt[2] not in (b"noexcept", b"throw"):
                    i = after
                    continue
            last = text
        elif text == b"(" or text == b"<":
            if text == b"<" and last in (b"operator", None):
                return None
            return (last.decode(), i) if last else None
        elif text in (b";", b"{", b"}", b"="):
            return None
        i += 1
    return None


def _has_body(toks: _Stream, i: int) -> bool:
    """Whether the declaration whose name ends before toks[i] ('(' or '<') has a body: the
    first '{' or ';' after its parameter list."""
    while (tok := toks.get(i)) is not None and tok[2] != b"(":
        i += 1
    i = _skip_parens(toks, i)
    while (tok := toks.get(i)) is not None:
        text = tok[2]
        if text == b"{":
            return True
        if text in (b";", b"}", b"="):
            return False
        i += 1
    return False


def _global_tokens(data: bytes, skipped: list[tuple[int, int]]) -> Iterator[int]:
    """The offsets at which _tokens would give the identifier `__global__`, in order."""
    if _GLOBAL not in data:
        return
    for m in _SCAN.finditer(data):
        if m.lastgroup != "code":
            continue
        begin, end = m.span()
        at = data.find(_GLOBAL, begin, end)
        while at >= 0:
            if _ident_starts(data, begin, at) and not _is_word(data, at + len(_GLOBAL)) \
                    and not any(a <= at < b for a, b in skipped):
                yield at
            at = data.find(_GLOBAL, at + 1, end)


def _is_word(data: bytes, i: int) -> bool:
    return i < len(data) and (data[i] == 0x5F or chr(data[i]).isalnum() and data[i] < 0x80)


def _ident_starts(data: bytes, begin: int, at: int) -> bool:
    """Whether _TOKEN's scan, at a token boundary at `begin`, starts an identifier at `at`
    (data[at] a letter or '_'): the word characters before it, back to `begin`, are digits
    only (it skips a number's digits one by one, and takes a word from its first letter)."""
    j = at
    while j > begin and _is_word(data, j - 1):
        j -= 1
    return data[j:at].isdigit() or j == at


def spelled_kernels(data: bytes, skipped: list[tuple[int, int]]) -> list[SpelledKernel]:
    """Every `__global__` function declaration the text spells, in order (a kernel declared
    before it is defined appears twice)."""
    out = []
    skipped = sorted(skipped)
    for start in _global_tokens(data, skipped):
        toks = _Stream(data, start, skipped)
        found = _name_after(toks, 1)
        if found:
            out.append(SpelledKernel(found[0], start, _has_body(toks, found[1])))
    return out


class _RangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(ci.SourceRange))]


@functools.cache
def _skipped_api() -> ctypes.CDLL:
    lib = libclang()
    lib.clang_getSkippedRanges.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.clang_getSkippedRanges.restype = ctypes.POINTER(_RangeList)
    lib.clang_disposeSourceRangeList.argtypes = [ctypes.POINTER(_RangeList)]
    return lib


def skipped_ranges(tu: ci.TranslationUnit, path: str) -> list[tuple[int, int]]:
    """Byte ranges of the main file that the preprocessor skipped (#if 0, failed #ifdef...)."""
    lib = _skipped_api()
    try:
        f = ci.File.from_name(tu, path)
    except Exception:  # noqa: BLE001 - a file libclang does not know has no skipped range
        return []
    lst = lib.clang_getSkippedRanges(tu.obj, f.obj)
    if not lst:
        return []
    try:
        return [(lst.contents.ranges[i].start.offset, lst.contents.ranges[i].end.offset)
                for i in range(lst.contents.count)]
    finally:
        lib.clang_disposeSourceRangeList(lst)


def spelled_launches(data: bytes, skipped: list[tuple[int, int]] | None = None) -> list[int]:
    """Offsets of each launch's `<<<` the text spells (outside comments, strings, directives
    and `skipped` ranges): what the IR's launches can be compared with, as kernels are."""
    toks = _tokens(data, skipped or [])
    out = []
    for i in range(len(toks) - 2):
        start = toks[i][0]
        if all(toks[i + k][2] == b"<" and toks[i + k][0] == start + k for k in range(3)) and \
                not (i and toks[i - 1][2] == b"<" and toks[i - 1][0] == start - 1):
            out.append(start)
    return out
