"""What the front end and the emulator still declare each for itself, said in one place.

A stand-in header that both sides have (frontend/include/stubs/X and emu/include/X) takes its
declarations from cuda_api/ on both sides, or the front end's includes the emulator's, or it
is listed in SEPARATE with the reason the two cannot share a text. A stand-in only one side has
is listed in ONE_SIDED. Adding a stand-in to one side, or declaring something twice, fails
here until it is shared or listed (docs/architecture.md, "Adding a CUDA runtime function or
type"). Headers that only include others (the emulator's cuda_runtime.h, sm_20_intrinsics.h,
cuda/std/array...) declare nothing and need no entry."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cudafuse.emu import include_dir as emu_include
from cudafuse.frontend.parse import include_dir as frontend_include

FRONT = frontend_include() / "stubs"
EMU = emu_include()

_CG = ("the front end declares the group classes; the emulator implements them on its fibers, "
       "with its own members, tile classes and the caller's file and line on each collective")
SEPARATE = {
    "cooperative_groups.h": _CG,
    "cooperative_groups/functional.h": _CG,
    "cooperative_groups/memcpy_async.h": _CG,
    "cooperative_groups/reduce.h": _CG,
    "cooperative_groups/scan.h": _CG,
    "cuda/cudafuse_libcudacxx.h": "libcu++'s barriers, pipelines and atomics: class templates "
                                  "the emulator implements with its own members",
    "cuda_awbarrier.h": "the same barriers, as the emulator implements them",
    "cuda_pipeline.h": "the same pipelines, as the emulator implements them",
    "mma.h": "WMMA fragments: the emulator's carry their elements",
    "cuda.h": "the driver API: the front end declares it, the emulator refuses its calls "
              "(emu/libraries.py) and declares nothing here",
    "curand.h": "the front end declares cuRAND's host API; the emulator's declares only its "
                "handle and enums and refuses the functions at their first use "
                "(emu/libraries.py)",
    "curand_kernel.h": "the front end declares cuRAND's device API; the emulator's declares "
                       "none of it and refuses its first use (emu/libraries.py)",
    "helper_cuda.h": "different on purpose: the emulator's checkCudaErrors and getLastCudaError "
                     "read the runtime's errors, the front end's only parse",
}
# The emulator's stand-ins for libraries it refuses at their first use (emu/libraries.py):
# handle and status types only, which the front end's stub for a missing header lets pass.
_REFUSED = "emulator: handle and status types only; the library refused at its first use"
ONE_SIDED = {name: _REFUSED for name in ("cusolver_common.h", "cudnn.h", "nvjpeg.h", "nvrtc.h")}


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def _declares(path: Path) -> bool:
    """Any line that is neither a comment nor a preprocessor line."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
    return any(line.split("//")[0].strip() and not line.lstrip().startswith("#")
               for line in text.splitlines())


def _includes(path: Path, where: str) -> bool:
    return re.search(r'^\s*#\s*include\s*"[^"]*' + re.escape(where), path.read_text(),
                     re.M) is not None


def _one_source(name: str) -> bool:
    """The front end's stand-in declares nothing itself: it includes the emulator's, or a
    shared header of cuda_api/ that the emulator's includes too (and defines)."""
    front, emu = FRONT / name, EMU / name
    if _declares(front):
        return False
    return _includes(front, "emu/include/") or \
        _includes(front, "cuda_api/") and _includes(emu, "cuda_api/")


BOTH = sorted(_files(FRONT) & _files(EMU))


@pytest.mark.parametrize("name", BOTH)
def test_a_stand_in_both_sides_have_is_declared_once_or_listed(name: str) -> None:
    if not (_declares(FRONT / name) or _declares(EMU / name)):
        assert name not in SEPARATE, f"{name} declares nothing now: drop it from SEPARATE"
        return
    if name in SEPARATE:
        assert not _one_source(name), f"{name} is declared once now: drop it from SEPARATE"
    else:
        assert _one_source(name), f"{name}: declare it in cuda_api/ or list it in SEPARATE"


def test_a_stand_in_one_side_has_is_listed() -> None:
    front_only = {n for n in _files(FRONT) - _files(EMU) if _declares(FRONT / n)}
    emu_only = {n for n in _files(EMU) - _files(FRONT)
                if _declares(EMU / n) and not n.startswith("cudafuse_")}  # its own headers
    assert front_only | emu_only == set(ONE_SIDED), (front_only, emu_only)
    assert set(SEPARATE) <= set(BOTH)

