"""`cudafuse fuse` and `cudafuse plan`: vertical fusion from the command line."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from cudafuse.cli.group import (
    FiniteRange,
    guarded,
    main,
    nonempty,
    parse_options,
    print_diagnostics,
)
from cudafuse.diagnostics import Diagnostic, Severity, error
from cudafuse.frontend import ParseOptions
from cudafuse.outputs import (
    OutputSet,
    cache_dir_ready,
    depfile_output,
    depfile_text,
    keep_line_endings,
)

if TYPE_CHECKING:
    from cudafuse.frontend.parse import ParseResult
    from cudafuse.passes.vertical.driver import FuseResult


def _fusion_options(fn):
    fn = click.option("--partition", type=click.Choice(["auto", "mincut", "exact"]),
                      default="auto", show_default=True,
                      help="Partitioning strategy: Hipacc's recursive min-cut, a dynamic "
                           "programming search (exact where its limits allow; --explain "
                           "says), or both keeping the better.")(fn)
    fn = click.option("--scratch", multiple=True, metavar="NAME[,NAME...]",
                      help="Pointer parameters of the host function whose contents the "
                           "caller does not read afterwards (repeatable, or a comma list); "
                           "fused groups then need not store them.")(fn)
    fn = click.option("--tiles", type=click.Choice(["auto", "always", "never"]),
                      default="auto", show_default=True,
                      help="Stage producers read by the last kernel's stencils in "
                           "shared-memory tiles: as the cost model decides, always, or never "
                           "(recompute them).")(fn)
    fn = click.option("--block", "block", metavar="XxY",
                      help="Launch each fused 2D group with this block shape (its grid "
                           "rebuilt to cover the image) instead of its last kernel's (without "
                           "it, a group that loses occupancy may take the block the cost model "
                           "prices best); groups whose results depend on the block keep "
                           "theirs, with a note.")(fn)
    fn = click.option("--siblings", type=click.Choice(["auto", "always", "never"]),
                      default="auto", show_default=True,
                      help="Run independent launches of a sequence as one launch (one thread "
                           "runs both bodies, or a block split when their shapes differ): as "
                           "the cost model decides, whenever legal, or never.")(fn)
    fn = click.option("--fuse-all", is_flag=True,
                      help="Fuse every legal group whatever the cost model estimates.")(fn)
    fn = click.option("--report", "report_path", type=click.Path(),
                      help="Write the partition, every edge's decision and the cost "
                           "estimates as JSON.")(fn)
    fn = click.option("--dot", "dot_path", type=click.Path(),
                      help="Write the launch DAG with the fused groups as Graphviz.")(fn)
    return fn


def _block(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() and int(p) > 0 for p in parts) or \
            int(parts[0]) * int(parts[1]) > 1024:
        raise error(f"--block takes XxY with at most 1024 threads (32x8), not '{text}'",
                    status=2)
    return int(parts[0]), int(parts[1])


def _scratch(scratch: tuple[str, ...]) -> frozenset[str]:
    """--scratch a --scratch b,c: names are C identifiers, so a comma can only separate."""
    return frozenset(n.strip() for s in scratch for n in s.split(",") if n.strip())


def _outputs(inputs: list[str | None], parse_opts: ParseOptions,
             *outputs: tuple[str, str | None]) -> OutputSet:
    """The run's outputs, checked against its inputs and each other before any work."""
    outs = OutputSet([*inputs, *parse_opts.forced_includes])
    for option, path in outputs:
        outs.declare(option, path, stdout=option == "-o")
    outs.check()
    return outs


def _parsed(file: str, parse_opts: ParseOptions, outs: OutputSet) -> ParseResult:
    """FILE parsed, its diagnostics shown, and the outputs checked again against the
    headers it read (a --report over an included header)."""
    from cudafuse.passes.vertical.kernel.respell import parse_for_fusion

    result, _ = parse_for_fusion(file, replace(parse_opts, included_kernels=True))
    print_diagnostics(result.diagnostics)
    outs.add_inputs(result.unit.includes)
    outs.check()
    return result


def _run(file: str, parse_opts: ParseOptions, partition: str, scratch: tuple[str, ...],
         fuse_all: bool, tiles: str, block: str | None = None,
         outs: OutputSet | None = None, siblings: str = "auto") -> tuple[FuseResult, list[str]]:
    """The vertical pass through the API (cudafuse.api.fuse); its diagnostics shown, the
    outputs checked against every file it read."""
    from cudafuse import api
    from cudafuse.progress import DELAY, Progress, reporting

    ctx = click.get_current_context(silent=True)
    tool = ctx.info_name if ctx is not None and ctx.info_name else "fuse"
    with reporting(Progress(tool, delay=DELAY)) as progress:  # (shown if the run is long)
        progress.start("parsing", 1)
        fused = api.fuse(file, partition=partition, scratch=_scratch(scratch),
                         fuse_all=fuse_all, tiles=tiles, block=_block(block),
                         siblings=siblings, **asdict(parse_opts))
    print_diagnostics(fused.diagnostics)
    outs = outs or OutputSet()
    outs.add_inputs(fused.inputs[1:])
    outs.check()
    return fused.result, fused.inputs


