// cudafuse_emu_graph.h: CUDA graphs and stream capture for the emulator (docs/emulation.md,
// "Graphs and stream capture"). Included at the end of cudafuse_emu.h.
//
// A graph is a list of nodes with dependencies; cudaGraphLaunch runs the nodes of its
// executable copy in a topological order of the dependencies (Kahn's algorithm, ties in
// creation order). Work runs at once on the calling thread, so any such order is a correct
// execution. Work issued to a capturing stream (launches, async copies and sets, host
// functions, event records and waits, cudaMallocAsync/cudaFreeAsync) becomes nodes instead
// of running; event record/wait carry dependencies between streams of one capture.
#pragma once
#include <memory>
#include <set>

#include "cudafuse_emu_capture.h"  // graphs, their nodes, stream capture
#include "cudafuse_emu_runtime.h"  // what nodes run: copies, event records

namespace cudafuse_emu {

inline void run_graph(Graph &g);

inline void run_node(__cf_GNode &n) {
  if (n.op) {  // captured work (launches, copies, sets, host functions)
    n.op();
    return;
  }
  switch (n.type) {
    case cudaGraphNodeTypeKernel: {
      const KernelInfo *k = find_kernel(n.kp.func);
      if (!k) fail("cudaGraphLaunch: a kernel node's function %p is not a kernel of this "
                   "program", n.kp.func);
      ArgPack pack = n.args;
      void (*call)(void **) = k->call;
      launch_with(k->name, k->fibers, false, [call, &pack]() { call(pack.ptrs.data()); },
                  n.kp.gridDim, n.kp.blockDim, n.kp.sharedMemBytes, nullptr);
      break;
    }
    case cudaGraphNodeTypeMemcpy: cudaMemcpy3D(&n.copy); break;
    case cudaGraphNodeTypeMemset: {
      const cudaMemsetParams &p = n.set;
      for (size_t r = 0; r < (p.height ? p.height : 1); ++r) {
        char *row = static_cast<char *>(p.dst) + r * p.pitch;
        for (size_t i = 0; i < p.width; ++i)
          memcpy(row + i * p.elementSize, &p.value, p.elementSize);  // little-endian
      }
      break;
    }
    case cudaGraphNodeTypeHost: n.host.fn(n.host.userData); break;
    case cudaGraphNodeTypeGraph: run_graph(*n.child); break;
    case cudaGraphNodeTypeEventRecord: cudaEventRecord(n.event, nullptr); break;
    case cudaGraphNodeTypeConditional: {
      auto &v = cond_values()[n.handle];
      if (n.cond == cudaGraphCondTypeIf) {
        if (v.first) run_graph(*n.bodies[0]);
        else if (n.bodies.size() > 1) run_graph(*n.bodies[1]);
      } else if (n.cond == cudaGraphCondTypeWhile) {
        while (v.first) run_graph(*n.bodies[0]);
      } else if (v.first < n.bodies.size()) {
        run_graph(*n.bodies[v.first]);
      }
      break;
    }
    default: break;  // empty, event wait, allocation and free (addresses fixed at creation)
  }
}

inline void run_graph(Graph &g) {
  for (auto &n : g.nodes)
    if (n->type == cudaGraphNodeTypeConditional) {
      auto &v = cond_values()[n->handle];
      if (v.second & 1u) v.first = v.second >> 1;  // cudaGraphCondAssignDefault
    }
  std::map<__cf_GNode *, int> pending;
  std::map<__cf_GNode *, std::vector<__cf_GNode *>> users;
  for (auto &n : g.nodes) {
    pending[n.get()] = (int)n->deps.size();
    for (__cf_GNode *d : n->deps) users[d].push_back(n.get());
  }
  std::vector<__cf_GNode *> ready;
  for (auto &n : g.nodes)
    if (!n->deps.size()) ready.push_back(n.get());
  size_t done = 0;
  for (size_t k = 0; k < ready.size(); ++k) {
    run_node(*ready[k]);
    ++done;
    for (__cf_GNode *u : users[ready[k]])
      if (--pending[u] == 0) ready.push_back(u);
  }
  if (done != g.nodes.size()) fail("cudaGraphLaunch: the graph's dependencies form a cycle");
}

inline cudaError_t add_kernel_params(__cf_GNode *n, const cudaKernelNodeParams *p) {
  const KernelInfo *k = find_kernel(p->func);
  if (!k) return rt_error(cudaErrorInvalidDeviceFunction);
  if (p->extra && !p->kernelParams) return rt_error(cudaErrorNotSupported);
  n->type = cudaGraphNodeTypeKernel;
  n->kp = *p;
  n->args.set(k->sizes, p->kernelParams);
  n->kp.kernelParams = nullptr;
  return cudaSuccess;
}

}  // namespace cudafuse_emu

