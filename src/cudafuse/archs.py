"""The GPU architectures clang 18 (the bundled libclang) accepts in --cuda-gpu-arch: any other
name fails the whole parse with no diagnostic worth showing, so the CLI's --arch and the
API's `arch=` check against this list first, with the same words."""

from __future__ import annotations

CLANG_ARCHS = ("sm_20", "sm_21", "sm_30", "sm_32", "sm_35", "sm_37", "sm_50", "sm_52",
               "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80",
               "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a")


def arch_problem(arch: str) -> str | None:
    """Why `arch` cannot be parsed for, or None when it can."""
    if arch in CLANG_ARCHS:
        return None
    return (f"'{arch}' is not one of {', '.join(CLANG_ARCHS)} (the architectures clang 18 "
            "parses CUDA for; for a newer GPU, sm_90 or sm_90a)")
