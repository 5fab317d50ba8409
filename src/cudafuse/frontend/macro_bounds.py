"""`__launch_bounds__` written through a macro: `#define LB __launch_bounds__(256)` then
`__global__ void LB k(...)`, or PyTorch's `C10_LAUNCH_BOUNDS_1(256)`.

Clang shows the attribute only as an unexposed cursor, with no arguments. What it applied is
what the preprocessor made of the head: so the head's tokens (comments and skipped branches
already blanked) are expanded with the unit's own macro definitions, as clang recorded them
(the detailed preprocessing record: a definition under `#if 0` is not there), function-like
macros with their arguments substituted, until a `__launch_bounds__(...)` appears. Its
argument text, fully expanded, is the bound: it names only what is in scope at the kernel
(numbers, constexpr variables, template parameters), so the emulator's check can put it in
the kernel's body and `launch_bound_threads` can evaluate it.
"""

from __future__ import annotations

import re

import clang.cindex as ci

# A macro: parameter names (None: object-like) and replacement tokens.
Macro = tuple[tuple[str, ...] | None, tuple[str, ...]]

_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|##|::|<=|>=|==|!=|&&|\|\||<<|>>|->|\S")
_MAX_STEPS = 10_000  # expansions of one head, against a runaway definition


def macro_table(tu: ci.TranslationUnit) -> dict[str, Macro | None]:
    """Every macro the unit defines, as clang recorded it; a name defined twice with
    different replacements maps to None (which one applies depends on where: not guessed)."""
    table: dict[str, Macro | None] = {}
    for c in tu.cursor.get_children():
        if c.kind != ci.CursorKind.MACRO_DEFINITION or c.spelling == "__launch_bounds__":
            continue
        toks = list(c.get_tokens())
        if not toks:
            continue
        params: tuple[str, ...] | None = None
        body_at = 1
        # Function-like: a '(' right after the name, with no space between.
        if len(toks) > 1 and toks[1].spelling == "(" and \
                toks[1].extent.start.offset == toks[0].extent.end.offset:
            close = next((i for i, t in enumerate(toks) if t.spelling == ")"), None)
            if close is None:
                continue
            params = tuple(t.spelling for t in toks[2:close] if t.spelling != ",")
            body_at = close + 1
        macro: Macro = (params, tuple(t.spelling for t in toks[body_at:]))
        name = c.spelling
        table[name] = macro if table.get(name, macro) == macro else None
    return table


def _args(toks: list[str], i: int) -> tuple[list[list[str]], int] | None:
    """The arguments of a call whose '(' is toks[i], split at top-level commas, and the
    index past its ')'."""
    args: list[list[str]] = [[]]
    depth = 0
    while i < len(toks):
        t = toks[i]
        if t == "(":
            depth += 1
            if depth == 1:
                i += 1
                continue
        elif t == ")":
            depth -= 1
            if depth == 0:
                return (args if args != [[]] else []), i + 1
        elif t == "," and depth == 1:
            args.append([])
            i += 1
            continue
        args[-1].append(t)
        i += 1
    return None


class _GiveUp(Exception):
    """A construct this expansion does not model (# or ##, a runaway): no bound read."""


def _expand(toks: list[str], table: dict[str, Macro | None], active: frozenset[str],
            budget: list[int]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(toks):
        budget[0] -= 1
        if budget[0] < 0:
            raise _GiveUp
        t = toks[i]
        if t in active or t not in table:
            out.append(t)
            i += 1
            continue
        macro = table[t]
        if macro is None:
            raise _GiveUp  # defined twice, differently
        params, body = macro
        if "#" in body or "##" in body:
            raise _GiveUp
        if params is None:
            out += _expand(list(body), table, active | {t}, budget)
            i += 1
            continue
        if i + 1 >= len(toks) or toks[i + 1] != "(":
            out.append(t)  # a function-like macro's name alone is not a call
            i += 1
            continue
        got = _args(toks, i + 1)
        if got is None:
            raise _GiveUp
        args, i = got
        fixed = params[:-1] if params and params[-1] == "..." else params
        if len(args) < len(fixed) or (fixed == params and len(args) != len(params)):
            raise _GiveUp  # clang would have refused the call
        named = {p: _expand(a, table, active, budget)
                 for p, a in zip(fixed, args[:len(fixed)], strict=True)}
        if fixed != params:
            named["__VA_ARGS__"] = [x for k, a in enumerate(args[len(fixed):])
                                    for x in ([","] if k else []) + a]
        replaced = [x for b in body for x in named.get(b, [b])]
        out += _expand(replaced, table, active | {t}, budget)
    return out


def macro_launch_bounds(head: str, table: dict[str, Macro | None]) -> str:
    """The argument text of the `__launch_bounds__(...)` the head's macros expand to, or ''.
    `head`: the declaration's text before its name, comments and skipped branches blanked."""
    toks = _TOKEN.findall(head)
    if not any(t in table for t in toks):
        return ""
    try:
        out = _expand(toks, table, frozenset(), [_MAX_STEPS])
    except _GiveUp:
        return ""
    for i, t in enumerate(out[:-1]):
        if t == "__launch_bounds__" and out[i + 1] == "(":
            got = _args(out, i + 1)
            if got is None or not got[0]:
                return ""
            return ", ".join(_spell(a) for a in got[0])
    return ""


def _spell(toks: list[str]) -> str:
    """Tokens as text a reader takes in (`((128) <= MAX) ? (128) : 256`): a space between
    two tokens, except inside parentheses' edges, before a comma and around `::`."""
    out = ""
    for t in toks:
        if out and not out.endswith(("(", "::")) and t not in (")", ",", "::"):
            out += " "
        out += t
    return out
