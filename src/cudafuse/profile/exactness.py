"""What `--profile` checks about a fused variant's outputs, and with which nvcc flags.

cudafuse guarantees bit equality of fused and unfused outputs under IEEE compilation
(`--fmad=false`, no flush-to-zero, IEEE division and square root: docs/fp-exactness.md).
Under nvcc's default `--fmad=true`, NVVM picks which multiply of `a*b + c*d` to contract
by the code around it, so the fused and the unfused program may differ in the last bits of
a few elements (shitomasi on the H200: 1 element of 16M, by 1.9e-9) while neither is wrong.

So on the nvcc backend every program is built twice when the flags it ships with are not
IEEE already: once with `ieee_flags(user)` for the exactness check (a difference there,
beyond the spec's tolerance, is a bug in cudafuse), once with the user's flags for timing
(what they will ship). The timed builds' outputs are compared as well; a difference there
is a note (`contraction`), and the variant stays eligible.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

# The flags that decide floating-point contraction and rounding, each with the value IEEE
# compilation needs; nvcc spells them --name=value or -name=value (and `--name value`).
_IEEE = {"fmad": "false", "ftz": "false", "prec-div": "true", "prec-sqrt": "true"}
_FAST_MATH = ("--use_fast_math", "-use_fast_math")


def _name_of(flag: str) -> str:
    return flag.lstrip("-").split("=", 1)[0].replace("_", "-")


def _fp_flag(flag: str) -> str | None:
    """The name (fmad, ftz, prec-div, prec-sqrt, use-fast-math) when `flag` is one."""
    name = _name_of(flag)
    return name if name in _IEEE or name == "use-fast-math" else None


def _split(flags: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The flags as nvcc reads them: `--fmad false` is one flag of two words."""
    out: list[tuple[str, ...]] = []
    i = 0
    while i < len(flags):
        f = flags[i]
        if _name_of(f) in _IEEE and "=" not in f and i + 1 < len(flags):
            out.append((f, flags[i + 1]))
            i += 2
        else:
            out.append((f,))
            i += 1
    return out


def effective(flags: tuple[str, ...]) -> dict[str, str]:
    """The value of each of fmad, ftz, prec-div, prec-sqrt under `flags` (nvcc's rules:
    --use_fast_math sets fmad=true, ftz=true, prec-div=false, prec-sqrt=false; an explicit
    flag wins over it; the last of a flag wins)."""
    values = {"fmad": "true", "ftz": "false", "prec-div": "true", "prec-sqrt": "true"}
    explicit: dict[str, str] = {}
    fast = False
    for words in _split(flags):
        name = _fp_flag(words[0])
        if name == "use-fast-math":
            fast = True
        elif name is not None:
            value = words[1] if len(words) == 2 else words[0].split("=", 1)[-1]
            explicit[name] = value.lower()
    if fast:
        values.update({"fmad": "true", "ftz": "true", "prec-div": "false",
                       "prec-sqrt": "false"})
    values.update(explicit)
    return values


def is_ieee(flags: tuple[str, ...]) -> bool:
    """Whether `flags` already compile as the exactness check needs."""
    return effective(flags) == _IEEE


def ieee_flags(flags: tuple[str, ...]) -> tuple[str, ...]:
    """The user's flags with every floating-point mode flag replaced by its IEEE value:
    what the exactness check builds with. --use_fast_math goes (it implies fmad and ftz),
    and --fmad=false is always given (nvcc's default is true)."""
    kept = tuple(w for words in _split(flags) if _fp_flag(words[0]) is None for w in words)
    wanted = effective(())
    return (*kept, *(f"--{name}={value}" for name, value in _IEEE.items()
                     if wanted[name] != value or name == "fmad"))


@dataclass(frozen=True)
class BuildPlan:
    """The nvcc flags of the two builds of a program; `verify == timed`: one build."""

    verify: tuple[str, ...]
    timed: tuple[str, ...]

    @property
    def separate(self) -> bool:
        return self.verify != self.timed


def build_plan(user: tuple[str, ...], backend: str) -> BuildPlan:
    """The emulator has no contraction (g++ on x86-64 without -mfma emits no FMA) and
    takes no nvcc flags: one build, without them. nvcc: IEEE flags for the check, the
    user's for timing; one build when the user's flags are IEEE already."""
    if backend != "nvcc":
        return BuildPlan((), ())
    if is_ieee(user):
        return BuildPlan(user, user)
    return BuildPlan(ieee_flags(user), user)


