"""Analyses over the IR: facts about kernels and host pipelines. No libclang here.

Entry points (what `cudafuse analyze` and the fusion passes use):

- `report.analyze_unit(unit) -> (list[KernelFacts], list[Pipeline])`, and
  `report.build_report(unit) -> dict` (the JSON of docs/analyze-json.md).
- `kernel_facts.analyze_kernel(unit, fn, graph=None) -> KernelFacts`: parameters, mapping and
  guard, shared memory, intrinsics, calls, and per-pointer `LoadClass` / `StoreClass`
  verdicts (`facts.load("in")`, `facts.store("out")`); `facts.accesses` keeps every access.
- `dataflow.analyze_host(unit, fn, kernels) -> Pipeline`: launches, typed deps, inputs,
  outputs, temporaries; `Pipeline.graph` is the networkx DAG of raw edges.
- The symbolic core, for rewriting loads at remapped coordinates:
  `evaluate.Evaluator(unit)`: `.run(fn) -> list[Access]` (pointer, mode, index `Poly`,
  path condition, span) and `.value(expr, env) -> Poly | PtrVal`;
  `symbolic.Poly` / `Atom` / `Pred` (`to_coords` folds blockIdx*blockDim+threadIdx into X/Y/Z);
  `access.shape_of(index, path) -> Shape | str` (per-dimension offset, border, stride).
"""
