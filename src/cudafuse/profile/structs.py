"""Programs whose kernels take a struct by value that the pair spec gives as an array
(`tensor = { sizes, strides }`: PyTorch's PackedTensorAccessor and TensorInfo,
runtime/spec_struct.py).

Every profiled program's launcher (`X_launch(args1..., args2..., grid1, grid2, smem1,
smem2, stream)`, profile.measure) takes such a parameter as the struct itself, while a run
passes the spec's array. As `verify --hfuse` does (cli/verify_hfuse.py, which uses these
pieces too), a host function is appended to the program that receives the array's device
pointer, builds the struct over it with the spec's sizes and strides (by the class's own
constructor or members, as the compiler finds them), and calls the launcher; the program
then runs that function in the launcher's place.

The struct is built inside the timed region (the launch is the wrapper's call, between the
two events): integer stores on the host before the launch, the same for the baselines and
every candidate; about 80 ns an accessor (docs/profiling.md), against a launch's own few
microseconds and kernels grown to about 0.5 ms.

The launcher sits in the namespaces hfuse emits it in (one of the kernels', scopes.py).
The appended code does not restate that rule: it opens a namespace of its own with
using-directives for both kernels' namespaces, where the launcher's unique name is found
by ordinary lookup wherever hfuse put it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cudafuse.runtime.spec import Spec
from cudafuse.runtime.spec_struct import wrapper_params

WRAPPER = "cudafuse_profile_launch"
SCOPE = "cudafuse_profile_scope"


def needs_wrapper(specs: Sequence[Spec]) -> bool:
    """Whether a kernel takes an argument its spec gives as a tensor view."""
    return any(a.tensor is not None for spec in specs for a in spec.args)


def namespaces(kernel: str) -> str:
    """`at::native::k<float>` -> `at::native` ('' for a kernel at global scope)."""
    from cudafuse.codegen.templates import parse_kernel_ref

    name, _ = parse_kernel_ref(kernel)
    return name.lstrip(":").rpartition("::")[0]


def wrapper_helpers(*specs: Spec) -> bytes:
    """What a wrapper's code needs before it: the launcher's parameter types
    (`cudafuse_param`), and the struct builders when a spec gives a struct as an array."""
    from cudafuse.passes.horizontal.scopes import param_trait
    from cudafuse.runtime.spec_struct import HELPER

    return (param_trait("cudafuse") + "#include <type_traits>\n" +
            (HELPER if needs_wrapper(specs) else "")).encode()


def wrapped_program(source: bytes, launcher: str, specs: Sequence[Spec],
                    kernels: Sequence[str]) -> tuple[bytes, str]:
    """The program to run and the function to call: `source` and `launcher` as they are
    when no argument is a tensor view, else `source` with a host function appended that
    builds the structs and calls `launcher`, and that function's name. `specs`: the two
    kernels' run specs (their arguments in the kernels' parameter order, as a pair spec
    gives them); `kernels`: the two kernels, qualified
    (`at::native::upsample_bilinear2d_out_frame<float, float>`)."""
    if not needs_wrapper(specs):
        return source, launcher
    views: dict[int, Any] = {}
    at = 0
    for spec in specs:
        for i, a in enumerate(spec.args):
            if a.tensor is not None:
                views[at + i] = a.tensor
        at += len(spec.args)
    count = at + 5  # then grid1, grid2, smem1, smem2, stream
    params = [f"cudafuse_a{i}" for i in range(count)]
    types = [f"typename cudafuse_param<{i}, {SCOPE}::launcher_type>::type"
             for i in range(count)]
    decls, lines, passed = wrapper_params(types, params, views)
    spaces = dict.fromkeys(n for n in map(namespaces, kernels) if n)
    scope = (f"namespace {SCOPE} {{\n" +
             "".join(f"using namespace ::{n};\n" for n in spaces) +
             f"using launcher_type = decltype(&{launcher});\n"
             f"inline launcher_type launcher() {{ return &{launcher}; }}\n"
             f"}}  // namespace {SCOPE}\n")
    text = (f"void {WRAPPER}({', '.join(decls)}) {{\n" + "".join(f"  {x}\n" for x in lines) +
            f"  {SCOPE}::launcher()({', '.join(passed)});\n}}\n")
    tail = (b"\n// ---- appended by cudafuse hfuse --profile (profile/structs.py): the "
            b"structs by value built over the spec's arrays\n" +
            wrapper_helpers(*specs) + scope.encode() + text.encode())
    return source + tail, WRAPPER
