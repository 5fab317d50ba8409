"""The CUDA toolkit's own headers that an emu build uses as they are.

The emulator has a stand-in for every toolkit header that declares device code or the
runtime API (emu/include). A few headers of the toolkit's include folder hold only host
code on types the stand-ins define (cuComplex.h's arithmetic on float2/double2,
cuda_occupancy.h's occupancy calculator, cuda_stdint.h, cudart_platform.h, and nv/target's
macros): where a toolkit is installed those are used as NVIDIA ships them, through a
directory holding only links to them, searched after the stand-ins (`-idirafter`), so that
no other toolkit header becomes visible to the build. Without a toolkit, g++ names the
missing header at the include.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from cudafuse.emu.cccl import toolkit_roots

AS_IS = ("cuComplex.h", "cuda_occupancy.h", "cuda_stdint.h", "cudart_platform.h",
         # <nv/target>'s NV_IF_TARGET and friends: preprocessor macros only, which read the
         # __CUDA_ARCH__ the emulator defines (the device branch, as in "Host and device
         # code" of docs/emulation.md); the directory's other file is its detail/
         "nv")


def toolkit_include() -> Path | None:
    for root in toolkit_roots():
        for sub in ("include", "targets/x86_64-linux/include"):
            if (root / sub / "cuComplex.h").is_file():
                return (root / sub).resolve()
    return None


def as_is_dir(cache: Path) -> Path | None:
    """A directory of links to the toolkit's AS_IS headers (made once per toolkit), or None
    without a toolkit."""
    inc = toolkit_include()
    if inc is None:
        return None
    # named for the list too: a cache made before a header joined AS_IS lacks its link
    listed = hashlib.sha256("\0".join(AS_IS).encode()).hexdigest()[:8]
    target = cache / ("toolkit-" + str(inc).strip("/").replace("/", "_") + "-" + listed)
    if target.is_dir():
        return target
    tmp = Path(tempfile.mkdtemp(dir=cache))
    for name in AS_IS:
        if (inc / name).exists():
            os.symlink(inc / name, tmp / name)
    try:
        os.replace(tmp, target)
    except OSError:  # another build made it first
        for f in tmp.iterdir():
            f.unlink()
        tmp.rmdir()
    return target
