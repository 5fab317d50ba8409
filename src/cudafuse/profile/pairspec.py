"""What `cudafuse hfuse --profile --spec PAIR.toml` runs: each kernel's arguments (a run
spec, see README "Spec files") and its launch (grid, block, dynamic shared bytes).

A pair table has these keys (the `[[pair]]` entries of samples/hfuse/pairs.toml are pair
tables; a file with several needs `--pair NAME`, a file with none is one pair table):

    kernel1, kernel2   the kernels' names (checked against the ones being fused), optional
    spec1, spec2       run specs whose `args` are the kernels' parameters; default: file1
                       and file2 with .toml for .cu; paths are relative to the pair file
    grid1, grid2       lists of 1-3 expressions over that kernel's spec sizes
    block1, block2     lists of 1-3 integers (the native blocks)
    shared1, shared2   an expression: dynamic shared memory bytes (default 0)
    sizes1, sizes2     optional tables replacing sizes of the run specs (larger problems
                       for a GPU than the samples' emulation sizes)

Other keys (name, file1, file2, the paper's figures) are allowed and ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cudafuse.diagnostics import error
from cudafuse.runtime.spec import Spec, check_launch_limits, evaluate, load_spec, tomllib

_KNOWN = {"name", "file1", "file2", "kernel1", "kernel2", "spec1", "spec2", "grid1", "grid2",
          "block1", "block2", "shared1", "shared2", "sizes1", "sizes2"}


@dataclass(frozen=True)
class Side:
    kernel: str
    spec: Spec
    grid: tuple[int, ...]
    block: tuple[int, ...]
    shared: int

    def dims(self, value: tuple[int, ...]) -> tuple[int, int, int]:
        return (*value, *(1,) * (3 - len(value)))  # type: ignore[return-value]


@dataclass(frozen=True)
class PairSpec:
    path: str
    name: str
    sides: tuple[Side, Side]
    text: bytes  # everything the inputs depend on: the pair table and both run specs


def _dims(value: Any, sizes: dict[str, Any], where: str, exprs: bool) -> tuple[int, ...]:
    items = value if isinstance(value, list) else [value]
    if not 1 <= len(items) <= 3:
        raise ValueError(f"{where}: expected 1-3 dimensions")
    dims = tuple(int(evaluate(v, sizes, where)) if exprs else v for v in items)
    if any(not isinstance(d, int) or isinstance(d, bool) or d <= 0 for d in dims):
        raise ValueError(f"{where}: expected positive integers, got {list(dims)}")
    return dims


def _side(base: Path, table: dict[str, Any], i: int, where: str) -> tuple[Side, bytes]:
    spec_name = table.get(f"spec{i}")
    if spec_name is None:
        file = table.get(f"file{i}")
        if not isinstance(file, str) or not file.endswith(".cu"):
            raise ValueError(f"{where}: needs spec{i} (or file{i} naming a .cu file)")
        spec_name = file[:-3] + ".toml"
    if not isinstance(spec_name, str):
        raise ValueError(f"{where}: spec{i} must be a path")
    sizes = table.get(f"sizes{i}") or {}
    if not isinstance(sizes, dict):
        raise ValueError(f"{where}: sizes{i} must be a table")
    spec_path = base / spec_name
    spec = load_spec(str(spec_path), sizes)
    for key in (f"grid{i}", f"block{i}"):
        if key not in table:
            raise ValueError(f"{where}: missing {key}")
    grid = _dims(table[f"grid{i}"], spec.sizes, f"{where}: grid{i}", True)
    block = _dims(table[f"block{i}"], spec.sizes, f"{where}: block{i}", False)
    shared = int(evaluate(table.get(f"shared{i}", 0), spec.sizes, f"{where}: shared{i}"))
    if shared < 0:
        raise ValueError(f"{where}: shared{i} is negative")
    check_launch_limits(grid, block, shared, (f"{where}: grid{i}", f"{where}: block{i}",
                                              f"{where}: shared{i}"))
    kernel = table.get(f"kernel{i}", "")
    return Side(str(kernel), spec, grid, block, shared), spec_path.read_bytes()


def load_pair_spec(path: str, pair: str | None = None) -> PairSpec:
    p = Path(path)
    try:
        data = p.read_bytes()
        raw = tomllib.loads(data.decode("utf-8"))
    except OSError as exc:
        raise error(f"cannot read the pair spec: {exc.strerror}", path) from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise error(f"invalid TOML: {exc}", path) from None
    tables = raw.get("pair")
    if isinstance(tables, list):
        names = [t.get("name", "") for t in tables if isinstance(t, dict)]
        if pair is None and len(tables) != 1:
            raise error(f"the file has {len(tables)} pairs; choose one with --pair NAME "
                        f"({', '.join(names)})", path, status=2)
        chosen = tables if pair is None else [t for t in tables if t.get("name") == pair]
        if not chosen:
            raise error(f"no pair named '{pair}' (it has {', '.join(names)})", path, status=2)
        table = chosen[0]
    else:
        if pair is not None:
            raise error("--pair chooses among the [[pair]] tables of a pairs file; this "
                        "file is a single pair", path, status=2)
        table = {k: v for k, v in raw.items() if k != "defines"}
    name = str(table.get("name", p.stem))
    where = f"pair '{name}'"
    try:
        unknown = sorted(k for k in table if k not in _KNOWN and not k.startswith("paper_"))
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}")
        s1, t1 = _side(p.parent, table, 1, where)
        s2, t2 = _side(p.parent, table, 2, where)
    except (ValueError, TypeError) as exc:
        raise error(str(exc), path) from None
    text = repr(sorted(table.items())).encode() + b"\0" + t1 + b"\0" + t2
    return PairSpec(path, name, (s1, s2), text)
