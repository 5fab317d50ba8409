"""Rewriting a parsed .cu file into C++ that g++ compiles against cudafuse_emu.h.

Only three kinds of text change: kernel launches become calls into the emulator,
`extern __shared__` arrays become pointers into the block's dynamic shared buffer, and
nothing else. Constructs the emulator cannot model are refused here, with file:line:col,
rather than compiled into a wrong answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cudafuse.codegen.splice import Rewriter
from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity
from cudafuse.emu import inline_asm, launch_bounds
from cudafuse.emu.fibers import BAR_MACRO, fiber_functions
from cudafuse.emu.overlay import blank_comments, launch_edits, null_arguments
from cudafuse.emu.parallel import parallel_kernels
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.source import Span

_TEXREF = ("texture references (texture<T, dim, mode>, removed in CUDA 12) are not supported "
           "by the emulator: use texture objects (cudaTextureObject_t)")
_SURFREF = ("surface references (surface<void, dim>, removed in CUDA 12) are not supported by "
            "the emulator: use surface objects (cudaSurfaceObject_t)")
_UNSUPPORTED_CALLS = {
    **dict.fromkeys(("cudaBindTexture", "cudaBindTexture2D", "cudaBindTextureToArray",
                     "cudaBindTextureToMipmappedArray", "cudaUnbindTexture"), _TEXREF),
    **dict.fromkeys(("cudaBindSurfaceToArray",), _SURFREF),
    **dict.fromkeys(("cudaLaunchCooperativeKernelMultiDevice", "this_multi_grid"),
                    "multi-device cooperative launches (multi_grid_group) are not supported by "
                    "the emulator"),
}
_TEXT_REFUSALS = [
    (re.compile(rb"\bcudaLaunchCooperativeKernelMultiDevice\s*\(|\bthis_multi_grid\s*\("),
     "multi-device cooperative launches (multi_grid_group) are not supported by the emulator"),
    (re.compile(rb"\btexture\s*<|\bcuda(?:Bind|Unbind)Texture\w*\s*\("), _TEXREF),
    (re.compile(rb"\bsurface\s*<|\bcudaBindSurfaceToArray\s*\("), _SURFREF),
    (re.compile(rb"\bcuda(?:MallocMipmappedArray|GetMipmappedArrayLevel|FreeMipmappedArray|"
                rb"ResourceTypeMipmappedArray)\b"),
     "mipmapped arrays are not supported by the emulator (textures and surfaces on CUDA "
     "arrays, linear and pitched memory are)"),
    (re.compile(rb"\b(?!(?:tex1DLod|tex2DLod|tex3DLod|tex2DGrad)\b)tex\w+(?:Lod|Grad)\s*[<(]"
                rb"|\bsurfCubemap\w*\s*[<(]"),
     "this texture or surface function is not supported by the emulator (of the level-of-"
     "detail and gradient fetches it has tex1DLod, tex2DLod, tex3DLod and tex2DGrad; no "
     "cubemap surfaces)"),
]


@dataclass
class EmuSource:
    """The rewritten program and what the runtime needs to know about it."""

    text: str
    fiber_kernels: frozenset[str]
    qualified: dict[str, str] = field(default_factory=dict)  # function name -> C++ name
    # Kernels whose blocks may run on several OS threads (emu/parallel.py).
    parallel_kernels: frozenset[str] = frozenset()


def _diag(unit: TranslationUnit, span: Span, message: str) -> Diagnostic:
    return Diagnostic(Severity.ERROR, message, span.file or unit.path, span.line, span.col,
                      unit.source.line_text(span.line) if span.file == unit.path else "")


def _bodies(unit: TranslationUnit) -> list[Function]:
    return [f for f in unit.functions if f.body is not None]


def check_text(path: str, data: bytes) -> None:
    """Refusals found on the text, before parsing: the front end's shim may not declare
    these constructs at all, and a parse error would hide the real reason."""
    from cudafuse.ir.source import SourceFile

    source = SourceFile(path, data)
    diags = []
    for pattern, message in _TEXT_REFUSALS:
        for m in pattern.finditer(data):
            if _in_comment(data, m.start()):
                continue
            line, col = source.line_col(m.start())
            diags.append(Diagnostic(Severity.ERROR, message, path, line, col,
                                    source.line_text(line)))
    if diags:
        diags.sort(key=lambda d: (d.line, d.col))
        raise CudafuseError(diags)


def check_supported(unit: TranslationUnit) -> None:
    """Raise CudafuseError listing every construct the emulator would get wrong."""
    diags: list[Diagnostic] = []
    for fn in _bodies(unit):
        assert fn.body is not None
        for node in fn.body.walk():
            if isinstance(node, n.Asm) and _refused_asm(unit, fn, node):
                why = inline_asm.why_not(node.text) if node.span.file == unit.path else ""
                diags.append(_diag(unit, node.span, "inline assembly is not supported by the "
                                   f"emulator (only the {BAR_MACRO}(id, n) macro and the "
                                   "PTX of docs/emulation.md, \"Inline PTX\", are)"
                                   + (f": {why}" if why else "")))
            elif isinstance(node, n.Call) and node.callee in _UNSUPPORTED_CALLS:
                diags.append(_diag(unit, node.span, _UNSUPPORTED_CALLS[node.callee]))
    if diags:
        diags.sort(key=lambda d: (d.line, d.col))
        raise CudafuseError(diags)


# hfuse's definition, which the emulator's own macro CUDAFUSE_BAR_RED replaces: g++ never
# sees its inline PTX (the front end does, with __CUDA_ARCH__ defined).
_EMULATOR_REPLACES = frozenset({"cudafuse_bar_red"})


def _refused_asm(unit: TranslationUnit, fn: Function, node: n.Asm) -> bool:
    if node.text.lstrip().startswith(BAR_MACRO) or fn.name in _EMULATOR_REPLACES:
        return False
    return node.span.file != unit.path or inline_asm.translate(node.text) is None


_DIRECTIVE = re.compile(rb"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)


def _translate_asm(unit: TranslationUnit, rw: Rewriter) -> None:
    """The inline PTX check_supported let through becomes calls into cudafuse_emu_ptx.h."""
    data = unit.source.data
    seen: set[int] = set()  # the main file's asm statements the IR holds
    for fn in _bodies(unit):
        if fn.name in _EMULATOR_REPLACES:
            continue
        assert fn.body is not None
        for node in fn.body.walk():
            if not isinstance(node, n.Asm) or node.text.lstrip().startswith(BAR_MACRO):
                continue
            if node.span.file == unit.path:
                seen.add(node.span.start)
            tr = inline_asm.translate(node.text)
            if tr is None or node.span.file != unit.path:
                continue
            end = node.span.start + len(node.text[:tr.end].encode())
            lines = data[node.span.start:end].count(b"\n")
            rw.replace_range(node.span.start, end, tr.code + "\n" * lines, "inline PTX")
    # Functions the IR does not hold (member functions of a class the front end skipped):
    # their translatable PTX found on the text, as in a header; the rest reaches g++, whose
    # assembler error is reported at its line (build.py).
    # Directives are left alone: a macro's definition (hfuse's CUDAFUSE_BAR_SYNC, dropped
    # below) is translated, or not, where it expands.
    blanked = _DIRECTIVE.sub(lambda m: re.sub(rb"[^\n]", b" ", m.group(0)),
                             blank_comments(data))
    for start, end, code in inline_asm.text_edits(blanked, data):
        if start not in seen and not any(e.start < end and start < e.end for e in rw.edits):
            rw.replace_range(start, end, code, "inline PTX")


def _in_comment(data: bytes, pos: int) -> bool:
    line_start = data.rfind(b"\n", 0, pos) + 1
    if b"//" in data[line_start:pos]:
        return True
    return data.rfind(b"/*", 0, pos) > data.rfind(b"*/", 0, pos)


def namespaces(data: bytes) -> list[tuple[int, int, str]]:
    """(start, end, name) of every named `namespace X {` region, found on the text.

    The front end does not give qualified names, and trampolines need them. Comments and
    string literals are skipped so that braces in them do not count."""
    regions: list[tuple[int, int, str]] = []
    stack: list[tuple[int, str | None]] = []
    token = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|'
                       rb'\bnamespace\s+([A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)?\s*\{|[{}]',
                       re.S)
    for m in token.finditer(data):
        text = m.group(0)
        if text.startswith((b"//", b"/*", b'"', b"'")):
            continue
        if text.startswith(b"namespace"):
            name = m.group(1)
            stack.append((m.start(), re.sub(r"\s+", "", name.decode()) if name else ""))
        elif text == b"{":
            stack.append((m.start(), None))
        elif stack:
            start, name = stack.pop()
            if name is not None:
                regions.append((start, m.end(), name))
    return regions


def qualified_names(unit: TranslationUnit) -> dict[str, str]:
    regions = namespaces(unit.source.data)
    out: dict[str, str] = {}
    for fn in _bodies(unit):
        outer = sorted((r for r in regions if r[0] <= fn.span.start < r[1]), key=lambda r: r[0])
        parts = [r[2] for r in outer if r[2]]
        out[fn.name] = "::" + "::".join([*parts, fn.name])
    return out


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _launch_edit(launch: n.KernelLaunch, fibers: bool, callee_text: str, inner: str,
                 start: int, args_open: int, parallel: bool = False,
                 pointer: bool = False) -> tuple[int, int, str]:
    """Replace [start, args_open + 1): `callee<<<inner>>>(` up to the argument list's "(",
    which (with the arguments and the ")") stays as written. `pointer`: the callee is a
    variable holding the kernel (a function pointer, a generic lambda's `auto` parameter):
    the kernel it points to is looked up at the launch (__cf_launch_via, cudafuse_emu_launch.h)
    for its fibers, whether its blocks may run in parallel, and its name."""
    sep = ", " if launch.args else ""
    name = launch.kernel.replace('"', "")
    flags = f"{str(fibers).lower()}, true" if parallel else str(fibers).lower()
    if pointer and _IDENTIFIER.fullmatch(callee_text.strip()):
        head = f'::__cf_emu::__cf_launch_via("{name}", __FILE__, __LINE__, {callee_text})'
    else:
        head = f'::__cf_emu::__cf_launch("{name}", __FILE__, __LINE__, {flags})'
    new = (f"{head}({inner}).__cf_run([&](auto... __cf_arg_) "
           f"{{ {callee_text}(__cf_arg_...); }}{sep}")
    return start, args_open + 1, new


def _launch_written_out(unit: TranslationUnit, launch: n.KernelLaunch) -> bool:
    """Whether the launch's `callee<<<...>>>` is where the front end puts it (not inside a
    macro invocation, where libclang reports the invocation)."""
    src = unit.source
    cfg, callee = launch.config_span, launch.callee_span
    text = src.text(cfg) if cfg.file == unit.path else ""
    callee_text = src.text(callee) if callee.file == unit.path else ""
    return bool(callee_text and text.startswith(callee_text) and text.endswith(">>>")
                and "<<<" in text)


def _launch_text(unit: TranslationUnit, launch: n.KernelLaunch, fibers: bool,
                 diags: list[Diagnostic], taken: set[int] | None = None,
                 parallel: bool = False, pointer: bool = False
                 ) -> tuple[int, int, str] | None:
    src = unit.source
    cfg, callee = launch.config_span, launch.callee_span
    text = src.text(cfg) if cfg.file == unit.path else ""
    callee_text = src.text(callee) if callee.file == unit.path else ""
    if not _launch_written_out(unit, launch):
        # Inside a macro invocation libclang reports the invocation: a launch spelled in
        # full in one of its arguments is found on the text there.
        edit = _macro_argument_launch(unit, launch, fibers, set() if taken is None else taken,
                                      parallel, pointer)
        if edit is None:
            diags.append(_diag(unit, launch.span, f"cannot rewrite the launch of "
                               f"'{launch.kernel}' for emulation (is it inside a macro?): "
                               "a launch written in a macro's definition is not supported, "
                               "write it out at the call or pass it as a macro argument"))
        return edit
    inner = text[text.index("<<<", len(callee_text)) + 3:-3]
    data = src.data
    pos = cfg.end
    while pos < len(data) and data[pos:pos + 1].isspace():
        pos += 1
    if data[pos:pos + 1] != b"(":
        diags.append(_diag(unit, launch.span, "cannot find the argument list of this launch"))
        return None
    return _launch_edit(launch, fibers, callee_text, inner, cfg.start, pos, parallel, pointer)


_MACRO_CALL = re.compile(rb"([A-Za-z_]\w*)\s*\(")
_CLOSE = {b"(": b")", b"[": b"]", b"{": b"}"}


def _skip_literal(data: bytes, pos: int) -> int:
    """The end of the comment or string/char literal starting at `pos`, or `pos` itself."""
    two = data[pos:pos + 2]
    if two == b"//":
        end = data.find(b"\n", pos)
        return len(data) if end < 0 else end
    if two == b"/*":
        end = data.find(b"*/", pos + 2)
        return len(data) if end < 0 else end + 2
    quote = data[pos:pos + 1]
    if quote in (b'"', b"'"):
        i = pos + 1
        while i < len(data) and data[i:i + 1] != quote:
            i += 2 if data[i:i + 1] == b"\\" else 1
        return i + 1
    return pos


def _balanced_end(data: bytes, pos: int, limit: int, stop: bytes = b"") -> int:
    """From the bracket at `pos`, the index just past its partner (stop empty), or, with
    `stop`, the index of the first `stop` at nesting depth 0; -1 when not found before limit."""
    depth = 0
    i = pos
    while i < limit:
        skipped = _skip_literal(data, i)
        if skipped != i:
            i = skipped
            continue
        if stop and depth == 0 and data.startswith(stop, i):
            return i
        c = data[i:i + 1]
        if c in _CLOSE:
            depth += 1
        elif c in (b")", b"]", b"}"):
            depth -= 1
            if depth == 0 and not stop:
                return i + 1
            if depth < 0:
                return -1
        i += 1
    return -1


def _callee_before(data: bytes, pos: int, lo: int) -> int:
    """Start of `name`, `ns::name` or `name<args>` ending just before `pos` (the "<<<")."""
    i = pos
    while i > lo and data[i - 1:i].isspace():
        i -= 1
    if data[i - 1:i] == b">":  # template arguments: back to the matching "<"
        depth = 0
        while i > lo:
            i -= 1
            c = data[i:i + 1]
            depth += c == b">"
            depth -= c == b"<"
            if depth == 0:
                break
        while i > lo and data[i - 1:i].isspace():
            i -= 1
    while i > lo and (data[i - 1:i].isalnum() or data[i - 1:i] in (b"_", b":")):
        i -= 1
    return i


def _macro_arguments(data: bytes, start: int) -> tuple[int, int] | None:
    """(just past the '(', just past its ')') of the macro invocation written at `start`
    (where libclang reports a statement a macro's argument holds); None when there is none."""
    m = _MACRO_CALL.match(data, start)
    if not m:
        return None
    end = _balanced_end(data, m.end() - 1, len(data))
    return (m.end(), end) if end >= 0 else None


def _macro_argument_launch(unit: TranslationUnit, launch: n.KernelLaunch, fibers: bool,
                           taken: set[int], parallel: bool = False, pointer: bool = False
                           ) -> tuple[int, int, str] | None:
    """The edit for a launch written out in full inside the arguments of the macro invocation
    at launch.span (`CHECK(k<<<g, b>>>(x))`, `check((k<<<g, b>>>(x)))`, nested macros too).
    `taken` holds the "<<<" offsets already claimed by earlier launches of the invocation.
    None when the invocation's text has no launch of this kernel: the macro's definition
    makes it, which is not rewritten."""
    if launch.span.file != unit.path:
        return None
    data = unit.source.data
    if (inside := _macro_arguments(data, launch.span.start)) is None:
        return None
    args_start, end = inside
    kernel = launch.kernel.partition("<")[0].rpartition("::")[2]
    pos = args_start
    while (pos := data.find(b"<<<", pos, end)) >= 0:
        here, pos = pos, pos + 3
        if here in taken or _in_comment(data, here):
            continue
        start = _callee_before(data, here, args_start)
        callee = data[start:here].strip()
        if callee.partition(b"<")[0].rpartition(b"::")[2].decode() != kernel:
            continue
        close = _balanced_end(data, here + 3, end, b">>>")
        if close < 0:
            return None
        args = close + 3
        while args < end and data[args:args + 1].isspace():
            args += 1
        if data[args:args + 1] != b"(":
            return None
        taken.add(here)
        inner = data[here + 3:close].decode()
        return _launch_edit(launch, fibers, callee.decode(), inner, start, args, parallel,
                            pointer)
    return None


def _extern_shared(unit: TranslationUnit, rw: Rewriter) -> None:
    def replace(span: Span, name: str, var_type: str, scope_static: bool) -> None:
        elem, _, rest = var_type.partition("[")
        rest = rest.partition("]")[2]  # dims after the first (unsized) one
        elem = elem.strip()
        static = "static " if scope_static else ""
        if rest:
            decl = (f"{static}{elem} (*const {name}){rest} = "
                    f"reinterpret_cast<{elem} (*){rest}>(__cudafuse_dyn_smem())")
        else:
            decl = f"{static}{elem} *const {name} = static_cast<{elem} *>(__cudafuse_dyn_smem())"
        rw.replace(span, decl, "extern __shared__ -> dynamic shared buffer")

    # Member functions too (cuda-samples' SharedMemory<T>::operator T *()): left alone,
    # `extern __shared__` would read `extern static` there ("conflicting specifiers").
    for fn in [*_bodies(unit), *(m for m in unit.methods if m.body is not None)]:
        assert fn.body is not None
        for node in fn.body.walk():
            if isinstance(node, n.VarDecl) and {"shared", "extern"} <= node.storage:
                replace(node.span, node.name, node.var_type, False)
    for g in unit.globals:
        if g.space == "shared" and g.is_extern and g.span.file == unit.path:
            replace(g.span, g.name, g.type, True)


_BAR_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+CUDAFUSE_BAR_SYNC\b(?:[^\n]*\\\n)*[^\n]*",
                         re.M)


