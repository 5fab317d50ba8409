"""The transformations cudafuse runs, found by name.

    vertical    passes/vertical/    producer/consumer kernels of a host function's launch
                                    sequence become fewer kernels (`cudafuse fuse`, `plan`)
    horizontal  passes/horizontal/  two independent kernels become one launch, threads or
                                    blocks split between them (`cudafuse hfuse`)

Each pass is an entry `run(units, options, **inputs)` in its package, registered below and
called through `run_pass`, which the CLI and the Python API (cudafuse.api) both use. Entries
are imported on first use: the CLI's start-up must not pay for passes it does not run.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cudafuse.ir.program import TranslationUnit


@dataclass(frozen=True)
class PassInfo:
    name: str
    summary: str
    inputs: int  # translation units the pass takes
    entry: str  # "package.module:function"

    def load(self) -> Callable[..., Any]:
        module, _, function = self.entry.partition(":")
        return getattr(importlib.import_module(module), function)


REGISTRY: dict[str, PassInfo] = {}


def register(info: PassInfo) -> PassInfo:
    if info.name in REGISTRY:
        raise ValueError(f"a pass named '{info.name}' is already registered")
    REGISTRY[info.name] = info
    return info


register(PassInfo("vertical", "fuse producer/consumer kernels of a launch sequence", 1,
                  "cudafuse.passes.vertical.entry:run"))
register(PassInfo("horizontal", "run two independent kernels as one launch", 2,
                  "cudafuse.passes.horizontal.entry:run"))


def run_pass(name: str, units: Sequence[TranslationUnit], options: Any, **inputs: Any) -> Any:
    """Run the pass registered as `name` on `units` (as many as it takes) with its options
    object; `inputs` are the pass's other inputs (the horizontal pass's two kernels)."""
    info = REGISTRY.get(name)
    if info is None:
        raise KeyError(f"no pass named '{name}'; passes: {', '.join(sorted(REGISTRY))}")
    if len(units) != info.inputs:
        raise ValueError(f"the {name} pass takes {info.inputs} translation unit(s), "
                         f"not {len(units)}")
    return info.load()(units, options, **inputs)
