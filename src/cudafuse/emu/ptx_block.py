"""Inline PTX of several instructions, translated into C++ for the emulator.

Libraries write short PTX sequences in `asm` (ccminer's cuda_helper.h: `{ .reg .b32 x, y;
mov.b64 {x,y}, %1; prmt.b32 x, x, 0, 0x0123; ... }`, 64-bit multiplies through
`mad.lo.cc.u32`/`madc`). Each becomes a GNU statement expression: the operands copied into
typed locals (`"r"` 32 bits, `"l"` 64, `"h"` 16, `"f"` float, `"d"` double), the `.reg`
declarations made locals (PTX's `{ }` scopes kept as C++ blocks), one C++ statement per
instruction over cudafuse_emu_ptx.h's helpers, with the PTX ISA's semantics (wrapping
integer arithmetic, shift amounts clamped to the width, the carry flag of `.cc`/`addc`/
`subc`/`madc`), then the outputs stored. An instruction outside the set below (a predicate,
`setp`, shared memory, a float conversion...) is not translated: `why_not` names it, and
the caller refuses the statement at its place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CTYPE = {"b8": "uint8_t", "u8": "uint8_t", "s8": "int8_t", "b16": "uint16_t",
          "u16": "uint16_t", "s16": "int16_t", "b32": "uint32_t", "u32": "uint32_t",
          "s32": "int32_t", "b64": "uint64_t", "u64": "uint64_t", "s64": "int64_t",
          "f32": "float", "f64": "double", "pred": "bool"}
_CONSTRAINT = {"r": "uint32_t", "l": "uint64_t", "h": "uint16_t", "f": "float",
               "d": "double", "n": "long long", "c": "uint8_t"}
_WIDER = {"u16": "u32", "s16": "s32", "u32": "u64", "s32": "s64", "b32": "b64"}
_BINARY = {"and": "&", "or": "|", "xor": "^"}
_IMMEDIATE = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|\d+)[uU]?\Z")
_NAME = re.compile(r"[A-Za-z_$%][\w$]*\Z")


class Untranslated(Exception):
    """The PTX (an instruction, an operand) that the translation does not cover."""


@dataclass
class _Scope:
    names: dict[str, str]


# prefetch{,u}'s state spaces, levels and eviction priorities (`prefetch.global.L2::evict_last`
# splits at its dots into these)
_PREFETCH = {"global", "local", "L1", "L2", "L2::evict_last", "L2::evict_normal"}


def _unescape(template: str) -> str:
    # `%%` is a literal `%` in a template with operands (`.reg .pred %%p`)
    text = template.replace("\\n", "\n").replace("\\t", " ").replace('\\"', '"')
    text = text.replace("%%", "%")
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def _statements(text: str) -> list[str]:
    """`{`, `}` (scopes) and the statements between `;`s; braces inside a statement
    (vector operands) stay in it."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "{}":
            out.append(c)
            i += 1
        else:
            j = text.find(";", i)
            j = len(text) if j < 0 else j
            out.append(" ".join(text[i:j].split()))
            i = j + 1
    return [s for s in out if s]


