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
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "cudafuse_emu_device.h"

namespace cudafuse_emu {

// Argument values copied out of a `void **` array (CUDA copies them at the call).
struct ArgPack {
  std::vector<unsigned char> bytes;
  std::vector<void *> ptrs;
  void set(const std::vector<size_t> &sizes, void **args);
  ArgPack() = default;
  ArgPack(const ArgPack &o);
  ArgPack &operator=(const ArgPack &o);
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
std::map<cudaGraphConditionalHandle, std::pair<unsigned, unsigned>> &cond_values();

inline Graph *graph_of(cudaGraph_t g) { return reinterpret_cast<Graph *>(g); }
inline __cf_GNode *node_of(cudaGraphNode_t n) { return reinterpret_cast<__cf_GNode *>(n); }
inline cudaGraphNode_t handle_of(__cf_GNode *n) { return reinterpret_cast<cudaGraphNode_t>(n); }
inline Exec *exec_of(cudaGraphExec_t e) { return reinterpret_cast<Exec *>(e); }

// A deep copy (child graphs and conditional bodies too); `map` gets old -> new nodes.
std::shared_ptr<Graph> clone_graph(const Graph &g, std::map<const __cf_GNode *, __cf_GNode *> *map);

// ---- graph allocations: addresses are fixed when the node is made, and stay valid ------
struct GraphMem {
  std::map<void *, size_t> live;
  size_t used = 0, high = 0;
};
GraphMem &graph_mem();
void *graph_alloc(size_t n);
bool graph_owned(void *p);

// ---- stream capture ---------------------------------------------------------------------
struct Capture {
  Graph *graph = nullptr;
  cudaStream_t origin = nullptr;
  std::vector<__cf_GNode *> deps;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  unsigned long long id = 0;
};
std::map<cudaStream_t, Capture> &captures();
std::map<cudaEvent_t, Capture> &captured_events();
bool stream_capturing(cudaStream_t s);

__cf_GNode *add_node(Graph &g, const cudaGraphNode_t *deps, size_t n);
__cf_GNode *capture_node(cudaStream_t s, cudaGraphNodeType type);
__cf_GNode *capture_launch(cudaStream_t s, const char *, std::function<void()> op);

// A kernel parameter's or argument's type as the registry compares them: a pointer stands
// for a pointer to any qualification of its pointee (a `float *` passed to `const float *`
// keeps its bits), any other type is itself.
template <class T> inline const std::type_info *param_key() {
  using U = std::remove_cv_t<std::remove_reference_t<T>>;
  if constexpr (std::is_pointer_v<U>) return &typeid(std::remove_cv_t<std::remove_pointer_t<U>> *);
  else return &typeid(U);
}
// The registered kernel named `name` whose parameters are `types` (param_key), and its
// parameter sizes; null when none or several are (a template instance never registered,
// arguments that convert on the call: an `int` passed to a `float`).
const void *kernel_named(const char *name, const std::type_info *const *types, size_t n,
                         const std::vector<size_t> **sizes);
// A launch captured as a node (its `op`) gets the kernel node parameters CUDA gives it, so that
// cudaGraphKernelNodeGetParams returns them and a program may set them back, changed: the
// kernel's address and the argument values, when the arguments are of its parameters' types.
template <class... A>
void capture_params(__cf_GNode *node, const char *name, dim3 grid, dim3 block, size_t shared,
                    const A &...args) {
  node->kp.gridDim = grid;
  node->kp.blockDim = block;
  node->kp.sharedMemBytes = (unsigned)shared;
  const std::type_info *types[] = {param_key<A>()..., nullptr};
  const std::vector<size_t> *sizes = nullptr;
  const void *f = kernel_named(name, types, sizeof...(A), &sizes);
  if (!f) return;
  void *ptrs[] = {const_cast<void *>(static_cast<const void *>(&args))..., nullptr};
  node->kp.func = const_cast<void *>(f);
  node->args.set(*sizes, ptrs);
}
cudaError_t capture_op(cudaStream_t s, int type, std::function<void()> op);
cudaError_t capture_malloc(void **p, size_t n, cudaStream_t s);
cudaError_t capture_free(void *p, cudaStream_t s);
cudaError_t capture_event_record(cudaEvent_t e, cudaStream_t s);
// A stream waiting on an event recorded in a capture joins that capture.
bool capture_wait_event(cudaStream_t s, cudaEvent_t e);
}  // namespace cudafuse_emu