def _drop_bar_definitions(unit: TranslationUnit, rw: Rewriter) -> None:
    """The program's own CUDAFUSE_BAR_SYNC (inline PTX) gives way to the emulator's, even
    when it is defined without an #ifndef guard; newlines are kept so lines do not move."""
    for m in _BAR_DEFINE.finditer(unit.source.data):
        text = m.group(0)
        rw.replace_range(m.start(), m.end(), "\n" * text.count(b"\n"),
                         "CUDAFUSE_BAR_SYNC is the emulator's")


def rewrite(unit: TranslationUnit) -> EmuSource:
    """The emulation source for `unit` (raises CudafuseError on unsupported constructs)."""
    check_supported(unit)
    needs = fiber_functions(unit)
    parallel = parallel_kernels(unit)
    known = {f.name for f in _bodies(unit)}
    rw = Rewriter(unit.source)
    diags: list[Diagnostic] = []
    fiber_kernels: set[str] = set()
    taken: set[int] = set()  # "<<<" offsets rewritten inside macro arguments
    covered: list[tuple[int, int]] = []
    # One launch written once may be listed once per instantiation of the template or
    # generic lambda around it (ATen's AT_DISPATCH_* lambdas): its text is rewritten once,
    # with fibers if any instantiation needs them.
    needs_fibers: dict[tuple[int, int, str], bool] = {}
    for launches in _all_launches(unit):
        for launch in launches:
            key = (launch.span.start, launch.span.end, launch.kernel)
            needs_fibers[key] = needs_fibers.get(key, False) or \
                launch.kernel in needs or launch.kernel not in known
    done: set[tuple[int, int, str]] = set()
    for launches in _all_launches(unit):
        for launch in sorted(launches, key=lambda la: la.span.start):
            key = (launch.span.start, launch.span.end, launch.kernel)
            if key in done:
                continue
            done.add(key)
            # A kernel the front end could not see is given fibers, to be safe.
            fibers = needs_fibers[key]
            if fibers:
                fiber_kernels.add(launch.kernel)
            edit = _launch_text(unit, launch, fibers, diags, taken,
                                launch.kernel in parallel and launch.kernel in known,
                                launch.via_variable)
            if edit:
                rw.replace_range(*edit, reason=f"launch of {launch.kernel}")
                covered.append(edit[:2])
                if _launch_written_out(unit, launch):
                    _null_arguments(unit, launch, rw)
                else:  # in a macro's argument: the arguments' spans are the invocation's
                    data = unit.source.data
                    for lo, hi, null in null_arguments(blank_comments(data), data, edit[1]):
                        rw.replace_range(lo, hi, null, "null pointer argument")
    if diags:
        raise CudafuseError(diags)
    fiber_kernels |= _kernel_addresses(unit, rw, needs, parallel, known)
    fiber_kernels |= _unseen_launches(unit, rw, covered, needs, known)
    if any(launches for launches in _kernel_launches(unit).values()):
        _register_static_shared(unit, rw)
    _extern_shared(unit, rw)
    _translate_asm(unit, rw)
    _drop_bar_definitions(unit, rw)
    launch_bounds.insert_checks(unit, rw)
    fiber_kernels |= {f.name for f in unit.kernels if f.name in needs}
    text = rw.apply(user_bytes=False).decode("utf-8") + _kernel_registrations(unit, needs,
                                                                             parallel)
    # A UTF-8 byte order mark (Visual Studio writes one) is only allowed at a file's start;
    # the build puts its own lines before the program's text, where g++ calls it "stray".
    text = text.removeprefix("\ufeff")
    return EmuSource(text, frozenset(fiber_kernels), qualified_names(unit), parallel)


