"""Launches of kernel templates bound to their instantiations (frontend/instantiate.py).

The front end makes a concrete copy of each template instantiation the host code launches;
here each such launch is pointed at its copy (KernelLaunch.kernel_decl), so that kernel
facts, legality, the cost model and code generation see an ordinary kernel with concrete
types and constants. The launch's text is unchanged: an unfused launch keeps the template
as written, and a fused one is replaced whole.
"""

from __future__ import annotations

import dataclasses

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.substitute import replace_nodes


def with_instances(unit: TranslationUnit) -> TranslationUnit:
    """A copy of `unit` whose template launches name their concrete kernels."""
    made = {off: fn for off, fn in unit.instances.items() if isinstance(fn, Function)}
    if not made:
        return unit

    def bind(node: n.Node) -> n.Node | None:
        if isinstance(node, n.KernelLaunch) and node.callee_span.start in made:
            return dataclasses.replace(node, kernel_decl=made[node.callee_span.start].decl)
        return None

    def rebind(fn: Function) -> Function:
        if fn.body is None or fn.space == "global":
            return fn
        body = replace_nodes(fn.body, bind)
        return fn if body is fn.body else dataclasses.replace(fn, body=body)

    copies = list({fn.decl: fn for fn in made.values()}.values())
    launches = {host: [replace_nodes(la, bind) for la in las]
                for host, las in unit.launches.items()}
    return dataclasses.replace(
        unit, functions=[*copies, *(rebind(f) for f in unit.functions)],
        method_hosts=[rebind(f) for f in unit.method_hosts], launches=launches)


def template_reason(unit: TranslationUnit, launch: n.KernelLaunch, name: str) -> str:
    """Why the launch of template kernel `name` is still the template's."""
    why = unit.instances.get(launch.callee_span.start)
    if isinstance(why, str):
        return f"'{name}' is a template whose instantiation is not made: {why}"
    return f"'{name}' is a template whose instantiation is not made"

