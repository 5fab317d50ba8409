"""Launches through the runtime API (issue 25; programs/api_launches_s9.cu,
host/api_launches.py): `cudaLaunchKernel(k, grid, block, args, shared, stream)` whose `args`
lists the addresses of variables is the launch `k<<<grid, block, shared, stream>>>(...)` of
those variables' values at the call, so it joins its sequence and fuses with API and chevron
launches alike (its statement rewritten whole when it starts the fused kernel), kernel
templates' instantiations (`(void *)times<float, 3>`) through their concrete copies. An array
changed before the call, a check that also copies the intermediate, and an argument of another
width than its parameter stay calls, which split their sequences as before. A call whose
status is kept or checked (`err = cudaLaunchKernel(...)`, `CHECK(cudaLaunchKernel(...))`) is
a launch too: its check stays, given cudaSuccess, or the fused launch's status; so is one in
a launcher function per stage (host/wrappers.py, emit/wrapper_codegen.py). The plan
is read in the default suite; the differential run under the emulator (every element of
every buffer, garbage inputs, odd sizes) is slow."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import compare_entry, fuse_file, library

from cudafuse.frontend.parse import parse_file
from cudafuse.ir import nodes as n
from cudafuse.passes.vertical.host.api_launches import with_api_launches

PROGRAM = Path(__file__).parent / "programs" / "api_launches_s9.cu"
FUSED = {"p_api_pair": ("scale", "plus"), "p_api_mixed": ("scale", "negate", "scale"),
         "p_api_templates": ("times", "square", "times"),
         "p_api_templates_chevrons": ("times", "square", "times"),
         "p_api_checked": ("scale", "plus"), "p_api_status": ("scale", "negate"),
         "p_api_stages": ("scale", "negate", "scale")}
UNFUSED = ("p_api_rewritten", "p_api_saved", "p_api_wide")
SIZES = ({"w": 37, "h": 19}, {"w": 1, "h": 3})


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("api_s9") / "fused.cu"
    return path, fuse_file(PROGRAM, path)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(FUSED.items())
    for host in UNFUSED:
        assert not any(la.group for la in result.launches if la.host == host), host


def test_api_launches_read(fused) -> None:
    """Which calls are read as launches, with the variables' values as arguments and the
    default shared size and stream left out."""
    unit = with_api_launches(parse_file(str(PROGRAM)).unit)
    read = {h: [(la.kernel, tuple(a.name for a in la.args if isinstance(a, n.Ref)),
                 la.stream is None) for la in las if la.config_span.end == 0]
            for h, las in unit.launches.items()}
    assert read["p_api_pair"] == [("scale", ("in", "t", "n", "a"), False),
                                  ("plus", ("t", "out", "n"), False)]
    assert read["p_api_mixed"] == [("negate", ("t", "u", "n"), True)]
    assert read["p_api_checked"] == [("scale", ("in", "t", "n", "a"), False)]
    for host in UNFUSED:
        assert read.get(host, []) == [], host


def test_fused_statement_is_a_chevron_launch(fused) -> None:
    path, _ = fused
    text = path.read_text()
    host = text[text.index("void p_api_pair("):]
    host = host[:host.index("\n}\n")]
    assert "cf_p_api_pair_fused0<<<grid, block, 0, s>>>(" in host
    assert "cudaLaunchKernel" not in host.split("args_plus[]", 1)[1]


def test_checked_statements_keep_their_checks(fused) -> None:
    """A fused-away launch's check is given cudaSuccess; the last one's checks the fused
    launch's status."""
    path, _ = fused
    text = path.read_text()
    host = text[text.index("void p_api_status("):]
    host = host[:host.index("\n}\n")]
    assert "cudaError_t err = cudaSuccess;" in host
    assert "CHECK((cf_p_api_status_fused" in host and \
        "(out, n, in, t, a), cudaPeekAtLastError()));" in host


@pytest.mark.slow
@pytest.mark.parametrize("entry", sorted({*FUSED, *UNFUSED} - {"p_api_templates"}))
def test_fused_equals_original(fused, entry: str) -> None:
    path, _ = fused
    for sizes in SIZES:
        compare_entry(PROGRAM, path, entry, sizes)


@pytest.mark.slow
def test_fused_templates_equal_chevron_launches(fused) -> None:
    """The emulator finds a kernel that cudaLaunchKernel is given by address only for
    non-template kernels (emu/rewrite._kernel_registrations): p_api_templates does not run
    as written there. Its fused file is compared with p_api_templates_chevrons of the
    original, the same launches written `times<float, 3><<<...>>>(...)`: every element of
    every buffer, garbage inputs, odd sizes."""
    path, _ = fused
    rng = np.random.default_rng(5)
    for sizes in SIZES:
        count = sizes["w"] * sizes["h"] + 64
        args = [(rng.standard_normal(count) * 0.2).astype(np.float32) for _ in range(5)]
        args += [sizes["w"], sizes["h"]]
        ref = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        library(PROGRAM).call("p_api_templates_chevrons", *ref)
        got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        library(path).call("p_api_templates", *got)
        for k, (a, b) in enumerate(zip(ref[:5], got[:5], strict=True)):
            assert np.array_equal(a, b), (sizes, k)
