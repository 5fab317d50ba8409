"""`cudafuse fuse` and `cudafuse plan`: vertical fusion from the command line."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from cudafuse.cli import guarded, main, parse_options, print_diagnostics
from cudafuse.diagnostics import Diagnostic, Severity, error
from cudafuse.frontend import ParseOptions, parse_file
from cudafuse.outputs import depfile_text, write_atomic

if TYPE_CHECKING:
    from cudafuse.fusion.driver import FuseResult


def _fusion_options(fn):
    fn = click.option("--partition", type=click.Choice(["auto", "mincut", "exact"]),
                      default="auto", show_default=True,
                      help="Partitioning strategy: Hipacc's recursive min-cut, an exact "
                           "search, or both keeping the better.")(fn)
    fn = click.option("--scratch", multiple=True, metavar="NAME",
                      help="A pointer parameter of the host function whose contents the "
                           "caller does not read afterwards (repeatable); fused groups then "
                           "need not store it.")(fn)
    fn = click.option("--tiles", type=click.Choice(["auto", "always", "never"]),
                      default="auto", show_default=True,
                      help="Stage producers read by the last kernel's stencils in "
                           "shared-memory tiles: as the cost model decides, always, or never "
                           "(recompute them).")(fn)
    fn = click.option("--fuse-all", is_flag=True,
                      help="Fuse every legal group whatever the cost model estimates.")(fn)
    fn = click.option("--report", "report_path", type=click.Path(dir_okay=False),
                      help="Write the partition, every edge's decision and the cost "
                           "estimates as JSON.")(fn)
    fn = click.option("--dot", "dot_path", type=click.Path(dir_okay=False),
                      help="Write the launch DAG with the fused groups as Graphviz.")(fn)
    return fn


def _run(file: str, parse_opts: ParseOptions, partition: str, scratch: tuple[str, ...],
         arch: str, fuse_all: bool, tiles: str) -> tuple[FuseResult, list[str]]:
    # Imported here: networkx and the analyses cost a tenth of a second at start-up.
    from cudafuse.fusion.arch import ARCHS
    from cudafuse.fusion.driver import FuseOptions, fuse_unit

    result = parse_file(file, parse_opts)
    print_diagnostics(result.diagnostics)
    if arch not in ARCHS and not arch.startswith("sm_"):
        raise error(f"unknown GPU architecture '{arch}'", status=2)
    fused = fuse_unit(result.unit, FuseOptions(partition, arch, frozenset(scratch),
                                                  fuse_all=fuse_all, tiles=tiles))
    notes = [Diagnostic(Severity.NOTE, f"{e.src} -> {e.dst}: {e.why}", file, e.line, e.col)
             for e in fused.edges if e.refused]
    notes += [Diagnostic(Severity.NOTE, why, file, line, col)
              for _, line, col, why in fused.breaks]
    print_diagnostics(sorted(notes, key=lambda d: (d.line, d.col)))
    for note in fused.notes:
        print_diagnostics([Diagnostic(Severity.WARNING, note, file)])
    return fused, [file, *result.unit.includes]


def _side_outputs(fused: FuseResult, report_path: str | None, dot_path: str | None) -> None:
    from cudafuse.fusion.driver import report_dict
    from cudafuse.fusion.render import dot_text

    if report_path:
        write_atomic(report_path, json.dumps(report_dict(fused), indent=2) + "\n")
    if dot_path:
        write_atomic(dot_path, dot_text(fused))


@main.command()
@click.argument("file", type=click.Path())
@click.option("-o", "output", type=click.Path(dir_okay=False), required=True,
              help="The fused .cu file to write ('-' for standard output).")
@click.option("--explain", is_flag=True, help="Say, for every producer/consumer edge, whether "
              "it was fused and why (on standard error).")
@click.option("-MD", "make_deps", is_flag=True, help="Write a make depfile (OUTPUT.d unless "
              "-MF names one).")
@click.option("-MF", "depfile", type=click.Path(dir_okay=False), help="The depfile's path.")
@_fusion_options
@click.argument("clang_args", nargs=-1, type=click.UNPROCESSED)
@parse_options
@guarded
def fuse(file: str, output: str, explain: bool, make_deps: bool, depfile: str | None,
         partition: str, scratch: tuple[str, ...], fuse_all: bool, tiles: str,
         report_path: str | None, dot_path: str | None, parse_opts: ParseOptions) -> None:
    """Fuse the kernel pipelines launched by FILE's host functions into fewer kernels.

    The output has the same host functions with the same signatures and computes the same
    values on every element; launches that cannot be fused safely are left as they were,
    with a note saying why. Extra clang arguments may follow `--`.
    """
    if output != "-" and Path(output).exists() and Path(file).exists() and \
            os.path.samefile(output, file):
        raise error("the output would overwrite the input; cudafuse never modifies its "
                    "inputs", output, status=2)
    fused, deps = _run(file, parse_opts, partition, scratch, parse_opts.arch, fuse_all,
                       tiles)
    if explain:
        from cudafuse.fusion.render import explain_text

        click.echo(explain_text(fused), err=True, nl=False)
    if output == "-":
        click.echo(fused.output.decode("utf-8"), nl=False)
    else:
        write_atomic(output, fused.output)
    _side_outputs(fused, report_path, dot_path)
    if make_deps or depfile:
        target = output if output != "-" else "-"
        write_atomic(depfile or f"{output}.d", depfile_text(target, deps))


@main.command()
@click.argument("file", type=click.Path())
@_fusion_options
@click.argument("clang_args", nargs=-1, type=click.UNPROCESSED)
@parse_options
@guarded
def plan(file: str, partition: str, scratch: tuple[str, ...], fuse_all: bool, tiles: str,
         report_path: str | None, dot_path: str | None, parse_opts: ParseOptions) -> None:
    """Show how FILE's kernel pipelines would be fused, without writing code."""
    from cudafuse.fusion.render import explain_text

    fused, _ = _run(file, parse_opts, partition, scratch, parse_opts.arch, fuse_all,
                       tiles)
    click.echo(explain_text(fused), nl=False)
    _side_outputs(fused, report_path, dot_path)
