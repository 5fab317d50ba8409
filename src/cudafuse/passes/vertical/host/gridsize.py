"""A lower bound on grid * block for one dimension of a launch, read from the grid's text.

`lower_bounds(resolver, g, block, dim)` returns linear forms L, one per case of the
remainder tests the grid makes, with grid * block >= L in that case, plus the conditions
the bound needs (a numerator that is not negative, an integer converted exactly to float).
The grid may be written

- `(n + b - 1) / b`, `(n - 1) / b + 1`: integer division by the block size b truncates, so
  `N / b * b >= N - b + 1` (for a negative N too: truncation rounds up there);
- `n / b + (n % b != 0)`, `n / b + (n % b ? 1 : 0)`, `n % b ? n / b + 1 : n / b` (cuda-samples'
  iDivUp): each remainder test splits the cases; where `n % b == 0` the division is exact;
- `ceil((float)n / (float)b)`, `ceilf(n / (float)b)`, `std::ceil((double)n / b)`, cast back
  to an integer: `ceil(fl(n) / fl(b)) * b >= n` when n and b are integers of magnitude at
  most 2**p, p the significand's bits (24 for float, 53 for double), under IEEE
  round-to-nearest division. Proof: n = k*b + r, 0 < r < b, is exact, as is k; the quotient
  n / b = k + r / b lies at least 1/b above k, and the float above k is k + ulp(k) with
  ulp(k) <= k * 2**(1-p), so rounding down to k needs r / b <= ulp(k) / 2 <= k * 2**-p,
  r <= k * b * 2**-p < n * 2**-p <= 1: impossible. At n = 2**24 + 1, float fails for every
  power-of-two block: fl(n) = 2**24, and 2**24 / b blocks cover only 2**24 elements;
- through never-reassigned locals (`int blocks = ...;`), `const`/`constexpr` values and
  macros, `dim3` members (`block.x`), and helpers whose body is one `return` (`div_up`,
  `iDivUp`: their body is read, their name is not trusted).

Arithmetic is taken not to overflow (as for the index arithmetic elsewhere).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from cudafuse.ir import nodes as n
from cudafuse.ir.types import float_bits, int_bits, is_integral
from cudafuse.passes.vertical.host.linear import Linear
from cudafuse.passes.vertical.host.linear import add as _add
from cudafuse.passes.vertical.host.linear import scale as _scale

if TYPE_CHECKING:
    from cudafuse.passes.vertical.host.resolver import Resolver

CEILS = ("ceil", "ceilf", "ceill", "std::ceil", "__builtin_ceil", "__builtin_ceilf")
MAX_CASES = 8


class NotShown(Exception):
    """The grid's form is not understood: the message says which part."""


class _Split(Exception):
    def __init__(self, key: Linear):
        super().__init__()
        self.key = key


@dataclasses.dataclass
class Case:
    """One case of a grid size: grid * block >= low, under the recorded conditions."""

    low: Linear
    nonneg: list[Linear]  # numerators the bound assumes >= 0
    exact: list[tuple[Linear, int, int, n.Expr]]  # (N, bits of float, bits of N's type, text)
    floors: list[tuple[Linear, str, str, str]]  # rounded-down divisions: N, N, b, N / b texts


def text(e: n.Expr) -> str:
    """Source-like text of a host expression, for notes."""
    if isinstance(e, n.IntLit):
        return str(e.value)
    if isinstance(e, n.FloatLit):
        return repr(e.value)
    if isinstance(e, n.Ref):
        return e.name
    if isinstance(e, n.Member):
        return f"{text(e.base)}{'->' if e.arrow else '.'}{e.field_name}"
    if isinstance(e, n.Cast):
        inner = text(e.operand)
        if not e.explicit:
            return inner
        if isinstance(e.operand, (n.Binary, n.Cond)):
            inner = f"({inner})"
        return f"({e.type}){inner}"
    if isinstance(e, n.Call):
        return f"{e.callee}({', '.join(text(a) for a in e.args)})"
    if isinstance(e, n.Unary):
        return f"{e.operand}{e.op}" if e.postfix else f"{e.op}{text(e.operand)}"
    if isinstance(e, n.Cond):
        return f"{_paren(e.cond)} ? {_paren(e.then)} : {_paren(e.else_)}"
    if isinstance(e, n.Binary):
        return f"{_paren(e.lhs)} {e.op} {_paren(e.rhs)}"
    return "..."


def _paren(e: n.Expr) -> str:
    inner = e.operand if isinstance(e, n.Cast) and not e.explicit else e
    return f"({text(e)})" if isinstance(inner, (n.Binary, n.Cond)) else text(e)


