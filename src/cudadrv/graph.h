/*
 * graph.h — CUDA graphs and stream capture in the driver, the one engine of the process (warpvm's runtime's
 * cudaGraph* and cudaStreamBeginCapture call the driver's cuGraph* and cuStreamBeginCapture). Shared by
 * stream.c (stream work as ops: run now, or captured), graph.c (graphs, nodes and edges and their structural
 * API), graph_nodes.c (node kinds and their parameters), graph_exec.c (executable graphs: instantiate, run,
 * update, launch) and capture.c (stream capture).
 *
 * A graph is a DAG: nodes in creation order, each holding one op and the nodes it depends on (its incoming
 * edges). Captured and explicitly built graphs are the same thing: capture adds a node after the capturing
 * stream's current dependencies. A graph the program can see has a handle, and so does each of its nodes; an
 * executable graph owns a private deep copy (no handles) whose nodes remember the node they were copied from
 * (`orig`), which is how cuGraphExec*SetParams finds them. Child graphs and conditional bodies are graphs
 * owned by their node (`parent`).
 */
#ifndef WV_CUDADRV_GRAPH_H
#define WV_CUDADRV_GRAPH_H

#include "cudadrv/handles.h"

/* CUgraphNodeType, CUgraphInstantiateFlags, ... (cuda.h's numbers, which the runtime's enums share). */
enum { CU_NODE_KERNEL = 0, CU_NODE_MEMCPY = 1, CU_NODE_MEMSET = 2, CU_NODE_HOST = 3, CU_NODE_GRAPH = 4,
       CU_NODE_EMPTY = 5, CU_NODE_WAIT_EVENT = 6, CU_NODE_EVENT_RECORD = 7, CU_NODE_MEM_ALLOC = 10,
       CU_NODE_MEM_FREE = 11, CU_NODE_CONDITIONAL = 13 };
enum { CU_INST_AUTO_FREE = 1, CU_INST_UPLOAD = 2, CU_INST_DEVICE_LAUNCH = 4, CU_INST_NODE_PRIORITY = 8 };
enum { CU_COND_IF = 0, CU_COND_WHILE = 1, CU_COND_SWITCH = 2, CU_COND_ASSIGN_DEFAULT = 1 };

/* One unit of stream work, and the work of a graph node. */
typedef enum {
  OP_KERNEL, OP_MEMCPY, OP_MEMSET, OP_HOST, OP_EVENT_RECORD, OP_EVENT_WAIT, /* stream work */
  OP_EMPTY, OP_GRAPH, OP_MEM_ALLOC, OP_MEM_FREE, OP_COND                   /* graph nodes only */
} cu_op_kind;
typedef struct cu_cond cu_cond;
typedef struct cu_op {
  cu_op_kind kind;
  union {
    struct { cu_func *f; wv_dim3 grid, block; uint32_t shared; int coop; uint8_t *blob; void **args; uint32_t nargs; } k;
    CUDA_MEMCPY3D cp;  /* linear memory: a 1D copy is one row of one slice */
    struct { CUdeviceptr dst; size_t pitch; unsigned value, esize; size_t width, height; } set; /* width in elements */
    struct { cu_host_fn fn; void *user; } host;
    struct { void *ev; } ev;        /* the handle: looked up when the op runs */
    struct { cu_graph *g; } child;  /* the embedded graph, owned by the node */
    struct { cu_galloc *a; } alloc;
    struct { CUdeviceptr dptr; } free;
    struct { cu_cond *c; int type; unsigned size; cu_graph **body; void **hbody; } cond; /* bodies: owned */
  } u;
} cu_op;

typedef struct cu_node cu_node;
struct cu_node {
  cu_op op;
  cu_graph *g;              /* the graph it belongs to */
  void *self;               /* its handle; NULL in an executable graph's copy */
  void *orig;               /* the handle of the node it was copied from (clone, instantiate), else NULL */
  uint32_t idx;             /* its place in g->nodes */
  cu_node **deps;           /* incoming edges, in the order they were added */
  cu_edge *edata;
  uint32_t ndeps, capdeps;
  int disabled;             /* an executable graph's copy: cuGraphNodeSetEnabled(..., 0) */
};

struct cu_graph {
  cu_node **nodes;          /* creation order */
  uint32_t n, cap;
  cu_node **order;          /* a topological order; NULL until asked for and after every change */
  void *self;               /* its handle; NULL for an executable graph's copy */
  cu_node *parent;          /* a child graph or conditional body: the node that owns it */
  cu_stream *origin;        /* while a capture records into it: the stream that began it */
  int from_capture;         /* made by cuStreamBeginCapture: an abandoned capture destroys it */
  uint32_t nexecs;          /* executable graphs instantiated from it and not destroyed */
  cu_cond **conds;          /* conditional handles created on it */
  uint32_t nconds, capconds;
};

/* A conditional handle: the device word (its address is the handle's value) that kernels set with
 * cudaGraphSetConditional and conditional nodes read. Shared by the graph and its copies. */
struct cu_cond {
  wv_devptr cell;
  unsigned dflt, flags;     /* CU_COND_ASSIGN_DEFAULT: dflt is stored at the start of every run */
  uint32_t refs;
};

/* The memory of a graph's alloc node: its address is fixed when the node is made and kept for the graph's
 * life; the allocation is live (in the allocation table) from the alloc node's run until a free node,
 * cuMemFreeAsync or cuMemFree. Referenced by every node (original and copies) that allocates it. */
struct cu_galloc {
  CUdeviceptr dptr;
  size_t size;
  uint32_t refs;
  int live;
  cu_galloc *next;          /* the driver's list */
};

