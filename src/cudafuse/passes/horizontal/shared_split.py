"""Shared memory a part reaches outside its kernel's body, split between the parts.

Every `extern __shared__` array starts at the same address. Part 1's dynamic region starts
at offset 0 (thread mode) and both parts' do in block mode, so there any declaration,
wherever it is, already sees the right region; block mode runs one part per block, so static
shared arrays in shared helpers are per part too. What needs work is part 2 in thread mode,
whose region starts at `align16(smem1)`, a launch value:

- its kernel body's declarations become pointers at `dyn + off2` (remap.py);
- helpers (free functions of the file) that declare an `extern __shared__` array, use a
  namespace-scope one or name a class below get a per-part copy (helpers.py) in which the
  declaration becomes a pointer at `dyn + <off2>`, and the namespace-scope arrays are
  shadowed by such pointers;
- classes whose member functions declare shared arrays (cuda-samples' `SharedMemory<T>`, a
  template with specialisations per type) are copied whole into `namespace <prefix>_part2`
  with those declarations rewritten likewise, and the part's scope (and its helper copies)
  say `using <prefix>_part2::SharedMemory;`, which shadows the original by name lookup, so
  uses inside macros are redirected too.

A member function cannot take the offset as a parameter (a conversion operator is called
implicitly), so it is read from a `__shared__` variable that the fused kernel's thread 0
sets before the parts start (one block-wide barrier). Whatever this cannot prove redirected
(a definition in a header, a declaration inside a macro, a class named with a qualifier or at
namespace scope, a class using another) is refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from cudafuse.analysis.callgraph import CallGraph
from cudafuse.analysis.shared_memory import SharedReach, mentioned, owner_label, standing_for
from cudafuse.ir import nodes as n
from cudafuse.ir.code_text import code_bytes
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.source import Span

_BUILTINS = ("threadIdx", "blockIdx", "blockDim", "gridDim")
_WAITS = ("__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or")


@dataclass(frozen=True)
class SharedSplit:
    """Part 2's classes copied into its namespace (thread mode), in source order."""

    classes: tuple[str, ...] = ()
    regions: tuple[tuple[int, int], ...] = ()  # their definitions' byte ranges
    decls: tuple[n.VarDecl, ...] = ()  # extern __shared__ declarations in those ranges
    needs_offset: bool = False  # part 2 reaches dynamic shared memory outside its body


def declares_shared(fn: Function) -> bool:
    return fn.body is not None and any(
        isinstance(x, n.VarDecl) and "shared" in x.storage for x in fn.body.walk())


def extern_globals(unit: TranslationUnit, fn: Function) -> dict[str, str]:
    """The namespace-scope extern __shared__ arrays `fn` uses: name -> declared type."""
    ext = {g.decl: g for g in unit.globals if g.space == "shared" and g.is_extern}
    assert fn.body is not None
    return {ext[x.decl].name: ext[x.decl].type for x in fn.body.walk()
            if isinstance(x, n.Ref) and x.kind == "global" and x.decl in ext}


def dynamic_uses(unit: TranslationUnit, fn: Function) -> bool:
    """`fn` declares an extern __shared__ array or uses a namespace-scope one."""
    assert fn.body is not None
    return bool(extern_globals(unit, fn)) or any(
        isinstance(x, n.VarDecl) and {"extern", "shared"} <= x.storage for x in fn.body.walk())


def shared_classes(reach: SharedReach) -> set[str]:
    """The classes among those reached whose member functions declare shared arrays."""
    return {m.parent for m in reach.methods if declares_shared(m)}


