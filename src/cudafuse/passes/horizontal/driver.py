"""hfuse from inputs to output: pick the kernels, check both parts, emit the program."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cudafuse.analysis.blocksize import contradictions
from cudafuse.codegen.templates import KernelRef, bind, namespace_aliases, parse_kernel_ref
from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity, error
from cudafuse.ir.code_text import blank_comments
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.passes.horizontal.codegen import (
    BAR_RED_DEFINITION,
    BAR_SYNC_DEFINITION,
    Config,
    foreign,
    kernel_text,
    launcher_text,
    param_type_aliases,
    shared_prelude,
    streams_launcher_text,
)
from cudafuse.passes.horizontal.coop import TILE_DEFINITION
from cudafuse.passes.horizontal.discarded import definitions, discards
from cudafuse.passes.horizontal.guards import shared_guards
from cudafuse.passes.horizontal.parts import (
    Part,
    Shape,
    build_part,
    label_conflicts,
    shared_conflicts,
)
from cudafuse.passes.horizontal.remap import Names, coop_text, helper_copies
from cudafuse.passes.horizontal.rename import identifier_tokens
from cudafuse.passes.horizontal.scopes import encloses, wrapped
from cudafuse.passes.horizontal.scopes import named as named_spaces
from cudafuse.passes.horizontal.specializations import specialization_choice

if TYPE_CHECKING:
    from cudafuse.frontend.parse import ParseOptions

UNFUSED = ("streams", "sequential")  # modes that launch the two kernels as they are


@dataclass(frozen=True)
class HFuseOptions:
    block1: Shape
    block2: Shape
    mode: str = "thread"  # thread | block | streams | sequential (the last two: unfused)
    regcap: int | None = None
    name: str = ""  # default <k1>_<k2>_hfused
    regcap_how: str = ""  # how --regcap auto chose the cap (for the header and report)
    block_sources: tuple[str, str] = ("--block1", "--block2")  # where each shape came from
    # The folder the output is written to: relative #includes of the inputs are rewritten
    # to resolve from there ("": left as they are).
    out_dir: str = ""


@dataclass
class HFuseResult:
    output: bytes
    parts: tuple[Part, Part]
    options: HFuseOptions
    name: str
    explain: list[str] = field(default_factory=list)
    generated: bytes = b""  # what follows the inputs: the fused kernel and its launcher


def _same_file(a: TranslationUnit, b: TranslationUnit) -> bool:
    try:
        return os.path.samefile(a.path, b.path)
    except OSError:
        return a.path == b.path


def find_kernel(unit: TranslationUnit, ref: str | None,
                opts: ParseOptions | None = None) -> KernelRef:
    """The kernel `ref` names (NAME or NAME<ARGS> for a template), or the file's only one.
    `opts`: the file's parse options (to resolve template arguments that are typedefs when
    explicit specializations must be told apart)."""
    kernels = [k for k in unit.kernels if k.span.file == unit.path]
    if ref is None:
        if len(kernels) != 1:
            listed = ", ".join(k.name for k in kernels) or "none"
            raise error(f"the file has {len(kernels)} kernels ({listed}); name the two to "
                        "fuse with --kernels A,B", unit.path, status=2)
        return bind(kernels[0], None, unit.path)
    name, args = parse_kernel_ref(ref)
    *quals, base = name.split("::")
    found = [k for k in unit.kernels if k.name == base and _qualifies(quals, k)]
    if not found:
        listed = ", ".join(qualified_name(k) for k in kernels) or "none"
        raise error(f"no kernel named '{name}' (kernels: {listed})", unit.path, status=2)
    if len({k.decl for k in found}) > 1 and (chosen := specialization_choice(unit, found, name,
                                                                              args, opts)):
        return chosen
    if len({k.decl for k in found}) > 1:
        listed = ", ".join(qualified_name(k) for k in found)
        raise error(f"'{name}' names {len(found)} kernels ({listed}); qualify it", unit.path,
                    status=2)
    return bind(found[0], args, unit.path)


def qualified_name(fn: Function) -> str:
    return "::".join([*(n for n, _ in fn.namespaces if n), fn.name])


def _qualifies(quals: list[str], fn: Function) -> bool:
    """Whether `a::b::name` (quals ['a', 'b'], or ['', 'a', 'b'] for `::a::b::name`) names a
    kernel of `fn`'s namespaces: a qualifier may leave out inline and anonymous ones, and an
    unqualified name is looked for in every namespace."""
    if not quals:
        return True
    rooted = quals[0] == ""
    quals = [q for q in quals if q]
    full = [n for n, _ in fn.namespaces if n]
    visible = [n for n, inline in fn.namespaces if n and not inline]
    if rooted:
        return quals in (full, visible)
    return any(path[len(path) - len(quals):] == quals for path in (full, visible)
               if len(path) >= len(quals))


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)([^\n]*(?:\\\n[^\n]*)*)", re.M)
_TYPE = re.compile(r"\b(?:struct|class|union|enum(?:\s+class)?)\s+(\w+)\s*[{:]|"
                   r"\btypedef\b[^;{]*?\b(\w+)\s*;|\busing\s+(\w+)\s*=")


def _top_level_names(unit: TranslationUnit) -> dict[str, int]:
    """Names the file defines at namespace scope (functions, globals, types), with a line."""
    names: dict[str, int] = {}
    # Declarations alone (prototypes, extern variables) may repeat harmlessly.
    defined = [*(f for f in unit.functions if f.body is not None),
               *(g for g in unit.globals if not g.is_extern)]
    for f in defined:
        if f.span.file == unit.path:
            names.setdefault(f.name, f.span.line)
    for name, line in _type_names(unit).items():
        names.setdefault(name, line)
    return names


def type_clashes(u1: TranslationUnit, u2: TranslationUnit) -> tuple[str, ...]:
    """Type names (struct, class, union, enum, typedef, using) both files define."""
    defined = {f.name for u in (u1, u2) for f in u.functions} | \
        {g.name for u in (u1, u2) for g in u.globals}
    t1, t2 = _type_names(u1), _type_names(u2)
    return tuple(sorted((set(t1) & set(t2)) - defined - shared_guards(u1, u2).names))


def _type_names(unit: TranslationUnit) -> dict[str, int]:
    text = unit.code.decode("utf-8", "replace")
    names: dict[str, int] = {}
    for m in _TYPE.finditer(text):
        name = next(g for g in m.groups() if g)
        names.setdefault(name, text.count("\n", 0, m.start()) + 1)
    return names


def _macros(unit: TranslationUnit) -> dict[str, tuple[str, int]]:
    # As clang reads the file: a commented-out #define, or one under #if 0, is no macro.
    text = unit.code.decode("utf-8", "replace")
    return {m.group(1): (" ".join(m.group(2).split()), text.count("\n", 0, m.start()) + 1)
            for m in _DEFINE.finditer(text)}


_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(define|undef)[ \t]+(\w+)([^\n]*(?:\\\n[^\n]*)*)",
                        re.M)


def _macro_state(text: bytes, name: str, upto: int) -> bytes | None:
    """The body of macro `name` in force at byte `upto` of `text` (None: not defined), from
    the file's own #define/#undef lines."""
    state = None
    for m in _DIRECTIVE.finditer(text, 0, upto):
        if m.group(2).decode() == name:
            state = b" ".join(m.group(3).split()) if m.group(1) == b"define" else None
    return state