typedef struct cu_exec {
  cu_graph *g;              /* private copy */
  void *src;                /* the handle of the graph it was instantiated from */
  unsigned long long flags; /* CU_INST_* */
} cu_exec;

/* graph_nodes.c: parameters -> an op of its own (deep copy), validated as node creation does. */
CUresult cu_kernel_op(cu_driver *d, const cu_kernel_params *p, cu_op *op);
CUresult cu_memcpy_op(cu_driver *d, const CUDA_MEMCPY3D *p, cu_op *op);
CUresult cu_memset_op(cu_driver *d, const cu_memset_params *p, cu_op *op);
CUresult cu_host_op(cu_driver *d, const cu_host_params *p, cu_op *op);
CUresult cu_event_op(cu_driver *d, void *ev, cu_op_kind kind, cu_op *op);
/* The kinds cuGraphNodeSetParams and cuGraphExecNodeSetParams change: kernel, memcpy, memset, host, event
 * record and wait; others are CUDA_ERROR_NOT_SUPPORTED (said once). */
CUresult cu_params_op(cu_driver *d, const cu_node_params *p, cu_op *op, const char *api);

/* stream.c. The legacy and per-thread default streams (NULL, 1, 2) are *out = NULL; any other handle must be
 * a live stream, else CUDA_ERROR_INVALID_HANDLE (said once per api). */
CUresult cu_stream_get(cu_driver *d, void *h, const char *api, cu_stream **out);
CUresult cu_event_get(cu_driver *d, void *h, const char *api, cu_event **out);
CUresult cu_submit(cu_driver *d, cu_stream *s, const cu_op *op); /* run op now, or capture it */
CUresult cu_run_op(cu_driver *d, const cu_op *op);             /* stream work (not the graph-only kinds) */
CUresult cu_copy3d(cu_driver *d, const CUDA_MEMCPY3D *c);     /* memory.c */
CUresult cu_set2d(cu_driver *d, CUdeviceptr dst, size_t pitch, unsigned value, unsigned esize, size_t w, size_t h);
void cu_streams_reset(cu_driver *d);                           /* destroy every stream and event */

/* capture.c: stream capture. s captures (s->capture) in all of these. */
CUresult cu_capture_op(cu_driver *d, cu_stream *s, const cu_op *op); /* a node (own copy), after s's deps */
CUresult cu_capture_record(cu_driver *d, cu_stream *s, cu_event *e); /* e remembers s's dependencies */
CUresult cu_capture_wait(cu_driver *d, cu_stream *s, cu_event *e);   /* s depends on them too */
CUresult cu_capture_alloc(cu_driver *d, cu_stream *s, size_t n, CUdeviceptr *p); /* cuMemAllocAsync: alloc node */
CUresult cu_capture_free(cu_driver *d, cu_stream *s, CUdeviceptr p);            /* cuMemFreeAsync: free node */
void cu_capture_leave(cu_driver *d, cu_stream *s);  /* a destroyed stream leaves (or ends) its capture */

/* graph.c */
cu_graph *cu_graph_new(cu_driver *d, int pub);           /* pub: with a handle */
void cu_graph_free(cu_driver *d, cu_graph *g);
cu_graph *cu_graph_clone(cu_driver *d, const cu_graph *src, int pub);  /* NULL: out of memory */
CUresult cu_graph_get(cu_driver *d, void *h, const char *api, cu_graph **out);
CUresult cu_node_get(cu_driver *d, void *h, const char *api, cu_node **out);
/* A node in g after deps (nodes of g) holding op, which it takes over (also on failure): callers copy an op
 * whose resources are not theirs to give (cu_op_copy). */
CUresult cu_node_add(cu_driver *d, cu_graph *g, const cu_op *op, cu_node *const *deps, const cu_edge *ed,
                     uint32_t ndeps, cu_node **out);
int cu_node_type(cu_op_kind k);                          /* CUgraphNodeType */
CUresult cu_node_set_op(cu_driver *d, cu_node *nd, cu_op *op); /* same node type; takes op over */
CUresult cu_op_copy(cu_driver *d, cu_op *dst, const cu_op *src, int pub); /* a deep copy */
void cu_op_free(cu_driver *d, cu_op *op);
cu_node **cu_graph_order(cu_graph *g);                   /* NULL: a cycle, or out of memory */
cu_galloc *cu_galloc_new(cu_driver *d, size_t size);    /* reserves the memory; NULL: none */
cu_galloc *cu_galloc_find(cu_driver *d, CUdeviceptr dptr);
void cu_galloc_dead(cu_driver *d, cu_galloc *a);        /* a graph allocation was freed (its lifetime ended) */
cu_node *cu_graph_find_orig(const cu_graph *g, const void *orig); /* at any depth; NULL: none */
int cu_graph_has_kind(const cu_graph *g, cu_op_kind k);  /* some node (at any depth) is of kind k */
/* Graphs with memory or conditional nodes: never cloned or embedded (unless moved), one instantiation at a time. */
int cu_graph_restricted(const cu_graph *g);
void cu_graphs_reset(cu_driver *d);                      /* destroy every graph and executable graph */
CUresult cu_unsupported(cu_driver *d, const char *what); /* said once; CUDA_ERROR_NOT_SUPPORTED */

/* graph_exec.c */
CUresult cu_graph_run(cu_driver *d, cu_graph *g);

/* graph_mem.c: graph memory was reserved or became live (its high-water marks follow). */
void cu_graph_mem_note(cu_driver *d);

#endif
