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
from dataclasses import dataclass, field
from pathlib import Path

from cudafuse.codegen.splice import Rewriter
from cudafuse.diagnostics import Diagnostic, Severity
from cudafuse.ir import nodes as n
from cudafuse.ir.code_text import code_bytes
from cudafuse.ir.program import TranslationUnit
from cudafuse.ir.source import Span


@dataclass
class Renaming:
    text: bytes  # the second file's text, renamed
    renamed: dict[str, str]  # old name -> new name
    diagnostics: list[Diagnostic]  # clashes that could not be renamed
    # why a name was renamed, where it is not a clash (a macro whose body names a renamed one)
    reasons: dict[str, str] = field(default_factory=dict)


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
                 ) -> tuple[list[tuple[int, int]], list[Span]]:
    """Byte ranges of `name` that refer to `decls`, and the spans of references that could
    not be placed (inside a macro expansion: the invocation's)."""
    data = unit.code  # a name in a comment is no occurrence
    spans: list[tuple[int, int]] = []
    bad: list[Span] = []
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
                bad.append(where)
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
            bad += [where] * refs
        else:
            spans += tokens
    return sorted(set(spans)), bad


def _invocation_end(data: bytes, start: int) -> int:
    """The end of the macro invocation written at `start` (its name, then its parenthesised
    arguments if any; libclang gives a reference inside one an empty span there)."""
    code = code_bytes(data)
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


_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?:[^\n]*\\\r?\n)*[^\n]*",
                     re.M)
_DIRECTIVE = re.compile(rb"^[ \t]*#(?:[^\n]*\\\r?\n)*[^\n]*", re.M)


def _through_macro_bodies(unit: TranslationUnit, name: str, spans: list[tuple[int, int]],
                          bad: list[Span]) -> tuple[list[tuple[int, int]], list[str]] | None:
    """A name the file uses through the bodies of its own macros (ccminer's `#define
    ROUND(r) G(r, 0, ...); ...` calling the file's G): the tokens to rename (in those bodies
    and in the invocations' arguments) and the macros, which are then renamed apart too
    (their bodies no longer say what another file's macro of that name says). None when
    that is not provably the same program: every leftover token of `name` must sit in the
    body of a macro the file itself defines; such a macro may appear nowhere else in a
    directive (another macro's body would expand it where it cannot be counted); and at each
    of its invocations the references libclang reports there must number exactly the
    tokens of `name` in its body plus those in the invocation's arguments (a local of that
    name at the call, a nested macro adding references, or an invocation at file scope,
    which has none, break the count)."""
    data = unit.code
    defines = [(m.start(), m.end(), m.group(1).decode(), m.start(1))
               for m in _DEFINE.finditer(data)]
    directives = [(m.start(), m.end()) for m in _DIRECTIVE.finditer(data)]
    covered = set(spans)
    bodies: dict[str, tuple[int, int, int]] = {}  # macro -> its #define's range, count
    outside: set[tuple[int, int]] = set()
    for start, end in identifier_tokens(data, name):
        if (start, end) in covered:
            continue
        owner = [d for d in defines if d[0] <= start < d[1] and d[3] != start]
        if not owner:
            outside.add((start, end))  # fine only in those macros' invocations' arguments
            continue
        d_start, d_end, macro, _ = owner[0]
        if sum(d[2] == macro for d in defines) != 1:
            return None  # defined again after an #undef: which body expands is positional
        bodies[macro] = (d_start, d_end, len(identifier_tokens(data[d_start:d_end], name)))
    if not bodies:
        return None
    at: dict[int, int] = {}
    for where in bad:
        at[where.start] = at.get(where.start, 0) + 1
    extra: list[tuple[int, int]] = []
    seen: set[int] = set()
    for macro, (d_start, d_end, k) in bodies.items():
        extra += [(d_start + a, d_start + b)
                  for a, b in identifier_tokens(data[d_start:d_end], name)]
        name_at = next(d[3] for d in defines if d[2] == macro)
        for start, _ in identifier_tokens(data, macro, members=True):
            if start == name_at:
                continue
            if any(a <= start < b for a, b in directives):
                return None  # named in another directive (another macro's body, #ifdef)
            end = _invocation_end(data, start)
            args = [(start + a, start + b) for a, b in identifier_tokens(data[start:end], name)]
            if at.get(start, 0) != k + len(args):
                return None
            extra += args
            seen.add(start)
    if set(at) - seen or outside - set(extra):
        return None  # a reference inside some other macro, or a token not accounted for
    return extra, sorted(bodies)


def _leftovers(data: bytes, name: str, covered: set[tuple[int, int]]) -> list[int]:
    """Lines where `name` is still written as an identifier outside comments and strings."""
    return [data.count(b"\n", 0, start) + 1 for start, end in identifier_tokens(data, name)
            if (start, end) not in covered]


def identifier_tokens(data: bytes, name: str, members: bool = False) -> list[tuple[int, int]]:
    """Every identifier token `name` outside comments and strings, except member names
    (after `.` or `->`) unless `members` (a macro expands there too)."""
    code = code_bytes(data)
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
    reasons: dict[str, str] = {}
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
        through = _through_macro_bodies(u2, name, spans, bad) if bad or leftover else None
        if through is not None:
            extra, bodies = through
            spans = sorted(set(spans) | set(extra))
            for macro in sorted(set(bodies) - set(renamed)):
                if _header_using(u2, macro) is not None:
                    through = None
            if through is not None:
                for macro in sorted(set(bodies) - set(renamed)):
                    renamed[macro] = f"{prefix}_{macro}"
                    reasons[macro] = f"a macro whose body names this file's '{name}'"
                    for start, end in identifier_tokens(u2.source.data, macro, members=True):
                        rw.replace_range(start, end, renamed[macro],
                                         f"macro '{macro}' renamed apart with '{name}'")
                bad, leftover = [], []
        if bad or leftover:
            line = bad[0].line if bad else leftover[0]
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
    return Renaming(rw.apply(), renamed, diags, reasons)
