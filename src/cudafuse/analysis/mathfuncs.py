"""The C and C++ standard library's math functions (and their float/long double forms): pure,
and taking their arguments by value, never through a non-const reference. Host statements
calling them between launches are harmless (passes/vertical/host/hoststmts.py), and an element
passed to one is not written (analysis/evaluate.py), wherever the declaration comes from.
"""

from __future__ import annotations

MATH = frozenset(
    f"{base}{suffix}" for base in (
        "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "sin",
        "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "fabs",
        "fmin", "fmax", "floor", "ceil", "round", "lround", "trunc", "fmod", "erf", "erfc",
        "hypot", "rint", "lrint", "nearbyint", "copysign", "fdim", "fma", "ldexp")
    for suffix in ("", "f", "l")) | frozenset({
        "abs", "labs", "llabs", "min", "max", "isnan", "isinf", "isfinite", "signbit"})
