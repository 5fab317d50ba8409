"""Measurement-driven choice of a horizontal fusion (`cudafuse hfuse --profile`).

GPU-independent: candidates, occupancy, stats, select, records, report, cache. GPU only
(PyCUDA imported on call): device.query_device, timing.measure. See docs/profiling.md.
"""
