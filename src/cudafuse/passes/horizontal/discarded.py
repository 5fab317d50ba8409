"""Template kernels with `if constexpr`: the part's template names stay dependent.

A part's template parameters are bound to its arguments (`using T = cf_tp1_T;`,
codegen/templates.py) inside the fused kernel, an ordinary function. In the original, an
instantiation never instantiates the branch `if constexpr` discards, and a branch that
depends on a template parameter is not even checked when the template is defined; in an
ordinary function both branches are compiled. llama.cpp's `norm_f32<block_size>` writes

    if constexpr (block_size > WARP_SIZE) {
        static_assert(block_size == 1024, "unexpected block_size");

so `norm_f32<32>` compiled alone, and the fused copy did not. When a template part writes
`if constexpr`, the fused kernel is a template over one parameter of ours (`int cf_dep`, the
launcher instantiates it with 0), and the part's scope declares its parameters' names
through it (`using T = typename ::cf_dependent<cf_tp1_T, cf_dep>::type;`), which makes
them dependent again: the branch is discarded as in the original instantiation.
"""

from __future__ import annotations

import re

from cudafuse.codegen.templates import alias_name
from cudafuse.ir import nodes as n
from cudafuse.ir.program import TemplateParam
from cudafuse.passes.horizontal.parts import Part

_CONSTEXPR_IF = re.compile(r"if\s+constexpr\b")


def discards(part: Part) -> bool:
    """Whether the part is a template instantiation whose body writes `if constexpr`
    (read from the tokens of each `if` statement, as clang reads them)."""
    body = part.fn.body
    if not part.bindings or body is None:
        return False
    return any(isinstance(s, n.If) and s.span.file == part.unit.path and
               _CONSTEXPR_IF.match(part.unit.code_text(s.span)) for s in body.walk())


def dep_param(prefix: str) -> str:
    """The fused kernel's own template parameter that the parts' names depend on."""
    return f"{prefix}_dep"


def definitions(prefix: str) -> str:
    """The two templates the dependent declarations use, at global scope."""
    return (f"// A part's template names, made dependent on {dep_param(prefix)} (a branch "
            "`if constexpr`\n// discards is then not compiled, as in the original "
            "instantiation).\n"
            f"template <class {prefix}_T, int> struct {prefix}_dependent "
            f"{{ using type = {prefix}_T; }};\n"
            f"template <class {prefix}_T, {prefix}_T {prefix}_V, int> constexpr {prefix}_T "
            f"{prefix}_dependent_v = {prefix}_V;\n")


def scope_lines(bindings: tuple[tuple[TemplateParam, str], ...], prefix: str,
                part: int) -> list[str]:
    """As codegen.templates.scope_lines, each name dependent on the fused kernel's
    template parameter."""
    dep = dep_param(prefix)
    out = []
    for p, _ in bindings:
        if p.kind == "template":
            continue
        new = alias_name(prefix, part, p.name)
        out.append(f"using {p.name} = typename ::{prefix}_dependent<{new}, {dep}>::type;"
                   if p.kind == "type" else
                   f"[[maybe_unused]] constexpr decltype({new}) {p.name} = "
                   f"::{prefix}_dependent_v<decltype({new}), {new}, {dep}>;")
    return out