def _null_arguments(unit: TranslationUnit, launch: n.KernelLaunch, rw: Rewriter) -> None:
    """`k<<<g, b>>>(NULL, 0, p)`: the launch forwards its arguments through a generic call,
    where NULL and a literal 0 become integers that no longer convert to the kernel's pointer
    parameters (nvcc converts them at the call). Each such argument, written at the launch,
    is cast to its parameter's type, read from the kernel's own declaration."""
    kernels = [f for f in unit.functions if f.name == launch.kernel and f.space == "global"]
    callee = unit.source.text(launch.callee_span) if launch.callee_span.file == unit.path else ""
    if len({len(f.params) for f in kernels}) != 1 or not callee or "<" in callee and \
            not launch.template_args:
        return  # unknown or overloaded: left as written
    params = kernels[0].params
    for i, arg in enumerate(launch.args[:len(params)]):
        null = (isinstance(arg, n.OtherExpr) and arg.kind == "GNU_NULL_EXPR") or (
            isinstance(arg, n.IntLit) and arg.value == 0)
        if not null or not params[i].is_pointer or arg.span.file != unit.path:
            continue
        text = unit.source.text(arg.span)
        if text.strip() not in ("NULL", "0", "0L", "__null"):
            continue  # spelled through a macro of the program's own: left as written
        rw.replace(arg.span, f"((::__cf_emu::__cf_nth_param_t<decltype(&{callee}), {i}>)"
                             f"({text}))", "null pointer argument")


