/*
   PETSc-free CUDA layer: a BSR matrix on one GPU, our kernels (thesis ch. 8 and our own four),
   and cuSPARSE as the baseline. Plain C interface so the PETSc layer (C) can call it; every call
   returns a status and, on failure, leaves a message (with the CUDA / cuSPARSE error text) that
   bsrc_cuda_last_error() returns.

   Storage uploaded is PETSc's BAIJ layout: rowptr[nbrows+1], colidx[nblocks], values[nblocks*bs*bs]
   with every bs x bs block column-major (entry (r,c) of block k at values[k*bs*bs + c*bs + r]).
*/
#ifndef BSRCUDA_H
#define BSRCUDA_H

#include <stddef.h>
#include <stdint.h>

#include "bsrkernels.h" /* bsrk_idx */
#include "bsrcuda_kernel_list.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  BSRC_CUDA_OK           = 0,
  BSRC_CUDA_ERR_ARG      = 1, /* bad argument */
  BSRC_CUDA_ERR_MEM      = 2, /* out of device or pinned host memory */
  BSRC_CUDA_ERR_CUDA     = 3, /* any other CUDA runtime error */
  BSRC_CUDA_ERR_CUSPARSE = 4, /* cuSPARSE error */
  BSRC_CUDA_ERR_NODEVICE = 5  /* no usable GPU */
} bsrc_cuda_status;

/* Which product runs (bsrcuda_kernel_list.h has them all). AUTO picks from the matrix (block size,
   row-length statistics). */
typedef enum {
  BSRC_CUDA_KERNEL_AUTO = 0,
#define BSRC_CUDA_KERNEL_ENUM(id, name, what) BSRC_CUDA_KERNEL_##id,
  BSRC_CUDA_OWN_KERNELS(BSRC_CUDA_KERNEL_ENUM)
  BSRC_CUDA_CUSPARSE_KERNELS(BSRC_CUDA_KERNEL_ENUM)
#undef BSRC_CUDA_KERNEL_ENUM
    BSRC_CUDA_KERNEL_COUNT
} bsrc_cuda_kernel;

/* Our own kernels are ROWMAJOR_SHARED .. BSRC_CUDA_KERNEL_LAST_OWN; the rest are cuSPARSE. */
#define BSRC_CUDA_KERNEL_LAST_OWN ((bsrc_cuda_kernel)BSRC_CUDA_OWN_KERNEL_COUNT)

/* Names as options spell them: "auto", "rowmajor_shared", ..., "cusparse_spmv_bsr". */
extern const char *const bsrc_cuda_kernel_names[BSRC_CUDA_KERNEL_COUNT];

typedef struct bsrc_cuda_matrix bsrc_cuda_matrix; /* opaque */

/* Number of visible GPUs (0 when none or no driver; never an error). */
int bsrc_cuda_device_count(void);

bsrc_cuda_status bsrc_cuda_create(int device, bsrc_cuda_matrix **M);
void             bsrc_cuda_destroy(bsrc_cuda_matrix *M); /* NULL is fine */
const char      *bsrc_cuda_last_error(const bsrc_cuda_matrix *M);

/* Uploads the structure (and builds what the kernels need from it: tasks, row statistics, the auto
   choice). Values must be uploaded again afterwards. */
bsrc_cuda_status bsrc_cuda_set_structure(bsrc_cuda_matrix *M, bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx bs, const bsrk_idx *rowptr, const bsrk_idx *colidx);
/* Uploads the values only (same structure). */
bsrc_cuda_status bsrc_cuda_set_values(bsrc_cuda_matrix *M, const double *values);

/* The kernel AUTO resolves to for this matrix (valid after set_structure). */
bsrc_cuda_kernel bsrc_cuda_auto_kernel(const bsrc_cuda_matrix *M);

/* out = alpha*A*x + beta*in on host arrays: x (and in) staged through pinned buffers on the
   matrix's stream, out copied back; beta == 0 does not read in (may be NULL); in may alias out.
   An array that is page-locked (bsrc_cuda_host_register, cudaHostRegister, cudaMallocHost: its
   first and last byte report cudaMemoryTypeHost) skips the pinned buffer: one DMA straight from or
   to it on the matrix's stream. Either way the call returns once out holds the result. */
bsrc_cuda_status bsrc_cuda_multadd_host(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, double alpha, const double *x, double beta, const double *in, double *out);
/* Same on device arrays (no transfers), on the matrix's stream, synchronised before returning. */
bsrc_cuda_status bsrc_cuda_multadd_device(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, double alpha, const double *x_dev, double beta, const double *in_dev, double *out_dev);