@dataclass(frozen=True)
class Difference:
    """How one variant's outputs differ from the unfused program's, element by element."""

    elements: int = 0  # elements that are not bit-identical
    total: int = 0
    max_ulps: float = 0.0  # over the floating outputs (inf: a NaN against a number)
    integer: int = 0  # of `elements`, in integer outputs
    first: str = ""  # 'output[index]' of the first difference

    @property
    def exact(self) -> bool:
        return self.elements == 0

    def note(self, flags: str) -> str:
        """The note for a timed build that differs (the variant verified under IEEE)."""
        ulps = "a NaN against a number" if self.max_ulps == float("inf") else \
            f"max {self.max_ulps:.0f} ulp"
        ints = f", {self.integer} of them in integer outputs" if self.integer else ""
        return (f"differs from the unfused program under {flags} in {self.elements} of "
                f"{self.total} element(s) ({ulps}{ints}, first at {self.first}): nvcc's "
                "contraction choices; bit-exact under --fmad=false")


def _ordered(a: np.ndarray) -> np.ndarray:
    """Floats as integers whose difference counts the representable values between them
    (negative floats mirrored below zero), as float64 so that a difference cannot wrap."""
    ints = a.view({2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]).astype(np.int64)
    low = np.int64(np.iinfo({2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]).min)
    return np.where(ints < 0, low - ints, ints).astype(np.float64)


def difference(names: list[str], reference: list[np.ndarray], got: list[np.ndarray]
               ) -> Difference:
    """Elements of `got` not bit-identical to `reference` (NaN against NaN counts as
    equal), and the largest distance in units in the last place among float outputs."""
    elements = total = integer = 0
    worst = 0.0
    first = ""
    for name, want, have in zip(names, reference, got, strict=True):
        a, b = want.reshape(-1), have.reshape(-1)
        total += a.size
        if a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8)):
            continue
        if a.dtype.kind == "f" and b.dtype == a.dtype and a.dtype.itemsize in (2, 4, 8):
            nan_a, nan_b = np.isnan(a), np.isnan(b)
            differs = (a.view(np.uint8).reshape(a.size, -1) !=
                       b.view(np.uint8).reshape(b.size, -1)).any(axis=1) & ~(nan_a & nan_b)
            if (nan_a != nan_b)[differs].any():
                worst = float("inf")
            both = differs & ~nan_a & ~nan_b
            if both.any():
                ulps = np.abs(_ordered(a[both]) - _ordered(b[both]))
                worst = max(worst, float(ulps.max()))
        else:
            differs = a != b if a.shape == b.shape else np.ones(a.size, dtype=bool)
            integer += int(np.count_nonzero(differs))
        count = int(np.count_nonzero(differs))
        if count and not first:
            first = f"{name}[{int(np.argmax(differs))}]"
        elements += count
    return Difference(elements, total, worst, integer, first)


@dataclass(frozen=True)
class Verdict:
    """One fused variant against the unfused program."""

    wrong: str  # '': agrees (within the spec's tolerance) under the check's flags
    exact: Difference  # under the check's flags (IEEE on nvcc): elements not bit-identical
    timed: Difference | None  # the timed builds', when they are separate builds

    def notes(self, timed_flags: str) -> list[str]:
        out = []
        if not self.wrong and not self.exact.exact:
            out.append(f"not bit-identical to the unfused program under the exactness "
                       f"check's flags in {self.exact.elements} element(s) (max "
                       f"{self.exact.max_ulps:.0f} ulp), within the spec's tolerance "
                       "(e.g. float atomics adding in another order)")
        if self.timed is not None and not self.timed.exact:
            out.append(self.timed.note(timed_flags))
        return out


def judge(spec: Any, reference: list[np.ndarray], got: list[np.ndarray],
          timed_reference: list[np.ndarray] | None = None,
          timed_got: list[np.ndarray] | None = None) -> Verdict:
    """`got` (a variant's outputs under the check's flags) against `reference` (the
    unfused program's): beyond the spec's rtol/atol (integers exactly) it is wrong, a bug
    in cudafuse. The timed builds' outputs, when given, are only measured: nvcc's
    contraction choices under the user's flags are no error."""
    from cudafuse.runtime.spec import compare

    outputs = [a for a in spec.args if a.is_output]
    names = [a.name for a in outputs]
    wrong = ""
    for a, want, have in zip(outputs, reference, got, strict=True):
        if want.dtype == have.dtype and np.array_equal(want.reshape(-1).view(np.uint8),
                                                       have.reshape(-1).view(np.uint8)):
            continue  # compare() would find the same, at several times the cost
        c = compare(a, want.reshape(-1), have.reshape(-1), spec.rtol, spec.atol)
        if c.mismatches:
            wrong = (f"output '{a.name}' differs from the unfused program's in "
                     f"{c.mismatches} element(s), first at {c.first}")
            break
    timed = None
    if timed_reference is not None and timed_got is not None:
        timed = difference(names, timed_reference, timed_got)
    return Verdict(wrong, difference(names, reference, got), timed)