def _kernel_launches(unit: TranslationUnit) -> dict[str, list[n.KernelLaunch]]:
    """Launches in kernels' bodies (dynamic parallelism), which unit.launches leaves out."""
    out: dict[str, list[n.KernelLaunch]] = {}
    for fn in _bodies(unit):
        if fn.space == "global":
            assert fn.body is not None
            found = [x for x in fn.body.walk() if isinstance(x, n.KernelLaunch)]
            if found:
                out.setdefault(fn.name, []).extend(found)
    return out


def _all_launches(unit: TranslationUnit) -> list[list[n.KernelLaunch]]:
    return [*unit.launches.values(), *_kernel_launches(unit).values()]


def _register_static_shared(unit: TranslationUnit, rw: Rewriter) -> None:
    """With dynamic parallelism, a child grid runs inside its parent's thread, and static
    `__shared__` variables (function statics here) are the parent block's: each declaration
    is followed by __CF_SMEM_REG(name), which tells the emulator their addresses, so that
    it saves and restores them around a child grid (cudafuse_emu_cdp.h)."""
    data = unit.source.data
    blanked = blank_comments(data)
    after: dict[int, list[str]] = {}
    for fn in _bodies(unit):
        assert fn.body is not None
        for node in fn.body.walk():
            if (isinstance(node, n.VarDecl) and "shared" in node.storage
                    and "extern" not in node.storage and node.span.file == unit.path):
                end = blanked.find(b";", node.span.start)
                if end >= 0:
                    after.setdefault(end + 1, []).append(node.name)
    for offset, names in sorted(after.items()):
        text = "".join(f" __CF_SMEM_REG({name});" for name in names)
        rw.insert(offset, text, reason="static __shared__ registered for child grids")