def _macro_directive(text: bytes, name: str, upto: int) -> re.Match[bytes] | None:
    """The #define of macro `name` in force at byte `upto` of `text` (None: not defined
    there, by the file's own directives)."""
    state = None
    for m in _DIRECTIVE.finditer(text, 0, upto):
        if m.group(2).decode() == name:
            state = m if m.group(1) == b"define" else None
    return state


def stale_macros(p: Part) -> tuple[list[Diagnostic], list[tuple[str, bytes, bool]]]:
    """The fused kernel (and the helpers a part copies) follow the input texts: a macro the
    kernel uses that the file later #undefs or redefines would mean something else there
    (PyTorch's SummaryOps.cu #undefs its FOR_KERNEL_LOOP at the end). Such a macro is
    restored around the generated code: (name, its #define line as the kernel saw it,
    whether the file's end defines it otherwise); one the kernel saw from elsewhere (a
    header, the command line) cannot be, and is an error."""
    # As clang reads the file (offsets are the IR's): an #undef under #if 0 is none.
    text = p.unit.code
    names = {m.group(2).decode() for m in _DIRECTIVE.finditer(text)}
    out, restore = [], []
    for fn in (p.fn, *p.copies.functions):
        if fn.span.file != p.unit.path:
            continue
        body = text[fn.span.start:fn.span.end]
        for name in sorted(names):
            used = identifier_tokens(body, name, members=True)
            if not used or _macro_state(text, name, fn.span.start) == \
                    _macro_state(text, name, len(text)):
                continue
            seen = _macro_directive(text, name, fn.span.start)
            if seen is not None:
                entry = (name, _logical_line(text, seen.start()).strip() + b"\n",
                         _macro_state(text, name, len(text)) is not None)
                if all(e[0] != name for e in restore):
                    restore.append(entry)
                continue
            line, col = p.unit.source.line_col(fn.span.start + used[0][0])
            out.append(Diagnostic(
                Severity.ERROR, f"macro '{name}' is defined after '{fn.name}' (which sees "
                "another definition), whose copy in the fused kernel follows the whole file "
                "and would see that; move the #define, or drop it",
                p.unit.path, line, col, source_line=p.unit.source.line_text(line)))
            break
    return out, restore


