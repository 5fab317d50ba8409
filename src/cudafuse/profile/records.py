"""One record per measured (or skipped) configuration: what selection, the report and the
cache share. Records are plain data so that a report written on the GPU machine can be
turned back into records anywhere."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cudafuse.profile.candidates import BASELINES, Baseline, Candidate, Skipped
from cudafuse.profile.occupancy import Occupancy
from cudafuse.profile.stats import Summary

KINDS = ("thread", "block", *BASELINES)
# Which register caps get `same_as` (profile.compiled.merge_same) or are ranked untimed
# (rank_spilling), in the cache keys of hfuse-plan and --profile: results stored under an
# earlier rule (caps folded by occupancy, which dropped a winner) are not reused.
PRUNING = "same machine code; caps that only add spills ranked untimed"


@dataclass(frozen=True)
class Record:
    """`verified`: True when the configuration's outputs matched the native kernels' (the
    baselines are the reference, so True by definition); False when they did not; None when
    it never ran (skipped). `timing` is set only for verified configurations: verification
    comes before timing."""

    id: str
    kind: str  # thread | block | streams | sequential
    threads: tuple[int, int] | None = None  # the parts' block thread counts
    regcap: int | None = None
    registers: int | None = None  # per thread, from the compiled fused kernel
    shared_bytes: int | None = None  # static shared memory per block, compiled
    spill_stores: int | None = None  # bytes, from ptxas
    spill_loads: int | None = None
    occupancy: Occupancy | None = None
    verified: bool | None = None
    timing: Summary | None = None
    skip: str | None = None
    # A register cap that compiled to the same machine code (and ptxas figures) as another
    # candidate of its split: that candidate's id (profile.compiled.merge_same). Never built
    # or timed (`skip` says why); the same program is measured under the other id.
    same_as: str | None = None
    # Verified on the exactness check's build, but the timed build's outputs differ from
    # the streams baseline's (nvcc's contraction choices: profile.exactness).
    note: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"record kind must be one of {', '.join(KINDS)}, not "
                             f"'{self.kind}'")

    @property
    def fused(self) -> bool:
        return self.kind in ("thread", "block")

    @classmethod
    def of(cls, item: Candidate | Baseline | Skipped, **measured: Any) -> Record:
        """A record for a generated candidate, a baseline, or a skipped split/candidate,
        with measured fields (registers, verified, timing, ...) given by keyword."""
        if isinstance(item, Candidate):
            return cls(item.id, item.mode, (item.threads1, item.threads2), item.regcap,
                       **measured)
        if isinstance(item, Baseline):
            return cls(item.id, item.name, **measured)
        return cls(item.id, item.mode, (item.threads1, item.threads2), item.regcap,
                   skip=item.reason)

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id, "kind": self.kind,
            "threads": list(self.threads) if self.threads else None,
            "regcap": self.regcap, "registers": self.registers,
            "shared_bytes": self.shared_bytes,
            "spill_stores": self.spill_stores, "spill_loads": self.spill_loads,
            "occupancy": self.occupancy.to_json() if self.occupancy else None,
            "verified": self.verified,
            "timing": self.timing.to_json() if self.timing else None,
            "skip": self.skip,
            "same_as": self.same_as,
            "note": self.note,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Record:
        """The inverse of to_json (a timing is rebuilt from its samples)."""
        def opt_int(key: str) -> int | None:
            value = data.get(key)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise ValueError(f"record '{data.get('id')}': '{key}' must be an integer")
            return value

        ident, kind = data.get("id"), data.get("kind")
        if not isinstance(ident, str) or not isinstance(kind, str):
            raise ValueError("a record needs a string 'id' and 'kind'")
        threads = data.get("threads")
        if threads is not None and not (isinstance(threads, list) and len(threads) == 2 and
                                        all(isinstance(t, int) for t in threads)):
            raise ValueError(f"record '{ident}': 'threads' must be two integers")
        verified = data.get("verified")
        if verified is not None and not isinstance(verified, bool):
            raise ValueError(f"record '{ident}': 'verified' must be true, false or null")
        timing = data.get("timing")
        if timing is not None and not isinstance(timing, Mapping):
            raise ValueError(f"record '{ident}': 'timing' must be an object")
        occ = data.get("occupancy")
        if occ is not None and not isinstance(occ, Mapping):
            raise ValueError(f"record '{ident}': 'occupancy' must be an object")
        skip = data.get("skip")
        if skip is not None and not isinstance(skip, str):
            raise ValueError(f"record '{ident}': 'skip' must be a string")
        same_as = data.get("same_as")
        if same_as is not None and not isinstance(same_as, str):
            raise ValueError(f"record '{ident}': 'same_as' must be a string")
        note = data.get("note")
        if note is not None and not isinstance(note, str):
            raise ValueError(f"record '{ident}': 'note' must be a string")
        return cls(ident, kind, (threads[0], threads[1]) if threads else None,
                   opt_int("regcap"), opt_int("registers"), opt_int("shared_bytes"),
                   opt_int("spill_stores"), opt_int("spill_loads"),
                   Occupancy.from_json(occ) if occ is not None else None,
                   verified,
                   Summary.from_json(timing) if timing is not None else None, skip,
                   same_as, note)