def _unseen_launches(unit: TranslationUnit, rw: Rewriter, covered: list[tuple[int, int]],
                     needs: frozenset[str], known: set[str]) -> set[str]:
    """Rewrite, on the text, the launches the front end did not see, and return those given
    fibers. It drops an expression it cannot type, a launch with it: one whose argument
    names a library the front end lacks (`thrust::raw_pointer_cast(...)`). Such launches are
    rewritten as in the program's own headers (overlay.py), with the kernel's fiber
    classification when the front end saw the kernel."""
    data = unit.source.data
    given: set[str] = set()

    def fibers(callee: str) -> bool:
        name = callee.partition("<")[0].rpartition("::")[2].strip()
        if name in needs or name not in known:
            given.add(name)
            return True
        return False

    for start, end, text in launch_edits(blank_comments(data), data, fibers):
        if not any(s <= start < e or start <= s < end for s, e in covered):
            rw.replace_range(start, end, text, reason="launch the front end did not see")
    return given


def _kernel_registrations(unit: TranslationUnit, needs: frozenset[str],
                          parallel: frozenset[str] = frozenset()) -> str:
    """__CF_KERNEL lines after the program: cudaLaunchKernel, cudaLaunchCooperativeKernel,
    graph kernel nodes and the runtime's trampolines receive a kernel as `(void *)k` or a
    pointer, and find it by address (non-template kernels whose name has one definition),
    with whether it needs fibers and may run its blocks in parallel."""
    defs: dict[str, int] = {}
    for f in _bodies(unit):
        defs[f.name] = defs.get(f.name, 0) + 1
    names = qualified_names(unit)
    lines = []
    for k in unit.kernels:
        if k.body is None or k.is_template or defs.get(k.name) != 1 or k.name not in names:
            continue
        fibers = "true" if k.name in needs else "false"
        par = ", true" if k.name in parallel else ""
        lines.append(f'__CF_KERNEL({names[k.name]}, "{k.name}", {fibers}{par});')
    return "\n" + "\n".join(lines) + "\n" if lines else ""