class GridBound:
    """Lower bounds of grid * block (one dimension) over the grid's remainder cases."""

    def __init__(self, resolver: Resolver, block: Linear):
        self.r = resolver
        self.block = block

    def cases(self, g: n.Expr) -> list[Case]:
        todo: list[dict[Linear, bool]] = [{}]
        out: list[Case] = []
        while todo:
            facts = todo.pop()
            case = Case(((), 0), [], [], [])
            try:
                case.low = self._low(g, facts, case, 0)
            except _Split as s:
                if len(todo) + len(out) >= MAX_CASES:
                    raise NotShown("it tests too many remainders") from None
                todo += [{**facts, s.key: True}, {**facts, s.key: False}]
                continue
            out.append(case)
        return out

    # -- integer expressions: grid * block >= result -------------------------------------------

    def _times_block(self, v: Linear) -> Linear:
        if not v[0]:
            return _scale(self.block, v[1])
        if not self.block[0]:
            return _scale(v, self.block[1])
        raise NotShown("it multiplies two unknown sizes")

    def _lin(self, e: n.Expr) -> Linear:
        lin = self.r.linear(e)
        if lin is None:
            raise NotShown("it is not a simple expression")
        return lin

    def _low(self, e: n.Expr, facts: dict[Linear, bool], case: Case, depth: int) -> Linear:
        if depth > 30:
            raise NotShown("it is nested too deeply")
        d = depth + 1
        if isinstance(e, n.Cast):
            if (float_bits(e.operand.type) is not None or self._is_ceil(e.operand)) and \
                    is_integral(e.type):
                return self._trunc(e.operand, facts, case, d)
            if is_integral(e.type) or not e.type:
                return self._low(e.operand, facts, case, d)
            raise NotShown(f"it converts to '{e.type}'")
        if float_bits(e.type) is not None:  # an implicit float -> integer conversion
            return self._trunc(e, facts, case, d)
        if isinstance(e, n.Ref):
            if e.kind == "param" and e.decl in self.r.params:
                return self._times_block(self._lin(e))
            loc = self.r.locals.get(e.decl)
            if loc is not None and loc.init is not None and \
                    loc.var_type.replace("const ", "").strip() != "dim3":
                init = loc.init
                if float_bits(init.type) is not None and is_integral(loc.var_type):
                    return self._trunc(init, facts, case, d)
                return self._low(init, facts, case, d)
            return self._times_block(self._lin(e))
        if isinstance(e, n.Member) and e.field_name in ("x", "y", "z"):
            comps = self.r.dim3(e.base)
            if comps is not None:
                return self._low(comps["xyz".index(e.field_name)], facts, case, d)
            return self._times_block(self._lin(e))
        if isinstance(e, n.Call):
            body = self.r.inline(e)
            if body is None:
                raise NotShown(f"it calls '{e.callee}', whose body is not one return")
            return self._low(body, facts, case, d)
        if isinstance(e, n.Cond):
            key, nonzero = self._remainder_test(e.cond, case)
            if key not in facts:
                raise _Split(key)
            return self._low(e.then if facts[key] == nonzero else e.else_, facts, case, d)
        if isinstance(e, n.Binary) and e.op in ("!=", "==", ">", "<", "!") or \
                isinstance(e, n.Unary) and e.op == "!":
            key, nonzero = self._remainder_test(e, case)
            if key not in facts:
                raise _Split(key)
            return self._times_block(((), int(facts[key] == nonzero)))
        if isinstance(e, n.Binary) and e.op == "/":
            num, den = self._lin(e.lhs), self._lin(e.rhs)
            if den != self.block:
                raise NotShown("it divides by something other than its block's size")
            if facts.get(num) is False:  # num % b == 0: exact
                return num
            if not num[0] and not den[0] and den[1] > 0 and num[1] >= 0:
                return ((), num[1] // den[1] * den[1])
            case.floors.append((num, _paren(e.lhs), _paren(e.rhs), text(e)))
            return _add(_add(num, self.block, -1), ((), 1), 1)
        if isinstance(e, n.Binary) and e.op == "+":
            return _add(self._low(e.lhs, facts, case, d), self._low(e.rhs, facts, case, d), 1)
        if isinstance(e, n.Binary) and e.op == "-":
            sub = self._lin(e.rhs)
            if any(isinstance(x, n.Binary) and x.op in ("/", "%") for x in e.rhs.walk()):
                raise NotShown("it subtracts a division")
            return _add(self._low(e.lhs, facts, case, d), self._times_block(sub), -1)
        if isinstance(e, n.Binary) and e.op == "*":
            for k, other in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
                kl = self.r.linear(k)
                if kl is not None and not kl[0] and kl[1] >= 0:
                    return _scale(self._low(other, facts, case, d), kl[1])
        if isinstance(e, (n.IntLit, n.BoolLit)) or isinstance(e, n.Binary) and \
                e.op in ("*", "<<") and not any(isinstance(x, n.Binary) and x.op in ("/", "%")
                                                for x in e.walk()):
            return self._times_block(self._lin(e))
        raise NotShown("it is not a rounded-up division")

    def _is_ceil(self, e: n.Expr) -> bool:
        """A call of the library's ceil (not of a function of this file named so)."""
        return isinstance(e, n.Call) and e.callee in CEILS and len(e.args) == 1 and not (
            self.r.unit is not None and e.callee_decl and self.r.unit.callee(e.callee_decl))

    def _remainder_test(self, c: n.Expr, case: Case) -> tuple[Linear, bool]:
        """(N, t) for a test that is true exactly when (N % b != 0) == t."""
        while isinstance(c, n.Cast):
            c = c.operand
        if isinstance(c, n.Unary) and c.op == "!":
            key, t = self._remainder_test(c.operand, case)
            return key, not t
        if isinstance(c, n.Binary) and c.op in ("!=", "==", ">", "<"):
            for rem, zero, op in ((c.lhs, c.rhs, c.op), (c.rhs, c.lhs, {">": "<", "<": ">"}
                                                        .get(c.op, c.op))):
                z = self.r.linear(zero)
                if z == ((), 0) and op != "<":
                    key, t = self._remainder_test(rem, case)
                    if op == ">":  # N % b > 0 is N % b != 0 only where N >= 0
                        case.nonneg.append(key)
                    return key, t if op != "==" else not t
            raise NotShown("it tests something other than a remainder")
        if isinstance(c, n.Binary) and c.op == "%":
            if self._lin(c.rhs) != self.block:
                raise NotShown("it tests a remainder of something other than its block's size")
            return self._lin(c.lhs), True
        raise NotShown("it tests something other than a remainder")

    # -- floating-point expressions converted to an integer ------------------------------------

    def _trunc(self, x: n.Expr, facts: dict[Linear, bool], case: Case, depth: int) -> Linear:
        """grid * block >= result for grid = (integer) x, x floating."""
        bits = 64
        while isinstance(x, n.Cast) and float_bits(x.type) is not None and \
                float_bits(x.operand.type) is not None:
            bits = min(bits, float_bits(x.type) or 0)  # a quotient rounded to a narrower type
            x = x.operand
        if self._is_ceil(x):
            assert isinstance(x, n.Call)
            arg = x.args[0]
            while isinstance(arg, n.Cast) and float_bits(arg.type) is not None:
                bits = min(bits, float_bits(arg.type) or 0)
                arg = arg.operand
            if is_integral(arg.type):  # ceil of an integer (division): that integer
                return self._low(arg, facts, case, depth + 1)
            return self._fdiv(arg, case, bits)
        if isinstance(x, n.Binary) and x.op == "/":
            num = self._fdiv(x, case, bits)
            if not num[0] and not self.block[0] and self.block[1] > 0:
                # N and b known and exact: the float quotient rounds to N / b, or above it
                return ((), num[1] // self.block[1] * self.block[1])
            case.floors.append((num, _paren(self._integer_operand(x.lhs, 64)[0]),
                                _paren(self._integer_operand(x.rhs, 64)[0]), text(x)))
            return _add(_add(num, self.block, -1), ((), 1), 1)
        if isinstance(x, n.Cast) and is_integral(x.operand.type):
            return self._low(x.operand, facts, case, depth + 1)
        raise NotShown("it converts a floating-point value other than ceil(n / b)")

    def _fdiv(self, q: n.Expr, case: Case, bits: int) -> Linear:
        """N for a floating division N / b whose operands are integers converted exactly
        (and whose quotient is rounded to at most `bits` significand bits)."""
        if not (isinstance(q, n.Binary) and q.op == "/" and float_bits(q.type) is not None):
            raise NotShown("it takes ceil of something other than a division n / b")
        bits = min(bits, float_bits(q.type) or 0)
        num_e, nb = self._integer_operand(q.lhs, bits)
        den_e, _ = self._integer_operand(q.rhs, bits)
        num = self._lin(num_e)
        if self._lin(den_e) != self.block:
            raise NotShown("it divides by something other than its block's size")
        case.nonneg.append(num)
        case.exact.append((num, nb, int_bits(num_e.type), num_e))
        return num

    def _integer_operand(self, e: n.Expr, bits: int) -> tuple[n.Expr, int]:
        """The integer expression a floating operand converts, and the narrowest float
        precision on the way."""
        while True:
            if self._is_ceil(e) and _converts_integer(e.args[0]):  # type: ignore[attr-defined]
                e = e.args[0]  # ceil of an integer converted to float is that integer
                continue
            if isinstance(e, n.Cast) and float_bits(e.type) is not None:
                bits = min(bits, float_bits(e.type) or 0)
                e = e.operand
                continue
            break
        if isinstance(e, n.FloatLit) and e.value == int(e.value) and abs(e.value) <= 2 ** 24:
            return n.IntLit(int(e.value), type="int"), bits  # 256.0f: exact in any float
        if float_bits(e.type) is not None or not is_integral(e.type or "int"):
            raise NotShown("it divides floating-point values that are not integers converted")
        inner = e
        while isinstance(inner, n.Cast) and is_integral(inner.operand.type):
            if int_bits(inner.type) < int_bits(inner.operand.type):
                raise NotShown(f"it narrows an integer to '{inner.type}' before dividing")
            inner = inner.operand
        return e, bits


def _converts_integer(e: n.Expr) -> bool:
    while isinstance(e, n.Cast) and float_bits(e.type) is not None:
        e = e.operand
    return is_integral(e.type)
