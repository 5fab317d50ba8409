"""Include guards both inputs share: one copy in the output.

Two files fused from two inputs follow each other in the output. A block of the second file
written under an include guard (`#ifndef CUDA_HELPER_H` / `#define CUDA_HELPER_H` ...
`#endif`: a header pasted into the file, as ccminer's kernels often carry their helpers)
whose guard the first file already defines, itself or through a header it includes, is
skipped by the preprocessor in the output: the second file's code then uses the first's
copy. That is the same code only if the two blocks are the same text (comments and spacing
aside); then nothing in the block is a name clash (there is one definition) and nothing in
it is renamed apart (a renamed definition inside the skipped block would not exist). Blocks
that differ are refused at the second file's `#ifndef`.

The preprocessor is read as clang reads it: comments and branches it skips are not code (a
guard commented out, or under `#if 0`, is no guard), and a block is matched from its
`#ifndef`/`#if !defined` to its own `#endif`, counting nested conditionals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from cudafuse.diagnostics import Diagnostic, Severity
from cudafuse.ir.code_text import blank_comments
from cudafuse.ir.program import TranslationUnit

_OPEN = re.compile(rb"^[ \t]*#[ \t]*(?:ifndef[ \t]+(\w+)|if[ \t]+!\s*defined\s*\(?\s*(\w+)\s*\)?)"
                   rb"[ \t]*\n[ \t]*#[ \t]*define[ \t]+(\w+)\b", re.M)
_COND = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|endif)\b", re.M)
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)
_TYPE = re.compile(rb"\b(?:struct|class|union|enum(?:\s+class)?)\s+(\w+)\s*[{:]|"
                   rb"\btypedef\b[^;{]*?\b(\w+)\s*;|\busing\s+(\w+)\s*=")


@dataclass(frozen=True)
class Block:
    guard: str
    start: int  # the #ifndef's offset
    end: int  # past the matching #endif line
    body: bytes  # the text between the #define line and the #endif, as clang reads it


def guarded_blocks(code: bytes) -> list[Block]:
    """The include-guard blocks of a text read as clang reads it (TranslationUnit.code,
    ir/code_text.py: comments and skipped branches blank), outermost only."""
    out: list[Block] = []
    pos = 0
    while True:
        m = _OPEN.search(code, pos)
        if m is None:
            return out
        guard = (m.group(1) or m.group(2)).decode()
        if m.group(3).decode() != guard:
            pos = m.end()
            continue
        depth, end = 1, -1
        for c in _COND.finditer(code, m.end()):
            depth += -1 if c.group(1) == b"endif" else 1
            if depth == 0:
                nl = code.find(b"\n", c.end())
                end = len(code) if nl < 0 else nl + 1
                body_end = c.start()
                break
        if end < 0:
            return out
        body_start = code.find(b"\n", m.end()) + 1
        out.append(Block(guard, m.start(), end, code[body_start:body_end]))
        pos = end


def _norm(body: bytes) -> bytes:
    return b" ".join(body.split())


@dataclass
class Shared:
    """What the second input's blocks under the first's guards mean for renaming apart."""

    names: frozenset[str] = frozenset()  # defined in such a block: one copy, never renamed
    blocks: list[Block] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def shared_guards(u1: TranslationUnit, u2: TranslationUnit) -> Shared:
    firsts: dict[str, Block] = {}
    for path in dict.fromkeys([u1.path, *u1.includes]):
        try:
            code = u1.code if path == u1.path else blank_comments(Path(path).read_bytes())
        except OSError:
            continue
        for b in guarded_blocks(code):
            if b.body.strip():  # a block the file skips (guard already defined) is not its
                firsts.setdefault(b.guard, b)
    shared = Shared()
    names: set[str] = set()
    for b in guarded_blocks(u2.code):
        first = firsts.get(b.guard)
        if first is None or not b.body.strip():  # skipped in its own file: nothing of it
            continue
        if _norm(first.body) != _norm(b.body):
            line, col = u2.source.line_col(b.start)
            shared.diagnostics.append(Diagnostic(
                Severity.ERROR, f"this block is guarded by '{b.guard}', which {u1.path} "
                "already defines: in the output it is skipped and this file would use the "
                "first file's block, which is not the same text; make them the same or "
                "rename the guard", u2.path, line, col, source_line=u2.source.line_text(line)))
            continue
        shared.blocks.append(b)
        names |= {m.group(1).decode() for m in _DEFINE.finditer(b.body)}
        names |= {next(g for g in m.groups() if g).decode() for m in _TYPE.finditer(b.body)}
        names |= {f.name for f in (*u2.functions, *u2.globals)
                  if f.span.file == u2.path and b.start <= f.span.start < b.end}
    shared.names = frozenset(names)
    return shared
