"""`cudafuse run` and `cudafuse verify`: run programs on spec'd inputs and compare outputs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from cudafuse.cli import guarded, main, parse_options
from cudafuse.diagnostics import error
from cudafuse.frontend import ParseOptions

if TYPE_CHECKING:
    from cudafuse.runtime.spec import Spec

# numpy and the runtime are imported inside the commands: every other command (analyze,
# fuse) starts faster without them. The names must match cudafuse.runtime.BACKENDS.
BACKEND_NAMES = ("emu", "nvcc")


def run_spec(path: str, spec: Spec, backend: str, opts: ParseOptions,
             timeout: float | None) -> list[Any]:
    """Build `path`, call the spec's entry on fresh inputs, return the argument values."""
    from cudafuse.runtime import ArgumentError, KernelError, load

    values = spec.inputs()
    try:
        with load(path, backend, include_dirs=opts.include_dirs, defines=opts.defines,
                  timeout=timeout, arch=opts.arch) as lib:
            if spec.grid is not None:
                lib.launch(spec.entry, spec.grid, spec.block, spec.shared, values)
            else:
                lib.call(spec.entry, *values)
    except KernelError as exc:
        raise error(str(exc), path) from None
    except (ArgumentError, KeyError) as exc:
        raise error(f"{exc.args[0]} (spec {spec.path})", path) from None
    return values


_backend = click.option("--backend", type=click.Choice(BACKEND_NAMES), default="emu",
                        show_default=True, help="emu: g++ and the CPU emulator; nvcc: the GPU.")
_spec = click.option("--spec", "spec_path", required=True, type=click.Path(dir_okay=False),
                     help="TOML file naming the entry function and its arguments.")
_timeout = click.option("--timeout", type=float, default=600.0, show_default=True,
                        help="Seconds before a run is stopped (emu).")


@main.command("run")
@click.argument("file", type=click.Path(dir_okay=False))
@_spec
@_backend
@_timeout
@click.option("--save", type=click.Path(dir_okay=False), help="Write the outputs to an .npz.")
@parse_options
@guarded
def run_cmd(file: str, spec_path: str, backend: str, timeout: float, save: str | None,
            parse_opts: ParseOptions) -> None:
    """Run FILE's entry function on the inputs SPEC describes and summarise its outputs."""
    import numpy as np

    from cudafuse.runtime.spec import load_spec

    spec = load_spec(spec_path)
    values = run_spec(file, spec, backend, parse_opts, timeout)
    outputs = {a.name: v for a, v in zip(spec.args, values, strict=True) if a.is_output}
    for name, v in outputs.items():
        arr = np.asarray(v)
        finite = arr[np.isfinite(arr)] if arr.dtype.kind == "f" else arr
        nans = arr.size - finite.size
        lo = finite.min().item() if finite.size else float("nan")
        hi = finite.max().item() if finite.size else float("nan")
        click.echo(f"{name}: {arr.size} x {arr.dtype}, min {lo!r}, max {hi!r}, "
                   f"sum {finite.astype(np.float64).sum():.9g}"
                   + (f", {nans} not finite" if nans else ""))
    if save:
        np.savez(save, **outputs)
        click.echo(f"wrote {save}")


@main.command("verify")
@click.argument("original", type=click.Path(dir_okay=False))
@click.argument("transformed", type=click.Path(dir_okay=False))
@_spec
@_backend
@_timeout
@parse_options
@guarded
def verify_cmd(original: str, transformed: str, spec_path: str, backend: str, timeout: float,
               parse_opts: ParseOptions) -> None:
    """Run ORIGINAL and TRANSFORMED on the same inputs; compare every element of every output.

    Exits with 1 and names the first differing element when an output differs by more than
    the spec's tolerance (atol + rtol * |expected|; integers must match exactly)."""
    import numpy as np

    from cudafuse.runtime.spec import compare, load_spec

    spec = load_spec(spec_path)
    want = run_spec(original, spec, backend, parse_opts, timeout)
    got = run_spec(transformed, spec, backend, parse_opts, timeout)
    failed = False
    outputs = [(a, w, g) for a, w, g in zip(spec.args, want, got, strict=True) if a.is_output]
    if not outputs:
        raise error("the spec marks no argument as an output (role = \"out\" or \"inout\")",
                    spec_path)
    for arg, w, g in outputs:
        c = compare(arg, w, g, spec.rtol, spec.atol)
        status = "ok" if not c.mismatches else f"MISMATCH in {c.mismatches} of {w.size}"
        if w.dtype.kind == "f" and np.isnan(w).any():
            status += f" ({int(np.isnan(w).sum())} NaN in the original's output)"
        click.echo(f"{c.name}: max abs err {c.max_abs:.3g}, max rel err {c.max_rel:.3g}: "
                   f"{status}")
        if c.mismatches:
            click.echo(f"  first difference at {c.first}")
            failed = True
    if failed:
        click.echo(f"{transformed}: outputs differ from {original}", err=True)
        click.get_current_context().exit(1)
    click.echo(f"{transformed}: all outputs match {original}")