/* Page-locks the host range [ptr, ptr + bytes) for every device (cudaHostRegister with
   cudaHostRegisterPortable), so that the host entry points DMA straight from/to arrays inside it.
   Needs no matrix and no current device beyond the runtime's choice. The range must stay allocated
   until bsrc_cuda_host_unregister(ptr) (the same ptr); a range that overlaps one already registered
   is refused. On failure the message is in bsrc_cuda_last_error(NULL) and CUDA's (non-sticky) error
   is cleared, so later calls are unaffected. */
bsrc_cuda_status bsrc_cuda_host_register(void *ptr, size_t bytes);
/* Ends a registration of bsrc_cuda_host_register (ptr as given there); errors reported as there. */
bsrc_cuda_status bsrc_cuda_host_unregister(void *ptr);

/* Device memory held by M, in bytes (matrix, tasks, staging). */
size_t bsrc_cuda_device_bytes(const bsrc_cuda_matrix *M);

/* ---- Additions: asynchronous product, tuning, introspection ---- */

/* As bsrc_cuda_multadd_device but without the final synchronisation: the product is queued on the
   matrix's stream (bsrc_cuda_stream) and only launch errors are reported here; errors while it runs
   surface at the next synchronising call. For callers that time or overlap the product. */
bsrc_cuda_status bsrc_cuda_multadd_device_async(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, double alpha, const double *x_dev, double beta, const double *in_dev, double *out_dev);
/* The product on device arrays queued on the caller's stream (a cudaStream_t passed as void *; NULL
   is the legacy default stream), as a library that owns the vectors' stream (PETSc's device
   context) needs it: nothing waits on the host, x and in are read after the work queued before on
   that stream, and work queued after it there sees out. Only launch errors are reported here.
   M orders itself: its later uploads (set_values, set_structure), host products and destruction
   wait for this product on the device, and a product queued here waits for async work left on M's
   own stream. */
bsrc_cuda_status bsrc_cuda_multadd_device_on(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, void *stream, double alpha, const double *x_dev, double beta, const double *in_dev, double *out_dev);
/* The matrix's cudaStream_t (as void * to keep CUDA headers out of C callers): a blocking stream,
   so it runs after work queued earlier on the legacy default stream. Work on other streams that
   fills x / in must be synchronised by the caller first. */
void *bsrc_cuda_stream(const bsrc_cuda_matrix *M);

/* Number of fixed-size tasks for the task kernels: 0 = automatic (the default, from the device's
   multiprocessor count and the block count). Rebuilds the partition at once if a structure is set. */
bsrc_cuda_status bsrc_cuda_set_task_count(bsrc_cuda_matrix *M, bsrk_idx ntasks);
bsrk_idx         bsrc_cuda_task_count(const bsrc_cuda_matrix *M); /* tasks in use (0 before set_structure) */

/* Threads per thread block for one of our kernels (ROWMAJOR_SHARED .. LAST_OWN); 0 = the launch
   heuristic's default. A multiple of 32 in [32, 1024]. */
bsrc_cuda_status bsrc_cuda_set_threads(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, int threads);
/* Lanes per block row of WARP_ROW (4, 8, 16 or 32), or per short block row of HYBRID (1, 2, 4, 8, 16
   or 32); 0 = chosen from the row lengths (the default). For tuning and benchmarks. */
bsrc_cuda_status bsrc_cuda_set_lanes(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, int lanes);
/* The launch that kernel k (AUTO resolved) gets on this matrix: threads per thread block, grid
   size, resident thread blocks per multiprocessor, and lanes per block row (WARP_ROW) or per
   short block row (HYBRID); else 0.
   Valid after set_structure; for cuSPARSE kernels all are 0. Any output pointer may be NULL. */
bsrc_cuda_status bsrc_cuda_launch_info(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, int *threads, int *grid, int *blocks_per_sm, int *lanes);

/* Which block order BSRC_CUDA_KERNEL_CUSPARSE_SPMV_BSR ended up using: 1 = column-major blocks in
   place, 0 = row-major copy (cuSPARSE refused column-major; its reason is left in
   bsrc_cuda_last_error), -1 = not run yet, 2 = CSR (bs == 1). */
int bsrc_cuda_spmv_bsr_layout(const bsrc_cuda_matrix *M);

