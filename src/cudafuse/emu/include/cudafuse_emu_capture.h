// cudafuse_emu_capture.h: graphs as the emulator holds them (nodes with dependencies) and
// stream capture: work issued to a capturing stream (launches, async copies and sets, host
// functions, event records and waits, cudaMallocAsync/cudaFreeAsync) becomes nodes of the
// capture's graph instead of running. The runtime asks these hooks before it runs work;
// cudafuse_emu_graph.h runs graphs and holds the graph API (docs/emulation.md, "Graphs and
// stream capture").
#pragma once
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "cudafuse_emu_device.h"

namespace cudafuse_emu {

// Argument values copied out of a `void **` array (CUDA copies them at the call).
struct ArgPack {
  std::vector<unsigned char> bytes;
  std::vector<void *> ptrs;
  void set(const std::vector<size_t> &sizes, void **args) {
    size_t total = 0;
    std::vector<size_t> at;
    for (size_t s : sizes) {
      total = (total + 15) & ~size_t(15);
      at.push_back(total);
      total += s;
    }
    bytes.assign(total + 16, 0);
    ptrs.resize(sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i]) memcpy(bytes.data() + at[i], args[i], sizes[i]);
      ptrs[i] = bytes.data() + at[i];
    }
  }
  ArgPack() = default;
  ArgPack(const ArgPack &o) { *this = o; }
  ArgPack &operator=(const ArgPack &o) {
    bytes = o.bytes;
    ptrs.resize(o.ptrs.size());
    for (size_t i = 0; i < o.ptrs.size(); ++i)
      ptrs[i] = bytes.data() + (static_cast<unsigned char *>(o.ptrs[i]) - o.bytes.data());
    return *this;
  }
};

struct Graph;
struct __cf_GNode {
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  std::vector<__cf_GNode *> deps;
  // kernel
  cudaKernelNodeParams kp{};
  ArgPack args;
  // memcpy (a 3D copy covers the 1D ones), memset, host, event, child graph, allocation
  cudaMemcpy3DParms copy{};
  cudaMemsetParams set{};
  cudaHostNodeParams host{};
  cudaEvent_t event = nullptr;
  std::shared_ptr<Graph> child;
  void *ptr = nullptr;
  std::function<void()> op;  // captured launches and the other captured work
  // conditional
  cudaGraphConditionalHandle handle = 0;
  cudaGraphConditionalNodeType cond = cudaGraphCondTypeIf;
  std::vector<std::shared_ptr<Graph>> bodies;
};
struct Graph {
  std::vector<std::unique_ptr<__cf_GNode>> nodes;
};
struct Exec {
  std::shared_ptr<Graph> graph;
  std::map<const __cf_GNode *, __cf_GNode *> from;  // the original graph's nodes -> this copy's
};
inline std::map<cudaGraphConditionalHandle, std::pair<unsigned, unsigned>> &cond_values() {
  static auto *m = new std::map<cudaGraphConditionalHandle, std::pair<unsigned, unsigned>>;
  return *m;  // handle -> (value, default applied at each launch)
}

inline Graph *graph_of(cudaGraph_t g) { return reinterpret_cast<Graph *>(g); }
inline __cf_GNode *node_of(cudaGraphNode_t n) { return reinterpret_cast<__cf_GNode *>(n); }
inline cudaGraphNode_t handle_of(__cf_GNode *n) { return reinterpret_cast<cudaGraphNode_t>(n); }
inline Exec *exec_of(cudaGraphExec_t e) { return reinterpret_cast<Exec *>(e); }

// A deep copy (child graphs and conditional bodies too); `map` gets old -> new nodes.
inline std::shared_ptr<Graph> clone_graph(const Graph &g, std::map<const __cf_GNode *, __cf_GNode *> *map) {
  auto out = std::make_shared<Graph>();
  std::map<const __cf_GNode *, __cf_GNode *> local;
  std::map<const __cf_GNode *, __cf_GNode *> &m = map ? *map : local;
  for (const auto &n : g.nodes) {
    out->nodes.push_back(std::make_unique<__cf_GNode>(*n));
    __cf_GNode *c = out->nodes.back().get();
    if (n->child) c->child = clone_graph(*n->child, nullptr);
    for (auto &b : c->bodies) b = clone_graph(*b, nullptr);
    m[n.get()] = c;
  }
  for (auto &n : out->nodes)
    for (__cf_GNode *&d : n->deps) d = m[d];
  return out;
}