def _side_outputs(outs: OutputSet, fused: FuseResult, report_path: str | None,
                  dot_path: str | None) -> None:
    from cudafuse.passes.vertical.driver import report_dict
    from cudafuse.passes.vertical.emit.render import dot_text

    if report_path:
        outs.put(report_path, json.dumps(report_dict(fused), indent=2) + "\n")
    if dot_path:
        outs.put(dot_path, dot_text(fused))


@main.command()
@click.argument("file", type=click.Path(dir_okay=False), callback=nonempty)
@click.option("-o", "output", type=click.Path(), required=True,
              help="The fused .cu file to write ('-' for standard output).")
@click.option("--explain", is_flag=True, help="Say, for every producer/consumer edge, whether "
              "it was fused and why (on standard error).")
@click.option("-MD", "make_deps", is_flag=True, help="Write a make depfile (OUTPUT.d unless "
              "-MF names one).")
@click.option("-MF", "depfile", type=click.Path(), help="The depfile's path.")
@_fusion_options
@click.option("--profile", is_flag=True,
              help="Measure the cost model's choice against its alternatives (tiles or "
                   "recomputation, min-cut or exact, fuse all) and the unfused program, "
                   "each verified first; keep the fastest (unfused unless a fused variant is "
                   "clearly faster). Needs --spec.")
@click.option("--spec", "spec_path", type=click.Path(dir_okay=False),
              callback=nonempty,
              help="With --profile: the run spec (entry host function and its arguments).")
@click.option("--backend", type=click.Choice(["nvcc", "emu"]), default="nvcc",
              show_default=True, help="With --profile: the GPU, or the CPU emulator (checks "
              "every variant; its timings mean nothing).")
@click.option("--spec-size", "spec_sizes", multiple=True, metavar="NAME=VALUE",
              help="With --profile: replace a size of the spec (measure at 4096x4096 with "
                   "--spec-size w=4096 --spec-size h=4096).")
@click.option("--margin", default=0.03, show_default=True,
              type=FiniteRange(0, 1, max_open=True),
              help="With --profile: how much faster than unfused a variant must be (a "
                   "fraction of its time, 0 to 1).")
@click.option("--cache-dir", type=click.Path(file_okay=False),
              help="With --profile: the results cache (default ~/.cache/cudafuse/profile).")
@click.option("--no-cache", is_flag=True, help="With --profile: measure even if cached.")
@click.option("--nvcc-flag", "nvcc_flags", multiple=True, metavar="FLAG",
              help="With --profile (nvcc): a flag the variants are timed with, as you will "
                   "build them (--nvcc-flag=--use_fast_math); repeat for more. The "
                   "exactness check builds with IEEE flags (--fmad=false) whatever these say "
                   "(docs/fp-exactness.md).")
@click.argument("clang_args", nargs=-1, type=click.UNPROCESSED)
@parse_options
@guarded
def fuse(file: str, output: str, explain: bool, make_deps: bool, depfile: str | None,
         partition: str, scratch: tuple[str, ...], fuse_all: bool, tiles: str,
         block: str | None, siblings: str,
         report_path: str | None, dot_path: str | None, profile: bool, spec_path: str | None,
         spec_sizes: tuple[str, ...], backend: str, margin: float, cache_dir: str | None,
         no_cache: bool, nvcc_flags: tuple[str, ...], parse_opts: ParseOptions) -> None:
    """Fuse the kernel pipelines launched by FILE's host functions into fewer kernels.

    The output has the same host functions with the same signatures and computes the same
    values on every element; launches that cannot be fused safely are left as they were,
    with a note saying why. Extra clang arguments may follow `--`.
    """
    source = click.get_current_context().get_parameter_source
    given = [o for o, p in (("--spec", "spec_path"), ("--spec-size", "spec_sizes"),
                            ("--backend", "backend"),
                            ("--margin", "margin"), ("--cache-dir", "cache_dir"),
                            ("--no-cache", "no_cache"), ("--nvcc-flag", "nvcc_flags"))
             if source(p) is not click.core.ParameterSource.DEFAULT]
    if given and not profile:
        raise error(f"{', '.join(given)} only apply with --profile", status=2)
    if profile and spec_path is None:
        raise error("--profile needs --spec SPEC.toml: the inputs to measure with", status=2)
    outs = _outputs([file, spec_path], parse_opts, ("-o", output), ("--report", report_path),
                    ("--dot", dot_path), depfile_output(output, make_deps, depfile))
    if profile and not no_cache:
        cache_dir_ready("--cache-dir", cache_dir)
    if profile:
        assert spec_path is not None
        sizes = {}
        for item in spec_sizes:
            name, eq, value = item.partition("=")
            if not eq or not name.strip() or not value.strip().lstrip("-").isdigit():
                raise error(f"--spec-size takes NAME=INTEGER, not '{item}'", status=2)
            sizes[name.strip()] = int(value)
        fused, deps = _profiled(file, parse_opts, partition, scratch, fuse_all, tiles,
                                _block(block), spec_path, sizes, backend, margin, cache_dir,
                                no_cache, report_path, outs, siblings, nvcc_flags)
    else:
        fused, deps = _run(file, parse_opts, partition, scratch, fuse_all, tiles, block,
                           outs, siblings)
    if explain:
        from cudafuse.passes.vertical.emit.render import explain_text

        click.echo(explain_text(fused), err=True, nl=False)
    if output != "-":
        outs.put(output, fused.output)
    _side_outputs(outs, fused, None if profile else report_path, dot_path)
    dep_path = depfile_output(output, make_deps, depfile)[1]
    if dep_path:
        outs.put(dep_path, depfile_text(output, deps))
    outs.commit()
    if output == "-":
        click.echo(fused.output.decode("utf-8"), nl=False)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False), callback=nonempty)