/* The product of one MPI rank's block rows on one GPU, in two halves around the caller's halo
   exchange: out = alpha*(L*x + G*ghost_x) + beta*in, with L the local block (the rank's own columns)
   and G the ghost block (the compressed off-rank columns), both on the same device and with the same
   block rows; all vectors are host arrays.
   split_begin stages x (and in, beta != 0) through L's pinned buffers and queues L's product on L's
   stream, then returns without waiting: the exchange of ghost values proceeds on the host meanwhile.
   split_end stages ghost_x on G's stream (its transfer overlaps L's product), makes L's stream wait
   for it, queues G's product there accumulating into L's device y, and brings y back once into out.
   G may be NULL or have no columns (no ghosts). in may alias out. Every begin needs its end, on the
   same L, before L is used otherwise.
   Page-locked x, in, ghost_x and out (see bsrc_cuda_multadd_host) move by DMA straight from/to the
   arrays: the copies of x and in may then still be running when split_begin returns, so the caller
   must not write x or in before split_end (reading them, as the halo exchange does, is fine);
   split_end returns once every transfer is done. */
bsrc_cuda_status bsrc_cuda_split_begin(bsrc_cuda_matrix *L, bsrc_cuda_kernel kl, double alpha, const double *x, double beta, const double *in);
bsrc_cuda_status bsrc_cuda_split_end(bsrc_cuda_matrix *L, bsrc_cuda_matrix *G, bsrc_cuda_kernel kg, double alpha, const double *ghost_x, double *out);

/* ---- Block SpMM: products with k dense columns (bsrcuda_spmm.cu) ----
   Y = alpha*A*X + beta*Y for X (block columns x bs rows) and Y (block rows x bs rows) of k columns,
   column-major with leading dimensions ldx >= A's columns and ldy >= A's rows (entries beyond them
   are neither read nor written). One pass over A for all k columns: a group of lanes per block row
   keeps the row's sums for a tile of columns in registers, so each block is read from memory once
   and applied to several columns. beta == 0 does not read Y. k == 1 runs kernel `one` (the product
   of bsrc_cuda_multadd_*: a single column is a MatMult); larger k always our SpMM kernel. */
/* Host arrays: X (and Y, beta != 0) copied to device buffers of M on M's stream, Y copied back;
   returns once Y holds the result. */
bsrc_cuda_status bsrc_cuda_spmm_host(bsrc_cuda_matrix *M, bsrc_cuda_kernel one, bsrk_idx k, double alpha, const double *X, bsrk_idx ldx, double beta, double *Y, bsrk_idx ldy);
/* Device arrays, queued on the caller's stream (a cudaStream_t as void *; NULL the legacy default
   stream) as bsrc_cuda_multadd_device_on queues a product: nothing waits on the host, only launch
   errors are reported here, and M orders its own later work after it. */
bsrc_cuda_status bsrc_cuda_spmm_device_on(bsrc_cuda_matrix *M, bsrc_cuda_kernel one, void *stream, bsrk_idx k, double alpha, const double *X, bsrk_idx ldx, double beta, double *Y, bsrk_idx ldy);
/* One MPI rank's SpMM on host arrays around the caller's gather of X's ghost rows, as
   bsrc_cuda_split_begin/end for one column: Y = alpha*(L*X + G*Xg). begin copies X to L's device
   buffer and queues L's SpMM (beta 0) without waiting; end copies Xg (G's columns x bs rows, k
   columns, leading dimension ldg) to G's buffer, queues G's SpMM adding into L's device Y on L's
   stream, and copies Y back once. G may be NULL or have no columns. Every begin needs its end. */
bsrc_cuda_status bsrc_cuda_spmm_split_begin(bsrc_cuda_matrix *L, bsrk_idx k, double alpha, const double *X, bsrk_idx ldx);
bsrc_cuda_status bsrc_cuda_spmm_split_end(bsrc_cuda_matrix *L, bsrc_cuda_matrix *G, bsrk_idx k, double alpha, const double *Xg, bsrk_idx ldg, double *Y, bsrk_idx ldy);
/* The SpMM's launch on M: lanes per block row, columns per tile, threads per thread block and grid
   (any output may be NULL; valid after set_structure). */
bsrc_cuda_status bsrc_cuda_spmm_launch_info(const bsrc_cuda_matrix *M, int *lanes, int *tile, int *threads, int *grid);

/* bsrc_cuda_last_error(NULL) returns the message of the calling thread's last failed call that had
   no matrix to hold it (bsrc_cuda_create, or any call given M == NULL). */

#ifdef __cplusplus
}
#endif
#endif