// ---- stream capture ---------------------------------------------------------------------
inline cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode) {
  using namespace ::cudafuse_emu;
  if (reinterpret_cast<uintptr_t>(s) <= 2) return rt_error(cudaErrorStreamCaptureUnsupported);
  if (stream_capturing(s)) return rt_error(cudaErrorIllegalState);
  static unsigned long long next_id = 0;
  Capture c;
  c.graph = new Graph;
  c.origin = s;
  c.mode = mode;
  c.id = ++next_id;
  captures()[s] = c;
  return cudaSuccess;
}
inline cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g,
                                                 const cudaGraphNode_t *deps,
                                                 const cudaGraphEdgeData *, size_t n,
                                                 cudaStreamCaptureMode mode) {
  using namespace ::cudafuse_emu;
  cudaError_t e = cudaStreamBeginCapture(s, mode);
  if (e != cudaSuccess) return e;
  Capture &c = captures()[s];
  delete c.graph;
  c.graph = graph_of(g);
  for (size_t i = 0; i < n; ++i) c.deps.push_back(node_of(deps[i]));
  return cudaSuccess;
}
inline cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g) {
  using namespace ::cudafuse_emu;
  auto it = captures().find(s);
  if (it == captures().end() || it->second.origin != s)
    return rt_error(cudaErrorIllegalState);
  Graph *graph = it->second.graph;
  for (auto c = captures().begin(); c != captures().end();)
    c = c->second.graph == graph ? captures().erase(c) : std::next(c);
  for (auto c = captured_events().begin(); c != captured_events().end();)
    c = c->second.graph == graph ? captured_events().erase(c) : std::next(c);
  if (g) *g = reinterpret_cast<cudaGraph_t>(graph);
  return cudaSuccess;
}
inline cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus *st) {
  *st = ::cudafuse_emu::stream_capturing(s) ? cudaStreamCaptureStatusActive
                                            : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}
inline cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, cudaStreamCaptureStatus *st,
                                            unsigned long long *id,
                                            cudaGraph_t *g,
                                            const cudaGraphNode_t **deps,
                                            const cudaGraphEdgeData **edges,
                                            size_t *n) {
  using namespace ::cudafuse_emu;
  auto it = captures().find(s);
  if (st) *st = it == captures().end() ? cudaStreamCaptureStatusNone : cudaStreamCaptureStatusActive;
  if (it == captures().end()) return cudaSuccess;
  if (id) *id = it->second.id;
  if (g) *g = reinterpret_cast<cudaGraph_t>(it->second.graph);
  if (deps) *deps = reinterpret_cast<const cudaGraphNode_t *>(it->second.deps.data());
  if (edges) *edges = nullptr;
  if (n) *n = it->second.deps.size();
  return cudaSuccess;
}
inline cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps,
                                                       size_t n, unsigned flags = 0) {
  using namespace ::cudafuse_emu;
  auto it = captures().find(s);
  if (it == captures().end()) return rt_error(cudaErrorIllegalState);
  if (flags & cudaStreamSetCaptureDependencies) it->second.deps.clear();
  for (size_t i = 0; i < n; ++i) it->second.deps.push_back(node_of(deps[i]));
  return cudaSuccess;
}
inline cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps,
                                                       const cudaGraphEdgeData *, size_t n,
                                                       unsigned flags) {
  return cudaStreamUpdateCaptureDependencies(s, deps, n, flags);
}
inline cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *) {
  return cudaSuccess;
}

