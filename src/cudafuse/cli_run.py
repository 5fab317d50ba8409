"""`cudafuse run` and `cudafuse verify`: run programs on spec'd inputs and compare outputs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from cudafuse.cli import guarded, main, parse_options
from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity, error
from cudafuse.frontend import ParseOptions
from cudafuse.frontend.parse import effective_options

if TYPE_CHECKING:
    from collections.abc import Callable

    from cudafuse.runtime.spec import Spec
    from cudafuse.runtime.spec_bind import Slot

# numpy and the runtime are imported inside the commands: every other command (analyze,
# fuse) starts faster without them. The names must match cudafuse.runtime.BACKENDS.
BACKEND_NAMES = ("emu", "nvcc")


def execute(path: str, backend: str, opts: ParseOptions, timeout: float | None,
            sanitize: bool, body: Callable[[Any, list[Slot]], None]) -> None:
    """Build `path` and run `body(lib, slots)`; `body` fills `slots` (the spec argument
    behind each parameter of what it calls) before calling, so that a bad access or a
    value that does not fit is reported at the spec's key."""
    from cudafuse.runtime import ArgumentError, KernelError, load
    from cudafuse.runtime.emu_exec import BoundsError
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


_backend = click.option("--backend", type=click.Choice(BACKEND_NAMES), default="emu",
                        show_default=True, help="emu: g++ and the CPU emulator; nvcc: the GPU.")
_spec = click.option("--spec", "spec_path", required=True, type=click.Path(dir_okay=False),
                     help="TOML file naming the entry function and its arguments.")
_timeout = click.option("--timeout", type=click.FloatRange(0, min_open=True), default=600.0,
                        show_default=True,
                        help="Seconds before a run is stopped (emu).")
_sanitize = click.option("--sanitize/--no-sanitize", default=False, show_default=True,
                         help="emu: build with AddressSanitizer (about 4x slower): bad "
                              "accesses reported at their line, before an array's start too "
                              "(without it, accesses past an array's end are still caught).")


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
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False),
                metavar="ORIGINAL TRANSFORMED | --hfuse A.cu B.cu FUSED.cu")
@click.option("--spec", "spec_path", type=click.Path(dir_okay=False),
              help="TOML file naming the entry function and its arguments (with --hfuse: a "
                   "pair spec, as for hfuse --profile).")
@click.option("--hfuse", is_flag=True,
              help="FILES are A.cu B.cu FUSED.cu: check an hfuse output against both kernels.")
@click.option("--pair", "pair_name", metavar="NAME", help="--hfuse: the pair of --spec to use.")
@click.option("--spec1", type=click.Path(dir_okay=False),
              help="--hfuse: the first kernel's spec (entry = the kernel, with [launch]).")
@click.option("--spec2", type=click.Path(dir_okay=False),
              help="--hfuse: the second kernel's spec.")
@_backend
@_timeout
@_sanitize
@parse_options
@guarded
def verify_cmd(files: tuple[str, ...], spec_path: str | None, hfuse: bool,
               pair_name: str | None, spec1: str | None, spec2: str | None, backend: str,
               timeout: float, sanitize: bool, parse_opts: ParseOptions) -> None:
    """Run ORIGINAL and TRANSFORMED (FILES) on the same inputs; compare every element of
    every output. With --hfuse, FILES are A.cu B.cu FUSED.cu.

    Exits with 1 and names the first differing element when an output differs by more than
    the spec's tolerance (atol + rtol * |expected|; integers must match exactly)."""
    from cudafuse.cli_verify_hfuse import check_usage, verify_hfuse
    from cudafuse.runtime.spec import load_spec

    check_usage(files, hfuse, spec_path, pair_name, spec1, spec2)
    if backend == "nvcc":  # before any run: a missing PyCUDA is not the original's fault
        from cudafuse.runtime.gpu import require_pycuda

        require_pycuda()
    if hfuse:
        ok = verify_hfuse(files, spec_path, pair_name, spec1, spec2, backend, timeout,
                          sanitize, parse_opts)
        fused, originals = files[2], f"{files[0]} and {files[1]}"
    else:
        original, fused = files
        originals = original
        assert spec_path is not None
        spec = load_spec(spec_path)
        if not any(a.is_output for a in spec.args):
            raise error("the spec marks no argument as an output (role = \"out\" or "
                        "\"inout\")", spec_path)
        want = run_reference(original, spec, backend, parse_opts, timeout, sanitize)
        got = run_spec(fused, spec, backend, parse_opts, timeout, sanitize)
        ok = report([(a, w, g) for a, w, g in zip(spec.args, want, got, strict=True)
                     if a.is_output], spec.rtol, spec.atol)
    if not ok:
        click.echo(f"{fused}: outputs differ from {originals}", err=True)
        click.get_current_context().exit(1)
    click.echo(f"{fused}: all outputs match {originals}")


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