def _logical_line(text: bytes, start: int) -> bytes:
    """The directive at `start` with its continuation lines (`\\` before the newline)."""
    end = text.find(b"\n", start)
    while end > 0 and text[end - 1:end] == b"\\":
        end = text.find(b"\n", end + 1)
    return text[start:end if end >= 0 else len(text)]


def macro_restoring(restore: list[tuple[str, bytes, bool]]) -> tuple[str, str]:
    """Lines before and after the generated code that give each macro of stale_macros the
    definition its kernel saw, and then the file's end state back."""
    before, after = [], []
    for name, define, redefined in restore:
        if redefined:
            before += [f'#pragma push_macro("{name}")', f"#undef {name}"]
            after.append(f'#pragma pop_macro("{name}")')
        else:
            after.append(f"#undef {name}")
        before.append(define.decode("utf-8", "replace").rstrip("\n"))
    if not before:
        return "", ""
    return ("// Macros the kernels use that their file #undefs or redefines after them, as "
            "the kernels saw them.\n" + "\n".join(before) + "\n\n",
            "\n" + "\n".join(after) + "\n")


def macro_clashes(u1: TranslationUnit, u2: TranslationUnit) -> tuple[str, ...]:
    """Macros both files #define, with different bodies."""
    m1, m2 = _macros(u1), _macros(u2)
    skip = shared_guards(u1, u2).names
    return tuple(sorted(name for name in set(m1) & set(m2) - skip
                        if m1[name][0] != m2[name][0]))


