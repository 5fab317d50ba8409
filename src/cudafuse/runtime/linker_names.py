"""The program's functions as the linker names them (demangled), and where each is defined.

ld says which function refers to an undefined symbol by its demangled name: `f(int)`,
`ns::(anonymous namespace)::g(int)`, `Acc::get(int) const`, `int tw<int>(int)` (a function
template's instance, with its return type), `f(int)::{lambda(int)#1}::operator()(int) const`
(a lambda inside `f`), `hash` (a C function). A stand-in's message is located at the
definition of such a function (runtime/standins.py); these read the name by its structure
(nesting of (), <>, [], {}), not by cutting at its first parenthesis, which an anonymous
namespace or a return type's template arguments would mislead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from cudafuse.ir.program import Function

Where = tuple[str, int, int]  # file, line, column
_ANONYMOUS = "(anonymous namespace)"
_HIDDEN = "\0"  # stands for _ANONYMOUS while reading: a namespace, not a parameter list
_OPENING = {"(": ")", "<": ">", "[": "]", "{": "}"}


@dataclass(frozen=True)
class Definition:
    """A function the program defines: its enclosing namespaces ('' for an anonymous one;
    the front end records none for a member function), its class ('' for a free function),
    name, parameter count and where its name stands."""

    namespaces: tuple[str, ...]
    owner: str
    name: str
    params: int
    where: Where


def definitions(functions: Iterable[Function], path: str) -> list[Definition]:
    """The definitions among `functions` (free functions and methods of the unit at
    `path`)."""
    return [Definition(tuple(n for n, _ in f.namespaces), f.parent, f.name, len(f.params),
                       (f.name_span.file or path, f.name_span.line, f.name_span.col))
            for f in functions if f.body is not None]


@dataclass(frozen=True)
class LinkerName:
    """A demangled function name read: the qualified name of the outermost function
    (`scope` ends with its name; an anonymous namespace is ''), and its parameter count
    (None for a C function's name, which has no parameter list)."""

    scope: tuple[str, ...]
    params: int | None


def read(demangled: str) -> LinkerName | None:
    """`demangled` read (a lambda's or a local class's function is read as the function it
    lies in); None when it is not a function's name as this knows them (an operator's, a
    name whose brackets do not pair)."""
    text = demangled.replace(_ANONYMOUS, _HIDDEN)
    cut = _top_level(text, "(")
    head, params = (text, None) if cut < 0 else (text[:cut], _count_params(text, cut))
    if cut >= 0 and params is None:
        return None
    if re.search(r"\boperator\b", head) or not _depth_ok(head):
        return None
    # A function template's instance starts with its return type: the name follows the
    # last space outside brackets.
    parts = [_without_brackets(p) for p in _split_top_level(_after_last_top_level(head, " "),
                                                            "::")]
    if any(not p for p in parts):
        return None
    return LinkerName(tuple("" if p == _HIDDEN else p for p in parts if p), params)


def bare(demangled: str) -> str:
    """A function's name as the linker names it (`ns::f(int)`), as its definition spells it
    (`f`); the text before its parameter list where it cannot be read."""
    name = read(demangled)
    if name is None or not name.scope:
        return demangled.split("(")[0].split("::")[-1]
    return name.scope[-1]


def locate(demangled: str, defined: list[Definition]) -> Where | None:
    """Where the function the linker names `demangled` is defined in the program, or None
    when no definition, or more than one, fits its qualified name and parameter count (an
    overload set the count does not tell apart): never a wrong place."""
    name = read(demangled)
    if name is None or not name.scope:
        return None
    found = {d.where for d in defined if _fits(name, d)}
    return found.pop() if len(found) == 1 else None


def _fits(name: LinkerName, d: Definition) -> bool:
    scope = name.scope
    if name.params is not None and name.params != d.params:
        return False
    if scope[:len(d.namespaces)] != d.namespaces:
        return False
    rest = scope[len(d.namespaces):]
    if d.owner:  # a nested class's outer classes are not recorded: the innermost must fit
        return len(rest) >= 2 and rest[-2:] == (d.owner, d.name)
    return rest == (d.name,)


def _scan(text: str) -> Iterable[tuple[int, str, int]]:
    """Each character of `text` with its index and bracket depth before it; the depth goes
    below zero where a closing bracket has no opening one."""
    depth = 0
    for i, ch in enumerate(text):
        yield i, ch, depth
        if ch in _OPENING:
            depth += 1
        elif ch in _OPENING.values():
            depth -= 1


def _depth_ok(text: str) -> bool:
    ends = [d for _, _, d in _scan(text + " ")]
    return min(ends) >= 0 and ends[-1] == 0


def _top_level(text: str, wanted: str) -> int:
    return next((i for i, ch, d in _scan(text) if ch == wanted and d == 0), -1)


def _after_last_top_level(text: str, wanted: str) -> str:
    cuts = [i for i, ch, d in _scan(text) if ch == wanted and d == 0]
    return text[cuts[-1] + 1:] if cuts else text


def _split_top_level(text: str, sep: str) -> list[str]:
    parts, start, skip = [], 0, 0
    for i, _, d in _scan(text):
        if skip:
            skip -= 1
            continue
        if d == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            start, skip = i + len(sep), len(sep) - 1
    return [*parts, text[start:]]


def _without_brackets(part: str) -> str | None:
    """A component without its template arguments and ABI tags (`Box<int>`: `Box`;
    `name[abi:cxx11]`, a function returning std::string: `name`); None when its brackets
    do not pair."""
    if not _depth_ok(part):
        return None
    return "".join(ch for _, ch, d in _scan(part) if d == 0 and ch not in _OPENING)


def _count_params(text: str, opening: int) -> int | None:
    """The parameter count of the list opening at `opening`; None when it does not close."""
    close = next((i for i, ch, d in _scan(text[opening:]) if d == 1 and ch == ")"), None)
    if close is None:
        return None
    inner = text[opening + 1:opening + close]
    return len(_split_top_level(inner, ",")) if inner.strip() else 0
