"""What a kernel compiles to, as a digest: the machine code of its `.text` section in the
cubin nvcc writes, so that two compiles can be told apart by their code, not by their
figures.

Two register caps can give ptxas's same figures (registers, spills) and still be other
programs (another schedule, other registers), and a cap can change the code without
changing the occupancy: batchnorm_stats+histogram fused at 512+512 threads took 31
registers uncapped and 37 under __maxnreg__(40) and (48), and the three are three programs
(the H200 timed r40 1.5x faster than uncapped). Only equal code is the same program.

The digest covers the bytes of the kernel's `.text.<symbol>` section (the SASS that
cuobjdump disassembles: same bytes, same instructions), its relocations, and the `.text`
sections of the cubin's functions that are not entry points (device functions it may
call), with their relocations. Names, nvcc's options and the `.nv.info` attributes (where
the cap itself is written) are not code and are left out. Read with the standard library
(ELF64, little-endian): nvcc is enough, no cuobjdump or nvdisasm is needed.
"""

from __future__ import annotations

import hashlib
import struct

_SECTION = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr
_TEXT, _RELS = ".text.", (".rel.text.", ".rela.text.")


def sections(data: bytes) -> dict[str, bytes]:
    """The cubin's sections by name; {} when `data` is not a little-endian ELF64 file (or
    is cut short)."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return {}
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shentsize != _SECTION.size or shoff + shnum * shentsize > len(data) or \
            shstrndx >= shnum:
        return {}
    headers = [_SECTION.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
    _, _, _, _, str_off, str_size, *_ = headers[shstrndx]
    names = data[str_off:str_off + str_size]
    out: dict[str, bytes] = {}
    for name_off, sh_type, _, _, offset, size, *_ in headers:
        end = names.find(b"\0", name_off)
        name = names[name_off:end if end >= 0 else None].decode("latin-1")
        # SHT_NOBITS (8) holds no bytes in the file (.bss-like sections).
        out[name] = b"" if sh_type == 8 else data[offset:offset + size]
    return out


def code_digests(data: bytes, entries: list[str]) -> dict[str, str]:
    """A sha256 of each entry function's code (module docstring), keyed by its mangled
    symbol as ptxas names it; an entry without a `.text` section in `data` gets none."""
    found = sections(data)
    functions = sorted(n[len(_TEXT):] for n in found if n.startswith(_TEXT))
    helpers = [f for f in functions if f not in set(entries)]
    out = {}
    for entry in entries:
        if _TEXT + entry not in found:
            continue
        h = hashlib.sha256()
        for i, fn in enumerate([entry, *helpers]):
            # The helpers by name: a call's target is a relocation against its symbol.
            h.update(b"%d\0%s\0" % (i, (fn if i else "").encode()))
            for prefix in (_TEXT, *_RELS):
                part = found.get(prefix + fn, b"")
                h.update(b"%d\0" % len(part) + part)
        out[entry] = h.hexdigest()
    return out
