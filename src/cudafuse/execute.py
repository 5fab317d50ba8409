"""Building a program and running it on a run spec's inputs: what `run`, `verify` and
`verify --hfuse` share. numpy and the runtime are imported inside the functions: the other
commands start faster without them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

import click

from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity, error
from cudafuse.frontend import ParseOptions
from cudafuse.frontend.parse import effective_options

if TYPE_CHECKING:
    from collections.abc import Callable

    from cudafuse.runtime.spec import Spec
    from cudafuse.runtime.spec_bind import Slot


def execute(path: str, backend: str, opts: ParseOptions, timeout: float | None,
            sanitize: bool, body: Callable[[Any, list[Slot]], None], faults: str = "warn",
            **emu: Any) -> None:
    """Build `path` and run `body(lib, slots)`; `body` fills `slots` (the spec argument
    behind each parameter of what it calls) before calling, so that a bad access or a
    value that does not fit is reported at the spec's key. `emu`: the emulator's `fill`
    and `unwritten` (runtime.load). A launch the GPU would refuse (an empty grid: it sets
    cudaErrorInvalidConfiguration and the program goes on, as under the emulator) is a
    warning at the launch when `faults` is "warn" (`run`), an error there when it names
    whose run it is ("the original's", verify: such a run is never a silent match)."""
    import tempfile

    if backend != "emu":
        _execute(path, backend, opts, timeout, sanitize, body, **emu)
        return
    from cudafuse.emu import launch_faults

    with tempfile.TemporaryDirectory(prefix="cudafuse-launches-") as tmp:
        log = f"{tmp}/faults.txt"
        try:
            _execute(path, backend, opts, timeout, sanitize, body, launch_faults=log, **emu)
        except CudafuseError as exc:
            # The program may have stopped at the launch's error (its own check): the
            # refused launch comes first.
            _faults(launch_faults.read(log), path, faults, exc.diagnostics)
            raise
        _faults(launch_faults.read(log), path, faults, [])


def _faults(found: list[Any], path: str, faults: str, then: list[Diagnostic]) -> None:
    """Show the refused launches as warnings (`faults` "warn"), or raise an error at the
    first, followed by the others and by the diagnostics of the error the run ended with."""
    if not found:
        return
    if faults == "warn":
        for f in found:
            click.echo(_fault_at(f, path, Severity.WARNING).format(), err=True)
        return
    first = _fault_at(found[0], path, Severity.ERROR)
    raise CudafuseError([
        Diagnostic(Severity.ERROR, f"{faults} {first.message}; a run where the GPU refuses "
                   "a launch is not compared", first.file, first.line),
        *(_fault_at(f, path, Severity.NOTE) for f in found[1:]), *then])


def _fault_at(fault: Any, path: str, severity: Severity) -> Diagnostic:
    """A launch fault at its place, named as the user spelled the program."""
    file = as_spelled(fault.file, path) if fault.file else path
    return Diagnostic(severity, fault.message, file, fault.line)


def _execute(path: str, backend: str, opts: ParseOptions, timeout: float | None,
             sanitize: bool, body: Callable[[Any, list[Slot]], None], **emu: Any) -> None:
    """`emu` may also hold `read_files`, a list the build's included files are added to
    (a run's outputs must not replace them: `run --save`)."""
    from cudafuse.runtime import ArgumentError, KernelError, load
    from cudafuse.runtime.errors import BoundsError
    from cudafuse.runtime.spec_bind import argument_error, bounds_error

    if sanitize and backend != "emu":
        raise error("--sanitize checks emulated runs (--backend emu); on the GPU use "
                    "compute-sanitizer", status=2)
    _check_cache()
    read_files: list[str] | None = emu.pop("read_files", None)
    slots: list[Slot] = []
    kinds: dict[str, str] = {}
    opts, _ = effective_options(opts, path)  # the database's warnings come with the parse
    try:
        with load(path, backend, include_dirs=opts.include_dirs, defines=opts.defines,
                  forced_includes=opts.forced_includes, std_args=opts.extra_args,
                  timeout=timeout, arch=opts.arch, sanitize=sanitize,
                  **(emu if backend == "emu" else {})) as lib:
            kinds = {n: sig.kind for n, sig in lib.signatures.items()}
            if read_files is not None:
                read_files.extend(lib.built.includes)
            try:
                body(lib, slots)
            except ArgumentError as exc:
                raise argument_error(slots, exc) from None
    except BoundsError as exc:
        raise bounds_error(path, exc.access, slots, kinds) from None
    except KernelError as exc:
        raise located(as_spelled(str(exc), path), path) from None
    except MemoryError:
        need = sum(s[0].nbytes for s in slots if s)
        raise error(f"out of memory running with the spec's arrays ({need} bytes, each "
                    "copied about three times)", path) from None


def _check_cache() -> None:
    """The build cache the environment names (CUDAFUSE_CACHE_DIR, XDG_CACHE_HOME, HOME) is
    the machine's state: one that cannot be created or written is said as such, before the
    build fails somewhere inside it."""
    import os

    from cudafuse.runtime.build import cache_dir

    hint = "(set CUDAFUSE_CACHE_DIR or XDG_CACHE_HOME to a writable directory)"
    try:
        path = cache_dir()
    except OSError as exc:
        raise error(f"cannot create the build cache '{exc.filename}': {exc.strerror} "
                    f"{hint}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise error(f"the build cache '{path}' is not writable {hint}")


def as_spelled(message: str, path: str) -> str:
    """An emulator message names the program as the build saw it (its resolved, absolute
    path); the user gave `path`, relative perhaps: say it their way."""
    import os

    resolved = os.path.realpath(path)
    return message.replace(resolved, path) if resolved != path else message


def located(message: str, path: str) -> CudafuseError:
    """The error at the program; when the emulator's message starts with a place in it
    (`g.cu:2: launch of 'k' with an empty grid`), at that line."""
    import re

    m = re.match(rf"{re.escape(path)}:(\d+): (.*)", message, re.S)
    if m:
        return error(m.group(2), path, int(m.group(1)))
    return error(message, path)


# The emulator's place for a launch it was given from Python: a spec's [launch] table.
_SPEC_LAUNCH = "<python>:0: "


def _at_launch_table(message: str, spec: Spec) -> CudafuseError:
    """A fault the emulator finds at the launch a spec's [launch] table makes is said at that
    table (the spec gives the launch), not at the emulator's harness ('<python>:0')."""
    message = message[len(_SPEC_LAUNCH):].replace(
        "(the third <<<>>> argument)", f"(launch.shared = {spec.shared})")
    key = "launch.shared" if "launch.shared" in message else "launch"
    return error(f"{key}: {message}", spec.path)


def run_bound(path: str, spec: Spec, backend: str, opts: ParseOptions,
              timeout: float | None, sanitize: bool = False, faults: str = "warn", **emu: Any
              ) -> tuple[list[Any], list[int]]:
    """Build `path`, call the spec's entry on fresh inputs; the argument values (in the
    spec's order) and, for each parameter, the index of the spec argument passed to it."""
    from cudafuse.runtime.spec_bind import bind, entry_signature, ordered

    try:
        values = spec.inputs()
    except MemoryError:
        raise error(f"out of memory making the inputs ({sum(a.nbytes for a in spec.args)} "
                    "bytes)", spec.path) from None
    order: list[int] = []

    from cudafuse.runtime import KernelError

    def body(lib: Any, slots: list[Slot]) -> None:
        order.extend(bind(spec, entry_signature(spec, lib.signatures, path)))
        slots.extend((spec.args[i], spec.path) for i in order)
        args = ordered(values, order)
        if spec.grid is not None:
            try:
                lib.launch(spec.entry, spec.grid, spec.block, spec.shared, args)
            except KernelError as exc:
                if not str(exc).startswith(_SPEC_LAUNCH):
                    raise
                raise _at_launch_table(str(exc), spec) from None
        else:
            lib.call(spec.entry, *args)

    execute(path, backend, opts, timeout, sanitize, body, faults, **emu)
    return values, order


def run_spec(path: str, spec: Spec, backend: str, opts: ParseOptions,
             timeout: float | None, sanitize: bool = False, faults: str = "warn", **emu: Any
             ) -> list[Any]:
    return run_bound(path, spec, backend, opts, timeout, sanitize, faults, **emu)[0]


def run_transformed(path: str, spec: Spec, backend: str, opts: ParseOptions,
                    timeout: float | None, sanitize: bool) -> tuple[list[Any], list[Any]]:
    """The transformed program's run for `verify`: its values, and under the emulator the
    allocations (uninit.Unwritten) a kernel was given while bytes of them held the
    fill. The emulator fills its fresh device memory with 0xff (a NaN as a float, -1 as
    an integer), not the default 0x00: a transformed program that reads memory nothing
    wrote (an accumulator it no longer cudaMemsets) would read zeros, and could match."""
    import tempfile

    from cudafuse.runtime import uninit

    whose = "the transformed program's"
    if backend != "emu":
        return run_spec(path, spec, backend, opts, timeout, sanitize, whose), []
    with tempfile.TemporaryDirectory(prefix="cudafuse-uninit-") as tmp:
        log = f"{tmp}/unwritten.txt"
        values = run_spec(path, spec, backend, opts, timeout, sanitize, whose,
                          fill=uninit.FILLS[1], unwritten=log)
        found = uninit.read(log)
    return values, [u for u in uninit.in_both(found, found) if u.kernel]


def unwritten_notes(sites: list[Any], path: str) -> list[Diagnostic]:
    """Notes for a transformed program whose outputs differ: the allocations it gave a
    kernel while bytes of them held the fill (what it may have read unwritten)."""
    return [Diagnostic(
        Severity.NOTE, f"allocated here: kernel '{u.kernel}' (launched at "
        f"{as_spelled(u.launch_file, path)}:{u.launch_line}) was given it while "
        f"{u.count} of its {u.size} bytes held the fill (the first at byte {u.first}): never "
        "written, or written with 0xff bytes; "
        "a read of them gives 0xff bytes (NaN, -1) under verify, what the memory held "
        "before on a GPU", as_spelled(u.file, path), u.line) for u in sites]


def summarise(name: str, v: Any) -> str:
    import numpy as np

    arr = np.asarray(v)
    if arr.dtype.kind == "c":  # summarised by magnitude
        name, arr = f"{name} (|z|)", np.abs(arr)
    numbers = arr[~np.isnan(arr)] if arr.dtype.kind == "f" else arr
    nans = arr.size - numbers.size
    infs = int(np.isinf(numbers).sum()) if arr.dtype.kind == "f" else 0
    if not numbers.size:
        text = f"{name}: {arr.size} x {arr.dtype}" + (", all NaN" if nans else "")
        return text
    with np.errstate(all="ignore"):  # inf + -inf is NaN: the sum says so, without a warning
        total = numbers.astype(np.float64).sum()
    lo, hi = numbers.min().item(), numbers.max().item()
    extra = [f"{nans} NaN"] if nans else []
    extra += [f"{infs} infinite"] if infs else []
    return (f"{name}: {arr.size} x {arr.dtype}, min {lo!r}, max {hi!r}, sum {total:.9g}"
            + "".join(f", {e}" for e in extra))


def run_reference(original: str, spec: Spec, backend: str, opts: ParseOptions,
                  timeout: float | None, sanitize: bool) -> list[Any]:
    """The original's run; when it fails, the transformation is not what is wrong. Under
    the emulator it runs twice, fresh device memory filled differently: outputs that
    differ mean it reads memory nothing wrote, an error at the original (never a mismatch
    blamed on the transformation)."""
    try:
        if backend != "emu":
            return run_spec(original, spec, backend, opts, timeout, sanitize)
        return run_with_both_fills(original, spec, opts, timeout, sanitize)
    except CudafuseError as exc:
        exc.diagnostics.append(Diagnostic(
            Severity.NOTE, "the original program fails with this spec, so the transformed "
            "program was not checked: the spec (array counts, sizes, launch) or the original "
            "is at fault, not the transformation", original))
        raise


def run_with_both_fills(path: str, spec: Spec, opts: ParseOptions, timeout: float | None,
                        sanitize: bool, whose: str = "the original's",
                        read_files: list[str] | None = None) -> list[Any]:
    """Run `path` (emu) with fresh device memory filled with 0x00, then 0xff; the first
    run's values, or an error at `path` when an output differs between the two (naming the
    kernel whose blocks race, when that is why: _race_between_blocks). The second run takes
    the blocks of every launch that may run them in parallel one at a time, in decreasing
    order: a kernel whose blocks read what other blocks of its launch write then gives other
    outputs every time, not only when the first run's threads happen to interleave."""
    import tempfile

    from cudafuse.runtime import uninit

    with tempfile.TemporaryDirectory(prefix="cudafuse-uninit-") as tmp:
        reports = [f"{tmp}/{fill:02x}.txt" for fill in uninit.FILLS]
        orders: list[dict[str, Any]] = [{}, {"threads": 1, "reverse": "*"}]
        runs = [run_spec(path, spec, "emu", opts, timeout, sanitize, whose, fill=fill,
                         unwritten=report, read_files=read_files, **order)
                for fill, report, order in zip(uninit.FILLS, reports, orders, strict=True)]
        sites = uninit.in_both(*(uninit.read(r) for r in reports))
    if _first_difference(spec, runs[0], runs[1]) is None:
        return runs[0]
    race = _race_between_blocks(path, spec, opts, timeout, sanitize)
    _differ_error(path, spec, runs, sites, whose, race)


def _first_difference(spec: Spec, a: list[Any], b: list[Any]
                      ) -> tuple[Any, Any, Any, Any] | None:
    """The first output that differs between two runs' values (NaN equal to NaN): the spec
    argument, both values flattened and the mask of differing elements; or None."""
    import numpy as np

    for arg, u, v in zip(spec.args, a, b, strict=True):
        if not arg.is_output:
            continue
        x, y = np.asarray(u).reshape(-1), np.asarray(v).reshape(-1)
        differ = x != y
        if x.dtype.kind in "fc":
            differ &= ~(np.isnan(x) & np.isnan(y))
        if differ.any():
            return arg, x, y, differ
    return None


def _race_between_blocks(path: str, spec: Spec, opts: ParseOptions, timeout: float | None,
                         sanitize: bool) -> Any:
    """Why two runs of `path` differ, when it is the order of blocks: a races.Race when the
    program, run with one thread (blocks in increasing order) with both fills, gives the same
    outputs twice; its launch is the first kernel (of those that may run their blocks in
    parallel) whose blocks, run in decreasing order, change them. None when the serial runs
    differ too (memory nothing wrote), fail, or no launch may run in parallel."""
    import tempfile

    from cudafuse.runtime import races, uninit

    try:
        with tempfile.TemporaryDirectory(prefix="cudafuse-race-") as tmp:
            log = f"{tmp}/parallel.txt"
            serial = [run_spec(path, spec, "emu", opts, timeout, sanitize, fill=fill, threads=1,
                               parallel_log=log if fill == uninit.FILLS[0] else None)
                      for fill in uninit.FILLS]
            launches = races.kernels(races.read_log(log))
    except CudafuseError:
        return None
    if not launches or _first_difference(spec, serial[0], serial[1]) is not None:
        return None
    for launch in launches:
        try:
            flipped = run_spec(path, spec, "emu", opts, timeout, sanitize, fill=uninit.FILLS[0],
                               threads=1, reverse=launch.kernel)
        except CudafuseError:
            continue  # an error only in the other order is no proof of which outputs differ
        if _first_difference(spec, serial[0], flipped) is not None:
            return races.Race(launch)
    return races.Race(None)


def _differ_error(original: str, spec: Spec, runs: list[list[Any]], sites: list[Any],
                  whose: str, race: Any) -> NoReturn:
    """An error at the original for the first output of its two runs that differs, with a
    note at each allocation that kept bytes nothing wrote, or at the kernel whose blocks
    race (`race`, a races.Race)."""
    import numpy as np

    from cudafuse.runtime.spec import where_text
    from cudafuse.runtime.uninit import FILLS

    found = _first_difference(spec, runs[0], runs[1])
    assert found is not None
    arg, x, y, differ = found
    i = int(np.argmax(differ))
    what = f"{int(differ.sum())} of its {x.size} elements (first at " \
        f"{where_text(i, arg.shape)} (element {i}): {x[i].item()!r} vs {y[i].item()!r})"
    if race is not None:
        diags = [Diagnostic(
            Severity.ERROR, f"{whose} output '{arg.name}' differs between two runs on the "
            "same inputs (the second with the blocks of each launch in decreasing order): "
            f"{what}; its blocks race: run one after another in increasing order, its "
            "outputs are the same with fresh device memory holding "
            f"0x{FILLS[0]:02x} or 0x{FILLS[1]:02x} bytes", original)]
        if race.launch is not None:
            launch = race.launch
            diags.append(Diagnostic(
                Severity.NOTE, f"kernel '{launch.kernel}' (launched here) gives other "
                "outputs when its blocks run in decreasing order: a block reads or writes "
                "global memory that another block of the same launch writes, so the result "
                "depends on the order the GPU happens to run the blocks in (write to "
                "another buffer, or split the kernel where blocks must wait for others)",
                as_spelled(launch.file, original), launch.line))
        else:
            diags.append(Diagnostic(
                Severity.NOTE, "no single kernel's blocks, run in decreasing order, changed "
                "the outputs: the race needs blocks of one launch running at the same time",
                original))
        raise CudafuseError(diags)
    cause = "it reads device memory that nothing wrote, which on a GPU holds whatever " \
        "was there before" if sites else "it reads memory that nothing wrote, or is not " \
        "deterministic"
    diags = [Diagnostic(
        Severity.ERROR, f"{whose} output '{arg.name}' differs between two runs on "
        f"the same inputs, fresh device memory holding 0x{FILLS[0]:02x} bytes in one and "
        f"0x{FILLS[1]:02x} in the other: {what}; {cause}", original)]
    for u in sites:
        some = "all" if u.count == u.size else f"{u.count}"
        given = ""
        if u.kernel:
            at = as_spelled(u.launch_file, original)
            given = f"; kernel '{u.kernel}' (launched at {at}:{u.launch_line}) was the " \
                "first given it unwritten"
        diags.append(Diagnostic(
            Severity.NOTE, f"allocated here: {some} of its {u.size} bytes hold the fill "
            f"pattern in both runs (the first at byte {u.first}): never written, or written "
            f"from memory nothing wrote{given}; cudaMemset it, or store every element "
            "before a kernel reads it", as_spelled(u.file, original), u.line))
    if not sites:
        diags.append(Diagnostic(
            Severity.NOTE, "no cudaMalloc'd buffer kept bytes nothing wrote at its "
            "cudaFree or the end of the run: shared memory read before a thread wrote "
            "it, a buffer written only after it was read, or a result that varies by "
            "itself (clock(), rand(), a race between blocks)?", original))
    raise CudafuseError(diags)


def report(outputs: list[tuple[Any, Any, Any]], rtol: float, atol: float,
           spec_path: str = "") -> bool:
    """Print one line per output; True when every one matches. A tolerance that makes an
    output's comparison vacuous is a warning (on standard error) at the spec."""
    import numpy as np

    from cudafuse.runtime.spec import compare, vacuous_atol

    ok = True
    for arg, w, g in outputs:
        c = compare(arg, w, g, rtol, atol)
        status = "ok" if not c.mismatches else f"MISMATCH in {c.mismatches} of {w.size}"
        if w.dtype.kind == "f" and np.isnan(w).any():
            status += f" ({int(np.isnan(w).sum())} NaN in the original's output)"
        top = vacuous_atol(w, atol)
        if top is not None:
            click.echo(f"{spec_path or 'spec'}: warning: atol {atol:g} is at least every "
                       f"|value| of the original's '{c.name}' (largest {top:.3g}): any "
                       "result of that size passes", err=True)
        elif not c.mismatches and c.max_abs > 0 and vacuous_atol(w, np.inf) is None:
            # An original output that is all zero: every value the transformed program
            # wrote that passes, passes by atol alone.
            click.echo(f"{spec_path or 'spec'}: warning: the original's '{c.name}' is all "
                       f"zero; the transformed program's differs by up to {c.max_abs:.3g}, "
                       f"within atol {atol:g}", err=True)
        click.echo(f"{c.name}: max abs err {c.max_abs:.3g}, max rel err {c.max_rel:.3g}: "
                   f"{status}")
        if c.mismatches:
            click.echo(f"  first difference at {c.first}")
            ok = False
    return ok
