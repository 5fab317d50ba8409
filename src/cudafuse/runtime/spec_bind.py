"""Matching a spec's [[args]] to the entry function's parameters, by name.

A spec lists arguments by name; the order of its tables is free. Names are checked against
the prototype the build reports, so a misspelled name or a parameter the spec leaves out is
an error naming it, instead of a silently shifted argument list. A table without `name`
takes the parameter at its own index (for unnamed C parameters, `arg0`, `arg1`...).
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Any

from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity, error
from cudafuse.runtime.asan import Access
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
    # Trailing parameters with default arguments may be left out (the function's defaults).
    given = len(sig.params) - len(missing)
    if missing and all(p in slots for p in sig.params[:given]) and sig.takes(given):
        return [slots[p] for p in sig.params[:given]]
    least = sig.required if 0 <= sig.required < len(sig.params) else len(sig.params)
    needed = [p for p in missing if sig.params.index(p) < least] or missing
    if missing:
        raise error(f"no [[args]] table for parameter{'s' if len(needed) > 1 else ''} "
                    f"{', '.join(repr(p) for p in needed)} of {proto}", spec.path)
    return [slots[p] for p in sig.params]


def ordered(values: list[Any], order: list[int]) -> list[Any]:
    return [values[i] for i in order]


_PARAM = re.compile(r"parameter (\d+) ")

# The spec argument behind one parameter of a call, and the spec file it is in; None for a
# parameter no spec gives (an hfuse launcher's grids).
Slot = tuple[ArgSpec, str] | None


def argument_error(slots: list[Slot], exc: ArgumentError) -> CudafuseError:
    """A conversion error (wrong dtype, a float for an int...) at the spec argument that
    caused it."""
    msg = str(exc)
    m = _PARAM.search(msg)
    slot = slots[int(m.group(1)) - 1] if m and int(m.group(1)) - 1 < len(slots) else None
    if slot is None:
        return error(msg)
    return error(f"{slot[0].key}: {msg}", slot[1])


def _source_line(file: str, line: int) -> str:
    try:
        return Path(file).read_text("utf-8", "replace").splitlines()[line - 1]
    except (OSError, IndexError):
        return ""


def bounds_error(path: str, a: Access, slots: list[Slot], kinds: dict[str, str]
                 ) -> CudafuseError:
    """The diagnostic for an access outside a spec array: at the access (--sanitize) or the
    kernel's launch, naming the argument, the index and the spec's count."""
    kind = {"kernel": "kernel ", "host": "host function "}.get(kinds.get(a.function, ""),
                                                              "function ")
    where = f"{kind}'{a.function}'" if a.function else "the program"
    if a.file and os.path.realpath(a.file) == os.path.realpath(path):
        a = dataclasses.replace(a, file=path)  # as the user spelled it
    if a.alloc_size >= 0:
        return _allocation_error(path, a, where)
    slot = slots[a.param] if a.param is not None and a.param < len(slots) else None
    if slot is None:
        return error(f"{where}: {a.kind}: a {a.access or 'bad'} access "
                     "outside every array the spec passes", a.file or path, a.line, a.col)
    arg, spec_path = slot
    assert arg.dtype is not None
    item = arg.dtype.itemsize
    index = a.offset // item if a.offset >= 0 else -((-a.offset + item - 1) // item)
    verb = {"read": "reads", "write": "writes"}.get(a.access, "accesses")
    side = "past the end of" if index >= arg.count else "before the start of" if index < 0 \
        else "inside (a use after free?)"
    context = f" ({a.detail})" if a.detail else ""
    if a.at_launch:
        context = f" (launched here{'; ' + a.detail if a.detail else ''})"
    diags = [
        Diagnostic(Severity.ERROR, f"{where}{context} {verb} '{arg.name}' at index {index}, "
                   f"{side} its {arg.count} elements", a.file or path, a.line, a.col,
                   _source_line(a.file, a.line)),
        Diagnostic(Severity.NOTE, f"{arg.key}.count is {arg.count} ({arg.dtype}); the "
                   "program needs more, or indexes wrongly", spec_path)]
    if not a.line or a.at_launch:
        diags.append(Diagnostic(Severity.NOTE, "rerun with --sanitize for the line of the "
                                "access", path))
    return CudafuseError(diags)


def _allocation_error(path: str, a: Access, where: str) -> CudafuseError:
    """An access in the guard zones of a device allocation the program made (cudaMalloc &
    co.): the element when the access's size is known (--sanitize), else the byte; a note
    at the allocation's call."""
    verb = {"read": "reads", "write": "writes"}.get(a.access, "accesses")
    what = f"byte {a.offset}"
    if a.size and a.offset % a.size == 0:
        what = f"element {a.offset // a.size} ({a.size} bytes at byte {a.offset})"
    side = "past its end" if a.offset >= a.alloc_size else \
        "before its start" if a.offset < 0 else "inside it"
    alloc_file = a.alloc_file
    if alloc_file and os.path.realpath(alloc_file) == os.path.realpath(path):
        alloc_file = path  # as the user spelled it
    made = f"made at {alloc_file}:{a.alloc_line}" if alloc_file else \
        "made without a recorded place (cudaMallocPitch, a CUDA array)"
    context = f" ({a.detail})" if a.detail else ""
    if a.at_launch:
        context = f" (launched here{'; ' + a.detail if a.detail else ''})"
    diags = [Diagnostic(Severity.ERROR, f"{where}{context} {verb} {what} of the "
                        f"{a.alloc_size}-byte device allocation {made}, {side}",
                        a.file or path, a.line, a.col, _source_line(a.file, a.line))]
    if alloc_file:
        diags.append(Diagnostic(Severity.NOTE, f"the {a.alloc_size} bytes are allocated here",
                                alloc_file, a.alloc_line, 0,
                                _source_line(a.alloc_file, a.alloc_line)))
    if not a.line or a.at_launch:
        diags.append(Diagnostic(Severity.NOTE, "rerun with --sanitize for the line of the "
                                "access and its size", path))
    return CudafuseError(diags)