def _split_operands(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for c in text:
        depth += c in "{["
        depth -= c in "}]"
        if c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


class _Translator:
    def __init__(self, operands: list[tuple[str, str]], n_out: int):
        self.operands = operands
        self.n_out = n_out
        self.scopes = [_Scope({})]
        self.lines: list[str] = []
        self.count = 0

    def name(self, reg: str) -> str:
        for scope in reversed(self.scopes):
            if reg in scope.names:
                return scope.names[reg]
        raise Untranslated(f"register '{reg}' is not declared")

    def value(self, text: str, ctype: str) -> str:
        """An operand read as the instruction's type."""
        text = text.strip()
        m = re.fullmatch(r"%(\d+)", text)
        if m:
            if int(m.group(1)) >= len(self.operands):
                raise Untranslated(f"operand '{text}' is not given")
            return f"(({ctype})__cf_op{m.group(1)})"
        if _IMMEDIATE.match(text):
            return f"(({ctype}){text.rstrip('uU')}ll)"
        if _NAME.match(text):
            return f"(({ctype}){self.name(text)})"
        raise Untranslated(f"operand '{text}'")

    def target(self, text: str) -> str:
        text = text.strip()
        m = re.fullmatch(r"%(\d+)", text)
        if m:
            if int(m.group(1)) >= len(self.operands):
                raise Untranslated(f"operand '{text}' is not given")
            return f"__cf_op{m.group(1)}"
        if _NAME.match(text):  # a declared register (`%p` too; a special one is not)
            return self.name(text)
        raise Untranslated(f"destination '{text}'")

    def emit(self, line: str) -> None:
        self.lines.append(line)

    def declare(self, stmt: str) -> None:
        m = re.fullmatch(r"\.reg \.(\w+) (.+)", stmt)
        if not m or m.group(1) not in _CTYPE:
            raise Untranslated(f"declaration '{stmt}'")
        for reg in _split_operands(m.group(2)):
            if not _NAME.match(reg):
                raise Untranslated(f"declaration '{stmt}'")
            self.count += 1
            c_name = f"__cf_reg{self.count}"
            self.scopes[-1].names[reg] = c_name
            self.emit(f"{_CTYPE[m.group(1)]} {c_name} = 0;")

    def instruction(self, stmt: str) -> None:
        if stmt.startswith("@"):
            raise Untranslated(f"predicated instruction '{stmt}'")
        op, _, rest = stmt.partition(" ")
        args = _split_operands(rest)
        parts = op.split(".")
        base, mods = parts[0], parts[1:]
        if base in ("bar", "barrier"):
            if not self._barrier(mods, args):
                raise Untranslated(f"instruction '{op}' with these operands")
            return
        if base in ("prefetch", "prefetchu"):
            # a cache hint: no effect on what a program computes (the operand is not read)
            if not set(mods) <= _PREFETCH or len(args) != 1 or not args[0].startswith("["):
                raise Untranslated(f"instruction '{op}' with these operands")
            return
        kind = mods[-1] if mods else ""
        ctype = _CTYPE.get(kind)
        handler = getattr(self, f"_op_{base}", None)
        if handler is None or ctype is None:
            raise Untranslated(f"instruction '{op}'")
        if not handler(mods, kind, ctype, args):
            raise Untranslated(f"instruction '{op}' with these operands")

    # -- instructions ------------------------------------------------------------------

    def _pred(self, text: str) -> str:
        """A predicate operand, maybe negated (`!p`)."""
        text = text.strip()
        if text.startswith("!"):
            return f"(!{self.value(text[1:], 'bool')})"
        return self.value(text, "bool")

    _SETP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
             "lo": "<", "ls": "<=", "hi": ">", "hs": ">="}

    def _op_setp(self, mods, kind, ctype, args) -> bool:
        """setp.CMP.TYPE p, a, b (no `p|q` pair, no combining .and/.or with a third)."""
        if len(args) != 3 or "|" in args[0] or len(mods) < 2 or mods[0] not in self._SETP:
            return False
        if set(mods[1:-1]) - {"ftz"} or kind == "pred":
            return False
        cmp, a, b = mods[0], self.value(args[1], ctype), self.value(args[2], ctype)
        if cmp in ("lo", "ls", "hi", "hs") and not kind.startswith(("u", "b")):
            return False
        if kind.startswith("f") and cmp == "ne":  # ordered: false when either is NaN
            self.emit(f"{self.target(args[0])} = {a} == {a} && {b} == {b} && {a} != {b};")
        else:
            self.emit(f"{self.target(args[0])} = {a} {self._SETP[cmp]} {b};")
        return True

    def _op_selp(self, mods, kind, ctype, args) -> bool:
        if len(args) != 4 or len(mods) != 1:
            return False
        d, a, b, c = args
        self.emit(f"{self.target(d)} = {self._pred(c)} ? {self.value(a, ctype)} : "
                  f"{self.value(b, ctype)};")
        return True

    def _barrier(self, mods, args) -> bool:
        """bar.sync a[, b], barrier.sync[.aligned] a[, b], and the reducing
        bar.red.popc.u32 / .and.pred / .or.pred d, a[, b], [!]c: the emulator's barriers."""
        mods = [m for m in mods if m != "aligned"]
        if mods == ["sync"] and len(args) in (1, 2):
            ids = [self.value(x, "int") for x in args]
            if len(ids) == 1:
                self.emit(f"::__cf_emu::__cf_bar_sync_all({ids[0]}, __FILE__, __LINE__);")
            else:
                self.emit(f"::__cf_emu::__cf_bar_sync({ids[0]}, {ids[1]}, __FILE__, __LINE__);")
            return True
        kinds = {("red", "popc", "u32"): 0, ("red", "and", "pred"): 1, ("red", "or", "pred"): 2}
        kind = kinds.get(tuple(mods))
        if kind is None or len(args) not in (3, 4):
            return False
        d, ids, c = args[0], [self.value(x, "int") for x in args[1:-1]], self._pred(args[-1])
        count = ids[1] if len(ids) == 2 else "0"
        self.emit(f"{self.target(d)} = ::__cf_emu::__cf_bar_red_ptx({kind}, {ids[0]}, {count}, "
                  f"{c}, __FILE__, __LINE__);")
        return True

    def _op_mov(self, mods, kind, ctype, args) -> bool:
        if len(mods) != 1 or len(args) != 2:
            return False
        dst, src = args
        half = {"b64": "uint32_t", "b32": "uint16_t"}.get(kind)
        bits = {"b64": 32, "b32": 16}.get(kind)
        if dst.startswith("{") and half:  # unpack into the halves, low first
            lo, hi = _split_operands(dst[1:-1])
            v = self.value(src, ctype)
            self.emit(f"{self.target(lo)} = ({half}){v};")
            self.emit(f"{self.target(hi)} = ({half})({v} >> {bits});")
            return True
        if src.startswith("{") and half:  # pack the halves, low first
            lo, hi = _split_operands(src[1:-1])
            self.emit(f"{self.target(dst)} = ({ctype})(({ctype}){self.value(lo, half)} | "
                      f"(({ctype}){self.value(hi, half)} << {bits}));")
            return True
        self.emit(f"{self.target(dst)} = {self.value(src, ctype)};")
        return True

    def _arith(self, mods, kind, ctype, args, name: str) -> bool:
        """add/sub/addc/subc with .cc: the carry (borrow) flag in __cf_cc."""
        if len(args) != 3 or kind.startswith("f"):
            return False
        cc = "cc" in mods
        if set(mods) - {"cc", kind}:
            return False
        d, a, b = args
        unsigned = ctype.replace("int", "uint") if not ctype.startswith("u") else ctype
        carry_in = "true" if name.endswith("c") else "false"
        self.emit(f"{self.target(d)} = ({ctype})::__cf_emu::__cf_ptx::__cf_{name.rstrip('c')}_cc"
                  f"<{unsigned}>({self.value(a, unsigned)}, {self.value(b, unsigned)}, "
                  f"__cf_cc, {carry_in}, {str(cc).lower()});")
        return True

    def _op_add(self, mods, kind, ctype, args) -> bool:
        return self._arith(mods, kind, ctype, args, "add")

    def _op_addc(self, mods, kind, ctype, args) -> bool:
        return self._arith(mods, kind, ctype, args, "addc")

    def _op_sub(self, mods, kind, ctype, args) -> bool:
        return self._arith(mods, kind, ctype, args, "sub")

    def _op_subc(self, mods, kind, ctype, args) -> bool:
        return self._arith(mods, kind, ctype, args, "subc")

    def _product(self, mods, kind, ctype, a, b) -> tuple[str, str] | None:
        """(the product's part named by .lo/.hi/.wide, its C type)."""
        part = next((m for m in mods if m in ("lo", "hi", "wide")), None)
        if part is None or kind[0] not in "us":
            return None
        if part == "wide":
            wide = _WIDER.get(kind)
            if wide is None:
                return None
            wtype = _CTYPE[wide]
            return f"(({wtype}){self.value(a, ctype)} * ({wtype}){self.value(b, ctype)})", \
                wtype
        fn = "mul_hi" if part == "hi" else "mul_lo"
        return f"::__cf_emu::__cf_ptx::__cf_{fn}<{ctype}>({self.value(a, ctype)}, " \
            f"{self.value(b, ctype)})", ctype

    def _op_mul(self, mods, kind, ctype, args) -> bool:
        if len(args) != 3 or set(mods) - {"lo", "hi", "wide", kind}:
            return False
        got = self._product(mods, kind, ctype, args[1], args[2])
        if got is None:
            return False
        self.emit(f"{self.target(args[0])} = {got[0]};")
        return True

    def _mad(self, mods, kind, ctype, args, carry_in: bool) -> bool:
        if len(args) != 4 or set(mods) - {"lo", "hi", "wide", "cc", kind}:
            return False
        got = self._product(mods, kind, ctype, args[1], args[2])
        if got is None:
            return False
        product, ptype = got
        unsigned = ptype.replace("int", "uint") if not ptype.startswith("u") else ptype
        self.emit(f"{self.target(args[0])} = ({ptype})::__cf_emu::__cf_ptx::__cf_add_cc<{unsigned}>"
                  f"(({unsigned}){product}, {self.value(args[3], unsigned)}, __cf_cc, "
                  f"{str(carry_in).lower()}, {str('cc' in mods).lower()});")
        return True

    def _op_mad(self, mods, kind, ctype, args) -> bool:
        return self._mad(mods, kind, ctype, args, False)

    def _op_madc(self, mods, kind, ctype, args) -> bool:
        return self._mad(mods, kind, ctype, args, True)

    def _logic(self, mods, kind, ctype, args, op: str) -> bool:
        if len(mods) != 1 or len(args) != 3 or kind[0] != "b":
            return False
        self.emit(f"{self.target(args[0])} = ({ctype})({self.value(args[1], ctype)} {op} "
                  f"{self.value(args[2], ctype)});")
        return True

    def _op_and(self, mods, kind, ctype, args) -> bool:
        return self._logic(mods, kind, ctype, args, "&")

    def _op_or(self, mods, kind, ctype, args) -> bool:
        return self._logic(mods, kind, ctype, args, "|")

    def _op_xor(self, mods, kind, ctype, args) -> bool:
        return self._logic(mods, kind, ctype, args, "^")

    def _op_not(self, mods, kind, ctype, args) -> bool:
        if len(mods) != 1 or len(args) != 2 or kind[0] != "b":
            return False
        self.emit(f"{self.target(args[0])} = ({ctype})~{self.value(args[1], ctype)};")
        return True

    def _shift(self, mods, kind, ctype, args, fn: str) -> bool:
        if len(mods) != 1 or len(args) != 3 or kind[0] not in "bus":
            return False
        self.emit(f"{self.target(args[0])} = ::__cf_emu::__cf_ptx::__cf_{fn}<{ctype}>("
                  f"{self.value(args[1], ctype)}, {self.value(args[2], 'uint32_t')});")
        return True

    def _op_shl(self, mods, kind, ctype, args) -> bool:
        return self._shift(mods, kind, ctype, args, "shl")

    def _op_shr(self, mods, kind, ctype, args) -> bool:
        return self._shift(mods, kind, ctype, args, "shr")

    def _op_shf(self, mods, kind, ctype, args) -> bool:
        if len(mods) != 3 or mods[0] not in "lr" or mods[1] not in ("wrap", "clamp") or \
                kind != "b32" or len(args) != 4:
            return False
        fn = f"__funnelshift_{mods[0]}{'c' if mods[1] == 'clamp' else ''}"
        u = "uint32_t"
        self.emit(f"{self.target(args[0])} = {fn}({self.value(args[1], u)}, "
                  f"{self.value(args[2], u)}, {self.value(args[3], u)});")
        return True

    def _op_prmt(self, mods, kind, ctype, args) -> bool:
        if mods != ["b32"] or len(args) != 4:
            return False
        u = "uint32_t"
        self.emit(f"{self.target(args[0])} = ::__cf_emu::__cf_ptx::__cf_prmt("
                  f"{self.value(args[1], u)}, {self.value(args[2], u)}, "
                  f"{self.value(args[3], u)});")
        return True

    def _op_lop3(self, mods, kind, ctype, args) -> bool:
        if mods != ["b32"] or len(args) != 5:
            return False
        u = "uint32_t"
        self.emit(f"{self.target(args[0])} = ::__cf_emu::__cf_ptx::__cf_lop3("
                  + ", ".join(self.value(a, u) for a in args[1:]) + ");")
        return True

    def _op_st(self, mods, kind, ctype, args) -> bool:
        """st.global[.wb|.cg|.cs|.wt][.v2|.v4].TYPE: plain stores, as _op_ld loads."""
        if not mods or mods[0] != "global" or len(args) != 2 or \
                set(mods[1:-1]) - {"v2", "v4", "wb", "cg", "cs", "wt"}:
            return False
        address = self._address(args[0])
        if address is None:
            return False
        base, offset = address
        srcs = _split_operands(args[1][1:-1]) if args[1].startswith("{") else [args[1]]
        if len(srcs) != (4 if "v4" in mods else 2 if "v2" in mods else 1):
            return False
        for i, v in enumerate(srcs):
            self.emit(f"*({ctype} *)({base} + {offset} + {i} * sizeof({ctype})) = "
                      f"{self.value(v, ctype)};")
        return True

    def _address(self, text: str) -> tuple[str, int] | None:
        """`[base]` or `[base+offset]`: (the base as an integer, the offset)."""
        m = re.fullmatch(r"\[\s*(%\d+|[A-Za-z_$][\w$]*)\s*(?:\+\s*(-?\d+))?\s*\]", text)
        if not m:
            return None
        return self.value(m.group(1), "uintptr_t"), int(m.group(2) or 0)

    def _op_ld(self, mods, kind, ctype, args) -> bool:
        """ld.global[.nc][.v2|.v4].TYPE: plain loads (the emulator's memory is the host's)."""
        if not mods or mods[0] != "global" or len(args) != 2 or \
                set(mods[1:-1]) - {"nc", "v2", "v4", "ca", "cg", "cs", "lu", "cv"}:
            return False
        address = self._address(args[1])
        if address is None:
            return False
        base, offset = address
        dsts = _split_operands(args[0][1:-1]) if args[0].startswith("{") else [args[0]]
        width = 4 if "v4" in mods else 2 if "v2" in mods else 1
        if len(dsts) != width:
            return False
        for i, d in enumerate(dsts):
            self.emit(f"{self.target(d)} = *(const {ctype} *)({base} + {offset} + "
                      f"{i} * sizeof({ctype}));")
        return True


