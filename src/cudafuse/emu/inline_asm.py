"""Inline PTX the emulator translates: a small set of single-instruction templates, each
replaced by a call into cudafuse_emu_ptx.h (see docs/emulation.md, "Inline PTX").

`asm [volatile] ("template" : outputs : inputs : clobbers)` is read from the statement's text;
the template's string literals are joined, whitespace is collapsed and the final `;` dropped,
and the instruction must be one of TEMPLATES with its operands in order (`%0`, `%1`, ...).
Anything else (several instructions, predicates, registers declared in braces, other
instructions) is left to the caller to refuse with the statement's location.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cudafuse.emu import ptx_block

# The instruction (operands as %N, special registers with one or two %) -> the C++ expression
# assigned to %0 (or, with no output, the statement), over the inputs {1}, {2}, ...
_SREG = r"%%?"
_BAR = r"(?:bar|barrier)\.sync(?:\.aligned)?"
_VALUE = r"%\d|\d+"  # an operand or an immediate
TEMPLATES: list[tuple[str, str]] = [
    (rf"mov\.u32 %0, {_SREG}laneid", "::__cf_emu::__cf_ptx::__cf_laneid()"),
    (rf"mov\.u32 %0, {_SREG}warpid", "::__cf_emu::__cf_ptx::__cf_warpid()"),
    (rf"mov\.u32 %0, {_SREG}nwarpid", "::__cf_emu::__cf_ptx::__cf_nwarpid()"),
    (rf"mov\.u32 %0, {_SREG}smid", "::__cf_emu::__cf_ptx::__cf_smid()"),
    (rf"mov\.u32 %0, {_SREG}nsmid", "::__cf_emu::__cf_ptx::__cf_nsmid()"),
    (rf"mov\.u32 %0, {_SREG}lanemask_(eq|lt|le|gt|ge)",
     "::__cf_emu::__cf_ptx::__cf_lanemask_{m1}()"),
    (rf"mov\.u32 %0, {_SREG}clock", "(unsigned)clock64()"),
    (rf"mov\.u32 %0, {_SREG}clock_hi", "(unsigned)((unsigned long long)clock64() >> 32)"),
    (rf"mov\.u64 %0, {_SREG}clock64", "(unsigned long long)clock64()"),
    (rf"mov\.u64 %0, {_SREG}globaltimer", "::__cf_emu::__cf_ptx::__cf_globaltimer()"),
    (rf"mov\.u32 %0, {_SREG}globaltimer_lo", "(unsigned)::__cf_emu::__cf_ptx::__cf_globaltimer()"),
    (rf"mov\.u32 %0, {_SREG}globaltimer_hi",
     "(unsigned)(::__cf_emu::__cf_ptx::__cf_globaltimer() >> 32)"),
    (r"mov\.(?:b|u|s)(?:32|64) %0, %1", "{1}"),
    (r"bfind\.u32 %0, %1", "::__cf_emu::__cf_ptx::__cf_bfind_u32((unsigned){1})"),
    (r"bfind\.s32 %0, %1", "::__cf_emu::__cf_ptx::__cf_bfind_s32((int){1})"),
    (r"brev\.b32 %0, %1", "__brev((unsigned){1})"),
    (r"brev\.b64 %0, %1", "__brevll((unsigned long long){1})"),
    (r"popc\.b32 %0, %1", "__popc((unsigned){1})"),
    (r"popc\.b64 %0, %1", "__popcll((unsigned long long){1})"),
    (r"clz\.b32 %0, %1", "__clz((int){1})"),
    (r"clz\.b64 %0, %1", "__clzll((long long){1})"),
    # prmt's default mode: a selector nibble's bit 3 replicates the chosen byte's sign
    # (__byte_perm masks it off: nvcc emits `and.b32 s, s, 0x7777` before its prmt)
    (r"prmt\.b32 %0, %1, %2, %3",
     "::__cf_emu::__cf_ptx::__cf_prmt((unsigned){1}, (unsigned){2}, (unsigned){3})"),
    # funnel shifts, as nvcc emits __funnelshift_l/_lc/_r/_rc (lo, hi, shift)
    (r"shf\.l\.wrap\.b32 %0, %1, %2, %3",
     "__funnelshift_l((unsigned){1}, (unsigned){2}, (unsigned){3})"),
    (r"shf\.l\.clamp\.b32 %0, %1, %2, %3",
     "__funnelshift_lc((unsigned){1}, (unsigned){2}, (unsigned){3})"),
    (r"shf\.r\.wrap\.b32 %0, %1, %2, %3",
     "__funnelshift_r((unsigned){1}, (unsigned){2}, (unsigned){3})"),
    (r"shf\.r\.clamp\.b32 %0, %1, %2, %3",
     "__funnelshift_rc((unsigned){1}, (unsigned){2}, (unsigned){3})"),
    (r"fma\.rn\.f32 %0, %1, %2, %3", "fmaf((float){1}, (float){2}, (float){3})"),
    (r"fma\.rn\.f64 %0, %1, %2, %3", "fma((double){1}, (double){2}, (double){3})"),
    # round-to-nearest adds (the fused code's rounding barrier: %0 + -0.0); %0 may be an input
    (r"add\.rn\.f32 %0, %(\d), %(\d)", "((float){o1} + (float){o2})"),
    (r"add\.rn\.f64 %0, %(\d), %(\d)", "((double){o1} + (double){o2})"),
    (r"add\.rn\.f16 %0, %(\d), %(\d)", "__half_as_ushort(__hadd_rn("
     "__ushort_as_half((unsigned short){o1}), __ushort_as_half((unsigned short){o2})))"),
    (r"add\.rn\.bf16 %0, %(\d), %(\d)", "__bfloat16_as_ushort(__hadd_rn("
     "__ushort_as_bfloat16((unsigned short){o1}), __ushort_as_bfloat16((unsigned short){o2})))"),
    (r"vabsdiff4\.u32\.u32\.u32\.add %0, %1, %2, %3",
     "::__cf_emu::__cf_ptx::__cf_vabsdiff4_add((unsigned){1}, (unsigned){2}, (unsigned){3})"),
    # loads and stores with memory-order qualifiers (flags between blocks, as in
    # multi-block barriers): atomic accesses of the width named; {o2}, {o3}: the operands
    # the template's %N name, in whatever order the user numbered them
    (r"ld\.(acquire|relaxed|volatile)(?:\.(?:cta|cluster|gpu|sys))?\.global"
     r"\.([usb](?:8|16|32|64)) %0, \[%(1)\]",
     "::__cf_emu::__cf_ptx::__cf_load<::__cf_emu::__cf_ptx::__cf_{m2}_t>({o3}, {m1q})"),
    (r"st\.(release|relaxed|volatile)(?:\.(?:cta|cluster|gpu|sys))?\.global"
     r"\.([usb](?:8|16|32|64)) \[%(\d)\], %(\d)",
     "!::__cf_emu::__cf_ptx::__cf_store<::__cf_emu::__cf_ptx::__cf_{m2}_t>({o3}, {o4}, {m1q})"),
    # no effect in the emulator: ordering and timing hints
    (r"nanosleep\.u32 %0", ""),
    (r"nanosleep\.u32 \d+", ""),
    (r"membar\.(?:cta|gl|sys)", ""),
    (r"fence\.(?:acq_rel|sc)\.(?:cta|cluster|gpu|sys)", ""),
    (r"", ""),  # an empty template: a compiler barrier only
    # Named barriers (bar.sync a[, b] = barrier.sync.aligned; hand-written in kernels that
    # let warps wait apart, CUTLASS's NamedBarrier): a and b immediates or operands ({vN});
    # without b every thread of the block takes part, as in __syncthreads (barrier 0).
    (rf"{_BAR} ({_VALUE})", "!::__cf_emu::__cf_bar_sync_all((int){v1}, __FILE__, __LINE__)"),
    (rf"{_BAR} ({_VALUE}), ({_VALUE})",
     "!::__cf_emu::__cf_bar_sync((int){v1}, (int){v2}, __FILE__, __LINE__)"),
]
_COMPILED = [(re.compile(p + r"\Z"), e) for p, e in TEMPLATES]
_ORDERS = {"acquire": "__ATOMIC_ACQUIRE", "release": "__ATOMIC_RELEASE",
           "relaxed": "__ATOMIC_RELAXED", "volatile": "__ATOMIC_RELAXED"}

_HEAD = re.compile(r"\s*(?:asm|__asm__|__asm)\s*(?:(?:volatile|__volatile__|inline|goto)\s*)*\(")
_STRING = re.compile(r'"((?:\\.|[^"\\])*)"')


@dataclass(frozen=True)
class Translation:
    end: int  # offset in the statement's text just past the asm's closing parenthesis
    code: str  # the expression that replaces text[:end]


def _split_top(text: str, sep: str) -> list[str]:
    """`text` split at `sep` outside parentheses, brackets and string literals."""
    parts, depth, cur, i = [], 0, [], 0
    while i < len(text):
        c = text[i]
        if c == '"':
            m = _STRING.match(text, i)
            j = m.end() if m else len(text)
            cur.append(text[i:j])
            i = j
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return parts


def _operands(section: str) -> list[tuple[str, str]] | None:
    """[(constraint, expression)] of one operand list, or None when it cannot be read."""
    out = []
    for item in _split_top(section, ","):
        item = item.strip()
        if not item:
            continue
        m = re.match(r'(?:\[\w+\]\s*)?"([^"]*)"\s*\((.*)\)\Z', item, re.S)
        if not m:
            return None
        out.append((m.group(1), m.group(2).strip()))
    return out


def _body_end(text: str, open_paren: int) -> int:
    depth, i = 0, open_paren
    while i < len(text):
        c = text[i]
        if c == '"':
            m = _STRING.match(text, i)
            i = m.end() if m else len(text)
            continue
        depth += c == "("
        depth -= c == ")"
        if depth == 0:
            return i
        i += 1
    return -1


def instruction(template: str) -> str:
    """The template as it is matched: joined, whitespace collapsed, final `;` dropped."""
    t = re.sub(r"\s+", " ", template.replace("\\n", " ").replace("\\t", " ")).strip()
    t = t[:-1].rstrip() if t.endswith(";") else t
    return re.sub(r"\s*,\s*", ", ", t)


def translate(text: str) -> Translation | None:
    """The replacement of the asm statement at the start of `text`, or None when the
    emulator does not translate it."""
    head = _HEAD.match(text)
    if not head:
        return None
    close = _body_end(text, head.end() - 1)
    if close < 0:
        return None
    sections = _split_top(text[head.end():close], ":")
    strings = sections[0].strip()
    if not re.fullmatch(r'(?:"(?:\\.|[^"\\])*"\s*)+', strings):
        return None
    template = instruction("".join(_STRING.findall(strings)))
    outs = _operands(sections[1]) if len(sections) > 1 else []
    ins = _operands(sections[2]) if len(sections) > 2 else []
    if outs is None or ins is None:
        return None
    single = _single(template, outs, ins, close)
    if single is not None:
        return single
    try:  # a sequence (or an instruction the templates do not cover): ptx_block.py
        raw = "".join(_STRING.findall(strings))
        return Translation(close + 1, ptx_block.translate_block(raw, outs, ins))
    except ptx_block.Untranslated:
        return None


def why_not(text: str) -> str:
    """Why the asm statement at the start of `text` is not translated ('' if it is)."""
    head = _HEAD.match(text)
    close = _body_end(text, head.end() - 1) if head else -1
    if close < 0:
        return "its text could not be read"
    sections = _split_top(text[head.end():close], ":")
    strings = sections[0].strip()
    if not re.fullmatch(r'(?:"(?:\\.|[^"\\])*"\s*)+', strings):
        return "its template is not a string literal"
    outs = _operands(sections[1]) if len(sections) > 1 else []
    ins = _operands(sections[2]) if len(sections) > 2 else []
    if outs is None or ins is None:
        return "its operands could not be read"
    try:
        ptx_block.translate_block("".join(_STRING.findall(strings)), outs, ins)
    except ptx_block.Untranslated as exc:
        return f"the emulator does not translate its {exc}"
    return ""


def _single(template: str, outs: list[tuple[str, str]], ins: list[tuple[str, str]],
            close: int) -> Translation | None:
    """The single instructions of TEMPLATES."""
    if len(outs) > 1:
        return None
    operands = [*outs, *ins]
    for pattern, expr in _COMPILED:
        m = pattern.match(template)
        if not m:
            continue
        if not expr:  # no effect; the operands' expressions are still evaluated
            args = ", ".join(f"(void)({e})" for c, e in ins)
            return Translation(close + 1, f"((void)0{', ' + args if args else ''})")
        groups = {f"m{i}": g for i, g in enumerate(m.groups(), 1)}
        # {oN}: the operand the template's Nth group numbers (`%(\d)`); {vN}: the value
        # group N spells, an operand (`%1`) or an immediate; {mNq}: group N's memory order
        for i, g in enumerate(m.groups(), 1):
            groups[f"m{i}q"] = _ORDERS.get(g or "", "")
            if g is None:
                continue
            after_percent = m.start(i) > 0 and template[m.start(i) - 1] == "%"
            index = g if after_percent else g[1:] if g.startswith("%") else None
            if index is not None and index.isdigit():
                if int(index) >= len(operands):
                    return None
                groups[f"o{i}"] = groups[f"v{i}"] = f"({operands[int(index)][1]})"
            elif g.isdigit():
                groups[f"v{i}"] = g
        if expr.startswith("!"):  # a statement with inputs only
            if outs:
                return None
            return Translation(close + 1, f"({expr[1:].format(**groups)})")
        if not outs or "=" not in outs[0][0] and "+" not in outs[0][0]:
            return None
        needed = {int(k) for k in re.findall(r"\{(\d+)\}", expr)}
        if any(k >= len(operands) for k in needed):
            return None
        value = expr.format(*([""] + [f"({e})" for _, e in operands[1:]]), **groups)
        return Translation(close + 1, f"::__cf_emu::__cf_ptx::__cf_set(({outs[0][1]}), {value})")
    return None


_BARRIER = re.compile(r"(?:^|[\s;{])(?:bar|barrier)\.(?:sync|red)\b")


def waits_at_barrier(text: str) -> bool:
    """Whether the asm statement at the start of `text` holds a barrier (bar.sync, bar.red)
    the emulator translates (its kernel then runs on fibers, as one calling __syncthreads)."""
    head = _HEAD.match(text)
    close = _body_end(text, head.end() - 1) if head else -1
    if close < 0:
        return False
    strings = _split_top(text[head.end():close], ":")[0].strip()
    return bool(_BARRIER.search(instruction("".join(_STRING.findall(strings))))) and \
        translate(text) is not None


_ASM_WORD = re.compile(rb"\b(?:asm|__asm__|__asm)\b")


def text_edits(blanked: bytes, data: bytes) -> list[tuple[int, int, str]]:
    """(start, end, replacement) of each translatable asm statement found on the text of a
    header (`blanked`: comments and strings made spaces); the replacement keeps the lines."""
    edits = []
    for m in _ASM_WORD.finditer(blanked):
        tr = translate(data[m.start():].decode("utf-8", "replace"))
        if tr is None:
            continue
        end = m.start() + len(data[m.start():].decode("utf-8", "replace")[:tr.end].encode())
        edits.append((m.start(), end, tr.code + "\n" * data[m.start():end].count(b"\n")))
    return edits
