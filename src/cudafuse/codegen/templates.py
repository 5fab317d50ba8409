"""Kernels named with template arguments (`scale<float, 4>`) and how a part binds them.

The fused kernel is an ordinary function, so a template kernel's parameters are bound to the
arguments the user names: at namespace scope, each parameter gets a generated alias
(`using cf_p1_T = float;`, `constexpr int cf_p1_R = 4;`) that the fused kernel's and the
launcher's parameter declarations use in its place; inside the part's scope the original
names are declared again (`using T = cf_p1_T;`), so the kernel's body is copied unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cudafuse.diagnostics import error
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TemplateParam

_OPEN, _CLOSE = "<([{", ">)]}"
# The argument of a template parameter left to the launch to deduce: the type of a kernel
# parameter, a functor (PyTorch's kernelHistogram1D `Op getOp`, launched with a lambda whose
# type has no name). The fused kernel and launcher are templates over it (deduced_params).
DEDUCED = ""


def split_top(text: str, sep: str = ",") -> list[str]:
    """`text` split at `sep` characters outside <>, (), [] and {}."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(depth - 1, 0)
        elif ch == sep and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch in _OPEN) - (ch in _CLOSE)
        if depth < 0:
            return False
    return depth == 0


def parse_kernel_ref(text: str) -> tuple[str, list[str] | None]:
    """'name' -> ('name', None); 'name<float, 4>' -> ('name', ['float', '4']); a qualified
    name keeps its qualifier: 'at::native::k<float>' -> ('at::native::k', ['float'])."""
    text = text.strip()
    m = re.fullmatch(r"((?:::\s*)?(?:[A-Za-z_]\w*\s*::\s*)*[A-Za-z_]\w*)\s*(?:<(.*)>)?",
                     text, re.S)
    if m is None or not _balanced(m.group(2) or ""):
        raise error(f"'{text}' is not a kernel name ([NS::]NAME or [NS::]NAME<ARGS>)",
                    status=2)
    name = re.sub(r"\s+", "", m.group(1))
    if m.group(2) is None:
        return name, None
    args = [a.strip() for a in split_top(m.group(2))]
    if args == [""]:
        args = []
    if any(not a for a in args):
        raise error(f"'{text}': an empty template argument", status=2)
    return name, args


@dataclass(frozen=True)
class KernelRef:
    """A kernel chosen for fusion, with its template parameters bound to argument texts."""

    fn: Function
    bindings: tuple[tuple[TemplateParam, str], ...] = ()

    @property
    def display(self) -> str:
        if not self.fn.is_template:
            return self.fn.name
        # A default naming an earlier parameter is shown with that parameter's argument.
        shown: list[str] = []
        for _, arg in given(self.bindings):
            for (p, _), earlier in zip(self.bindings, shown, strict=False):
                arg = re.sub(rf"(?<![\w.:])\b{re.escape(p.name)}\b", earlier, arg)
            shown.append(arg)
        return f"{self.fn.name}<{', '.join(shown)}>"

    @property
    def qualified(self) -> str:
        """`display` with the kernel's named namespaces (`at::native::im2col_kernel<float>`):
        how code that includes the kernel's file names it. Anonymous namespaces are left out
        (their members are visible by the plain name in the including file)."""
        scope = "".join(f"{name}::" for name, _ in self.fn.namespaces if name)
        return scope + self.display


def bind(fn: Function, args: list[str] | None, path: str) -> KernelRef:
    """Bind `fn`'s template parameters to `args` (defaults fill the tail)."""
    params = fn.template_params
    if not fn.is_template:
        if args is not None:
            raise error(f"kernel '{fn.name}' is not a template; name it without <...>", path,
                        status=2)
        return KernelRef(fn)
    wanted = ", ".join(p.name for p in params)
    if args is None:
        at = fn.name_span if fn.name_span.file == path else None
        # A type parameter that is the type of a kernel parameter the body calls (PyTorch's
        # histogram `Op getOp`, then getOp(i)) is a functor the launch deduces, often a
        # lambda, whose type has no name --kernels could give.
        deduced = [p.name for p in params if p.kind == "type" and not p.default and
                   p.name in _called_parameter_types(fn)]
        hint = (f"; '{deduced[0]}' is the type of an argument (a functor), which the fused "
                "kernel leaves to its launch to deduce: name the parameters before it"
                ) if deduced else ""
        raise error(f"kernel '{fn.name}' is a template: name its arguments, e.g. "
                    f"--kernels '{fn.name}<...>' for <{wanted}>{hint}", path,
                    at.line if at else 0, at.col if at else 0, status=2)
    if len(args) > len(params):
        raise error(f"kernel '{fn.name}' takes {len(params)} template argument(s) "
                    f"<{wanted}>, not {len(args)}", path, status=2)
    bound = list(args)
    deducible = _deducible(fn)
    for p in params[len(args):]:
        if not p.default and p.name in deducible:
            bound.append(DEDUCED)
            continue
        if not p.default:
            raise error(f"kernel '{fn.name}': no argument for template parameter '{p.name}' "
                        f"(it takes <{wanted}>)", path, status=2)
        bound.append(p.default)
    return KernelRef(fn, tuple(zip(params, bound, strict=True)))


