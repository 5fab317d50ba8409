"""Building a program and running it on a run spec's inputs: what `run`, `verify` and
`verify --hfuse` share. numpy and the runtime are imported inside the functions: the other
commands start faster without them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity, error
from cudafuse.frontend import ParseOptions
from cudafuse.frontend.parse import effective_options

if TYPE_CHECKING:
    from collections.abc import Callable

    from cudafuse.runtime.spec import Spec
    from cudafuse.runtime.spec_bind import Slot


def execute(path: str, backend: str, opts: ParseOptions, timeout: float | None,
            sanitize: bool, body: Callable[[Any, list[Slot]], None]) -> None:
    """Build `path` and run `body(lib, slots)`; `body` fills `slots` (the spec argument
    behind each parameter of what it calls) before calling, so that a bad access or a
    value that does not fit is reported at the spec's key."""
    from cudafuse.runtime import ArgumentError, KernelError, load
    from cudafuse.runtime.errors import BoundsError
    from cudafuse.runtime.spec_bind import argument_error, bounds_error

    if sanitize and backend != "emu":
        raise error("--sanitize checks emulated runs (--backend emu); on the GPU use "
                    "compute-sanitizer", status=2)
    slots: list[Slot] = []
    kinds: dict[str, str] = {}
    opts, _ = effective_options(opts, path)  # the database's warnings come with the parse
    try:
        with load(path, backend, include_dirs=opts.include_dirs, defines=opts.defines,
                  forced_includes=opts.forced_includes, std_args=opts.extra_args,
                  timeout=timeout, arch=opts.arch, sanitize=sanitize) as lib:
            kinds = {n: sig.kind for n, sig in lib.signatures.items()}
            try:
                body(lib, slots)
            except ArgumentError as exc:
                raise argument_error(slots, exc) from None
    except BoundsError as exc:
        raise bounds_error(path, exc.access, slots, kinds) from None
    except KernelError as exc:
        raise error(str(exc), path) from None
    except MemoryError:
        need = sum(s[0].nbytes for s in slots if s)
        raise error(f"out of memory running with the spec's arrays ({need} bytes, each "
                    "copied about three times)", path) from None


def run_bound(path: str, spec: Spec, backend: str, opts: ParseOptions,
              timeout: float | None, sanitize: bool = False) -> tuple[list[Any], list[int]]:
    """Build `path`, call the spec's entry on fresh inputs; the argument values (in the
    spec's order) and, for each parameter, the index of the spec argument passed to it."""
    from cudafuse.runtime.spec_bind import bind, entry_signature, ordered

    try:
        values = spec.inputs()
    except MemoryError:
        raise error(f"out of memory making the inputs ({sum(a.nbytes for a in spec.args)} "
                    "bytes)", spec.path) from None
    order: list[int] = []

    def body(lib: Any, slots: list[Slot]) -> None:
        order.extend(bind(spec, entry_signature(spec, lib.signatures, path)))
        slots.extend((spec.args[i], spec.path) for i in order)
        args = ordered(values, order)
        if spec.grid is not None:
            lib.launch(spec.entry, spec.grid, spec.block, spec.shared, args)
        else:
            lib.call(spec.entry, *args)

    execute(path, backend, opts, timeout, sanitize, body)
    return values, order


def run_spec(path: str, spec: Spec, backend: str, opts: ParseOptions,
             timeout: float | None, sanitize: bool = False) -> list[Any]:
    return run_bound(path, spec, backend, opts, timeout, sanitize)[0]


def summarise(name: str, v: Any) -> str:
    import numpy as np

    arr = np.asarray(v)
    if arr.dtype.kind == "c":  # summarised by magnitude
        name, arr = f"{name} (|z|)", np.abs(arr)
    finite = arr[np.isfinite(arr)] if arr.dtype.kind in "fc" else arr
    nans = arr.size - finite.size
    lo = finite.min().item() if finite.size else float("nan")
    hi = finite.max().item() if finite.size else float("nan")
    return (f"{name}: {arr.size} x {arr.dtype}, min {lo!r}, max {hi!r}, "
            f"sum {finite.astype(np.float64).sum():.9g}"
            + (f", {nans} not finite" if nans else ""))


def run_reference(original: str, spec: Spec, backend: str, opts: ParseOptions,
                  timeout: float | None, sanitize: bool) -> list[Any]:
    """The original's run; when it fails, the transformation is not what is wrong."""
    try:
        return run_spec(original, spec, backend, opts, timeout, sanitize)
    except CudafuseError as exc:
        exc.diagnostics.append(Diagnostic(
            Severity.NOTE, "the original program fails with this spec, so the transformed "
            "program was not checked: the spec (array counts, sizes, launch) or the original "
            "is at fault, not the transformation", original))
        raise


def report(outputs: list[tuple[Any, Any, Any]], rtol: float, atol: float) -> bool:
    """Print one line per output; True when every one matches."""
    import numpy as np

    from cudafuse.runtime.spec import compare

    ok = True
    for arg, w, g in outputs:
        c = compare(arg, w, g, rtol, atol)
        status = "ok" if not c.mismatches else f"MISMATCH in {c.mismatches} of {w.size}"
        if w.dtype.kind == "f" and np.isnan(w).any():
            status += f" ({int(np.isnan(w).sum())} NaN in the original's output)"
        click.echo(f"{c.name}: max abs err {c.max_abs:.3g}, max rel err {c.max_rel:.3g}: "
                   f"{status}")
        if c.mismatches:
            click.echo(f"  first difference at {c.first}")
            ok = False
    return ok
