"""`cudafuse hfuse`: horizontal fusion of two kernels from the command line."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from cudafuse.api import hfused_result, with_line_endings
from cudafuse.cli.group import (
    FiniteRange,
    guarded,
    main,
    nonempty,
    parse_options,
    print_diagnostics,
    regular_input,
)
from cudafuse.diagnostics import error
from cudafuse.frontend import ParseOptions
from cudafuse.outputs import OutputSet, cache_dir_ready, depfile_output, depfile_text
from cudafuse.passes.horizontal.inputs import (
    Inputs,
    check_emitted,
    regcap_value,
    resolve_inputs,
    run_on_inputs,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from cudafuse.profile.apply import Applied
    from cudafuse.profile.candidates import Candidate, CandidateOptions
    from cudafuse.profile.pairspec import PairSpec


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False),
                callback=nonempty)
@click.option("-o", "output", type=click.Path(), required=True,
              help="The .cu file to write ('-' for standard output).")
@click.option("--kernels", metavar="A,B", help="The two kernels to fuse (needed when a file "
              "has more than one kernel; with one FILE, both come from it).")
@click.option("--block1", metavar="X[xY[xZ]]",
              help="Block shape of the first kernel in the fused block (its thread count "
                   "must be a multiple of 32); default: its __launch_bounds__ (1D kernels).")
@click.option("--block2", metavar="X[xY[xZ]]",
              help="Block shape of the second kernel; default as for --block1.")
@click.option("--mode", type=click.Choice(["thread", "block", "streams", "sequential"]),
              default="thread", show_default=True,
              help="thread: each block runs both kernels in two thread "
              "ranges (HFuse); block: the first grid's blocks run kernel 1, the rest kernel 2; "
              "streams: no fusion, a launcher with the same signature running both kernels "
              "unchanged on two streams (the native baseline); sequential: the same, one "
              "after the other on one stream.")
@click.option("--regcap", default="none", show_default=True, metavar="N|none|auto",
              help="Cap the fused kernel's registers per thread (__maxnreg__); auto: the cap "
                   "that gains an occupancy step without spills, from ptxas' figures of the "
                   "fused kernel, or none (thread mode, needs nvcc).")
@click.option("--from-profile", "from_profile", type=click.Path(dir_okay=False),
              callback=regular_input,
              help="Take --mode, --regcap and the split from a profiling report (or cache "
                   "entry), choosing again from its measurements; needs no GPU.")
@click.option("--profile", "profile", is_flag=True,
              help="Choose mode, split and register cap by measurement (needs --spec): "
                   "every candidate is verified against the native kernels, then timed; the "
                   "native kernels on two streams are kept unless a fused kernel is clearly "
                   "faster. See docs/profiling.md.")
@click.option("--spec", "spec_path", type=click.Path(dir_okay=False),
              callback=nonempty,
              help="With --profile: the pair spec (each kernel's run spec and launch).")
@click.option("--pair", "pair_name", metavar="NAME",
              help="With --profile: the [[pair]] of a pairs file (samples/hfuse/pairs.toml).")
@click.option("--backend", type=click.Choice(["nvcc", "emu"]), default="nvcc",
              show_default=True, help="With --profile: run on the GPU (nvcc, PyCUDA) or "
              "under the CPU emulator (checks every candidate; its timings mean nothing).")
@click.option("--split-step", default=128, show_default=True,
              help="With --profile: thread-count step for the parts that may change size.")
@click.option("--margin", default=0.03, show_default=True,
              type=FiniteRange(0, 1, max_open=True),
              help="With --profile: how much faster than two streams a fused kernel must be "
                   "(a fraction of their time, 0 to 1).")
@click.option("--cache-dir", type=click.Path(file_okay=False),
              help="With --profile: the results cache (default ~/.cache/cudafuse/profile).")
@click.option("--no-cache", is_flag=True, help="With --profile: measure even if cached.")
@click.option("--exhaustive", is_flag=True,
              help="With --profile: time every register cap of every split (HFuse's search) "
                   "instead of the caps of the three fastest splits.")
@click.option("--jobs", type=click.IntRange(min=0), default=0,
              help="Parallel builds (default: CPUs).")
@click.option("--nvcc-flag", "nvcc_flags", multiple=True, metavar="FLAG",
              help="With --profile (nvcc): a flag the candidates are built and timed with, "
                   "as you will build them (--nvcc-flag=--use_fast_math); repeat for more. "
                   "A candidate not bit-identical to the native kernels is checked again on "
                   "builds with IEEE flags (--fmad=false) (docs/fp-exactness.md).")
@click.option("--name", default="", help="The fused kernel's name (default <k1>_<k2>_hfused).")
@click.option("--explain", is_flag=True, help="Describe the fused kernel on standard error.")
@click.option("--report", "report_path", type=click.Path(),
              help="Write the decisions as JSON.")
@click.option("-MD", "make_deps", is_flag=True, help="Write a make depfile (OUTPUT.d unless "
              "-MF names one).")
@click.option("-MF", "depfile", type=click.Path(), help="The depfile's path.")
@parse_options
@guarded
def hfuse(files: tuple[str, ...], output: str, kernels: str | None, block1: str | None,
          block2: str | None, mode: str, regcap: str, from_profile: str | None,
          profile: bool, spec_path: str | None, pair_name: str | None, backend: str,
          split_step: int, margin: float, cache_dir: str | None, no_cache: bool,
          exhaustive: bool, jobs: int, nvcc_flags: tuple[str, ...], name: str, explain: bool,
          report_path: str | None,
          make_deps: bool, depfile: str | None, parse_opts: ParseOptions) -> None:
    """Fuse two independent kernels horizontally into one kernel and a host launcher.

    FILES is one file holding both kernels (with --kernels A,B) or two files, one kernel
    each. The output holds the input(s) unchanged, the fused kernel <k1>_<k2>_hfused and
    `void <k1>_<k2>_hfused_launch(<k1 params>, <k2 params>, dim3 grid1, dim3 grid2,
    size_t smem1, size_t smem2, cudaStream_t stream)`.
    """
    from cudafuse.passes.horizontal.parts import Shape

    source = click.get_current_context().get_parameter_source
    given = [o for o, p in (("--spec", "spec_path"), ("--pair", "pair_name"),
                            ("--backend", "backend"), ("--split-step", "split_step"),
                            ("--margin", "margin"), ("--cache-dir", "cache_dir"),
                            ("--no-cache", "no_cache"), ("--exhaustive", "exhaustive"),
                            ("--nvcc-flag", "nvcc_flags"))
             if source(p) is not click.core.ParameterSource.DEFAULT]
    if given and not profile:
        raise error(f"{', '.join(given)} only apply with --profile", status=2)
    if profile and from_profile is not None:
        raise error("--profile measures, --from-profile reads a measurement: give one",
                    status=2)
    if profile and spec_path is None:
        raise error("--profile needs --spec PAIR.toml: the inputs and launches to measure "
                    "with (docs/profiling.md)", status=2)
    if from_profile is not None or profile:
        fixed = [o for o, p in (("--mode", "mode"), ("--regcap", "regcap"))
                 if source(p) is not click.core.ParameterSource.DEFAULT]
        if fixed:
            flag = "--profile" if profile else "--from-profile"
            raise error(f"{flag} chooses {' and '.join(fixed)}; give one or the other",
                        status=2)
    cap = regcap_value(regcap)
    if name and not (name.isascii() and name.isidentifier()):
        raise error(f"--name must be a C identifier, not '{name}'", status=2)
    outs = OutputSet([*files, from_profile, spec_path, *parse_opts.forced_includes])
    outs.declare("-o", output, stdout=True)
    outs.declare("--report", report_path)
    outs.declare(*depfile_output(output, make_deps, depfile))
    outs.check()
    if profile and not no_cache:
        cache_dir_ready("--cache-dir", cache_dir)
    if mode == "streams" and regcap != "none":
        raise error("--regcap applies to a fused kernel; --mode streams has none", status=2)
    if regcap == "auto" and mode != "thread":
        raise error("--regcap auto is HFuse's bound for the thread split; give a number in "
                    "block mode", status=2)
    pair = None
    if profile:
        from cudafuse.profile.pairspec import load_pair_spec

        assert spec_path is not None
        pair = load_pair_spec(spec_path, pair_name)
        outs.add_inputs([side.spec.path for side in pair.sides])  # the run specs it names
        outs.check()
        # The pair spec's native blocks, unless given on the command line.
        block1 = block1 or "x".join(map(str, pair.sides[0].block))
        block2 = block2 or "x".join(map(str, pair.sides[1].block))
    diagnostics: list = []
    try:
        inputs = resolve_inputs(files, kernels, block1, block2, parse_opts, diagnostics)
    finally:
        print_diagnostics(diagnostics)
    results, (k1, k2) = inputs.results, inputs.refs
    outs.add_inputs([i for r in results for i in r.unit.includes])
    outs.check()
    shapes, sources = list(inputs.shapes), list(inputs.sources)
    how = ""
    profile_lines: tuple[str, ...] = ()
    applied, origin = None, ""
    if from_profile is not None:
        from cudafuse.profile.apply import from_report

        applied, origin = from_report(from_profile, (k1.display, k2.display)), from_profile
    elif pair is not None:
        applied = _profile(inputs, pair, files, parse_opts, backend, split_step, margin,
                           cache_dir, no_cache, exhaustive, jobs, report_path, outs,
                           nvcc_flags)
        origin = "--profile"
    if applied is not None:
        mode, cap, profile_lines = applied.mode, applied.regcap, applied.lines
        how = f"from the profile {origin} ({applied.choice})" if cap else ""
        for i, threads in enumerate(applied.threads or ()):
            if threads != shapes[i].count:
                if shapes[i].dims > 1:
                    raise error(f"the profile gives part {i + 1} {threads} threads, but its "
                                f"block is {shapes[i]}", origin)
                shapes[i] = Shape(threads)
                sources[i] = f"the profile {origin}"
    inputs = replace(inputs, shapes=(shapes[0], shapes[1]), sources=(sources[0], sources[1]))
    # Never an output that does not compile: parsed again as the file it will be, and
    # compiled with nvcc where it is on PATH (codegen/compile_check.py).
    where = output if output != "-" else str(Path.cwd() / "hfused.cu")
    res = run_on_inputs(inputs, mode, "auto" if regcap == "auto" else cap, name,
                        parse_opts, how, out_dir=str(Path(where).parent))
    print_diagnostics(check_emitted(res, inputs, where,
                                    parse_opts))
    res = with_line_endings(res, inputs)
    fused = hfused_result(res, inputs, files, [])
    if explain:
        click.echo("\n".join((*profile_lines, *res.explain)), err=True)
    if output != "-":
        outs.put(output, res.output)
    if report_path and not profile:  # with --profile, the report is the profiling report
        outs.put(report_path, json.dumps(fused.report, indent=2) + "\n")
    dep_path = depfile_output(output, make_deps, depfile)[1]
    if dep_path:
        outs.put(dep_path, depfile_text(output, fused.inputs))
    outs.commit()
    if output == "-":
        click.echo(res.output.decode("utf-8"), nl=False)


def candidate_setup(inputs: Inputs, split_step: int
                    ) -> tuple[CandidateOptions, Callable[[str, Candidate | None],
                                                          tuple[bytes, str]]]:
    """What hfuse-plan and --profile search: the candidate options (a part whose results
    do not depend on its block size may change size), and the emitter of one configuration
    (mode and candidate, or mode alone for the unfused launchers) -> (program, fused name)."""
    from cudafuse.passes.horizontal.carried import grid_strided
    from cudafuse.passes.horizontal.driver import HFuseOptions
    from cudafuse.passes.horizontal.driver import hfuse as run_hfuse
    from cudafuse.passes.horizontal.parts import Shape
    from cudafuse.profile.candidates import CandidateOptions

    (u1, u2), (k1, k2), shapes = inputs.units, inputs.refs, inputs.shapes
    native = run_hfuse(u1, k1, u2, k2, HFuseOptions(*shapes, "block"))
    tunable = [not p.block_dependence and p.block.dims == 1 for p in native.parts]
    # Fewer threads under the native grid cover the work only where grid-stride loops
    # share it out (a kernel writing one element per thread would leave some unwritten).
    shrinks = [t and grid_strided(p.unit, p.fn) for t, p in zip(tunable, native.parts,
                                                                 strict=True)]
    try:
        options = CandidateOptions(shapes[0].count, shapes[1].count, tunable[0], tunable[1],
                                   split_step, shrinks1=shrinks[0], shrinks2=shrinks[1])
    except ValueError as exc:
        raise error(str(exc), status=2) from None

    def emit(mode: str, cand: Candidate | None) -> tuple[bytes, str]:
        if cand is None:
            opts = HFuseOptions(shapes[0], shapes[1], mode)
        else:
            b1 = shapes[0] if cand.threads1 == shapes[0].count else Shape(cand.threads1)
            b2 = shapes[1] if cand.threads2 == shapes[1].count else Shape(cand.threads2)
            # Only parts found tunable change size; a candidate's size is no user's option
            # to check against the kernel (blocksize.contradictions), and is verified.
            sources = tuple(inputs.sources[i] if b is shapes[i] else "a profiling candidate"
                            for i, b in enumerate((b1, b2)))
            opts = HFuseOptions(b1, b2, cand.mode, cand.regcap, block_sources=(sources[0],
                                                                               sources[1]))
        res = run_hfuse(u1, k1, u2, k2, opts)
        return res.output, res.name

    return options, emit


def _profile(inputs: Inputs, pair: PairSpec, files: tuple[str, ...], parse_opts: ParseOptions,
             backend: str, split_step: int, margin: float, cache_dir: str | None,
             no_cache: bool, exhaustive: bool, jobs: int, report_path: str | None,
             outs: OutputSet, nvcc_flags: tuple[str, ...] = ()) -> Applied:
    """The measuring run: its choice as hfuse options; its report staged for report_path
    (written at once when the run fails: it explains why)."""
    from cudafuse.cli.specs import check_args
    from cudafuse.profile.apply import from_selection
    from cudafuse.profile.cache import ResultsCache
    from cudafuse.profile.hfuse_profile import ProfileFailed, profile_pair
    from cudafuse.profile.measure import Target
    from cudafuse.profile.report import dumps
    from cudafuse.progress import Progress

    k1, k2 = inputs.refs
    for i, (side, ref) in enumerate(zip(pair.sides, (k1, k2), strict=True), 1):
        if side.kernel and side.kernel not in (ref.fn.name, ref.display, ref.qualified) and \
                inputs.renamed.get(side.kernel) != ref.fn.name:
            raise error(f"the pair spec's kernel{i} is '{side.kernel}', but the kernel being "
                        f"fused is '{ref.display}'", pair.path)
        check_args(side.spec, ref.fn)
    options, emit = candidate_setup(inputs, split_step)
    # Named phases on stderr, on a terminal or not (cudafuse.progress).
    progress = Progress("profile")

    # The programs are built away from the inputs: their directories stay on the path.
    dirs = tuple(dict.fromkeys(str(Path(f).resolve().parent) for f in files))
    target = Target(backend, parse_opts.arch, (*dirs, *parse_opts.include_dirs),
                    parse_opts.defines, jobs or None, nvcc_flags)
    cache = None if no_cache else ResultsCache(cache_dir)
    try:
        outcome = profile_pair(
            emit=emit, options=options, pair=pair, target=target, files=files,
            displays=[k1.display, k2.display], qualified=[k1.qualified, k2.qualified],
            margin=margin, cache=cache, progress=progress, exhaustive=exhaustive)
    except ProfileFailed as exc:
        if report_path:
            outs.put(report_path, dumps(exc.report))
            outs.commit()
        raise error(str(exc) + (f" (report: {report_path})" if report_path else "")) from None
    if report_path:
        outs.put(report_path, dumps(outcome.report))
    for note in outcome.notes:
        click.echo(f"cudafuse: note: {note}", err=True)
    applied = from_selection(outcome.selection)
    click.echo(f"cudafuse: profile on {outcome.device.name}: "
               f"{outcome.selection.lines[0]}", err=True)
    return applied
