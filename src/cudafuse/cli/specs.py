"""`--profile` specs checked against the parsed source before anything is built.

The measuring runs call the programs they build with the spec's arguments; a spec naming a
function the file lacks, or arguments the function does not take, otherwise fails there,
after minutes of building, as an internal error. Here it is an error at the spec file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cudafuse.diagnostics import error

if TYPE_CHECKING:
    from cudafuse.ir.program import Function, TranslationUnit
    from cudafuse.runtime.spec import Spec


def check_entry(spec: Spec, unit: TranslationUnit) -> Function:
    """The spec's entry in `unit`: a host function, or a kernel when it has [launch]."""
    kernel = spec.grid is not None
    kind = "kernel" if kernel else "host function"
    have = [f for f in unit.functions if f.body is not None and not f.is_template
            and (f.space == "global") == kernel]
    fn = next((f for f in have if f.name == spec.entry), None)
    if fn is None:
        names = ", ".join(dict.fromkeys(f.name for f in have)) or "none"
        raise error(f"entry: {unit.path} has no {kind} '{spec.entry}' ({kind}s: {names})",
                    spec.path)
    check_args(spec, fn)
    return fn


def check_args(spec: Spec, fn: Function) -> None:
    """The spec's [[args]] give each parameter of `fn` exactly once, by name (a table
    without `name` takes the parameter at its index), as the runtime binds them."""
    params = [p.name or f"arg{i}" for i, p in enumerate(fn.params)]
    proto = f"{fn.name}({', '.join(params)})"
    given: dict[str, str] = {}
    for i, arg in enumerate(spec.args):
        name = arg.name if arg.named else (params[i] if i < len(params) else None)
        if name is None:
            raise error(f"{arg.key}: {proto} takes {len(params)} arguments, this is "
                        f"argument {i + 1}", spec.path)
        if name not in params:
            raise error(f"{arg.key}: '{name}' is no parameter of {proto}", spec.path)
        if name in given:
            raise error(f"{arg.key}: parameter '{name}' is already given by {given[name]}",
                        spec.path)
        given[name] = arg.key
    missing = [p for p in params if p not in given]
    if missing:
        raise error(f"no [[args]] table for parameter{'s' if len(missing) > 1 else ''} "
                    f"{', '.join(repr(p) for p in missing)} of {proto}", spec.path)