def _deducible(fn: Function) -> set[str]:
    """Type parameters that a launch deduces from an argument: the whole type of a kernel
    parameter (cv- and reference-qualifiers aside), named by no other parameter's default."""
    types = {re.sub(r"\b(?:const|volatile)\b|&", "", q.type).strip() for q in fn.params}
    named = " ".join(p.default for p in fn.template_params)
    return {p.name for p in fn.template_params if p.kind == "type" and p.name in types and
            not re.search(rf"\b{re.escape(p.name)}\b", named)}


def given(bindings: tuple[tuple[TemplateParam, str], ...]
          ) -> tuple[tuple[TemplateParam, str], ...]:
    """The bindings to arguments the user named or defaults gave (not left to deduction)."""
    return tuple((p, a) for p, a in bindings if a != DEDUCED)


def deduced_params(bindings: tuple[tuple[TemplateParam, str], ...], prefix: str,
                   part: int) -> list[str]:
    """The fused kernel's (and launcher's) template parameters standing for the part's
    deduced ones, by the names `substitute` gives them."""
    return [alias_name(prefix, part, p.name) for p, a in bindings if a == DEDUCED]


def _called_parameter_types(fn: Function) -> set[str]:
    """The types (cv- and reference-qualifiers dropped) of `fn`'s parameters that its body
    calls."""
    params = {q.decl: q for q in fn.params if q.decl}
    called = {node.callee_decl for node in (fn.body.walk() if fn.body else ())
              if isinstance(node, n.Call)}
    return {re.sub(r"\b(?:const|volatile)\b|&", "", params[d].type).strip()
            for d in called if d in params}


def alias_name(prefix: str, part: int, param: str) -> str:
    return f"{prefix}_tp{part}_{param}"


def substitute(text: str, bindings: tuple[tuple[TemplateParam, str], ...], prefix: str,
               part: int) -> str:
    """`text` (a declaration written in the template's scope) with each template parameter
    replaced by its namespace-scope alias."""
    if not bindings:
        return text
    names = "|".join(re.escape(p.name) for p, _ in bindings)
    return re.sub(rf"(?<![\w.:])(?<!->)\b({names})\b",
                  lambda m: alias_name(prefix, part, m.group(1)), text)


def namespace_aliases(bindings: tuple[tuple[TemplateParam, str], ...], prefix: str,
                      part: int) -> str:
    """The aliases of a part's template parameters, at namespace scope (in order: a later
    parameter's type or default may name an earlier one)."""
    lines = []
    for p, arg in given(bindings):
        new = alias_name(prefix, part, p.name)
        arg = substitute(arg, bindings, prefix, part)
        if p.kind == "template":  # a template template parameter: an alias template
            lines.append(f"template <class... {prefix}_A> using {new} = {arg}<{prefix}_A...>;")
        elif p.kind == "type":
            lines.append(f"using {new} = {arg};")
        else:
            lines.append(f"constexpr {substitute(p.type, bindings, prefix, part)} {new} = "
                         f"{arg};")
    return "".join(line + "\n" for line in lines)


def scope_lines(bindings: tuple[tuple[TemplateParam, str], ...], prefix: str,
                part: int) -> list[str]:
    """Declarations that give the part's body its template parameters' names back (a
    template template parameter cannot be declared in a block: template_names() are
    respelled in the body instead)."""
    out = []
    for p, _ in bindings:
        if p.kind == "template":
            continue
        new = alias_name(prefix, part, p.name)
        out.append(f"using {p.name} = {new};" if p.kind == "type" else
                   f"[[maybe_unused]] constexpr decltype({new}) {p.name} = {new};")
    return out


def template_names(bindings: tuple[tuple[TemplateParam, str], ...], prefix: str,
                   part: int) -> dict[str, str]:
    """Template template parameters -> the alias templates that the body names instead."""
    return {p.name: alias_name(prefix, part, p.name) for p, _ in bindings
            if p.kind == "template"}
