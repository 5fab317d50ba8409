"""Vertical fusion: a host function's launch sequence of producer/consumer kernels becomes
fewer kernels. Its stages, in the order a file goes through them:
- kernel/: what one kernel computes, read from its IR: view.py (a producer as a function of
  its element), gridstride.py, guardmeaning.py, channels.py, ownvalue.py, respell/ (the few
  text respellings left);
- host/: what the host function does: hostview.py (the launch sequences), pointsto.py (what a
  pointer variable may point to), hoststmts.py (what a statement touches), coverage.py and
  gridsize.py (does a grid cover its kernel's domain), wrappers.py;
- plan/: which groups are legal and pay: legality.py, model.py/costmodel.py/partition.py
  (Hipacc's benefit weights and min-cut, or an exact search), resources.py (registers and
  occupancy), traffic.py (DRAM figures), siblings.py;
- emit/: codegen.py (the fused kernels and host function), sibling_codegen.py,
  wrapper_codegen.py and helper_calls.py (calls of host wrappers), render.py (--explain, plan,
  DOT).
driver.py runs the whole pass; entry.py is its registry entry."""