// ---- graph allocations: addresses are fixed when the node is made, and stay valid ------
struct GraphMem {
  std::map<void *, size_t> live;
  size_t used = 0, high = 0;
};
inline GraphMem &graph_mem() {
  static GraphMem *m = new GraphMem;
  return *m;
}
inline void *graph_alloc(size_t n) {
  void *p = aligned_alloc(256, (n + 255) & ~size_t(255));
  if (!p) return nullptr;
  graph_mem().live[p] = n;
  graph_mem().used += n;
  graph_mem().high = std::max(graph_mem().high, graph_mem().used);
  return p;
}
inline bool graph_owned(void *p) { return graph_mem().live.count(p) != 0; }

// ---- stream capture ---------------------------------------------------------------------
struct Capture {
  Graph *graph = nullptr;
  cudaStream_t origin = nullptr;
  std::vector<__cf_GNode *> deps;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  unsigned long long id = 0;
};
inline std::map<cudaStream_t, Capture> &captures() {
  static auto *m = new std::map<cudaStream_t, Capture>;
  return *m;
}
inline std::map<cudaEvent_t, Capture> &captured_events() {
  static auto *m = new std::map<cudaEvent_t, Capture>;
  return *m;
}
inline bool stream_capturing(cudaStream_t s) { return captures().count(s) != 0; }

inline __cf_GNode *add_node(Graph &g, const cudaGraphNode_t *deps, size_t n) {
  g.nodes.push_back(std::make_unique<__cf_GNode>());
  __cf_GNode *node = g.nodes.back().get();
  for (size_t i = 0; i < n; ++i) node->deps.push_back(node_of(deps[i]));
  return node;
}
inline __cf_GNode *capture_node(cudaStream_t s, cudaGraphNodeType type) {
  Capture &c = captures()[s];
  c.graph->nodes.push_back(std::make_unique<__cf_GNode>());
  __cf_GNode *node = c.graph->nodes.back().get();
  node->type = type;
  node->deps = c.deps;
  c.deps = {node};
  return node;
}
inline void capture_launch(cudaStream_t s, const char *, std::function<void()> op) {
  capture_node(s, cudaGraphNodeTypeKernel)->op = std::move(op);
}
inline cudaError_t capture_op(cudaStream_t s, int type, std::function<void()> op) {
  capture_node(s, (cudaGraphNodeType)type)->op = std::move(op);
  return cudaSuccess;
}
inline cudaError_t capture_malloc(void **p, size_t n, cudaStream_t s) {
  __cf_GNode *node = capture_node(s, cudaGraphNodeTypeMemAlloc);
  node->ptr = *p = graph_alloc(n);
  return *p ? cudaSuccess : rt_error(cudaErrorMemoryAllocation);
}
inline cudaError_t capture_free(void *p, cudaStream_t s) {
  capture_node(s, cudaGraphNodeTypeMemFree)->ptr = p;
  return cudaSuccess;
}
inline cudaError_t capture_event_record(cudaEvent_t e, cudaStream_t s) {
  captured_events()[e] = captures()[s];
  return cudaSuccess;
}
// A stream waiting on an event recorded in a capture joins that capture.
inline bool capture_wait_event(cudaStream_t s, cudaEvent_t e) {
  auto it = captured_events().find(e);
  if (it == captured_events().end()) return false;
  bool live = false;
  for (auto &c : captures()) live |= c.second.graph == it->second.graph;
  if (!live) return false;
  auto own = captures().find(s);
  if (own == captures().end()) {
    captures()[s] = it->second;
  } else {
    for (__cf_GNode *d : it->second.deps)
      if (std::find(own->second.deps.begin(), own->second.deps.end(), d) ==
          own->second.deps.end())
        own->second.deps.push_back(d);
  }
  return true;
}
}  // namespace cudafuse_emu
