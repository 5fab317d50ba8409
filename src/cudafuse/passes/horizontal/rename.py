"""Renaming the second input apart: functions and variables it defines under a name the
first input also defines get a prefixed name, so that both files can follow each other in
the fused output (two `main`s, two helpers called `clamp01`, two `__constant__` tables...).

Every occurrence is found through the IR (definitions, prototypes, references, calls,
launches), and then the whole text is checked: if the name is still written anywhere as an
identifier (a macro body, an initialiser the IR does not model), nothing is renamed and the
clash stays an error. A renamed file can therefore never call the other file's function by
mistake. Type names both files define, and macros both define differently, are renamed at
every token of the second file (see rename_apart); a macro is not renamed when a header the
second file includes mentions it (that header would see another macro: still an error).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from cudafuse.codegen.splice import Rewriter
from cudafuse.diagnostics import Diagnostic, Severity
from cudafuse.ir import nodes as n
from cudafuse.ir.program import TranslationUnit
from cudafuse.ir.source import Span

_CODE_NOISE = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                         re.S)


@dataclass
class Renaming:
    text: bytes  # the second file's text, renamed
    renamed: dict[str, str]  # old name -> new name
    diagnostics: list[Diagnostic]  # clashes that could not be renamed


def _defined(unit: TranslationUnit) -> dict[str, set[str]]:
    """Functions and variables the file itself defines: name -> declaration ids."""
    out: dict[str, set[str]] = {}
    for f in unit.functions:
        if f.body is not None and f.span.file == unit.path:
            out.setdefault(f.name, set()).add(f.decl)
    for g in unit.globals:
        if not g.is_extern and g.span.file == unit.path:
            out.setdefault(g.name, set()).add(g.decl)
    return out


def _name_at(data: bytes, start: int, end: int, name: str) -> tuple[int, int] | None:
    """The first whole-word `name` in data[start:end]."""
    m = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b").search(data, start, end)
    return (m.start(), m.end()) if m else None


def _occurrences(unit: TranslationUnit, name: str, decls: set[str]
                 ) -> tuple[list[tuple[int, int]], list[int]]:
    """Byte ranges of `name` that refer to `decls`, and lines where a reference could not be
    placed (inside a macro expansion)."""
    data = unit.code  # a name in a comment is no occurrence
    spans: list[tuple[int, int]] = []
    bad: list[int] = []
    for f in [*unit.functions, *unit.methods]:
        if f.decl in decls and f.name_span.file == unit.path and f.name_span.end:
            spans.append((f.name_span.start, f.name_span.end))
    for g in unit.globals:
        if g.decl in decls and g.span.file == unit.path:
            at = _name_at(data, g.span.start, g.span.end + len(name), name)
            if at:
                spans.append(at)
    in_macros: dict[Span, int] = {}  # a macro invocation's span -> references inside it
    for f in [*unit.functions, *unit.methods]:
        if f.body is None or f.span.file != unit.path:
            continue
        for node in f.body.walk():
            where: Span | None = None
            if isinstance(node, n.Ref) and node.decl in decls:
                where = node.span
            elif isinstance(node, n.Call) and node.callee_decl in decls:
                where = node.span
            elif isinstance(node, n.KernelLaunch) and node.kernel_decl in decls:
                where = node.callee_span
            if where is None or where.file != unit.path:
                continue
            at = _name_at(data, where.start, where.end, name)
            if isinstance(node, n.Ref) and at != (where.start, where.end):
                in_macros[where] = in_macros.get(where, 0) + 1
                continue
            if at is None:
                bad.append(where.line)
                continue
            spans.append(at)
    for where, refs in in_macros.items():
        # libclang places a reference inside a macro invocation at the invocation. The name
        # written in its arguments is that reference exactly when the invocation holds as
        # many such tokens as references: a name the macro's body adds, an argument the
        # body repeats, or a token that means something else (a local of that name) breaks
        # the count, and then it cannot be renamed safely.
        end = _invocation_end(data, where.start)
        tokens = [(where.start + a, where.start + b) for a, b in
                  identifier_tokens(data[where.start:end], name)]
        if len(tokens) != refs:
            bad.append(where.line)
        else:
            spans += tokens
    return sorted(set(spans)), bad


def _invocation_end(data: bytes, start: int) -> int:
    """The end of the macro invocation written at `start` (its name, then its parenthesised
    arguments if any; libclang gives a reference inside one an empty span there)."""
    code = _CODE_NOISE.sub(lambda m: b" " * len(m.group()), data)
    m = re.compile(rb"[A-Za-z_]\w*\s*").match(code, start)
    if m is None:
        return start
    k = m.end()
    if k >= len(code) or code[k:k + 1] != b"(":
        return m.start() + len(m.group().rstrip())
    depth = 0
    for i in range(k, len(code)):
        depth += (code[i:i + 1] == b"(") - (code[i:i + 1] == b")")
        if depth == 0:
            return i + 1
    return start


def _leftovers(data: bytes, name: str, covered: set[tuple[int, int]]) -> list[int]:
    """Lines where `name` is still written as an identifier outside comments and strings."""
    return [data.count(b"\n", 0, start) + 1 for start, end in identifier_tokens(data, name)
            if (start, end) not in covered]


def identifier_tokens(data: bytes, name: str, members: bool = False) -> list[tuple[int, int]]:
    """Every identifier token `name` outside comments and strings, except member names
    (after `.` or `->`) unless `members` (a macro expands there too)."""
    code = _CODE_NOISE.sub(lambda m: b" " * len(m.group()), data)
    word = re.escape(name.encode()) + rb"\b"
    if members:
        return [(m.start(), m.end()) for m in re.finditer(rb"(?<!\w)" + word, code)]
    out = []
    for m in re.finditer(rb"(?<![\w.])" + word, code):
        k = m.start()
        while k and code[k - 1] in b" \t\r\n":
            k -= 1
        if code[k - 2:k] != b"->":
            out.append((m.start(), m.end()))
    return out


def _header_using(unit: TranslationUnit, name: str) -> str | None:
    """The first header `unit` read that writes `name` as an identifier, if any."""
    for path in unit.includes:
        try:
            data = Path(path).read_bytes()
        except OSError:
            return path  # cannot tell: count it as a use
        if identifier_tokens(data, name, members=True):
            return path
    return None


def _define_offset(data: bytes, name: str) -> int:
    """Where `#define name` names it (0 if the file has none)."""
    m = re.search(rb"^[ \t]*#[ \t]*define[ \t]+(" + re.escape(name.encode()) + rb")\b", data,
                  re.M)
    return m.start(1) if m else 0


def rename_apart(u1: TranslationUnit, u2: TranslationUnit, prefix: str,
                 types: tuple[str, ...] = (), macros: tuple[str, ...] = (),
                 identifiers: tuple[str, ...] = (), shared: frozenset[str] = frozenset()
                 ) -> Renaming:
    """u2's text with the functions and variables it shares names with u1 renamed to
    `{prefix}_{name}`, and the type names in `types` (both files define them) and the macros
    in `macros` (both files define them differently) too.

    A type or macro name is renamed at every token of the file (its #define, #ifdef, #undef
    and every use): the renamed name exists nowhere else, so a token that meant something
    other than the file's own type (a header's entity of that name) can only fail to
    compile, which the caller checks by parsing the result; it can never silently mean the
    other file's. The one way a renamed macro could change meaning is a header of u2 that
    uses it (it would expand the other file's macro, or none): then it is not renamed.

    `identifiers` are names u1 defines as macros and u2 writes as ordinary identifiers:
    every token of u2 is renamed, unless a header of u2 writes the name too (the header
    follows u1's #define in the output, which would expand there). `shared` names are
    defined in a block of u2 that u1's include guard skips in the output (guards.py): one
    copy, never renamed."""
    first, second = _defined(u1), _defined(u2)
    for name in shared:
        second.pop(name, None)
    rw = Rewriter(u2.source)
    renamed: dict[str, str] = {}
    diags: list[Diagnostic] = []
    for name in sorted(set(types) - set(second)):
        new = f"{prefix}_{name}"
        for start, end in identifier_tokens(u2.source.data, name):
            rw.replace_range(start, end, new, f"type '{name}' renamed apart")
        renamed[name] = new
    for name in sorted(set(macros) - set(types) - set(second)):
        header = _header_using(u2, name)
        if header is not None:
            line, col = u2.source.line_col(_define_offset(u2.code, name))
            diags.append(Diagnostic(
                Severity.ERROR, f"macro '{name}' is defined differently in {u1.path} and cannot "
                f"be renamed in this file: the header {header} uses it; rename it in one of "
                "the files", u2.path, line, col, source_line=u2.source.line_text(line)))
            continue
        new = f"{prefix}_{name}"
        for start, end in identifier_tokens(u2.source.data, name, members=True):
            rw.replace_range(start, end, new, f"macro '{name}' renamed apart")
        renamed[name] = new
    for name in sorted(set(identifiers) - set(renamed)):
        header = _header_using(u2, name)
        if header is not None:
            line, col = u2.source.line_col(identifier_tokens(u2.code, name, True)[0][0])
            diags.append(Diagnostic(
                Severity.ERROR, f"'{name}' is a macro in {u1.path}, which would expand in the "
                f"header {header} that this file includes; rename one of them", u2.path,
                line, col, source_line=u2.source.line_text(line)))
            continue
        new = f"{prefix}_{name}"
        for start, end in identifier_tokens(u2.source.data, name, members=True):
            rw.replace_range(start, end, new, f"'{name}' renamed apart from a macro")
        renamed[name] = new
    for name in sorted(set(first) & set(second) - set(renamed)):
        spans, bad = _occurrences(u2, name, second[name])
        # A mention in a branch the preprocessor skips is no use (nor renamed).
        leftover = _leftovers(u2.code, name, set(spans))
        if bad or leftover:
            line = (bad or leftover)[0]
            diags.append(Diagnostic(
                Severity.ERROR, f"'{name}' is defined in both inputs and cannot be renamed in "
                f"this one: it is used where cudafuse cannot rewrite it (a macro, an "
                f"initialiser); rename it in one of the files", u2.path, line,
                source_line=u2.source.line_text(line)))
            continue
        new = f"{prefix}_{name}"
        for start, end in spans:
            rw.replace_range(start, end, new, f"'{name}' renamed apart")
        renamed[name] = new
    return Renaming(rw.apply(), renamed, diags)