def written_out(unit: TranslationUnit, decl: n.VarDecl) -> bool:
    """The declaration's text is the declaration itself (not a macro invocation), so that
    replacing its span replaces exactly it."""
    if decl.span.file != unit.path:
        return False
    text = unit.code_text(decl.span)
    if not re.search(r"\bextern\b", text):
        call = re.fullmatch(r"([A-Za-z_]\w*)\s*(?:\(.*\))?", text, re.S)
        if call is None:
            return False
        # A macro whose whole expansion is this one declaration (DYN_SMEM(int, s)).
        body = _macro_body(unit, call.group(1))
        return body is not None and "," not in body and ";" not in body and bool(
            re.search(r"\bextern\b", body) and re.search(r"\b__shared__\b", body))
    return "," not in text and ";" not in text and bool(
        re.search(r"\b__shared__\b", text) and
        re.search(rf"\b{re.escape(decl.name)}\s*\[", text))


def _macro_body(unit: TranslationUnit, name: str) -> str | None:
    """The body of function-like or object-like macro `name` if the file defines it once."""
    found = re.findall(rb"^[ \t]*#[ \t]*define[ \t]+" + re.escape(name.encode()) +
                       rb"(?:\([^)]*\))?((?:[^\n\\]|\\[\s\S])*)",
                       code_bytes(unit.code), re.M)
    return found[0].decode("utf-8", "replace") if len(found) == 1 else None


def class_regions(unit: TranslationUnit, name: str) -> list[tuple[int, int]]:
    """Byte ranges of the definitions of class `name` (the primary template and every
    specialisation), each with its `template <...>` head and closing `;`."""
    code = code_bytes(unit.code)
    out = []
    for m in re.finditer(rb"\b(?:struct|class)\s+" + re.escape(name.encode()) + rb"\b", code):
        pos, depth = m.end(), 0
        while pos < len(code) and code[pos:pos + 1] not in (b"{", b";"):
            pos += 1
        if code[pos:pos + 1] != b"{":
            continue  # a declaration only
        start = m.start()
        head = re.search(rb"\btemplate\s*<[^{};]*>\s*$", code[max(0, start - 400):start])
        if head is not None:
            start -= len(head.group())
        end = pos
        while end < len(code):
            depth += {b"{": 1, b"}": -1}.get(code[end:end + 1], 0)
            end += 1
            if depth == 0:
                break
        semi = re.match(rb"\s*;", code[end:])
        out.append((start, end + (semi.end() if semi else 0)))
    return out


def _inside(span: Span, regions: list[tuple[int, int]]) -> bool:
    return any(a <= span.start and span.end <= b for a, b in regions)


