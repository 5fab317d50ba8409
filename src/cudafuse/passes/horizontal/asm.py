"""Which inline assembly a part may keep: PTX is read for what fusion changes under it.

Fusing two kernels renumbers threads (thread mode: the second part's threads start after the
first's), renumbers blocks (block mode), splits the block's barriers between the parts and
shares the block's shared memory. Inline PTX that reads none of that, and that neither waits
at a barrier nor ends the thread, computes the same in a part as in its own kernel: the
arithmetic of hash rounds (`prmt`, `shf`, `lop3`, `add.cc`), loads through a pointer operand.
Anything else is refused, and so is assembly whose text cannot be read (written by a macro,
so its span is the invocation).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from cudafuse.ir import nodes as n
from cudafuse.ir.program import TranslationUnit

# Special registers whose value the fused kernel changes or that describe the launch.
# (%warpid: thread mode gives the second part's warps other ids.)
_GEOMETRY = re.compile(r"%%?(tid|ntid|ctaid|nctaid|clusterid|nclusterid|cluster_ctaid|"
                       r"cluster_nctaid|cluster_ctarank|cluster_nctarank|is_explicit_cluster|"
                       r"gridid|warpid|nwarpid|total_smem_size|dynamic_smem_size|"
                       r"aggr_smem_size)\b")
# Instructions that synchronise the block or end the thread (the fused kernel's epilogue and
# the other part's barriers would not see them).
_CONTROL = re.compile(r"(?<![\w.%])(bar|barrier|exit|ret|trap|brkpt|setmaxnreg|"
                      r"griddepcontrol)(?=[.\s;])")


@lru_cache(maxsize=64)
def _file_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError:
        return b""


def asm_hazard(unit: TranslationUnit, node: n.Asm) -> str:
    """Why the inline assembly `node` of `unit` cannot stay in a fused part ("" when it
    can). The unit's own text may differ from its file (renamed apart), a header's not."""
    sp = node.span
    data = unit.code if sp.file == unit.path else _file_bytes(sp.file)
    text = data[sp.start:sp.end].decode("utf-8", errors="replace")
    if not re.match(r"\s*(__asm__|asm)\b", text):
        return "inline assembly written by a macro (its PTX cannot be read)"
    m = _GEOMETRY.search(text)
    if m:
        return f"inline assembly that reads %{m.group(1)}, which fusion changes"
    m = _CONTROL.search(text)
    if m:
        return (f"inline assembly with '{m.group(1)}' (a barrier or the end of the thread, "
                "which the fused kernel must see)")
    return ""
