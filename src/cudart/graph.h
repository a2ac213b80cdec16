/*
 * graph.h — CUDA graphs inside the runtime, shared by graph.c (graphs, nodes, edges and their API),
 * graph_exec.c (executable graphs: instantiate, run, update, launch) and capture.c (stream capture).
 *
 * A graph is a DAG: nodes in creation order, each holding one op (cudart.h) and the nodes it depends
 * on (its incoming edges). Captured and explicitly built graphs are the same thing: capture adds a
 * node after the capturing stream's current dependencies. A graph the program can see has a handle,
 * and so does each of its nodes; an executable graph owns a private deep copy (no handles) whose nodes
 * remember the node they were copied from (`orig`), which is how cudaGraphExec*SetParams finds them.
 * Child graphs and conditional bodies are graphs owned by their node (`parent`).
 */
#ifndef WV_CUDART_GRAPH_H
#define WV_CUDART_GRAPH_H

#include "cudart/cudart.h"

typedef struct cr_node cr_node;
struct cr_node {
  cr_op op;
  cr_graph *g;              /* the graph it belongs to */
  void *self;               /* its handle (cudaGraphNode_t); NULL in an executable graph's copy */
  void *orig;               /* the handle of the node it was copied from (clone, instantiate), else NULL */
  uint32_t idx;             /* its place in g->nodes */
  cr_node **deps;           /* incoming edges, in the order they were added */
  cudaGraphEdgeData *edata;
  uint32_t ndeps, capdeps;
  int disabled;             /* an executable graph's copy: cudaGraphNodeSetEnabled(..., 0) */
};

struct cr_graph {
  cr_node **nodes;          /* creation order */
  uint32_t n, cap;
  cr_node **order;          /* a topological order; NULL until asked for and after every change */
  void *self;               /* its handle; NULL for an executable graph's copy */
  cr_node *parent;          /* a child graph or conditional body: the node that owns it */
  cr_stream *origin;        /* while a capture records into it: the stream that began it */
  int from_capture;         /* made by cudaStreamBeginCapture: an abandoned capture destroys it */
  uint32_t nexecs;          /* executable graphs instantiated from it and not destroyed */
  cr_cond **conds;          /* conditional handles created on it */
  uint32_t nconds, capconds;
};

/* A conditional handle: the device word (its address is the handle's value) that kernels set with
 * cudaGraphSetConditional and conditional nodes read. Shared by the graph and its copies. */
struct cr_cond {
  wv_devptr cell;
  unsigned dflt, flags;     /* cudaGraphCondAssignDefault: dflt is stored at the start of every run */
  uint32_t refs;
};

/* The memory of a graph's alloc node: its address is fixed when the node is made and kept for the
 * graph's life; the allocation is live (in the runtime's table) from the alloc node's run until a free
 * node, cudaFreeAsync or cudaFree. Referenced by every node (original and copies) that allocates it. */
struct cr_galloc {
  void *dptr;
  size_t size;
  uint32_t refs;
  int live;
  cr_galloc *next;          /* the runtime's list */
};

typedef struct cr_exec {
  cr_graph *g;              /* private copy */
  void *src;                /* the handle of the graph it was instantiated from */
  unsigned long long flags; /* cudaGraphInstantiateFlag* */
} cr_exec;

/* graph.c */
cr_graph *wv_cr_graph_new(cudart *r, int pub);           /* pub: with a handle */
void wv_cr_graph_free(cudart *r, cr_graph *g);
cr_graph *wv_cr_graph_clone(cudart *r, const cr_graph *src, int pub);  /* NULL: out of memory */
cudaError_t wv_cr_graph_get(cudart *r, cudaGraph_t h, const char *api, cr_graph **out);
cudaError_t wv_cr_node_get(cudart *r, cudaGraphNode_t h, const char *api, cr_node **out);
/* A node in g after deps (nodes of g) holding op, which it takes over (also on failure): callers copy
 * an op whose resources are not theirs to give (wv_cr_op_copy). */
cudaError_t wv_cr_node_add(cudart *r, cr_graph *g, const cr_op *op, cr_node *const *deps,
                           const cudaGraphEdgeData *ed, uint32_t ndeps, cr_node **out);
int wv_cr_node_type(cr_op_kind k);                        /* enum cudaGraphNodeType */
cudaError_t wv_cr_node_set_op(cudart *r, cr_node *nd, cr_op *op); /* same node type; takes op over */
cudaError_t wv_cr_op_copy(cudart *r, cr_op *dst, const cr_op *src, int pub); /* a deep copy */
void wv_cr_op_free(cudart *r, cr_op *op);
cr_node **wv_cr_graph_order(cr_graph *g);                 /* NULL: a cycle, or out of memory */
cr_galloc *wv_cr_galloc_new(cudart *r, size_t size);     /* reserves the memory; NULL: none */
cr_galloc *wv_cr_galloc_find(cudart *r, const void *dptr);
cr_node *wv_cr_graph_find_orig(const cr_graph *g, const void *orig); /* at any depth; NULL: none */
int wv_cr_graph_has_kind(const cr_graph *g, cr_op_kind k); /* some node (at any depth) is of kind k */
/* Graphs with memory or conditional nodes: never cloned or embedded (unless moved), one instantiation at a time. */
int wv_cr_graph_restricted(const cr_graph *g);

/* graph_nodes.c: parameters -> an op of its own (deep copy), validated as node creation does. */
cudaError_t wv_cr_kernel_op(cudart *r, const struct cudaKernelNodeParams *p, cr_op *op);
cudaError_t wv_cr_memcpy_op(cudart *r, const struct cudaMemcpy3DParms *p, cr_op *op);
cudaError_t wv_cr_memcpy1d_op(cudart *r, void *dst, const void *src, size_t n, int kind, cr_op *op);
cudaError_t wv_cr_symbol_op(cudart *r, const void *sym, void *host, size_t n, size_t off, int kind, int to_sym,
                            cr_op *op);
cudaError_t wv_cr_memset_op(cudart *r, const struct cudaMemsetParams *p, cr_op *op);
cudaError_t wv_cr_host_op(cudart *r, const struct cudaHostNodeParams *p, cr_op *op);
cudaError_t wv_cr_event_op(cudart *r, cudaEvent_t ev, cr_op_kind kind, cr_op *op);
/* The kinds cudaGraphNodeSetParams and cudaGraphExecNodeSetParams change: kernel, memcpy, memset, host,
 * event record and wait; others are cudaErrorNotSupported (said once). */
cudaError_t wv_cr_params_op(cudart *r, const struct cudaGraphNodeParams *p, cr_op *op, const char *api);

/* graph_exec.c */
cudaError_t wv_cr_graph_run(cudart *r, cr_graph *g);

#endif