# The runtime API's launches that receive the kernel as an address (cudafuse_emu_launch.h),
# with the kernel's argument position.
_API_LAUNCHES = {"cudaLaunchKernel": 0, "cudaLaunchCooperativeKernel": 0,
                 "cudaLaunchKernelExC": 1, "cudaLaunchKernelEx": 1}
# The graph calls that receive a kernel node's parameters (cudaKernelNodeParams, whose func is
# the kernel's address; cudaGraphNodeParams, last, in both of cudaGraphAddNode's forms): that
# argument is sited the same way, so that an unknown func stops the run at the call.
_GRAPH_KERNEL_CALLS = {"cudaGraphAddKernelNode": 4, "cudaGraphKernelNodeSetParams": 1,
                       "cudaGraphExecKernelNodeSetParams": 2, "cudaGraphAddNode": -1}
_KERNEL_NAME = re.compile(r"\s*(?:::\s*)?(?:[A-Za-z_]\w*\s*::\s*)*([A-Za-z_]\w*)\s*(?:<.*>)?\s*",
                          re.S)


def _site_index(call: n.Call) -> int | None:
    """The position of the argument of API call `call` that names the kernel (an address, or
    the node parameters holding one), or None for another call."""
    if call.callee in _API_LAUNCHES:
        index = _API_LAUNCHES[call.callee]
    elif call.callee in _GRAPH_KERNEL_CALLS:
        index = _GRAPH_KERNEL_CALLS[call.callee] % max(len(call.args), 1)
    else:
        return None
    return index if len(call.args) > index else None


def _kernel_addresses(unit: TranslationUnit, rw: Rewriter, needs: frozenset[str],
                      parallel: frozenset[str], known: set[str]) -> set[str]:
    """Every kernel the host code names as a value (`(void *)k<float, 3>`, `&ns::k`,
    `kernel_t p = c ? k<int> : k<float>;`) is spelled registered<...>(...) where it is
    written, so the instance it names (template arguments, namespaces and typedefs resolved by
    the compiler at that very place) is in the registry before cudaLaunchKernel looks it up
    by address; the kernel argument of each cudaLaunchKernel / cudaLaunchCooperativeKernel /
    cudaLaunchKernelEx(C), and the node parameters of each graph kernel node call, is
    wrapped in __cf_api_site(...), so that a pointer the registry still lacks stops the run there,
    naming the argument. Returns the kernels so registered with fibers."""
    kernels = {f.decl: f for f in (*unit.functions, *unit.header_functions)
               if f.space == "global" and f.decl}
    given: set[str] = set()
    for fn in [*_bodies(unit), *(m for m in unit.methods if m.body is not None)]:
        if fn.space == "global" or fn.space == "device" or fn.body is None or \
                _CONSTANT.search(fn.attributes_text):
            continue
        sites = [(c, c.args[i]) for c in fn.body.walk()
                 if isinstance(c, n.Call) and (i := _site_index(c)) is not None]
        wrapped: list[tuple[int, int]] = []
        taken: set[int] = set()  # API calls found in macro arguments
        for call, arg in sites:
            if call.span.file != unit.path:
                continue
            if _written_out(unit, call, arg):
                start, end = arg.span.start, arg.span.end
                inner = [_registered(unit, e, kernels, needs, parallel, known, given)
                         for e in _kernel_values(arg, kernels)]
            else:  # in a macro's arguments (`CHECK(cudaLaunchKernel(...))`): on the text
                found = _macro_argument_site(unit, call, taken)
                if found is None:  # the macro's definition makes the call: the kernels its
                    _register_macro_arguments(unit, rw, call, arg, kernels,  # arguments name
                                              (needs, parallel, known, given))
                    continue
                start, end = found
                inner = _registered_in_text(unit, start, end, arg, kernels, needs, parallel,
                                            known, given)
            text = _spliced(unit, start, end, [x for x in inner if x])
            quoted = " ".join(unit.source.data[start:end].decode().split()) \
                .replace("\\", "\\\\").replace('"', '\\"')
            if _overlaps(rw, start, end):
                continue
            rw.replace_range(start, end,
                             f'::__cf_emu::__cf_api_site(__FILE__, __LINE__, "{quoted}", '
                             f"{text})", "kernel argument of a runtime API launch or graph call")
            wrapped.append((start, end))
        constant = _constant_initialisers(unit, fn)
        for e in _kernel_values(fn.body, kernels):
            if any(s <= e.span.start < t for s, t in wrapped) or id(e) in constant:
                continue
            edit = _registered(unit, e, kernels, needs, parallel, known, given)
            if edit and not _overlaps(rw, edit[0], edit[1]):
                rw.replace_range(*edit, reason="address of a kernel, registered")
    return given