def one_sided_macros(u1: TranslationUnit, u2: TranslationUnit
                     ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Macros only one file defines that the other writes as an identifier (cuda-samples'
    MonteCarlo `#define THREAD_N` beside fastWalshTransform's `const int THREAD_N`): those of
    the second file (renamed there, with the macro), and those of the first (the second
    file's identifier is renamed instead). Either way the second text changes, as for every
    name renamed apart."""
    m1, m2 = _macros(u1), _macros(u2)
    skip = shared_guards(u1, u2).names
    second = tuple(sorted(n for n in set(m2) - set(m1) - skip
                          if identifier_tokens(u1.code, n, members=True)))
    first = tuple(sorted(n for n in set(m1) - set(m2) - skip
                         if identifier_tokens(u2.code, n, members=True)))
    return second, first


def clashes(u1: TranslationUnit, u2: TranslationUnit) -> list[Diagnostic]:
    """Two files are emitted one after the other: what both define must not collide."""
    out = []
    # Definitions in a block the first file's include guard skips are one copy (guards.py).
    shared = shared_guards(u1, u2)
    out += shared.diagnostics
    skip = shared.names
    n1, n2 = _top_level_names(u1), _top_level_names(u2)
    for name in sorted(set(n1) & set(n2) - skip, key=lambda s: n2[s]):
        out.append(Diagnostic(Severity.ERROR, f"'{name}' is defined in both inputs (first in "
                              f"{u1.path}:{n1[name]}); horizontal fusion of two files needs "
                              "distinct top-level names", u2.path, n2[name]))
    m1, m2 = _macros(u1), _macros(u2)
    for name in sorted(set(m1) & set(m2) - skip, key=lambda s: m2[s][1]):
        if m1[name][0] != m2[name][0]:
            out.append(Diagnostic(Severity.ERROR, f"macro '{name}' is defined differently in "
                                  f"{u1.path}:{m1[name][1]}", u2.path, m2[name][1]))
    # A macro only one file defines reaches the other file's code in the output: the second
    # text follows the first, and the fused kernel (both bodies) follows both.
    for ua, ma, ub, mb in ((u1, m1, u2, m2), (u2, m2, u1, m1)):
        for name in sorted(set(ma) - set(mb) - skip):
            used = identifier_tokens(ub.code, name, members=True)
            if used:
                line, col = ub.source.line_col(used[0][0])
                out.append(Diagnostic(
                    Severity.ERROR, f"'{name}' is a macro in {ua.path}:{ma[name][1]}, which "
                    "would expand here once both files are in one; rename one of them",
                    ub.path, line, col, source_line=ub.source.line_text(line)))
    return out


def _prefix(texts: list[bytes]) -> str:
    """A prefix for generated names that no identifier of the inputs starts with (comments
    do not count; a skipped branch does, as another file's macros may select it there)."""
    joined = b"\n".join(map(blank_comments, texts)).decode("utf-8", "replace")
    for i in range(1000):
        prefix = "cf" if i == 0 else f"cf{i}"
        if not re.search(rf"\b{prefix}_", joined):
            return prefix
    raise error("cannot find a prefix for generated names")


def hfuse(u1: TranslationUnit, k1: KernelRef, u2: TranslationUnit, k2: KernelRef,
          opts: HFuseOptions) -> HFuseResult:
    one_file = u1 is u2 or _same_file(u1, u2)
    if one_file:
        u2 = u1
        same = u1.function(k2.fn.name)
        if same is not None and same is not k2.fn:
            k2 = KernelRef(same, tuple((p, a) for (_, a), p in
                                       zip(k2.bindings, same.template_params, strict=True)))
    streams = opts.mode in UNFUSED
    # Streams (and sequential) mode runs the kernels as they are: nothing in them can be
    # refused (their parts are built in block mode only for the parameter lists and the
    # report).
    part_mode = "block" if streams else opts.mode
    p1, d1 = build_part(1, u1, k1, opts.block1, part_mode, opts.block_sources[0])
    p2, d2 = build_part(2, u2, k2, opts.block2, part_mode, opts.block_sources[1])
    diags = [] if streams else \
        d1 + d2 + shared_conflicts(p1, p2, opts.mode) + label_conflicts(p1, p2)
    # A block given on the command line that the kernel contradicts is wrong in every mode
    # (streams and sequential launch the kernels with it too).
    for p, ref in ((p1, k1), (p2, k2)):
        if p.block_source.startswith("--block"):
            diags += contradictions(p.unit, ref, p.block, p.block_source, fused=not streams)
    restore: list[tuple[str, bytes, bool]] = []
    if not streams:
        (stale, back1), (stale2, back2) = stale_macros(p1), stale_macros(p2)
        # one file: its two parts may copy the same helper
        diags += stale + [d for d in stale2 if d not in stale]
        restore = back1 + [r for r in back2 if all(r[0] != b[0] for b in back1)]
    if not one_file:
        diags += clashes(u1, u2)
    total = p1.block.count + p2.block.count if opts.mode == "thread" else \
        max(p1.block.count, p2.block.count)
    if total > 1024 and not streams:
        diags.append(Diagnostic(Severity.ERROR, f"the fused block would have {total} threads "
                                f"({p1.block} + {p2.block}); a block has at most 1024",
                                u1.path))
    if opts.regcap and opts.regcap * total > 65536:
        diags.append(Diagnostic(Severity.ERROR, f"--regcap {opts.regcap} with {total} threads "
                                "per block needs more than the 65536 registers a block may "
                                "have", u1.path))
    name = opts.name or f"{k1.fn.name}_{k2.fn.name}_hfused"
    existing = set(_top_level_names(u1)) | set(_top_level_names(u2))
    for taken in (name, f"{name}_launch"):
        if taken in existing:
            diags.append(Diagnostic(Severity.ERROR, f"the output name '{taken}' is already "
                                    "defined in the input", u1.path))
    if diags:
        raise CudafuseError(diags)
    texts = [u1.source.data] if one_file else [u1.source.data, u2.source.data]
    names = Names(_prefix(texts))
    units = [u1] if one_file else [u1, u2]
    if opts.out_dir:  # (profiling's candidates are built with the inputs' folders on -I)
        texts = [rehomed_includes(u.path, t, opts.out_dir)
                 for u, t in zip(units, texts, strict=True)]
    # Where the fused kernel and launcher go (scopes.py): the first kernel's namespaces, or
    # the second's when they lie inside the first's (a global kernel's names are found from
    # at::native; at::native's own `min` is not found from the global namespace).
    space = named_spaces(p1.fn.namespaces)
    if encloses(space, named_spaces(p2.fn.namespaces)):
        space = named_spaces(p2.fn.namespaces)
    cfg = Config(opts.mode, opts.regcap, name, space)
    header = _header(p1, p2, opts, one_file)
    body = [header.encode(), *(t if t.endswith(b"\n") else t + b"\n" for t in texts)]
    helpers = "".join(helper_copies(p, names, opts.mode) + "\n"
                      for p in (p1, p2) if p.copies.functions)
    named = opts.mode == "thread" and "CUDAFUSE_BAR_SYNC(" in helpers or bool(
        opts.mode == "thread" and (p1.barriers or p2.barriers or p1.uses_coop or
                                   p2.uses_coop))
    reducing = opts.mode == "thread" and bool(p1.reducing or p2.reducing or
                                              "CUDAFUSE_BAR_RED(" in helpers)
    aliases = "".join(wrapped(p.fn.namespaces, namespace_aliases(p.bindings, names.prefix,
                                                                 p.index)) for p in (p1, p2))
    if aliases:
        aliases = "// The template arguments of the two kernels.\n" + aliases + "\n"
    # A kernel of other namespaces: its parameter types, declared where they mean what
    # they meant (scopes.py).
    types = "".join(wrapped(p.fn.namespaces, param_type_aliases(p, names))
                    for p in (p1, p2) if foreign(p, space))
    if types:
        aliases += ("// The parameter types of a kernel of other namespaces, declared "
                    "there.\n" + types + "\n")
    rule = "\n// ---- generated by cudafuse hfuse " + "-" * 53 + "\n"
    if streams:
        tail = rule + aliases + wrapped(space, streams_launcher_text(
            p1, p2, names, cfg, opts.mode == "sequential"))
    else:
        groups = "".join(coop_text(p, names, opts.mode) for p in (p1, p2))
        if groups:
            groups = TILE_DEFINITION + "\n" + groups
        macros, unmacros = macro_restoring(restore)
        dependent = definitions(names.prefix) + "\n" if discards(p1) or discards(p2) else ""
        tail = (rule + (BAR_SYNC_DEFINITION + "\n" if named else "") + dependent +
                (BAR_RED_DEFINITION + "\n" if reducing else "") + aliases + macros + groups +
                shared_prelude(p2, names, opts.mode) + helpers +
                wrapped(space, kernel_text(p1, p2, names, cfg) + "\n" +
                        launcher_text(p1, p2, names, cfg)) + unmacros)
    body.append(tail.encode())
    return HFuseResult(b"".join(body), (p1, p2), opts, name, explain_lines(p1, p2, opts, name),
                       tail.encode())


_QUOTE_INCLUDE = re.compile(rb'^([ \t]*#[ \t]*include[ \t]*)"([^"\n]+)"', re.M)


def rehomed_includes(path: str, text: bytes, out_dir: str) -> bytes:
    """`text` with each `#include "x"` that finds x beside `path` (not through -I) naming
    it from `out_dir` instead, so the output compiles from its own folder."""
    here = os.path.dirname(os.path.abspath(path))
    there = os.path.abspath(out_dir or ".")
    if here == there:
        return text

    def move(m: re.Match[bytes]) -> bytes:
        name = m.group(2).decode("utf-8", "surrogateescape")
        found = os.path.join(here, name)
        if os.path.isabs(name) or not os.path.isfile(found):
            return m.group()
        try:
            moved = os.path.relpath(found, there)
        except ValueError:  # another drive
            moved = found
        return m.group(1) + b'"' + moved.replace(os.sep, "/").encode() + b'"'

    return _QUOTE_INCLUDE.sub(move, text)


def emitted_names(res: HFuseResult) -> tuple[str, ...]:
    """The functions the output defines that the inputs did not."""
    launcher = f"{res.name}_launch"
    return (launcher,) if res.options.mode in UNFUSED else (res.name, launcher)


def _header(p1: Part, p2: Part, opts: HFuseOptions, one_file: bool) -> str:
    src = os.path.basename(p1.unit.path) if one_file else \
        f"{os.path.basename(p1.unit.path)} and {os.path.basename(p2.unit.path)}"
    regcap = str(opts.regcap) if opts.regcap else "none"
    if opts.regcap_how:
        regcap += f" ({opts.regcap_how})"
    if opts.mode in UNFUSED:
        how = ("they run unchanged on two streams, joined to the caller's stream" if
               opts.mode == "streams" else "they run unchanged, one after the other, on the "
               "caller's stream")
        return (f"// Launcher by cudafuse hfuse for {src}: kernels '{p1.display}' (block "
                f"{p1.block}) and '{p2.display}' (block {p2.block}),\n// mode {opts.mode}: "
                f"not fused; {how}.\n"
                "// The inputs follow unchanged; the launcher is at the end.\n")
    return (f"// Horizontally fused by cudafuse hfuse from {src}: kernels '{p1.display}' "
            f"(block {p1.block}) and '{p2.display}' (block {p2.block}),\n"
            f"// mode {opts.mode}, split {p1.block.count}+{p2.block.count} threads, "
            f"regcap {regcap}.\n"
            "// The inputs follow unchanged; the fused kernel and its launcher are at the end.\n")


def explain_lines(p1: Part, p2: Part, opts: HFuseOptions, name: str) -> list[str]:
    if opts.mode == "streams":
        return [f"{name}_launch: mode streams: '{p1.display}' ({p1.block} block) on the "
                f"caller's stream and '{p2.display}' ({p2.block} block) on a second one, "
                "unchanged; events join them to the caller's stream (no fused kernel)"]
    if opts.mode == "sequential":
        return [f"{name}_launch: mode sequential: '{p1.display}' ({p1.block} block), then "
                f"'{p2.display}' ({p2.block} block), unchanged, on the caller's stream (no "
                "fused kernel)"]
    how = f" ({opts.regcap_how})" if opts.regcap_how else ""
    out = [f"{name}: mode {opts.mode}, regcap {opts.regcap or 'none'}{how}"]
    start = 0
    for p in (p1, p2):
        n = p.block.count
        where = f"{p.unit.path}:{p.fn.span.line}"
        if opts.mode == "thread":
            rng = f"threads {start}-{start + n - 1} of each block"
            count = len(p.barriers) + p.helper_barriers
            bars = (f"{count} __syncthreads() -> bar.sync {p.index}, {n}"
                    if count else "no barriers")
            if p.group_waits:  # a block group's sync() is the part's barrier too (coop.py)
                bars = ("" if bars == "no barriers" else bars + "; ") + (
                    f"{p.group_waits} cooperative-groups sync() -> bar.sync {p.index}, {n}")
            if p.reducing_count:
                bars = ("" if bars == "no barriers" else bars + "; ") + (
                    f"{p.reducing_count} __syncthreads_count/_and/_or -> bar.red "
                    f"{p.index}, {n}")
            start += n
        else:
            rng = "the first grid's blocks" if p.index == 1 else "the blocks after those"
            bars = f"{len(p.barriers)} __syncthreads() kept (block-wide)"
            if p.group_waits:
                bars += f"; {p.group_waits} cooperative-groups sync() kept (block-wide)"
        out.append(f"  part {p.index}: '{p.display}' ({where}) runs {rng} as a {p.block} "
                   f"block; {bars}")
        extra = []
        if _dynamic(p):
            off = "offset 0" if p.index == 1 or opts.mode == "block" else \
                "offset align16(smem1)"
            vias = sorted({u.via for u in p.reach.uses if u.dynamic and u.via}) \
                if p.reach else []
            extra.append(f"dynamic shared memory at {off}" +
                         (f" (reached through {', '.join(vias)})" if vias else ""))
        if p.split.classes:
            extra.append(f"class(es) {', '.join(p.split.classes)} copied for the part "
                         "(their shared arrays are its own)")
        if p.returns:
            extra.append(f"{len(p.returns)} early return(s) (no counted barrier waits on them)")
        for h, why in zip(p.copies.functions, p.copies.reasons, strict=True):
            extra.append(f"helper '{h.name}' copied for the part (it {why})")
        if p.warp_ops:
            extra.append(f"{p.warp_ops} warp collective(s) on whole warps of the part")
        if extra:
            out.append("    " + "; ".join(extra))
        # Contradictions with a given block are errors (blocksize.contradictions): what
        # is left is what the kernel may assume; it runs with this block either way.
        out.append(f"    block {p.block} from {p.block_source}; " + (
            "its results may depend on the block size (" + "; ".join(p.block_dependence) +
            f"): it runs as a {p.block} block, and profiling does not change that size"
            if p.block_dependence else
            "no dependence on the block size found (it reads blockDim): profiling may run it "
            "with another size"))
        if p.bound_note and opts.mode not in UNFUSED:
            out.append(f"    {p.bound_note}")
    return out


def _dynamic(p: Part) -> bool:
    """The part uses dynamic shared memory, in its body or through what it reaches."""
    return bool(p.dyn_shared or p.dyn_globals or
                (p.reach and any(u.dynamic for u in p.reach.uses)))


def report_dict(res: HFuseResult) -> dict[str, object]:
    p1, p2 = res.parts
    return {
        "fused_kernel": None if res.options.mode in UNFUSED else res.name,
        "launcher": f"{res.name}_launch",
        "mode": res.options.mode,
        "regcap": res.options.regcap,
        "regcap_how": res.options.regcap_how or None,
        "threads_per_block": (p1.block.count + p2.block.count if res.options.mode == "thread"
                              else None if res.options.mode in UNFUSED
                              else max(p1.block.count, p2.block.count)),
        "parts": [{
            "kernel": p.fn.name, "template_arguments": [a for _, a in p.bindings] or None,
            "file": p.unit.path, "line": p.fn.span.line,
            "block": [p.block.x, p.block.y, p.block.z], "threads": p.block.count,
            "block_from": p.block_source,
            "block_size_tunable": not p.block_dependence,
            "block_size_dependence": list(p.block_dependence),
            "barriers": len(p.barriers) + p.helper_barriers,
            "group_syncs": p.group_waits,
            "reducing_barriers": p.reducing_count,
            "barrier": ({"id": p.index, "count": p.block.count}
                        if res.options.mode == "thread" and (p.barriers or p.helper_barriers
                                                             or p.reducing_count
                                                             or p.group_waits)
                        else None),
            "dynamic_shared": _dynamic(p),
            "early_returns": len(p.returns), "warp_collectives": p.warp_ops,
            "helper_copies": [h.name for h in p.copies.functions],
        } for p in res.parts],
    }
