"""Concrete copies of the kernel templates the file's host code launches (issue 25).

A launch `blur<float, 2><<<g, b>>>(...)` (or `scale<<<g, b>>>(fp, n)`, its arguments
deduced) starts one instantiation of a template. libclang does not hand out an
instantiation's body, so the copy is made from the template's text: every reference the
template makes to one of its own parameters (a TYPE_REF to a type parameter, a DECL_REF_EXPR
to a non-type parameter, found by what they reference, not by their spelling) is replaced by
the argument clang bound it to at that launch (an integer written for its parameter's type:
`true` for a bool, a cast for an enumeration), the `template <...>` head is blanked, and the
text is parsed again after the file, in its namespaces, as an ordinary kernel. Its lines are
the template's lines, so diagnostics in it point where the user wrote the code.

The passes that read kernels by their meaning (the vertical pass) then see the copy: every
fact, the cost model and code generation work on concrete types and constants. Unfused
launches keep the template as written; the copy is never part of any output.

Refused (the launch keeps the template, with the reason): a template template parameter or
a pack, a template argument that is neither a type nor an integer, a type argument that
is a pointer, reference, array or function type (`const T *` with T = `float *` is no
text substitution of `float *` for T), a copy that does not compile, a reference to a
parameter written by a macro expansion (its text is not where the template is), a macro
the template uses that the file defines or undefines again after it (the copy is read
after the file), a member template. A template of a user file the main file includes (once)
is copied the same way, its copy standing at the #include (Rodinia's `prescan<...>` in
scanLargeArray_kernel.cu).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import clang.cindex as ci

from cudafuse.frontend.clang_api import referenced
from cudafuse.frontend.clang_diags import is_error
from cudafuse.frontend.included_kernels import redefined_later
from cudafuse.frontend.lower import K, Lowerer, LoweringError
from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.source import SourceFile

_PARAM_KINDS = (K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER)
_COMPOUND = frozenset({
    ci.TypeKind.POINTER, ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE,
    ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.VARIABLEARRAY,
    ci.TypeKind.DEPENDENTSIZEDARRAY, ci.TypeKind.FUNCTIONPROTO, ci.TypeKind.FUNCTIONNOPROTO,
    ci.TypeKind.MEMBERPOINTER, ci.TypeKind.BLOCKPOINTER})


API_LAUNCH = "cudaLaunchKernel"


def api_kernel(call: n.Node) -> n.Ref | None:
    """The function a `cudaLaunchKernel(k, grid, block, args[, shared[, stream]])` call
    starts, named through casts and `&` (`(const void *)k`, `(void *)&k<float, 3>`)."""
    if not (isinstance(call, n.Call) and call.callee == API_LAUNCH and
            4 <= len(call.args) <= 6):
        return None
    e = strip_casts(call.args[0])
    if isinstance(e, n.Unary) and e.op == "&":
        e = strip_casts(e.operand)
    return e if isinstance(e, n.Ref) and e.kind == "function" else None


def _launches(unit: TranslationUnit) -> list[n.KernelLaunch]:
    """Every launch of the unit's host functions, by walking their bodies: unit.launches is
    keyed by name, and the explicit specialisations of one host template share it
    (frontend/host_instances.py). A runtime-API launch of a template (`cudaLaunchKernel(
    (void *)k<float>, ...)`, which the vertical pass reads as a launch: passes/vertical/host/
    api_launches.py) counts too, as a launch whose callee is the kernel's name there."""
    out: dict[int, n.KernelLaunch] = {la.callee_span.start: la
                                      for las in unit.launches.values() for la in las}
    for f in (*unit.functions, *unit.method_hosts):
        if f.body is not None and f.space != "global" and not f.is_template:
            out.update((x.callee_span.start, x) for x in f.body.walk()
                       if isinstance(x, n.KernelLaunch))
            for x in f.body.walk():
                ref = api_kernel(x)
                if ref is not None and isinstance(x, n.Call) and \
                        ref.span.end > ref.span.start:
                    out.setdefault(ref.span.start, n.KernelLaunch(
                        span=x.span, kernel=ref.name, grid=x.args[1], block=x.args[2],
                        shared=None, stream=None, args=(), kernel_decl=ref.decl,
                        callee_span=ref.span))
    return list(out.values())


