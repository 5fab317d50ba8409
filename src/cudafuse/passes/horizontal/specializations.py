"""A template kernel and its explicit specializations: which one `--kernels NAME<ARGS>` runs.

mmcv writes each sync-BN kernel as a template and a `template <>` specialization for
`phalf` (sync_bn_cuda_kernel.cuh), so one name finds two kernel definitions. The launch
`NAME<float>` runs the primary template, `NAME<phalf>` the specialization, whose body is
other code. The specialization's arguments are read from its parameters where the primary
writes a type parameter as a parameter's (pointee) type (`const T *input` against `const
phalf *input`: T = phalf, canonically `c10::Half`), and compared with the named argument:
the same spelling or canonical type is that specialization; two different builtin types, or
a builtin and a class, differ. An argument that is neither (a typedef of a specialization,
`typedef Half2<short> HalfPair;` named as `NAME<HalfPair>`, or a class template's other
specialization) is resolved as the program resolves it: clang parses the file with an alias
of each such argument appended in the kernel's namespaces, and the aliases' canonical types
are compared with the specialization's. Only what that parse cannot resolve (the file does
not parse with the alias) is an error rather than a guess.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from cudafuse.codegen.templates import KernelRef, bind
from cudafuse.diagnostics import error
from cudafuse.ir.program import Function, TranslationUnit

if TYPE_CHECKING:
    from cudafuse.frontend.parse import ParseOptions

_BUILTIN = {"bool", "char", "signed char", "unsigned char", "short", "unsigned short", "int",
            "unsigned int", "unsigned", "long", "unsigned long", "long long",
            "unsigned long long", "float", "double", "long double"}
_EXPLICIT = re.compile(r"template\s*<\s*>")


def _norm(text: str) -> str:
    return " ".join(re.sub(r"\b(?:const|volatile)\b", "", text).split())


def _deduced(primary: Function, spec: Function) -> dict[str, tuple[str, str]] | None:
    """Type parameter -> (the specialization's spelling, its canonical type), from the
    parameters the primary declares through a type parameter; None when the parameter lists
    do not line up."""
    if len(primary.params) != len(spec.params):
        return None
    names = {p.name for p in primary.template_params if p.kind == "type"}
    out: dict[str, tuple[str, str]] = {}
    for mine, theirs in zip(primary.params, spec.params, strict=True):
        pointee = _norm(mine.pointee) if mine.is_pointer else _norm(mine.type)
        if pointee in names and (theirs.is_pointer == mine.is_pointer):
            written = _norm(theirs.pointee) if theirs.is_pointer else _norm(theirs.type)
            canonical = _norm(theirs.pointee_canonical) if theirs.is_pointer else written
            out.setdefault(pointee, (written, canonical or written))
    return out


_SPELLINGS = {"unsigned": "unsigned int", "signed": "int", "signed int": "int",
              "short int": "short", "long int": "long", "long long int": "long long",
              "unsigned short int": "unsigned short", "unsigned long int": "unsigned long",
              "unsigned long long int": "unsigned long long"}


def _compare(arg: str, written: str, canonical: str) -> str:
    """'same', 'differs' or 'unknown'."""
    arg = _SPELLINGS.get(_norm(arg), _norm(arg))
    if arg in (written, _SPELLINGS.get(canonical, canonical)):
        return "same"
    # A builtin type is its own canonical type: another canonical type (a builtin, a class,
    # an enum) is another type.
    return "differs" if arg in _BUILTIN else "unknown"


_PROBE = "cudafuse_probe_"


def _canonical_args(unit: TranslationUnit, primary: Function, args: list[str],
                    opts: ParseOptions) -> dict[str, str]:
    """Argument -> its canonical type (cv removed), as clang resolves it in the kernel's
    namespaces: the file parsed again with `using cudafuse_probe_I = ARG;` appended there.
    Arguments that do not resolve are left out."""
    from clang import cindex as ci

    from cudafuse.frontend.parse import _parse, effective_options

    spaces = [n for n, _ in primary.namespaces]
    if any(not n for n in spaces):  # an anonymous namespace cannot be reopened by name
        return {}
    head = "".join(f"namespace {n} {{ " for n in spaces)
    probe = "\n" + head + "".join(f"using {_PROBE}{i} = {a};\n" for i, a in enumerate(args)) + \
        "}" * len(spaces) + "\n"
    text = unit.source.data + probe.encode()
    merged, _ = effective_options(opts, unit.path)
    try:
        tu = _parse(unit.path, merged, text=text, content=text)
    except Exception:  # noqa: BLE001 -- no parse: nothing resolved, the caller's error stands
        return {}
    scope = tu.cursor
    for n in spaces:  # the last opening of each namespace holds the probes
        inner = [c for c in scope.get_children()
                 if c.kind == ci.CursorKind.NAMESPACE and c.spelling == n]
        if not inner:
            return {}
        scope = inner[-1]
    bad = {d.location.line for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error and
           d.location.file is not None and d.location.file.name == unit.path}
    out: dict[str, str] = {}
    for c in scope.get_children():
        if c.kind == ci.CursorKind.TYPE_ALIAS_DECL and c.spelling.startswith(_PROBE) and \
                c.location.line not in bad:
            arg = args[int(c.spelling[len(_PROBE):])]
            out[arg] = _norm(c.underlying_typedef_type.get_canonical().spelling)
    return out


def _resolved_compare(arg: str, resolved: dict[str, str], written: str, canonical: str
                      ) -> str:
    """_compare, then the argument's canonical type as clang resolved it (when it did)
    against the specialization's: equal or another type."""
    verdict = _compare(arg, written, canonical)
    if verdict != "unknown" or arg not in resolved:
        return verdict
    theirs = _SPELLINGS.get(canonical, canonical)
    return "same" if _SPELLINGS.get(resolved[arg], resolved[arg]) == theirs else "differs"


def specialization_choice(unit: TranslationUnit, found: list[Function], name: str,
                          args: list[str] | None,
                          opts: ParseOptions | None = None) -> KernelRef | None:
    """The kernel `name<args>` runs when `found` is one primary template and explicit
    specializations of it; None when `found` is something else (the caller's ambiguity
    error stands). `opts`: the file's parse options, to resolve arguments that are neither
    the specialization's spelling nor builtin types (without them such an argument is an
    error)."""
    primaries = [k for k in found if k.is_template]
    specs = [k for k in found if not k.is_template and
             _EXPLICIT.match(unit.code_text(k.span).lstrip())]
    if len(primaries) != 1 or len(primaries) + len(specs) != len(found):
        return None
    primary = primaries[0]
    if args is None:
        return bind(primary, None, unit.path)  # the error: name its arguments
    order = [p.name for p in primary.template_params]
    same, unknown = [], []
    resolved: dict[str, str] | None = None
    for spec in specs:
        deduced = _deduced(primary, spec)
        if deduced is None or len(deduced) != len(order) or len(args) != len(order):
            unknown.append(spec)  # a non-type parameter, or parameters that do not line up
            continue
        verdicts = {_compare(args[order.index(t)], *deduced[t]) for t in deduced}
        if "unknown" in verdicts and opts is not None:
            if resolved is None:
                resolved = _canonical_args(unit, primary, args, opts)
            verdicts = {_resolved_compare(args[order.index(t)], resolved, *deduced[t])
                        for t in deduced}
        if "differs" in verdicts:
            continue
        (same if verdicts == {"same"} else unknown).append(spec)
    if unknown or len(same) > 1:
        spec = (unknown or same)[0]
        at = spec.name_span if spec.name_span.file == unit.path else spec.span
        head = " ".join(unit.code_text(spec.span).split("{")[0].split())
        # Arguments the file's parse could not resolve (names no type there) say why.
        lost = [a for a in args if resolved is not None and a not in resolved and
                _compare(a, "", "") == "unknown"]
        why = f" ({', '.join(repr(a) for a in lost)} names no type in the kernel's " \
            "namespaces)" if lost else ""
        raise error(f"cannot tell whether '{name}<{', '.join(args)}>' is the primary template "
                    f"or the explicit specialization '{head}' declared here{why}: name the "
                    "template arguments as the specialization's parameters write them",
                    unit.path, at.line, at.col, status=2)
    return KernelRef(same[0]) if same else bind(primary, args, unit.path)
