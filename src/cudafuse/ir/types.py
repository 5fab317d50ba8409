"""C scalar types as the IR spells them (`Expr.type`, `VarDecl.var_type`): which are
integers and how wide, which wrap around, which are floating point and how precise. The
kernel stage (guards, constant arguments) and the host stage (grid sizes) ask the same
questions of the same spellings."""

from __future__ import annotations

import re

FLOAT_BITS = {"float": 24, "double": 53, "long double": 64}


def _base_type(t: str) -> str:
    """`t` without qualifiers and a leading std:: or ::."""
    t = t.replace("const ", "").replace("volatile ", "").strip()
    return t.removeprefix("std::").removeprefix("::")


def unqualified(t: str) -> str:
    """`t` without cv or restrict qualifiers at any level, `*` spaced one way (`const float
    *__restrict__` and `float*` are one spelling), for comparing types as written."""
    t = re.sub(r"\b(?:const|volatile|__restrict__|__restrict|restrict)\b", " ", t)
    return " ".join(t.replace("*", " * ").split())


def float_bits(t: str) -> int | None:
    """The significand's bits of a floating-point type; None for any other type."""
    return FLOAT_BITS.get(_base_type(t))


_INT_BITS = {"bool": 1, "char": 8, "signed char": 8, "unsigned char": 8, "short": 16,
             "unsigned short": 16, "short int": 16, "int": 32, "unsigned int": 32,
             "unsigned": 32, "int8_t": 8, "uint8_t": 8, "int16_t": 16, "uint16_t": 16,
             "int32_t": 32, "uint32_t": 32}


def int_bits(t: str) -> int:
    """The width of an integer type (64 when not known to be narrower)."""
    return _INT_BITS.get(_base_type(t), 64)


def is_integral(t: str) -> bool:
    b = _base_type(t)
    return bool(b) and float_bits(b) is None and b != "dim3" and "*" not in b and (
        b in _INT_BITS or any(w in b for w in ("int", "long", "short", "char", "size_t",
                                              "unsigned", "bool")))


def is_unsigned(t: str) -> bool:
    """Whether arithmetic in integer type `t` wraps around instead of going negative."""
    return any(w in _base_type(t) for w in ("unsigned", "size_t", "uint"))
