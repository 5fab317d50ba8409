"""`cudafuse run` and `cudafuse verify`: run programs on spec'd inputs and compare outputs."""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Any

import click

from cudafuse.cli import guarded, main, parse_options
from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity, error
from cudafuse.frontend import ParseOptions

if TYPE_CHECKING:
    from cudafuse.runtime.spec import Spec

# numpy and the runtime are imported inside the commands: every other command (analyze,
# fuse) starts faster without them. The names must match cudafuse.runtime.BACKENDS.
BACKEND_NAMES = ("emu", "nvcc")


def run_spec(path: str, spec: Spec, backend: str, opts: ParseOptions,
             timeout: float | None, sanitize: bool = False) -> list[Any]:
    """Build `path`, call the spec's entry on fresh inputs, return the argument values (in
    the spec's order)."""
    from cudafuse.runtime import ArgumentError, KernelError, load
    from cudafuse.runtime.emu_exec import BoundsError
    from cudafuse.runtime.spec_bind import argument_error, bind, entry_signature, ordered

    if sanitize and backend != "emu":
        raise error("--sanitize checks emulated runs (--backend emu); on the GPU use "
                    "compute-sanitizer", status=2)
    order: list[int] = []
    kinds: dict[str, str] = {}
    try:
        values = spec.inputs()
        with load(path, backend, include_dirs=opts.include_dirs, defines=opts.defines,
                  timeout=timeout, arch=opts.arch, sanitize=sanitize) as lib:
            kinds = {n: sig.kind for n, sig in lib.signatures.items()}
            sig = entry_signature(spec, lib.signatures, path)
            order = bind(spec, sig)
            args = ordered(values, order)
            try:
                if spec.grid is not None:
                    lib.launch(spec.entry, spec.grid, spec.block, spec.shared, args)
                else:
                    lib.call(spec.entry, *args)
            except ArgumentError as exc:
                raise argument_error(spec, order, exc) from None
    except BoundsError as exc:
        raise bounds_error(path, spec, exc, order, kinds) from None
    except KernelError as exc:
        raise error(str(exc), path) from None
    except MemoryError:
        need = sum(a.nbytes for a in spec.args)
        raise error(f"out of memory running with the spec's arrays ({need} bytes, each "
                    "copied about three times)", spec.path) from None
    return values


def bounds_error(path: str, spec: Spec, exc: Any, order: list[int],
                 kinds: dict[str, str]) -> CudafuseError:
    """The diagnostic for an access outside a spec buffer, at the faulting line."""
    a = exc.access
    kind = {"kernel": "kernel ", "host": "host function "}.get(kinds.get(a.function, ""),
                                                              "function ")
    where = f"{kind}'{a.function}'" if a.function else "the program"
    if a.file and os.path.realpath(a.file) == os.path.realpath(path):
        a = dataclasses.replace(a, file=path)  # as the user spelled it
    if a.param is None or a.param >= len(order):
        return error(f"{where}: {a.kind}: a {a.access or 'bad'} access of {a.size} bytes "
                     "outside every array the spec passes", a.file or path, a.line, a.col)
    arg = spec.args[order[a.param]]
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
                   f"{side} its {arg.count} elements", a.file or path, a.line, a.col),
        Diagnostic(Severity.NOTE, f"{arg.key}.count is {arg.count} ({arg.dtype}); the "
                   "program needs more, or indexes wrongly", spec.path)]
    if not a.line or a.at_launch:
        diags.append(Diagnostic(Severity.NOTE, "rerun with --sanitize for the line of the "
                                "access", path))
    return CudafuseError(diags)


_backend = click.option("--backend", type=click.Choice(BACKEND_NAMES), default="emu",
                        show_default=True, help="emu: g++ and the CPU emulator; nvcc: the GPU.")
_spec = click.option("--spec", "spec_path", required=True, type=click.Path(dir_okay=False),
                     help="TOML file naming the entry function and its arguments.")
_timeout = click.option("--timeout", type=float, default=600.0, show_default=True,
                        help="Seconds before a run is stopped (emu).")
_sanitize = click.option("--sanitize/--no-sanitize", default=False, show_default=True,
                         help="emu: build with AddressSanitizer and check every access to a "
                              "spec array against its count.")


def summarise(name: str, v: Any) -> str:
    import numpy as np

    arr = np.asarray(v)
    finite = arr[np.isfinite(arr)] if arr.dtype.kind in "fc" else arr
    nans = arr.size - finite.size
    lo = finite.min().item() if finite.size else float("nan")
    hi = finite.max().item() if finite.size else float("nan")
    return (f"{name}: {arr.size} x {arr.dtype}, min {lo!r}, max {hi!r}, "
            f"sum {finite.astype(np.float64).sum():.9g}"
            + (f", {nans} not finite" if nans else ""))


@main.command("run")
@click.argument("file", type=click.Path(dir_okay=False))
@_spec
@_backend
@_timeout
@_sanitize
@click.option("--save", type=click.Path(dir_okay=False),
              help="Write the outputs to this file (numpy .npz format, the name as given).")
@parse_options
@guarded
def run_cmd(file: str, spec_path: str, backend: str, timeout: float, sanitize: bool,
            save: str | None, parse_opts: ParseOptions) -> None:
    """Run FILE's entry function on the inputs SPEC describes and summarise its outputs."""
    import io

    import numpy as np

    from cudafuse.outputs import OutputSet
    from cudafuse.runtime.spec import load_spec

    outputs_set = OutputSet([file, spec_path, *parse_opts.forced_includes])
    outputs_set.declare("--save", save)
    outputs_set.check()
    spec = load_spec(spec_path)
    values = run_spec(file, spec, backend, parse_opts, timeout, sanitize)
    outputs = {a.name: v for a, v in zip(spec.args, values, strict=True) if a.is_output}
    for name, v in outputs.items():
        click.echo(summarise(name, v))
    if save:
        buf = io.BytesIO()  # np.savez(path) would append .npz to any other name
        np.savez(buf, **outputs)
        outputs_set.put(save, buf.getvalue())
        outputs_set.commit()
        click.echo(f"wrote {save}")


@main.command("verify")
@click.argument("original", type=click.Path(dir_okay=False))
@click.argument("transformed", type=click.Path(dir_okay=False))
@_spec
@_backend
@_timeout
@_sanitize
@parse_options
@guarded
def verify_cmd(original: str, transformed: str, spec_path: str, backend: str, timeout: float,
               sanitize: bool, parse_opts: ParseOptions) -> None:
    """Run ORIGINAL and TRANSFORMED on the same inputs; compare every element of every output.

    Exits with 1 and names the first differing element when an output differs by more than
    the spec's tolerance (atol + rtol * |expected|; integers must match exactly)."""
    from cudafuse.runtime.spec import load_spec

    spec = load_spec(spec_path)
    if not any(a.is_output for a in spec.args):
        raise error("the spec marks no argument as an output (role = \"out\" or \"inout\")",
                    spec_path)
    want = run_reference(original, spec, backend, parse_opts, timeout, sanitize)
    got = run_spec(transformed, spec, backend, parse_opts, timeout, sanitize)
    pairs = [(a, w, g) for a, w, g in zip(spec.args, want, got, strict=True) if a.is_output]
    if not report(pairs, spec.rtol, spec.atol):
        click.echo(f"{transformed}: outputs differ from {original}", err=True)
        click.get_current_context().exit(1)
    click.echo(f"{transformed}: all outputs match {original}")


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