def translate_block(template: str, outs: list[tuple[str, str]],
                    ins: list[tuple[str, str]]) -> str:
    """The statement expression that does what the PTX does; raises Untranslated."""
    operands = [*outs, *ins]
    tr = _Translator(operands, len(outs))
    head = ["unsigned __cf_cc = 0; (void)__cf_cc;"]
    for i, (constraint, expr) in enumerate(operands):
        letter = constraint.lstrip("=+&")
        if letter not in _CONSTRAINT:
            raise Untranslated(f"operand constraint '{constraint}'")
        ctype = _CONSTRAINT[letter]
        if i < len(outs) and "=" in constraint:
            head.append(f"{ctype} __cf_op{i} = 0;")
        else:
            head.append(f"{ctype} __cf_op{i} = ({ctype})({expr});")
    for stmt in _statements(_unescape(template)):
        if stmt == "{":
            tr.scopes.append(_Scope({}))
            tr.emit("{")
        elif stmt == "}":
            if len(tr.scopes) == 1:
                raise Untranslated("unbalanced '}'")
            tr.scopes.pop()
            tr.emit("}")
        elif stmt.startswith(".reg "):
            tr.declare(stmt)
        elif stmt.startswith("."):
            raise Untranslated(f"directive '{stmt.split()[0]}'")
        else:
            tr.instruction(stmt)
    if len(tr.scopes) != 1:
        raise Untranslated("unbalanced '{'")
    tail = [f"::__cf_emu::__cf_ptx::__cf_set(({expr}), __cf_op{i});"
            for i, (_, expr) in enumerate(outs)]
    return "({ " + " ".join(head + tr.lines + tail) + " (void)0; })"