def launches_templates(unit: TranslationUnit) -> bool:
    """Whether some launch starts no ordinary kernel of the unit (a template's?)."""
    return any((f := unit.callee(la.kernel_decl)) is None or f.is_template
               for la in _launches(unit))


def _template_of(unit: TranslationUnit, launch: n.KernelLaunch) -> Function | None:
    # (a template declared before its definition has both among the functions, one decl)
    fn = next((f for f in unit.functions if f.decl == launch.kernel_decl
               and f.body is not None), None)
    if fn is None or not fn.is_template or fn.space != "global" or fn.body is None:
        return None
    return fn if fn.span.file == unit.path else None


def _specialisation(tu: ci.TranslationUnit, path: str, unit_text: bytes,
                    launch: n.KernelLaunch) -> ci.Cursor | None:
    """The function template specialisation a launch names, if it names one."""
    # (at the kernel's own name: `img::blur<float>` starts with a namespace's)
    head = launch.callee_span.start
    text = unit_text[head:launch.callee_span.end].split(b"<", 1)[0]
    name = launch.kernel.rsplit("::", 1)[-1].encode()
    at = head + text.rfind(name) if name and name in text else head
    loc = ci.SourceLocation.from_offset(tu, tu.get_file(path), at)
    cur = ci.Cursor.from_location(tu, loc)
    spec = referenced(cur) if cur is not None else None
    if spec is None or spec.kind != K.FUNCTION_DECL or spec.get_num_template_arguments() <= 0:
        return None
    return spec


def _arguments(spec: ci.Cursor | None) -> list[str | int] | str:
    """What each template parameter is bound to at this launch (a type's text, or an
    integer's value: its text depends on the parameter's type, _value_text), or why not."""
    if spec is None:
        return "the instantiation its launch names is not found"
    count = spec.get_num_template_arguments()  # > 0: _specialisation checked
    out = []
    for i in range(count):
        try:
            kind = spec.get_template_argument_kind(i)
        except ValueError:  # a kind the bindings do not name: a template, a pack
            return f"its template argument {i + 1} is a template or a pack (no text of " \
                "a type or a value stands for it)"
        if kind == ci.TemplateArgumentKind.TYPE:
            ty = spec.get_template_argument_type(i).get_canonical()
            if ty.kind in _COMPOUND:
                # `const T *` with T = `float *` is `float *const *`: the argument's text
                # put in place of the parameter would read `const float **`.
                return f"its type argument '{ty.spelling}' is a pointer, reference, array " \
                    "or function type (its text cannot stand for the parameter)"
            out.append(ty.spelling)
        elif kind == ci.TemplateArgumentKind.INTEGRAL:
            out.append(spec.get_template_argument_value(i))
        else:
            return f"its template argument {i + 1} is neither a type nor an integer"
    return out


def _value_text(param: ci.Cursor, value: int) -> str:
    """The text of integer `value` bound to non-type parameter `param`. A bool is `true` or
    `false`: `(1)` is no converted constant expression of type bool, so a copy that hands
    the parameter on to another template (Rodinia's `loadSharedChunkFromMem<isNP2>(...)`)
    would not compile. An enumeration's value is cast to it, for the same reason."""
    ty = param.type.get_canonical()
    if ty.kind == ci.TypeKind.BOOL:
        return "true" if value else "false"
    if ty.kind == ci.TypeKind.ENUM:
        return f"(({ty.spelling})({value}))"
    return f"({value})"