def plan_split(unit: TranslationUnit, fn: Function, index: int, mode: str, reach: SharedReach,
               copied: tuple[Function, ...], refuse: Callable[[Span, str], None]) -> SharedSplit:
    """What part `index` needs to see its own shared memory, refusing what cannot be made
    to (see the module's doc)."""
    if mode != "thread":
        return SharedSplit()
    graph = CallGraph(unit)
    for use in reach.uses:
        if use.kind == "opaque":
            at = fn.name_span
            if fn.body_span.file == unit.path:  # the first use in the body, if written there
                word = re.compile(rb"(?<!\w)" + re.escape(use.name.encode()) + rb"\b")
                hit = word.search(code_bytes(unit.code), fn.body_span.start,
                                  fn.body_span.end)
                if hit is not None:
                    at = Span(unit.path, hit.start(), hit.end(),
                              *unit.source.line_col(hit.start()))
            refuse(at, f"it uses '{use.name}' from {use.via[len('header '):]}, "
                   "which declares __shared__ memory that cudafuse cannot see into: in one "
                   "block the parts' shared arrays could overlap (use --mode block, or define "
                   "it in the file)")
    for m in reach.methods:  # a member function cannot be given the part's builtins
        assert m.body is not None
        for x in m.body.walk():
            why = ""
            if isinstance(x, n.Member) and isinstance(x.base, n.Ref) and \
                    x.base.kind == "builtin" and x.base.name in _BUILTINS:
                why = f"reads {x.base.name}, which would be the fused block's"
            elif isinstance(x, n.Call) and x.callee.split("::")[-1] in _WAITS:
                why = "waits at a block-wide barrier, which would wait for both parts"
            if why:
                refuse(x.span, f"member function {owner_label(unit, m)} (reached from the "
                       f"kernel) {why}; use --mode block")
                break
    classes = sorted(shared_classes(reach), key=lambda c: min(
        m.span.start for m in reach.methods if m.parent == c))
    dyn_helpers = [h for h in copied if dynamic_uses(unit, h)]
    if index == 1:
        return SharedSplit()  # offset 0: every extern __shared__ already starts there
    for h in copied:
        assert h.body is not None
        for x in h.body.walk():
            if isinstance(x, n.VarDecl) and {"extern", "shared"} <= x.storage and \
                    not written_out(unit, x):
                refuse(x.span, f"helper '{h.name}' declares an extern __shared__ array inside "
                       "a macro expansion, which cannot be moved to the part's region; write "
                       "it out")
    regions: list[tuple[int, int]] = []
    decls: list[n.VarDecl] = []
    names_shared = {h.name for h in reach.functions if declares_shared(h) or
                    dynamic_uses(unit, h)}
    for m in reach.methods:  # an uncopied class would reach the originals
        other = sorted((mentioned(unit, m.span) & (set(classes) | names_shared)) - {m.parent})
        other += [f.name for f in graph.direct(m) if f.name in names_shared]
        if other:
            refuse(m.name_span, f"member function {owner_label(unit, m)} uses "
                   f"'{other[0]}', which reaches shared memory itself; cudafuse copies "
                   "only classes that declare their shared arrays")
    for c in classes:
        mine = [m for m in reach.methods if m.parent == c]
        found = class_regions(unit, c)
        for m in mine:
            assert m.body is not None
            if not _inside(m.span, found):
                refuse(m.name_span, f"member function {owner_label(unit, m)} is defined "
                       "outside its class, which cudafuse cannot copy for part 2; define it "
                       "in the class")
            for x in m.body.walk():
                if isinstance(x, n.VarDecl) and {"extern", "shared"} <= x.storage:
                    if not written_out(unit, x):
                        refuse(x.span, f"{owner_label(unit, m)} declares an extern __shared__ "
                               "array inside a macro expansion, which cannot be moved to "
                               "the part's region; write it out")
                    decls.append(x)
                elif isinstance(x, n.Ref) and x.kind == "global" and any(
                        g.decl == x.decl and g.space == "shared" for g in unit.globals):
                    refuse(x.span, f"member function {owner_label(unit, m)} uses the "
                           f"namespace-scope __shared__ array '{x.name}', which cannot be "
                           "given part 2's region there")
        regions += found
    # A using-declaration reaches the bodies only: a class in a signature stays the original.
    standing = set().union(*(standing_for(unit, c) for c in classes)) if classes else set()
    for f in (fn, *copied):
        if f.span.file == unit.path and f.body_span.start > f.span.start:
            named = mentioned(unit, unit.source.span(f.span.start, f.body_span.start))
            if named & standing:
                refuse(f.name_span, f"'{f.name}' names '{min(named & standing)}' in its "
                       "signature, where part 2's copy of the class cannot replace it; pass "
                       "a pointer instead")
    _check_names(unit, fn, reach, classes, regions, refuse)
    dynamic = bool(decls or dyn_helpers)
    return SharedSplit(tuple(classes), tuple(sorted(regions)), tuple(decls), dynamic)


