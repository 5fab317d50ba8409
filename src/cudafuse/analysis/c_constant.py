"""An integer constant expression in C syntax (`(N <= MAX) ? N : FALLBACK`, as PyTorch's
launch-bound macros expand), evaluated with C's integer semantics for the operators it
allows; names are looked up in a table. Anything else is a ValueError: the caller then
knows nothing, rather than a guess."""

from __future__ import annotations

import re
from collections.abc import Callable

_TOKEN = re.compile(r"\s*(0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*"
                    r"|<<|>>|<=|>=|==|!=|&&|\|\||\S)")
_SUFFIX = re.compile(r"[uUlL]+$")

# Binary operators by precedence (higher binds tighter), as in C.
_BINARY: dict[str, tuple[int, Callable[[int, int], int]]] = {
    "||": (1, lambda a, b: int(bool(a) or bool(b))),
    "&&": (2, lambda a, b: int(bool(a) and bool(b))),
    "|": (3, lambda a, b: a | b), "^": (4, lambda a, b: a ^ b), "&": (5, lambda a, b: a & b),
    "==": (6, lambda a, b: int(a == b)), "!=": (6, lambda a, b: int(a != b)),
    "<": (7, lambda a, b: int(a < b)), "<=": (7, lambda a, b: int(a <= b)),
    ">": (7, lambda a, b: int(a > b)), ">=": (7, lambda a, b: int(a >= b)),
    "<<": (8, lambda a, b: a << b), ">>": (8, lambda a, b: a >> b),
    "+": (9, lambda a, b: a + b), "-": (9, lambda a, b: a - b),
    "*": (10, lambda a, b: a * b),
    "/": (10, lambda a, b: _quotient(a, b)),
    "%": (10, lambda a, b: a - b * _quotient(a, b)),
}


def _quotient(a: int, b: int) -> int:
    """C's integer division, truncated towards zero, exact at any size (int(a / b) goes
    through a float: wrong past 2^53, OverflowError past 1e308). b != 0: binary() checks."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def evaluate_c(text: str, names: dict[str, str]) -> int:
    """The value of `text`; a name maps to its own expression text (a macro's replacement,
    a constexpr's initialiser), evaluated in turn (at most 16 deep)."""
    return _Parser(text, names, 0).whole()


class _Parser:
    def __init__(self, text: str, names: dict[str, str], depth: int):
        if depth > 16:
            raise ValueError("names nested too deep")
        # Every non-space character starts a token (`\S` at worst): nothing is skipped.
        toks: list[str] = _TOKEN.findall(text)
        self.toks, self.i, self.names, self.depth = toks, 0, names, depth

    def whole(self) -> int:
        v = self.ternary()
        if self.i != len(self.toks):
            raise ValueError(f"unexpected {self.toks[self.i]!r}")
        return v

    def peek(self) -> str:
        return self.toks[self.i] if self.i < len(self.toks) else ""

    def take(self, want: str | None = None) -> str:
        t = self.peek()
        if not t or (want is not None and t != want):
            raise ValueError(f"expected {want or 'more'}")
        self.i += 1
        return t

    def ternary(self) -> int:
        cond = self.binary(1)
        if self.peek() != "?":
            return cond
        self.take("?")
        yes = self.ternary()
        self.take(":")
        no = self.ternary()
        return yes if cond else no

    def binary(self, level: int) -> int:
        left = self.unary()
        while (op := _BINARY.get(name := self.peek())) and op[0] >= level:
            self.i += 1
            right = self.binary(op[0] + 1)
            if name in ("/", "%") and right == 0 or \
                    (name in ("<<", ">>") and not 0 <= right < 64):
                raise ValueError("division by zero or an out-of-range shift")
            left = op[1](left, right)
        return left

    def unary(self) -> int:
        t = self.take()
        if t == "(":
            v = self.ternary()
            self.take(")")
            return v
        if t in ("-", "+", "!", "~"):
            v = self.unary()
            return {"-": -v, "+": v, "!": int(not v), "~": ~v}[t]
        if t[0].isdigit():
            digits = _SUFFIX.sub("", t)
            return int(digits, 16) if digits[:2].lower() == "0x" else \
                int(digits, 8) if digits.startswith("0") and len(digits) > 1 else int(digits)
        if t in self.names:
            return _Parser(self.names[t], self.names, self.depth + 1).whole()
        raise ValueError(f"unknown name {t!r}")