def _concrete_text(tu: ci.TranslationUnit, where: _Template, args: list[str | int],
                   new_name: str) -> str | bytes:
    """The template's text with its parameters replaced by `args`, its head blanked and
    renamed `new_name`, on the template's own lines; or why it cannot be made."""
    fn, data = where.fn, where.source.data
    cur = _template_cursor(tu.cursor, where.source.path, fn.span.start)
    if cur is None:
        return "its template declaration is not found"
    macro = redefined_later(data, cur, where.main, where.site)
    if macro:
        return f"the macro '{macro}' it uses is defined or undefined again after it (its " \
            "copy, read after the file, could mean something else)"
    params = [c for c in cur.get_children() if c.kind in (*_PARAM_KINDS,
                                                          K.TEMPLATE_TEMPLATE_PARAMETER)]
    if any(c.kind == K.TEMPLATE_TEMPLATE_PARAMETER for c in params):
        return "it has a template template parameter"
    if len(params) != len(args):
        return "it has a parameter pack"
    bound = {c.hash: a if isinstance(a, str) else _value_text(c, a)
             for c, a in zip(params, args, strict=True)}
    start, end = fn.span.start, fn.span.end
    head_end = max(c.extent.end.offset for c in params) if params else start
    close = data.find(b">", head_end)
    if close < 0 or close >= fn.name_span.start:
        return "its template head is not found"
    edits = parameter_edits(cur, data, close, bound)
    if isinstance(edits, str):
        return edits
    ns, ne = fn.name_span.start, fn.name_span.end
    edits[ns] = (ne, new_name)
    out = bytearray()
    pos = start
    for s in sorted(edits):
        e, text = edits[s]
        out += data[pos:s] + text.encode()
        pos = e
    out += data[pos:end]
    head = len(data[start:close + 1])
    body = b" " * head + bytes(out[head:])
    line_start = data.rfind(b"\n", 0, start) + 1
    lines = data.count(b"\n", 0, start)
    opening = "".join(f"namespace {name} {{ " for name, _ in fn.namespaces)
    closing = " }" * len(fn.namespaces)
    pad = b"\n" * max(lines - 1, 0) + opening.encode() + (b"\n" if lines else b"")
    return pad + b" " * (start - line_start) + body + closing.encode() + b"\n"


@dataclass(frozen=True)
class _Template:
    """A kernel template: its lowered head, its file's text, and where the copy stands
    in the main file (the template itself, or the #include of its file)."""

    fn: Function
    source: SourceFile
    site: int
    main: bytes = b""  # the main file's text after an #include: its macros count too


def _included_template(tu: ci.TranslationUnit, spec: ci.Cursor | None,
                       user: dict[str, int]) -> _Template | str | None:
    """The template of an included user file that `spec` instantiates (None: none)."""
    if spec is None:
        return None
    tcur = ci.conf.lib.clang_getSpecializedCursorTemplate(spec)
    if tcur is None or tcur.kind != K.FUNCTION_TEMPLATE or tcur.location.file is None:
        return None
    fname = tcur.location.file.name
    if fname not in user:
        return None
    try:
        source = SourceFile(fname, Path(fname).read_bytes())
        fn = Lowerer(source, tu).function(tcur)
    except (OSError, LoweringError, ValueError, AttributeError, RecursionError) as exc:
        return f"its template cannot be read ({exc})"
    if fn.space != "global" or fn.body is None:
        return None
    return _Template(fn, source, user[fname])


def lower_instances(tu: ci.TranslationUnit, unit: TranslationUnit,
                    reparse: Callable[[bytes, list[tuple[str, bytes]]], ci.TranslationUnit],
                    user: dict[str, int]) -> set[tuple[str, str]]:
    """Fill unit.instances: for each launch of a template kernel of the main file or of an
    included user file (`user`: each such file's #include offset in the main file), by the
    offset of its callee, the concrete kernel its instantiation is, or why none is made.
    `reparse(text, files)` parses the main file with `text` as its content and `files`
    (path, bytes) as unsaved files it may include. Returns the templates
    (file, name) of which a copy was made."""
    wanted: dict[tuple[str, tuple[str | int, ...]], list[int]] = {}
    templates: dict[str, _Template] = {}
    for launch in _launches(unit):
        at = launch.callee_span.start
        fn = _template_of(unit, launch)
        if fn is None and unit.callee(launch.kernel_decl) is not None:
            continue  # an ordinary kernel of the unit
        spec = _specialisation(tu, unit.path, unit.source.data, launch)
        where: _Template | str | None
        if fn is not None:
            where = _Template(fn, unit.source, fn.span.start)
        else:
            where = _included_template(tu, spec, user)
            if isinstance(where, _Template):
                where = replace(where, main=unit.source.data)
        if where is None:
            continue
        if isinstance(where, str):
            unit.instances[at] = where
            continue
        if where.fn.parent:
            unit.instances[at] = "it is a member template"
            continue
        args = _arguments(spec)
        if isinstance(args, str):
            unit.instances[at] = args
            continue
        templates[where.fn.decl] = where
        wanted.setdefault((where.fn.decl, tuple(args)), []).append(at)
    made: set[tuple[str, str]] = set()
    if not wanted:
        return made
    # Each copy is an unsaved file beside its template, named after it (never written):
    # its path shows in notes and decl ids, so it must not change from run to run (a
    # temporary directory's random name did), and nothing is left on disk.
    files: dict[str, tuple[_Template, list[int], bytes]] = {}
    for k, ((decl, args), offsets) in enumerate(sorted(wanted.items())):
        where = templates[decl]
        name = where.fn.name
        text = _concrete_text(tu, where, list(args), f"{name}__cf_instance{k}")
        if isinstance(text, str):
            for off in offsets:
                unit.instances[off] = text
            continue
        path = f"{os.path.abspath(where.source.path)}.{name}.{k}.cuh"
        files[path] = (where, offsets, text)
    if not files:
        return made
    extra = "".join(f'\n#include "{p}"' for p in files).encode()
    tu2 = reparse(unit.source.data + b"\n" + extra + b"\n",
                  [(p, text) for p, (_, _, text) in files.items()])
    for path, (where, offsets, text) in files.items():
        why = _lower_copy(tu2, unit, where, path, text)
        for off in offsets:
            unit.instances[off] = why
        if isinstance(why, Function):
            made.add((where.source.path, where.fn.name))
    return made


