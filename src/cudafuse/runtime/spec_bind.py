"""Matching a spec's [[args]] to the entry function's parameters, by name.

A spec lists arguments by name; the order of its tables is free. Names are checked against
the prototype the build reports, so a misspelled name or a parameter the spec leaves out is
an error naming it, instead of a silently shifted argument list. A table without `name`
takes the parameter at its own index (for unnamed C parameters, `arg0`, `arg1`...).
"""

from __future__ import annotations

import re
from typing import Any

from cudafuse.diagnostics import CudafuseError, error
from cudafuse.runtime.convert import ArgumentError, describe
from cudafuse.runtime.spec import ArgSpec, Spec
from cudafuse.runtime.trampoline import Signature


def prototype(sig: Signature) -> str:
    params = []
    for code, name in zip(sig.codes, sig.params, strict=False):
        c = describe(code)
        params.append(f"{c}{'' if c.endswith('*') else ' '}{name}")
    return f"{sig.name}({', '.join(params)})"


def entry_signature(spec: Spec, signatures: dict[str, Signature], program: str) -> Signature:
    """The entry's signature, or an error at the spec's `entry` key."""
    sig = signatures.get(spec.entry)
    if sig is None:
        kind = "kernel" if spec.grid is not None else "host"
        have = sorted(s.name for s in signatures.values() if s.kind == kind)
        raise error(f"entry: {program} has no callable {kind} function '{spec.entry}' "
                    f"(available: {', '.join(have) or 'none'})", spec.path)
    if sig.kind == "kernel" and spec.grid is None:
        raise error(f"entry: '{spec.entry}' is a kernel: give a [launch] table with its grid "
                    "and block (or name a host function)", spec.path)
    if sig.kind == "host" and spec.grid is not None:
        raise error(f"launch: '{spec.entry}' is a host function; [launch] is only for a "
                    "kernel entry", spec.path)
    return sig


def bind(spec: Spec, sig: Signature) -> list[int]:
    """For each parameter of `sig`, the index of the spec argument that gives it."""
    proto = prototype(sig)
    slots: dict[str, int] = {}
    for i, a in enumerate(spec.args):
        pname = a.name if a.named else (sig.params[i] if i < len(sig.params) else None)
        if pname is None:
            raise error(f"{a.key}: {sig.name} takes {len(sig.params)} arguments, this is "
                        f"argument {i + 1} (prototype: {proto})", spec.path)
        if pname not in sig.params:
            raise error(f"{a.key}: '{pname}' is no parameter of {proto}", spec.path)
        if pname in slots:
            other = spec.args[slots[pname]].key
            raise error(f"{a.key}: parameter '{pname}' is already given by {other}",
                        spec.path)
        slots[pname] = i
    missing = [p for p in sig.params if p not in slots]
    if missing:
        raise error(f"no [[args]] table for parameter{'s' if len(missing) > 1 else ''} "
                    f"{', '.join(repr(p) for p in missing)} of {proto}", spec.path)
    return [slots[p] for p in sig.params]


def ordered(values: list[Any], order: list[int]) -> list[Any]:
    return [values[i] for i in order]


_PARAM = re.compile(r"parameter (\d+) ")


def argument_error(spec: Spec, order: list[int], exc: ArgumentError) -> CudafuseError:
    """A conversion error (wrong dtype, a float for an int...) at the spec argument that
    caused it."""
    msg = str(exc)
    m = _PARAM.search(msg)
    if m and int(m.group(1)) - 1 < len(order):
        arg: ArgSpec = spec.args[order[int(m.group(1)) - 1]]
        return error(f"{arg.key}: {msg}", spec.path)
    return error(msg, spec.path)
