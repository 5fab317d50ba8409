"""Theoretical occupancy (moved to cudafuse.analysis.occupancy, which the vertical pass's
cost model uses too; this name stays for the profiler's modules and their users)."""

from cudafuse.analysis.occupancy import RESOURCES, DeviceLimits, Occupancy, occupancy

__all__ = ["RESOURCES", "DeviceLimits", "Occupancy", "occupancy"]