def _check_names(unit: TranslationUnit, fn: Function, reach: SharedReach, classes: list[str],
                 regions: list[tuple[int, int]], refuse: Callable[[Span, str], None]) -> None:
    """A copied class is redirected by unqualified name lookup in the part's scope and its
    helper copies: a qualified name (`::SharedMemory`) or a use at namespace scope (a
    typedef) would still mean the original."""
    if not classes:
        return
    code = code_bytes(unit.code)
    bodies = [f.span for f in (*unit.functions, *unit.methods) if f.span.file == unit.path]
    part = [fn.span, *(h.span for h in reach.functions)]
    words = set().union(*(mentioned(unit, sp) for sp in part))
    defines = [(m.start(), m.end(), m.group(1).decode()) for m in re.finditer(
        rb"^[ \t]*#[ \t]*define[ \t]+(\w+)(?:[^\n\\]|\\[\s\S])*", code, re.M)]
    flagged: set[int] = set()
    plain = bytearray(code)  # the code without its #define lines, to find statements in
    for a, b, _ in defines:
        plain[a:b] = re.sub(rb"[^\n]", b" ", code[a:b])
    for c in classes:
        # a macro or alias standing for the class, used at namespace scope, is one too
        names = b"|".join(re.escape(x.encode()) for x in sorted(standing_for(unit, c)))
        for m in re.finditer(rb"(?<![\w])(?:" + names + rb")\b", code):
            pos = m.start()
            before = code[max(0, pos - 200):pos].rstrip()
            where = Span(unit.path, pos, m.end(), *unit.source.line_col(pos))
            macro = next((name for a, b, name in defines if a <= pos < b), None)
            if macro is not None:  # a macro's body: where it expands decides
                if before.endswith(b"::") and macro in words:
                    refuse(where, f"class '{c}' is named with a qualifier in macro '{macro}', "
                           "which the kernel uses, so part 2 would use the original, whose "
                           "shared arrays are not in its region; name it unqualified")
                continue
            if _inside(Span(unit.path, pos, m.end(), 0, 0), regions) or \
                    re.search(rb"\b(?:struct|class|friend)$", before):
                continue
            in_part = any(s.start <= pos < s.end for s in part)
            if in_part and before.endswith(b"::"):
                refuse(where, f"class '{c}' is named with a qualifier here, so part 2 would "
                       "use the original, whose shared arrays are not in its region; name it "
                       "unqualified")
            elif not any(s.start <= pos < s.end for s in bodies):
                start = max(plain.rfind(x, 0, pos) for x in (b";", b"{", b"}")) + 1
                end = plain.find(b";", pos)
                stmt = bytes(plain[start:end + 1] if end >= 0 else plain[start:])
                alias = re.fullmatch(rb"\s*(?:typedef\b[^;]*?\b(\w+)|using\s+(\w+)\s*=[^;]*);",
                                     stmt)
                named = alias and (alias.group(1) or alias.group(2)).decode()
                if start in flagged or (named and named not in words):
                    continue  # an alias the part does not use
                flagged.add(start)
                refuse(where, f"class '{c}' (which declares shared memory) is named at "
                       "namespace scope" + (f" (alias '{named}')" if named else "") +
                       ", where part 2's copy cannot replace it")


def dyn_pointer(elem_and_dims: str, name: str, base: str) -> str:
    """`T *const name = ...` for `extern __shared__ T name[]...` at `base`."""
    elem, _, rest = elem_and_dims.partition("[")
    rest = rest.partition("]")[2]
    elem = elem.strip()
    if rest:
        return f"{elem} (*const {name}){rest} = reinterpret_cast<{elem} (*){rest}>({base})"
    return f"{elem} *const {name} = reinterpret_cast<{elem} *>({base})"



def class_copies(unit: TranslationUnit, split: SharedSplit, namespace: str, base: str) -> str:
    """Part 2's copies of the classes, its extern __shared__ arrays at `base`."""
    if not split.classes:
        return ""
    data = unit.source.data
    out = []
    for start, end in split.regions:
        text = data[start:end]
        edits = sorted((d.span.start - start, d.span.end - start,
                        dyn_pointer(d.var_type, d.name, base)) for d in split.decls
                       if start <= d.span.start < end)
        for a, b, new in reversed(edits):
            text = text[:a] + new.encode() + text[b:]
        out.append(text.decode("utf-8", "replace"))
    listed = ", ".join(split.classes)
    return (f"// Part 2's copies of {listed}: their extern __shared__ arrays start at part 2's "
            f"region.\nnamespace {namespace} {{\n" + "\n".join(out) +
            f"\n}}  // namespace {namespace}\n")