def _lower_copy(tu: ci.TranslationUnit, unit: TranslationUnit, where: _Template, path: str,
                text: bytes) -> Function | str:
    fn = where.fn
    errors = [d for d in tu.diagnostics if is_error(d) and d.location.file is not None
              and d.location.file.name == path]
    if errors:
        return f"its instantiation does not compile: {errors[0].spelling}"
    found = _find(tu.cursor, path)
    if found is None:
        return "its instantiation is not found"
    source = SourceFile(path, text)
    try:
        copy = Lowerer(source, tu).function(found)
    except (LoweringError, ValueError, AttributeError, RecursionError) as exc:
        return f"its instantiation cannot be lowered ({exc})"
    unit.sources[path] = source
    unit.included_at[path] = where.site
    return replace(copy, name=fn.name, namespaces=fn.namespaces)


def _find(cursor: ci.Cursor, path: str) -> ci.Cursor | None:
    for c in cursor.get_children():
        if c.location.file is None or c.location.file.name != path:
            continue
        if c.kind == K.NAMESPACE:
            inner = _find(c, path)
            if inner is not None:
                return inner
        elif c.kind == K.FUNCTION_DECL and c.is_definition():
            return c
    return None


def _template_cursor(cursor: ci.Cursor, path: str, start: int) -> ci.Cursor | None:
    """The FUNCTION_TEMPLATE of the main file whose text starts at `start`."""
    for c in cursor.get_children():
        if c.location.file is None or c.location.file.name != path:
            continue
        if c.kind == K.FUNCTION_TEMPLATE and c.extent.start.offset == start:
            return c
        if c.kind in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL) and \
                c.extent.start.offset <= start < c.extent.end.offset:
            inner = _template_cursor(c, path, start)
            if inner is not None:
                return inner
    return None


def parameter_edits(cur: ci.Cursor, data: bytes, close: int,
                    bound: dict[str, str]) -> dict[int, tuple[int, str]] | str:
    """The edits that write each use of a template parameter in `cur`'s text after its
    template head (which ends at offset `close`) as its bound argument (`bound`, keyed by the
    parameter's cursor hash): start offset -> (end offset, text). A reason instead where a
    use is spelled through a macro (its text is not the parameter's name), which no edit of
    the text could bind. For kernel copies (here) and host function copies
    (host_instances.py)."""
    edits: dict[int, tuple[int, str]] = {}
    for c in cur.walk_preorder():
        if c.kind not in (K.TYPE_REF, K.DECL_REF_EXPR) or c.extent.start.offset <= close:
            continue
        r = c.referenced
        if r is None or r.kind not in _PARAM_KINDS or r.hash not in bound:
            continue
        s, e = c.extent.start.offset, c.extent.end.offset
        if data[s:e].decode("utf-8", "replace") != r.spelling:
            return (f"its parameter '{r.spelling}' is used through a macro "
                    f"(line {c.location.line})")
        edits[s] = (e, bound[r.hash])
    return edits
