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

void run_graph(Graph &g);

void run_node(__cf_GNode &n);

void run_graph(Graph &g);

// The kernel node API's lookup of params->func, and where the call is written (__cf_api_site).
ApiSite take_api_site();
cudaError_t add_kernel_params(__cf_GNode *n, const cudaKernelNodeParams *p, const char *api,
                              ApiSite site);

}  // namespace cudafuse_emu

// ---- stream capture ---------------------------------------------------------------------
cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode);
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g,
                                          const cudaGraphNode_t *deps,
                                          const cudaGraphEdgeData *, size_t n,
                                          cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g);
cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus *st);
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, cudaStreamCaptureStatus *st,
                                     unsigned long long *id,
                                     cudaGraph_t *g,
                                     const cudaGraphNode_t **deps,
                                     const cudaGraphEdgeData **edges,
                                     size_t *n);
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps,
                                                size_t n, unsigned flags = 0);
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps,
                                                const cudaGraphEdgeData *, size_t n,
                                                unsigned flags);
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *);

// ---- graphs -----------------------------------------------------------------------------
cudaError_t cudaGraphCreate(cudaGraph_t *g, unsigned);
cudaError_t cudaGraphDestroy(cudaGraph_t g);
cudaError_t cudaGraphClone(cudaGraph_t *out, cudaGraph_t g);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g,
                                 unsigned long long);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g, cudaGraphNode_t *err,
                                 char *log, size_t log_size);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *e, cudaGraph_t g,
                                          unsigned long long flags);
cudaError_t cudaGraphUpload(cudaGraphExec_t, cudaStream_t);
cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e);
// The new graph's parameters replace the executable's when the topology is the same.
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g,
                                cudaGraphExecUpdateResultInfo *info);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, cudaGraphNode_t *err,
                                cudaGraphExecUpdateResult *result);
cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n);
cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              size_t *n);
cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              cudaGraphEdgeData *edges, size_t *n);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *t);
cudaError_t cudaGraphAddDependencies(cudaGraph_t, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, size_t n);
cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to,
                                     const cudaGraphEdgeData *, size_t n);

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *out, cudaGraph_t g,
                                  const cudaGraphNode_t *deps, size_t n);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *out, cudaGraph_t g,
                                   const cudaGraphNode_t *deps, size_t n,
                                   const cudaKernelNodeParams *p);
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *out, cudaGraph_t g,
                                   const cudaGraphNode_t *deps, size_t n,
                                   const cudaMemcpy3DParms *p);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *out, cudaGraph_t g,
                                     const cudaGraphNode_t *deps, size_t n, void *dst,
                                     const void *src, size_t count, cudaMemcpyKind);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *out, cudaGraph_t g,
                                   const cudaGraphNode_t *deps, size_t n,
                                   const cudaMemsetParams *p);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *out, cudaGraph_t g,
                                 const cudaGraphNode_t *deps, size_t n,
                                 const cudaHostNodeParams *p);
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *out, cudaGraph_t g,
                                       const cudaGraphNode_t *deps, size_t n,
                                       cudaGraph_t child);
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *out, cudaGraph_t g,
                                        const cudaGraphNode_t *deps, size_t n,
                                        cudaEvent_t e);
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *out, cudaGraph_t g,
                                      const cudaGraphNode_t *deps, size_t n,
                                      cudaEvent_t e);
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *out, cudaGraph_t g,
                                     const cudaGraphNode_t *deps, size_t n,
                                     cudaMemAllocNodeParams *p);
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *out, cudaGraph_t g,
                                    const cudaGraphNode_t *deps, size_t n, void *p);
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *h, cudaGraph_t,
                                             unsigned value, unsigned flags);
#ifndef cudaGraphCondAssignDefault
#define cudaGraphCondAssignDefault 1
#endif
void cudaGraphSetConditional(cudaGraphConditionalHandle h, unsigned value);
cudaError_t cudaGraphAddNode(cudaGraphNode_t *out, cudaGraph_t g,
                             const cudaGraphNode_t *deps, size_t n,
                             cudaGraphNodeParams *p);
cudaError_t cudaGraphAddNode(cudaGraphNode_t *out, cudaGraph_t g,
                             const cudaGraphNode_t *deps, const cudaGraphEdgeData *,
                             size_t n, cudaGraphNodeParams *p);

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams *p);
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                         const cudaKernelNodeParams *p);
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                             const cudaKernelNodeParams *p);
cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams *p);
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                             const cudaMemsetParams *p);
cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams *p);
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                           const cudaHostNodeParams *p);
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t, const char *, unsigned);
cudaError_t cudaDeviceGraphMemTrim(int);
cudaError_t cudaDeviceGetGraphMemAttribute(int, cudaGraphMemAttributeType a, void *v);
cudaError_t cudaDeviceSetGraphMemAttribute(int, cudaGraphMemAttributeType a, void *);