_CONSTANT = re.compile(r"\b(?:constexpr|consteval|constinit)\b")


def _constant_initialisers(unit: TranslationUnit, fn: Function) -> set[int]:
    """The nodes in initialisers of `constexpr` / `constinit` variables of `fn`, where the
    (run-time) registration cannot stand: their kernels are left as written."""
    assert fn.body is not None
    out: set[int] = set()
    code = unit.code
    for node in fn.body.walk():
        if isinstance(node, n.VarDecl) and node.init is not None and \
                node.span.file == unit.path:
            head = code[node.span.start:node.init.span.start]
            if _CONSTANT.search(head.decode(errors="replace")):
                out.update(id(x) for x in node.init.walk())
    return out


def _written_out(unit: TranslationUnit, call: n.Call, arg: n.Expr) -> bool:
    """Whether API launch `call` and its kernel argument `arg` are spelled at their spans:
    inside a macro's expansion both carry the invocation's (`LAUNCH(k, ...)`), or none."""
    return (call.span.file == arg.span.file == unit.path
            and call.span.start < arg.span.start < arg.span.end <= call.span.end
            and unit.source.data.startswith(call.callee.encode(), call.span.start))


def _overlaps(rw: Rewriter, start: int, end: int) -> bool:
    return any(e.start < end and start < e.end for e in rw.edits)


def _kernel_values(root: n.Node, kernels: dict[str, Function]) -> list[n.Expr]:
    """The expressions under `root` that name a kernel as a value: a Ref to it, or `&` of one
    (replaced whole: the registered pointer is not an lvalue whose address can be taken)."""
    out: list[n.Expr] = []
    inside: set[int] = set()
    for node in root.walk():
        if isinstance(node, n.Unary) and node.op == "&" and _is_kernel_ref(node.operand,
                                                                          kernels):
            out.append(node)
            inside.add(id(node.operand))
        elif _is_kernel_ref(node, kernels) and id(node) not in inside:
            assert isinstance(node, n.Expr)
            out.append(node)
    return out


def _is_kernel_ref(node: n.Node, kernels: dict[str, Function]) -> bool:
    return isinstance(node, n.Ref) and _kernel_of(node, kernels) is not None


# Lookups the front end leaves unresolved: in a template's body where they depend on its
# parameters (`k<T, 1>`), and in an initialiser list (`kernel_t ks[] = {k<1>, k<2>};`).
_UNRESOLVED = frozenset({"<dependent type>", "<overloaded function type>"})


def _kernel_of(ref: n.Ref, kernels: dict[str, Function]) -> str | None:
    """The name of the kernel `ref` names: its declaration, or, for an unresolved lookup,
    the kernel templates of that name it may find (the front end gives 'name@where')."""
    if ref.kind == "function" and ref.decl in kernels:
        return kernels[ref.decl].name
    if ref.kind == "other" and ref.type in _UNRESOLVED and "@" in ref.decl:
        name = ref.decl.partition("@")[0]
        if any(k.name == name and k.is_template for k in kernels.values()):
            return name
    return None


def _registered(unit: TranslationUnit, e: n.Expr, kernels: dict[str, Function],
                needs: frozenset[str], parallel: frozenset[str], known: set[str],
                given: set[str]) -> tuple[int, int, str] | None:
    """The edit that spells kernel value `e` as ::__cf_emu::__cf_registered<&k>(...), or None
    when its text is not the kernel's name as written (a macro's expansion)."""
    ref = e.operand if isinstance(e, n.Unary) else e
    assert isinstance(ref, n.Ref)
    if ref.span.file != unit.path or e.span.file != unit.path:
        return None
    text = _registration(unit.source.text(ref.span), ref, kernels, needs, parallel, known,
                         given)
    return None if text is None else (e.span.start, e.span.end, text)


def _registration(written: str, ref: n.Ref, kernels: dict[str, Function],
                  needs: frozenset[str], parallel: frozenset[str], known: set[str],
                  given: set[str]) -> str | None:
    """registered<&k<...>>(...) for the kernel `ref` names, written `written`."""
    m = _KERNEL_NAME.fullmatch(written)
    name = _kernel_of(ref, kernels)
    if not m or name is None or m.group(1) != name:
        return None
    if ref.kind == "other" and "<" not in written:
        return None  # its template arguments come from the target's type, unknown here
    fibers = name in needs or name not in known
    if fibers:
        given.add(name)
    par = name in parallel and name in known
    # The function type clang gives the reference picks the instance (and the overload) even
    # where the template arguments are deduced from the target (`kernel_t p = k;`).
    pointer = _pointer_type(ref.type or "")
    address = f"static_cast<{pointer}>(&{written})" if pointer else f"&{written}"
    return (f'::__cf_emu::__cf_registered<{address}>("{name}", {str(fibers).lower()}, '
            f"{str(par).lower()})")


def _pointer_type(fn_type: str) -> str:
    """'void (float *, int)' -> 'void (*)(float *, int)'; '' for anything else (a dependent
    or unknown type)."""
    head, paren, rest = fn_type.partition("(")
    if not paren or not head.strip() or "<" in head or "dependent" in fn_type:
        return ""
    return f"{head.rstrip()} (*)({rest}"