// ---- graphs -----------------------------------------------------------------------------
inline cudaError_t cudaGraphCreate(cudaGraph_t *g, unsigned) {
  if (!g) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  *g = reinterpret_cast<cudaGraph_t>(new ::cudafuse_emu::Graph);
  return cudaSuccess;
}
inline cudaError_t cudaGraphDestroy(cudaGraph_t g) {
  delete ::cudafuse_emu::graph_of(g);
  return cudaSuccess;
}
inline cudaError_t cudaGraphClone(cudaGraph_t *out, cudaGraph_t g) {
  auto copy = ::cudafuse_emu::clone_graph(*::cudafuse_emu::graph_of(g), nullptr);
  *out = reinterpret_cast<cudaGraph_t>(new ::cudafuse_emu::Graph(std::move(*copy)));
  return cudaSuccess;
}
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g,
                                        unsigned long long) {
  if (!e || !g) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  auto *x = new ::cudafuse_emu::Exec;
  x->graph = ::cudafuse_emu::clone_graph(*::cudafuse_emu::graph_of(g), &x->from);
  *e = reinterpret_cast<cudaGraphExec_t>(x);
  return cudaSuccess;
}
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g, cudaGraphNode_t *err,
                                        char *log, size_t log_size) {
  if (err) *err = nullptr;
  if (log && log_size) log[0] = 0;
  return cudaGraphInstantiate(e, g, 0ull);
}
inline cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *e, cudaGraph_t g,
                                                 unsigned long long flags) {
  return cudaGraphInstantiate(e, g, flags);
}
inline cudaError_t cudaGraphUpload(cudaGraphExec_t, cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s) {
  using namespace ::cudafuse_emu;
  if (!e) return rt_error(cudaErrorInvalidValue);
  if (stream_capturing(s)) {  // a graph launched into a capture becomes a child graph node
    __cf_GNode *n = capture_node(s, cudaGraphNodeTypeGraph);
    n->child = clone_graph(*exec_of(e)->graph, nullptr);
    return cudaSuccess;
  }
  run_graph(*exec_of(e)->graph);
  return cudaSuccess;
}
inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e) {
  delete ::cudafuse_emu::exec_of(e);
  return cudaSuccess;
}
// The new graph's parameters replace the executable's when the topology is the same.
inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g,
                                       cudaGraphExecUpdateResultInfo *info) {
  using namespace ::cudafuse_emu;
  Exec *x = exec_of(e);
  Graph *src = graph_of(g);
  if (info) *info = cudaGraphExecUpdateResultInfo{cudaGraphExecUpdateSuccess, nullptr, nullptr};
  if (src->nodes.size() != x->graph->nodes.size()) {
    if (info) info->result = cudaGraphExecUpdateErrorTopologyChanged;
    return rt_error(cudaErrorGraphExecUpdateFailure);
  }
  for (size_t i = 0; i < src->nodes.size(); ++i)
    if (src->nodes[i]->type != x->graph->nodes[i]->type) {
      if (info) info->result = cudaGraphExecUpdateErrorNodeTypeChanged;
      return rt_error(cudaErrorGraphExecUpdateFailure);
    }
  std::map<const __cf_GNode *, __cf_GNode *> from;
  x->graph = clone_graph(*src, &from);
  for (auto &kv : x->from) kv.second = nullptr;
  for (auto &kv : from) x->from[kv.first] = kv.second;
  return cudaSuccess;
}
inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, cudaGraphNode_t *err,
                                       cudaGraphExecUpdateResult *result) {
  cudaGraphExecUpdateResultInfo info;
  cudaError_t r = cudaGraphExecUpdate(e, g, &info);
  if (err) *err = info.errorNode;
  if (result) *result = info.result;
  return r;
}
inline cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n) {
  auto &all = ::cudafuse_emu::graph_of(g)->nodes;
  if (nodes)
    for (size_t i = 0; i < *n && i < all.size(); ++i) nodes[i] = ::cudafuse_emu::handle_of(all[i].get());
  else *n = all.size();
  return cudaSuccess;
}
inline cudaError_t cudaGraphGetRootNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n) {
  std::vector<cudaGraphNode_t> roots;
  for (auto &node : ::cudafuse_emu::graph_of(g)->nodes)
    if (node->deps.empty()) roots.push_back(::cudafuse_emu::handle_of(node.get()));
  if (nodes)
    for (size_t i = 0; i < *n && i < roots.size(); ++i) nodes[i] = roots[i];
  else *n = roots.size();
  return cudaSuccess;
}
inline cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                     size_t *n) {
  size_t k = 0;
  for (auto &node : ::cudafuse_emu::graph_of(g)->nodes)
    for (auto *d : node->deps) {
      if (from && to && k < *n) {
        from[k] = ::cudafuse_emu::handle_of(d);
        to[k] = ::cudafuse_emu::handle_of(node.get());
      }
      ++k;
    }
  if (!from) *n = k;
  return cudaSuccess;
}
inline cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                     cudaGraphEdgeData *edges, size_t *n) {
  if (edges && *n) memset(edges, 0, *n * sizeof *edges);
  return cudaGraphGetEdges(g, from, to, n);
}
inline cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *t) {
  *t = ::cudafuse_emu::node_of(node)->type;
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddDependencies(cudaGraph_t, const cudaGraphNode_t *from,
                                            const cudaGraphNode_t *to, size_t n) {
  for (size_t i = 0; i < n; ++i)
    ::cudafuse_emu::node_of(to[i])->deps.push_back(::cudafuse_emu::node_of(from[i]));
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
                                            const cudaGraphNode_t *to,
                                            const cudaGraphEdgeData *, size_t n) {
  return cudaGraphAddDependencies(g, from, to, n);
}

#define CF_GRAPH_NODE(g, deps, n)                                                              \
  ::cudafuse_emu::__cf_GNode *node = ::cudafuse_emu::add_node(*::cudafuse_emu::graph_of(g), deps, n); \
  if (out) *out = ::cudafuse_emu::handle_of(node)
inline cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *out, cudaGraph_t g,
                                         const cudaGraphNode_t *deps, size_t n) {
  CF_GRAPH_NODE(g, deps, n);
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *out, cudaGraph_t g,
                                          const cudaGraphNode_t *deps, size_t n,
                                          const cudaKernelNodeParams *p) {
  if (!::cudafuse_emu::find_kernel(p->func))
    return ::cudafuse_emu::rt_error(cudaErrorInvalidDeviceFunction);
  CF_GRAPH_NODE(g, deps, n);
  return ::cudafuse_emu::add_kernel_params(node, p);
}
inline cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *out, cudaGraph_t g,
                                          const cudaGraphNode_t *deps, size_t n,
                                          const cudaMemcpy3DParms *p) {
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeMemcpy;
  node->copy = *p;
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *out, cudaGraph_t g,
                                            const cudaGraphNode_t *deps, size_t n, void *dst,
                                            const void *src, size_t count, cudaMemcpyKind) {
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeMemcpy;
  node->copy.srcPtr = cudaPitchedPtr{const_cast<void *>(src), count, count, 1};
  node->copy.dstPtr = cudaPitchedPtr{dst, count, count, 1};
  node->copy.extent = cudaExtent{count, 1, 1};
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *out, cudaGraph_t g,
                                          const cudaGraphNode_t *deps, size_t n,
                                          const cudaMemsetParams *p) {
  if (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4)
    return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeMemset;
  node->set = *p;
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *out, cudaGraph_t g,
                                        const cudaGraphNode_t *deps, size_t n,
                                        const cudaHostNodeParams *p) {
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeHost;
  node->host = *p;
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *out, cudaGraph_t g,
                                              const cudaGraphNode_t *deps, size_t n,
                                              cudaGraph_t child) {
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeGraph;
  node->child = ::cudafuse_emu::clone_graph(*::cudafuse_emu::graph_of(child), nullptr);
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *out, cudaGraph_t g,
                                               const cudaGraphNode_t *deps, size_t n,
                                               cudaEvent_t e) {
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeEventRecord;
  node->event = e;
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *out, cudaGraph_t g,
                                             const cudaGraphNode_t *deps, size_t n,
                                             cudaEvent_t e) {
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeWaitEvent;
  node->event = e;
  return cudaSuccess;
}
inline cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *out, cudaGraph_t g,
                                            const cudaGraphNode_t *deps, size_t n,
                                            cudaMemAllocNodeParams *p) {
  if (!p || !p->bytesize) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeMemAlloc;
  node->ptr = p->dptr = ::cudafuse_emu::graph_alloc(p->bytesize);
  return p->dptr ? cudaSuccess : ::cudafuse_emu::rt_error(cudaErrorMemoryAllocation);
}
inline cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *out, cudaGraph_t g,
                                           const cudaGraphNode_t *deps, size_t n, void *p) {
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeMemFree;
  node->ptr = p;
  return cudaSuccess;
}
inline cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *h, cudaGraph_t,
                                                    unsigned value, unsigned flags) {
  static cudaGraphConditionalHandle next = 0;
  *h = ++next;
  ::cudafuse_emu::cond_values()[*h] = {value, flags & 1u ? (value << 1) | 1u : 0u};
  return cudaSuccess;
}
#ifndef cudaGraphCondAssignDefault
#define cudaGraphCondAssignDefault 1
#endif
inline void cudaGraphSetConditional(cudaGraphConditionalHandle h, unsigned value) {
  ::cudafuse_emu::cond_values()[h].first = value;
}
inline cudaError_t cudaGraphAddNode(cudaGraphNode_t *out, cudaGraph_t g,
                                    const cudaGraphNode_t *deps, size_t n,
                                    cudaGraphNodeParams *p) {
  switch (p->type) {
    case cudaGraphNodeTypeKernel: return cudaGraphAddKernelNode(out, g, deps, n, &p->kernel);
    case cudaGraphNodeTypeMemset: return cudaGraphAddMemsetNode(out, g, deps, n, &p->memset);
    case cudaGraphNodeTypeHost: return cudaGraphAddHostNode(out, g, deps, n, &p->host);
    case cudaGraphNodeTypeGraph:
      return cudaGraphAddChildGraphNode(out, g, deps, n, p->graph.graph);
    case cudaGraphNodeTypeEmpty: return cudaGraphAddEmptyNode(out, g, deps, n);
    case cudaGraphNodeTypeMemAlloc: return cudaGraphAddMemAllocNode(out, g, deps, n, &p->alloc);
    case cudaGraphNodeTypeMemFree: return cudaGraphAddMemFreeNode(out, g, deps, n, p->free.dptr);
    case cudaGraphNodeTypeConditional: {
      cudaConditionalNodeParams &c = p->conditional;
      unsigned count = c.type == cudaGraphCondTypeWhile ? 1 : c.size;
      if (!count || (c.type != cudaGraphCondTypeSwitch && count > 2))
        return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
      CF_GRAPH_NODE(g, deps, n);
      node->type = cudaGraphNodeTypeConditional;
      node->handle = c.handle;
      node->cond = c.type;
      for (unsigned i = 0; i < count; ++i) {
        node->bodies.push_back(std::make_shared<::cudafuse_emu::Graph>());
        // The body graphs belong to the node: the handles given out stay valid with it.
        c.phGraph_out[i] = reinterpret_cast<cudaGraph_t>(node->bodies.back().get());
      }
      return cudaSuccess;
    }
    default: return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
  }
}
inline cudaError_t cudaGraphAddNode(cudaGraphNode_t *out, cudaGraph_t g,
                                    const cudaGraphNode_t *deps, const cudaGraphEdgeData *,
                                    size_t n, cudaGraphNodeParams *p) {
  return cudaGraphAddNode(out, g, deps, n, p);
}
#undef CF_GRAPH_NODE

