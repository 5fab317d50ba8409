"""Vertical fusion: a host function's launch sequence of producer/consumer kernels becomes
fewer kernels. hostview.py (the launch sequences), view.py (a producer as a function of its
element), legality.py (what may fuse, and why not), model.py/costmodel.py/partition.py (which
groups pay: Hipacc's benefit weights and min-cut, or an exact search), codegen.py (the fused
kernels and host function), traffic.py (DRAM figures), render.py (--explain, plan, DOT),
driver.py (the whole pass), entry.py (its registry entry)."""
