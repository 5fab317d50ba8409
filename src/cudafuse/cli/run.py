"""`cudafuse run` and `cudafuse verify`: run programs on spec'd inputs and compare outputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cudafuse.cli.group import FiniteRange, guarded, main, parse_options, print_diagnostics
from cudafuse.diagnostics import error
from cudafuse.execute import (
    report,
    run_reference,
    run_spec,
    run_transformed,
    run_with_both_fills,
    summarise,
    unwritten_notes,
)
from cudafuse.frontend import ParseOptions
from cudafuse.frontend.parse import read_source

if TYPE_CHECKING:

    pass

# numpy and the runtime are imported inside the commands: every other command (analyze,
# fuse) starts faster without them. The names must match cudafuse.runtime.BACKENDS.
BACKEND_NAMES = ("emu", "nvcc")


_backend = click.option("--backend", type=click.Choice(BACKEND_NAMES), default="emu",
                        show_default=True, help="emu: g++ and the CPU emulator; nvcc: the GPU.")
_spec = click.option("--spec", "spec_path", required=True, type=click.Path(dir_okay=False),
                     help="TOML file naming the entry function and its arguments.")
_timeout = click.option("--timeout", type=FiniteRange(0, min_open=True), default=600.0,
                        show_default=True,
                        help="Seconds before a run is stopped (emu).")
_sanitize = click.option("--sanitize/--no-sanitize", default=False, show_default=True,
                         help="emu: build with AddressSanitizer (about 4x slower): bad "
                              "accesses reported at their line, exact at both ends of the "
                              "spec's arrays and of each buffer the program cudaMallocs "
                              "itself (naming its cudaMalloc and the element). Without it, "
                              "accesses past the end of the spec's arrays are still caught, "
                              "and, at the kernel's launch, those past a cudaMalloc'd "
                              "buffer's size rounded up to 256 bytes, or before its start "
                              "where they leave its first page (a write nearer: when "
                              "the buffer is freed).")


@main.command("run")
@click.argument("file", type=click.Path(dir_okay=False))
@_spec
@_backend
@_timeout
@_sanitize
@click.option("--save", type=click.Path(dir_okay=False),
              help="Write the outputs to this file (numpy .npz format, the name as given).")
@click.option("--initcheck", is_flag=True,
              help="emu: run twice, fresh device memory filled with 0x00 and 0xff; outputs "
                   "that differ are an error, with a note at the allocations whose bytes hold "
                   "the fill in both runs (as verify does for the original).")
@parse_options
@guarded
def run_cmd(file: str, spec_path: str, backend: str, timeout: float, sanitize: bool,
            save: str | None, initcheck: bool, parse_opts: ParseOptions) -> None:
    """Run FILE's entry function on the inputs SPEC describes and summarise its outputs."""
    import io

    import numpy as np

    from cudafuse.cli.verify_hfuse import structs_wrapped
    from cudafuse.outputs import OutputSet
    from cudafuse.runtime.spec import load_spec

    outputs_set = OutputSet([file, spec_path, *parse_opts.forced_includes])
    outputs_set.declare("--save", save)
    outputs_set.check()
    read_source(file)  # a device (/dev/zero), a pipe, a binary file: said before any build
    if initcheck and backend != "emu":
        raise error("--initcheck fills fresh device memory of emulated runs (--backend emu); "
                    "on the GPU use compute-sanitizer --tool initcheck", status=2)
    spec = load_spec(spec_path)
    read: list[str] = []  # the headers the build included: --save must not replace one
    with structs_wrapped(file, spec, parse_opts) as (file, spec):
        if initcheck:
            values = run_with_both_fills(file, spec, parse_opts, timeout, sanitize,
                                         "the program's", read_files=read)
        else:
            values = run_spec(file, spec, backend, parse_opts, timeout, sanitize,
                              read_files=read)
    outputs = {a.name: v for a, v in zip(spec.args, values, strict=True) if a.is_output}
    for name, v in outputs.items():
        click.echo(summarise(name, v))
    if save:
        outputs_set.add_inputs(read)
        outputs_set.check()
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
    the spec's tolerance (atol + rtol * |expected|; integers must match exactly). Under emu
    the original runs twice, fresh device memory filled with 0x00 and 0xff: an original
    whose outputs differ reads memory nothing wrote, an error at the original. The
    transformed program runs on 0xff bytes (NaN as a float): one that reads memory nothing
    wrote does not match by reading zeros."""
    from cudafuse.cli.verify_hfuse import check_usage, verify_hfuse
    from cudafuse.runtime.spec import load_spec

    check_usage(files, hfuse, spec_path, pair_name, spec1, spec2)
    for f in files:
        read_source(f)  # a device (/dev/zero), a pipe, a binary file: said before any run
    if backend == "nvcc":  # before any run: a missing PyCUDA is not the original's fault
        from cudafuse.runtime.gpu import require_pycuda

        require_pycuda()
    if hfuse:
        ok = verify_hfuse(files, spec_path, pair_name, spec1, spec2, backend, timeout,
                          sanitize, parse_opts)
        fused, originals = files[2], f"{files[0]} and {files[1]}"
    else:
        from cudafuse.cli.verify_hfuse import structs_wrapped

        original, fused = files
        originals = original
        assert spec_path is not None
        spec = load_spec(spec_path)
        print_diagnostics(spec.warnings)
        if not any(a.is_output for a in spec.args):
            raise error("the spec marks no argument as an output (role = \"out\" or "
                        "\"inout\")", spec_path)
        if not any(a.count for a in spec.args if a.is_output):
            raise error("every output of the spec has count 0: there would be nothing to "
                        "compare", spec_path)
        with structs_wrapped(original, spec, parse_opts) as (path, run):
            want = run_reference(path, run, backend, parse_opts, timeout, sanitize)
        with structs_wrapped(fused, spec, parse_opts) as (path, run):
            got, unwritten = run_transformed(path, run, backend, parse_opts, timeout,
                                             sanitize)
        ok = report([(a, w, g) for a, w, g in zip(spec.args, want, got, strict=True)
                     if a.is_output], spec.rtol, spec.atol, spec_path)
        if not ok:
            print_diagnostics(unwritten_notes(unwritten, fused))
    if not ok:
        click.echo(f"{fused}: outputs differ from {originals}", err=True)
        click.get_current_context().exit(1)
    click.echo(f"{fused}: all outputs match {originals}")