@_fusion_options
@click.option("--explain", is_flag=True, help="Accepted as in `fuse --explain`: plan always "
              "prints the explanation (on stdout).")
@click.argument("clang_args", nargs=-1, type=click.UNPROCESSED)
@parse_options
@guarded
def plan(file: str, partition: str, scratch: tuple[str, ...], fuse_all: bool, tiles: str,
         block: str | None, siblings: str, report_path: str | None, dot_path: str | None,
         explain: bool, parse_opts: ParseOptions) -> None:
    """Show how FILE's kernel pipelines would be fused, without writing code."""
    from cudafuse.passes.vertical.emit.render import explain_text

    outs = _outputs([file], parse_opts, ("--report", report_path), ("--dot", dot_path))
    fused, _ = _run(file, parse_opts, partition, scratch, fuse_all, tiles, block, outs,
                    siblings)
    _side_outputs(outs, fused, report_path, dot_path)
    outs.commit()
    text = explain_text(fused)
    if text.strip():  # nothing to fuse: the warning says so, not an empty line
        click.echo(text, nl=False)


def _profiled(file: str, parse_opts: ParseOptions, partition: str, scratch: tuple[str, ...],
              fuse_all: bool, tiles: str, block: tuple[int, int] | None, spec_path: str,
              sizes: dict[str, int],
              backend: str, margin: float, cache_dir: str | None, no_cache: bool,
              report_path: str | None, outs: OutputSet, siblings: str = "auto",
              nvcc_flags: tuple[str, ...] = ()) -> tuple[FuseResult, list[str]]:
    """`fuse --profile`: the measured choice among the model's variants and the unfused
    program; with --report, the fusion report of the choice plus the measurements."""
    from cudafuse.cli.specs import check_entry
    from cudafuse.passes.vertical.driver import FuseOptions, FuseResult, report_dict, scratch_notes
    from cudafuse.profile.cache import ResultsCache
    from cudafuse.profile.hfuse_profile import ProfileFailed
    from cudafuse.profile.measure import Target
    from cudafuse.profile.vertical import UNFUSED, profile_fuse
    from cudafuse.progress import Progress
    from cudafuse.runtime.spec import load_spec

    result = _parsed(file, parse_opts, outs)
    spec = load_spec(spec_path, sizes)
    check_entry(spec, result.unit)
    base = FuseOptions(partition, parse_opts.arch, _scratch(scratch), fuse_all=fuse_all,
                       tiles=tiles, block=block, siblings=siblings)
    print_diagnostics([Diagnostic(Severity.WARNING, note, file)
                       for note in scratch_notes(result.unit, base.scratch)])
    # The variants are built away from the input: its own directory must stay on the path.
    includes = (str(Path(file).resolve().parent), *parse_opts.include_dirs)
    target = Target(backend, parse_opts.arch, includes, parse_opts.defines,
                    nvcc_flags=nvcc_flags)
    # Named phases on stderr, on a terminal or not (cudafuse.progress).
    progress = Progress("profile")

    try:
        chosen, choice, doc, notes = profile_fuse(
            unit=result.unit, base=base, spec=spec,
            spec_text=Path(spec_path).read_bytes() + repr(sorted(sizes.items())).encode(),
            target=target, margin=margin,
            cache=None if no_cache else ResultsCache(cache_dir), progress=progress)
    except ProfileFailed as exc:
        if report_path:  # the report explains the failure: written, the output is not
            outs.put(report_path, json.dumps({"profile": exc.report}, indent=2) + "\n")
            outs.commit()
        raise error(str(exc)) from None
    for note in notes:
        click.echo(f"cudafuse: note: {note}", err=True)
    for line in choice.lines:
        click.echo(f"cudafuse: profile: {line}", err=True)
    fused = chosen.result if chosen.id != UNFUSED else FuseResult(
        result.unit.source.data, notes=["kept unfused: no fused variant was clearly faster"])
    source = result.unit.source
    fused = replace(fused, output=keep_line_endings(fused.output,
                                                    [source.original or source.data]))
    if report_path:
        outs.put(report_path, json.dumps({**report_dict(fused), "profile": doc},
                                         indent=2) + "\n")
    return fused, [file, *result.unit.includes]