inline cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams *p) {
  ::cudafuse_emu::__cf_GNode *n = ::cudafuse_emu::node_of(node);
  *p = n->kp;
  p->kernelParams = n->args.ptrs.data();
  return cudaSuccess;
}
inline cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                                const cudaKernelNodeParams *p) {
  return ::cudafuse_emu::add_kernel_params(::cudafuse_emu::node_of(node), p);
}
inline cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                                    const cudaKernelNodeParams *p) {
  ::cudafuse_emu::__cf_GNode *n = ::cudafuse_emu::exec_of(e)->from[::cudafuse_emu::node_of(node)];
  if (!n) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  return ::cudafuse_emu::add_kernel_params(n, p);
}
inline cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams *p) {
  ::cudafuse_emu::node_of(node)->set = *p;
  return cudaSuccess;
}
inline cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                                    const cudaMemsetParams *p) {
  ::cudafuse_emu::__cf_GNode *n = ::cudafuse_emu::exec_of(e)->from[::cudafuse_emu::node_of(node)];
  if (!n) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  n->set = *p;
  return cudaSuccess;
}
inline cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams *p) {
  ::cudafuse_emu::node_of(node)->host = *p;
  return cudaSuccess;
}
inline cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                                  const cudaHostNodeParams *p) {
  ::cudafuse_emu::__cf_GNode *n = ::cudafuse_emu::exec_of(e)->from[::cudafuse_emu::node_of(node)];
  if (!n) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  n->host = *p;
  return cudaSuccess;
}
inline cudaError_t cudaGraphDebugDotPrint(cudaGraph_t, const char *, unsigned) {
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGraphMemTrim(int) { return cudaSuccess; }
inline cudaError_t cudaDeviceGetGraphMemAttribute(int, cudaGraphMemAttributeType a, void *v) {
  const ::cudafuse_emu::GraphMem &m = ::cudafuse_emu::graph_mem();
  *static_cast<unsigned long long *>(v) = a == cudaGraphMemAttrUsedMemCurrent ||
                                                  a == cudaGraphMemAttrReservedMemCurrent
                                              ? m.used
                                              : m.high;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSetGraphMemAttribute(int, cudaGraphMemAttributeType a, void *) {
  if (a == cudaGraphMemAttrUsedMemHigh || a == cudaGraphMemAttrReservedMemHigh)
    ::cudafuse_emu::graph_mem().high = ::cudafuse_emu::graph_mem().used;
  return cudaSuccess;
}
