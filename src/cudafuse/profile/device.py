"""The GPU being measured: its identity (for the cache key and the report) and its SM
limits. Only `query_device` touches PyCUDA, and only when called."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType

# The device attributes the profiler reads: occupancy limits, the SM count, the L2 size (the
# flush between timed iterations) and the clocks (for the report; these are the maximum
# clocks, not the ones a run actually got).
ATTRIBUTES = (
    "MAX_THREADS_PER_MULTIPROCESSOR", "MAX_BLOCKS_PER_MULTIPROCESSOR",
    "MAX_REGISTERS_PER_MULTIPROCESSOR", "MAX_REGISTERS_PER_BLOCK",
    "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
    "RESERVED_SHARED_MEMORY_PER_BLOCK", "WARP_SIZE", "MAX_THREADS_PER_BLOCK",
    "MULTIPROCESSOR_COUNT", "L2_CACHE_SIZE", "CLOCK_RATE", "MEMORY_CLOCK_RATE",
)


class GpuUnavailable(RuntimeError):
    """PyCUDA cannot be imported (not installed, or no CUDA driver on this machine)."""


def load_driver() -> ModuleType:
    """`pycuda.driver`, initialised, or GpuUnavailable saying what to install."""
    try:
        import pycuda.driver as drv
    except (ImportError, OSError) as exc:
        raise GpuUnavailable(
            "profiling runs the kernels and needs PyCUDA and an NVIDIA GPU: install "
            "cudafuse[gpu] (pip install pycuda) on a machine with a CUDA driver, or re-select "
            f"from a copied report or cache without a GPU (import pycuda.driver failed: {exc})"
        ) from exc
    drv.init()
    return drv


@dataclass(frozen=True)
class DeviceInfo:
    name: str
    compute_capability: tuple[int, int]
    driver_version: int  # as cuDriverGetVersion reports it: 13000 for CUDA 13.0
    multiprocessors: int | None = None
    l2_bytes: int | None = None
    max_sm_clock_khz: int | None = None
    max_memory_clock_khz: int | None = None

    @property
    def arch(self) -> str:
        return f"sm_{self.compute_capability[0]}{self.compute_capability[1]}"

    def to_json(self) -> dict[str, object]:
        clocks = None
        if self.max_sm_clock_khz is not None or self.max_memory_clock_khz is not None:
            clocks = {"max_sm_khz": self.max_sm_clock_khz,
                      "max_memory_khz": self.max_memory_clock_khz}
        return {"name": self.name,
                "compute_capability": f"{self.compute_capability[0]}."
                                      f"{self.compute_capability[1]}",
                "driver_version": self.driver_version,
                "multiprocessors": self.multiprocessors, "l2_bytes": self.l2_bytes,
                "clocks": clocks}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> DeviceInfo:
        name, cc, driver = data.get("name"), data.get("compute_capability"), \
            data.get("driver_version")
        if not isinstance(name, str) or not isinstance(cc, str) or \
                not isinstance(driver, int):
            raise ValueError("a device needs 'name', 'compute_capability' (\"9.0\") and "
                             "'driver_version'")
        major, _, minor = cc.partition(".")
        if not (major.isdigit() and minor.isdigit()):
            raise ValueError(f"compute capability '{cc}' is not MAJOR.MINOR")
        clocks = data.get("clocks")
        clocks = clocks if isinstance(clocks, Mapping) else {}

        def opt(value: object) -> int | None:
            return value if isinstance(value, int) and not isinstance(value, bool) else None

        return cls(name, (int(major), int(minor)), driver, opt(data.get("multiprocessors")),
                   opt(data.get("l2_bytes")), opt(clocks.get("max_sm_khz")),
                   opt(clocks.get("max_memory_khz")))


def query_device(ordinal: int = 0) -> tuple[DeviceInfo, dict[str, int]]:
    """The device's identity and its ATTRIBUTES by name (those the driver knows). GPU only;
    needs no context (cuDeviceGetAttribute works without one)."""
    drv = load_driver()
    dev = drv.Device(ordinal)
    attributes: dict[str, int] = {}
    for name in ATTRIBUTES:
        attr = getattr(drv.device_attribute, name, None)
        if attr is None:  # an older PyCUDA without this attribute
            continue
        try:
            attributes[name] = int(dev.get_attribute(attr))
        except drv.Error:  # an attribute the driver dropped (clock rates in newer CUDA)
            continue
    info = DeviceInfo(dev.name(), tuple(dev.compute_capability()),  # type: ignore[arg-type]
                      int(drv.get_driver_version()), attributes.get("MULTIPROCESSOR_COUNT"),
                      attributes.get("L2_CACHE_SIZE"), attributes.get("CLOCK_RATE"),
                      attributes.get("MEMORY_CLOCK_RATE"))
    return info, attributes
