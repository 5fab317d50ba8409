"""Respelling, offset for offset, what nvcc accepts and clang does not.

nvcc lexes and parses CUDA itself; clang, which the front end uses, is stricter in a few
places real code relies on. Each respelling keeps the file's length and every offset, so the
spans libclang reports still point into the user's text (SourceFile.original keeps the user's
bytes for outputs).
"""

from __future__ import annotations

import re

# nvcc lexes a launch's chevrons itself and accepts them split by spaces (`k << < g, b >> >
# (args)`, as code formatters leave them); clang needs `<<<` and `>>>` whole. `<<` followed
# by `<` can only be a launch in C++ (no expression starts with `<`).
_OPEN = re.compile(rb"<[ \t]*<[ \t]*<(?!<)")
_CLOSE = re.compile(rb">[ \t]*>[ \t]*>")


def join_split_chevrons(data: bytes) -> bytes | None:
    """`data` with each launch's split `<< <` ... `>> >` joined into `<<<` ... `>>>` and
    padded with spaces to the same length (every offset, so every span, stays the same);
    None when no launch is split."""
    if b"<<<" not in data and not _OPEN.search(data):
        return None
    out = bytearray(data)
    for m in _OPEN.finditer(data):
        out[m.start():m.end()] = b"<<<".ljust(m.end() - m.start())
        depth, i = 0, m.end()
        while i < len(data):  # the first '>>>' (spaced or not) outside brackets
            c = data[i]
            if c in b"([{":
                depth += 1
            elif c in b")]}":
                depth -= 1
            elif c == ord(">") and depth == 0:
                close = _CLOSE.match(data, i)
                if close:
                    out[close.start():close.end()] = b">>>".ljust(close.end() - close.start())
                    break
            elif c == ord(";"):
                break
            i += 1
    return bytes(out) if out != data else None


# nvcc takes `__shared__ alignas(16) float a[...]`; clang rejects a C++11 attribute after
# the GNU attribute that __shared__ is. Swapping the two keeps the length.
_SPACE_THEN_ALIGNAS = re.compile(
    rb"\b(__shared__|__constant__|__device__|__managed__)([ \t]+)"
    rb"(alignas[ \t]*\((?:[^()\n]|\([^()\n]*\))*\))")


def swap_space_alignas(data: bytes) -> bytes | None:
    """`alignas(...) __shared__` for each `__shared__ alignas(...)` (same length); None if
    there is none."""
    if b"alignas" not in data:
        return None
    out = _SPACE_THEN_ALIGNAS.sub(lambda m: m.group(3) + m.group(2) + m.group(1), data)
    return out if out != data else None


# nvcc takes an inline-assembly operand list without a comma between two operands
# (`:: "r"(v) "l"(p)`); clang and g++ do not. After an operand's closing parenthesis only `,`,
# `:` or the statement's `)` may follow, so a constraint string there is the next operand:
# the whitespace before it becomes the comma.
_ASM = re.compile(rb"\b(?:asm|__asm__|__asm)\b[ \t]*(?:(?:volatile|__volatile__|inline|goto)"
                  rb"[ \t]*)*\(")
_MISSING_COMMA = re.compile(rb'\)([ \t\r\n])(\s*)(?=(?:\[\w+\]\s*)?"[^"\n]*"\s*\()')


def comma_between_asm_operands(data: bytes) -> bytes | None:
    """Each asm statement's operands separated by commas where nvcc let them touch (same
    length: a whitespace character becomes the comma); None when none is missing."""
    if b"asm" not in data:
        return None
    out = bytearray(data)
    for m in _ASM.finditer(data):
        depth, i, colon = 0, m.end() - 1, False
        while i < len(data):  # to the statement's closing parenthesis, strings skipped
            c = data[i]
            if c == ord('"'):
                j = i + 1
                while j < len(data) and data[j] != ord('"'):
                    j += 2 if data[j] == ord("\\") else 1
                i = j + 1
                continue
            depth += c == ord("(")
            depth -= c == ord(")")
            colon = colon or (c == ord(":") and depth == 1)
            if depth == 0:
                break
            if c == ord(")") and depth == 1 and colon:
                gap = _MISSING_COMMA.match(data, i)
                if gap:
                    out[gap.start(1)] = ord(",")
            i += 1
    return bytes(out) if out != data else None


def clang_spelling(data: bytes) -> bytes | None:
    """`data` respelled, offset for offset, where nvcc accepts what clang does not (None when
    nothing needs it)."""
    changed = False
    for respell in (join_split_chevrons, swap_space_alignas, comma_between_asm_operands):
        new = respell(data)
        if new is not None:
            data, changed = new, True
    return data if changed else None