def _spliced(unit: TranslationUnit, lo: int, hi: int, edits: list[tuple[int, int, str]]
             ) -> str:
    """The text of [lo, hi) with `edits` (inside it, not overlapping) applied."""
    data = unit.source.data
    out, pos = [], lo
    for start, end, text in sorted(edits):
        out.append(data[pos:start].decode())
        out.append(text)
        pos = end
    out.append(data[pos:hi].decode())
    return "".join(out)


_API_CALL = re.compile(rb"\b(cudaLaunchKernelExC|cudaLaunchKernelEx|cudaLaunchKernel|"
                       rb"cudaLaunchCooperativeKernel|cudaGraphAddKernelNode|cudaGraphAddNode|"
                       rb"cudaGraphKernelNodeSetParams|cudaGraphExecKernelNodeSetParams)\s*\(")


def _macro_argument_site(unit: TranslationUnit, call: n.Call, taken: set[int]
                         ) -> tuple[int, int] | None:
    """[start, end) of the kernel argument of API launch `call`, written out in the
    arguments of the macro invocation libclang reports it at (`CHECK(cudaLaunchKernel(...))`),
    the invocation's calls of that name taken in order; None when the macro's definition
    makes the call (not rewritten: the run then stops at it, unlocated)."""
    data = unit.source.data
    if (inside := _macro_arguments(data, call.span.start)) is None:
        return None
    args_start, limit = inside
    for a in _API_CALL.finditer(data, args_start, limit):
        if a.group(1).decode() != call.callee or a.start() in taken or \
                _in_comment(data, a.start()):
            continue
        taken.add(a.start())
        pos = a.end()
        for _ in range(_site_index(call) or 0):  # ExC's configuration first
            pos = _argument_end(data, pos, limit) + 1
        while pos < limit and data[pos:pos + 1].isspace():
            pos += 1
        end = _argument_end(data, pos, limit)
        while end > pos and data[end - 1:end].isspace():
            end -= 1
        return (pos, end) if end > pos else None
    return None


def _register_macro_arguments(unit: TranslationUnit, rw: Rewriter, call: n.Call, arg: n.Expr,
                              kernels: dict[str, Function],
                              modes: tuple[frozenset[str], frozenset[str], set[str], set[str]]
                              ) -> None:
    """`LAUNCH(k<float>, grid, block, args)` whose definition calls cudaLaunchKernel: the
    call cannot be sited, but the kernels its argument names (the IR says which), written in
    the invocation's arguments, are registered there, so that the launch finds them."""
    data = unit.source.data
    if (inside := _macro_arguments(data, call.span.start)) is None:
        return
    args_start, limit = inside
    for edit in _registered_in_text(unit, args_start, limit - 1, arg, kernels, *modes):
        if edit and not _overlaps(rw, edit[0], edit[1]):
            rw.replace_range(*edit, reason="address of a kernel in a macro argument, registered")


def _argument_end(data: bytes, pos: int, limit: int) -> int:
    """The ',' or ')' that ends the call argument starting at `pos` (template arguments'
    commas, `k<float, 3>`, included in it)."""
    depth = angle = 0
    i = pos
    while i < limit:
        skipped = _skip_literal(data, i)
        if skipped != i:
            i = skipped
            continue
        c = data[i:i + 1]
        if c in _CLOSE:
            depth += 1
        elif c in (b")", b"]", b"}"):
            if depth == 0:
                return i
            depth -= 1
        elif c == b"<" and re.search(rb"[\w>]\s*$", data[pos:i]):
            angle += 1
        elif c == b">" and angle:
            angle -= 1
        elif c == b"," and depth == 0 and angle == 0:
            return i
        i += 1
    return limit


def _registered_in_text(unit: TranslationUnit, lo: int, hi: int, arg: n.Expr,
                        kernels: dict[str, Function], needs: frozenset[str],
                        parallel: frozenset[str], known: set[str], given: set[str]
                        ) -> list[tuple[int, int, str] | None]:
    """The registrations of the kernels `arg` names (its IR says which; the macro leaves
    their text no span), found in its text [lo, hi): `k`, `ns::k`, `k<...>`, `&k<...>`."""
    data = unit.source.data
    out: list[tuple[int, int, str] | None] = []
    for e in _kernel_values(arg, kernels):
        ref = e.operand if isinstance(e, n.Unary) else e
        assert isinstance(ref, n.Ref)
        name = _kernel_of(ref, kernels)
        if name is None:
            continue
        for m in re.finditer(rb"(&\s*)?((?:::\s*)?(?:[A-Za-z_]\w*\s*::\s*)*" +
                             re.escape(name.encode()) + rb")\b", data[lo:hi]):
            start, end = lo + m.start(), lo + m.end()
            rest = data[end:hi].lstrip()
            if rest.startswith(b"<"):  # the template arguments, to their '>'
                j, depth = data.index(b"<", end, hi), 0
                while j < hi:
                    depth += (data[j:j + 1] == b"<") - (data[j:j + 1] == b">")
                    j += 1
                    if depth == 0:
                        break
                end = j
            if any(x and x[0] < end and start < x[1] for x in out):
                continue
            written = data[start + len(m.group(1) or b""):end].decode()
            reg = _registration(written, ref, kernels, needs, parallel, known, given)
            out.append(None if reg is None else (start, end, reg))
            break
    return out
