/*
   Device storage of one BSR matrix (struct bsrc_cuda_matrix, bsrcuda_matrix.cuh) and the C interface
   of bsrcuda.h on device arrays. The entry points on host arrays, which stage them through pinned
   buffers, are in bsrcuda_hostentry.cu; the kernels' work plans in bsrcuda_plan.cu.

   Lifecycle: create (device, stream, properties) -> set_structure (rowptr, colidx, value storage,
   the task partition, row statistics and the auto choice) -> set_values (values only) -> products.
   set_structure again drops everything that depends on the structure, cuSPARSE's copies included.
   Every allocation goes through dev_alloc, so the byte count (bsrc_cuda_device_bytes) and the
   out-of-memory mapping (BSRC_CUDA_ERR_MEM with CUDA's text) are the same everywhere.
*/
#include "bsrcuda_kernel_table.cuh"
#include "bsrcuda_plan.cuh"

#include <algorithm>
#include <limits>
#include <new>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#ifdef _OPENMP
  #include <omp.h>
#endif

namespace bsrc {

thread_local char orphan_msg[512] = ""; /* messages of calls that have no matrix to hold them */

error_sink sink(bsrc_cuda_matrix *M)
{
  if (M) return error_sink{M->msg, sizeof(M->msg)};
  return error_sink{orphan_msg, sizeof(orphan_msg)};
}

bsrc_cuda_status upload(bsrc_cuda_matrix *M, dev_buffer &b, const void *host, size_t bytes, const char *what)
{
  if (bytes == 0) return BSRC_CUDA_OK;
  BSRC_CUDA_CHECK(cudaMemcpyAsync(b.ptr, host, bytes, cudaMemcpyHostToDevice, M->stream), sink(M), what);
  BSRC_CUDA_CHECK(cudaStreamSynchronize(M->stream), sink(M), what);
  return BSRC_CUDA_OK;
}

bsrc_cuda_status check_product_args(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, const double *x, double beta, const double *in, const double *out)
{
  if (!M) return fail(sink(M), BSRC_CUDA_ERR_ARG, "product: matrix is NULL");
  if ((int)k < 0 || k >= BSRC_CUDA_KERNEL_COUNT) return fail(sink(M), BSRC_CUDA_ERR_ARG, "product: unknown kernel %d", (int)k);
  if (!M->has_structure) return fail(sink(M), BSRC_CUDA_ERR_ARG, "product: no structure set (call bsrc_cuda_set_structure)");
  if (!M->has_values) return fail(sink(M), BSRC_CUDA_ERR_ARG, "product: no values set (call bsrc_cuda_set_values after set_structure)");
  const bool rows = M->nbrows > 0, cols = M->nbcols > 0;
  if (rows && cols && !x) return fail(sink(M), BSRC_CUDA_ERR_ARG, "product: x is NULL");
  if (rows && !out) return fail(sink(M), BSRC_CUDA_ERR_ARG, "product: out is NULL");
  if (rows && beta != 0.0 && !in) return fail(sink(M), BSRC_CUDA_ERR_ARG, "product: beta != 0 but in is NULL");
  return BSRC_CUDA_OK;
}

/* M's own stream waits for products queued on a caller's stream (no host wait): every entry point
   that works on M's stream, or changes what a queued product reads, calls this first. */
bsrc_cuda_status join_caller(bsrc_cuda_matrix *M, const char *what)
{
  if (!M->caller_queued) return BSRC_CUDA_OK;
  BSRC_CUDA_CHECK(cudaStreamWaitEvent(M->stream, M->caller_done, 0), sink(M), what);
  M->caller_queued = false;
  return BSRC_CUDA_OK;
}

/* The caller's stream s waits for async work left on M's stream (the async and benchmark entry
   points), so a product queued on s never overlaps another product of M. */
bsrc_cuda_status join_own(bsrc_cuda_matrix *M, cudaStream_t s, const char *what)
{
  if (!M->own_queued) return BSRC_CUDA_OK;
  if (!M->own_done) BSRC_CUDA_CHECK(cudaEventCreateWithFlags(&M->own_done, cudaEventDisableTiming), sink(M), what);
  BSRC_CUDA_CHECK(cudaEventRecord(M->own_done, M->stream), sink(M), what);
  BSRC_CUDA_CHECK(cudaStreamWaitEvent(s, M->own_done, 0), sink(M), what);
  M->own_queued = false;
  return BSRC_CUDA_OK;
}

bsrc_cuda_status mark_caller(bsrc_cuda_matrix *M, cudaStream_t s, const char *what)
{
  if (!M->caller_done) BSRC_CUDA_CHECK(cudaEventCreateWithFlags(&M->caller_done, cudaEventDisableTiming), sink(M), what);
  BSRC_CUDA_CHECK(cudaEventRecord(M->caller_done, s), sink(M), what);
  M->caller_queued = true;
  return BSRC_CUDA_OK;
}

void free_pinned(double *&p)
{
  if (p) (void)cudaFreeHost(p);
  p = nullptr;
}

void release_staging(bsrc_cuda_matrix *M)
{
  dev_free(M->d_x, &M->bytes);
  dev_free(M->d_y, &M->bytes);
  dev_free(M->spmm_x, &M->bytes);
  dev_free(M->spmm_y, &M->bytes);
  free_pinned(M->h_x);
  free_pinned(M->h_y);
  free_pinned(M->spmm_hx);
  free_pinned(M->spmm_hy);
  M->spmm_hx_bytes = M->spmm_hy_bytes = 0;
}

static void release_structure(bsrc_cuda_matrix *M)
{
  release_slices(M);
  if (M->cus) cusparse_release(M->cus, &M->bytes);
  M->cus = nullptr;
  release_staging(M);
  release_tasks(M);
  release_hybrid(M);
  release_strips(M);
  dev_free(M->rowptr, &M->bytes);
  dev_free(M->colidx, &M->bytes);
  dev_free(M->values, &M->bytes);
  M->host_rowptr.clear();
  M->has_structure = M->has_values = false;
  M->nbrows = M->nbcols = M->bs = M->nblocks = 0;
}

static void destroy_events(bsrc_cuda_matrix *M)
{
  for (cudaEvent_t &e : M->piece_done) {
    if (e) (void)cudaEventDestroy(e);
    e = nullptr;
  }
  if (M->split_mark) (void)cudaEventDestroy(M->split_mark);
  M->split_mark = nullptr;
  if (M->down_stream) {
    (void)cudaStreamSynchronize(M->down_stream);
    (void)cudaStreamDestroy(M->down_stream);
  }
  M->down_stream = nullptr;
  M->have_events = false;
}

/* A failed creation of the staging events: the error cleared, those created destroyed. */
static bsrc_cuda_status events_failed(bsrc_cuda_matrix *M, cudaError_t err)
{
  (void)cudaGetLastError();
  destroy_events(M);
  return fail_cuda(sink(M), err, "staging events and stream (cudaEventCreate, cudaStreamCreate)");
}

/* The events of the download ring and the download stream, created on first use; they outlive
   set_structure (they do not depend on the sizes). */
bsrc_cuda_status ensure_events(bsrc_cuda_matrix *M)
{
  if (M->have_events) return BSRC_CUDA_OK;
  for (cudaEvent_t &e : M->piece_done) BSRC_CUDA_CHECK_OR(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), events_failed(M, bsrc_err));
  BSRC_CUDA_CHECK_OR(cudaEventCreateWithFlags(&M->split_mark, cudaEventDisableTiming), events_failed(M, bsrc_err));
  BSRC_CUDA_CHECK_OR(cudaStreamCreateWithFlags(&M->down_stream, cudaStreamNonBlocking), events_failed(M, bsrc_err));
  M->have_events = true;
  return BSRC_CUDA_OK;
}

/* A launch configuration refused: the error cleared, reported with the kernel, bs and threads. */
static bsrc_cuda_status configure_failed(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, cudaError_t err)
{
  (void)cudaGetLastError();
  return fail(sink(M), err == cudaErrorMemoryAllocation ? BSRC_CUDA_ERR_MEM : BSRC_CUDA_ERR_CUDA, "launch configuration of %s (bs %lld, %d threads): %s (%s)", bsrc_cuda_kernel_names[k], (long long)M->bs, M->threads_override[k], cudaGetErrorString(err), cudaGetErrorName(err));
}

/* M->cfg[k] up to date for one of our kernels. */
bsrc_cuda_status configured(bsrc_cuda_matrix *M, bsrc_cuda_kernel k)
{
  if (M->cfg_valid[k]) return BSRC_CUDA_OK;
  if (kernel_info(k).plan_on_use) { /* the grid may count what it plans (SLICED: the slices of its layout) */
    const bsrc_cuda_status ps = kernel_info(k).plan_on_use(M);
    if (ps != BSRC_CUDA_OK) return ps;
  }
  BSRC_CUDA_CHECK_OR(configure(k, view(M), tasks(M), lanes_of(M, k), M->dev, M->threads_override[k], &M->cfg[k]), configure_failed(M, k, bsrc_err));
  M->cfg_valid[k] = true;
  return BSRC_CUDA_OK;
}

/* Queues the product on stream s (M's own when null) on device arrays. */
bsrc_cuda_status queue_product(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, double alpha, const double *x, double beta, const double *in, double *out, cudaStream_t s)
{
  if (!s) s = M->stream;
  if (k == BSRC_CUDA_KERNEL_AUTO) k = M->auto_kernel;
  if (M->nbrows == 0) return BSRC_CUDA_OK;
  const kernel_desc &d = kernel_info(k);
  if (d.launch) {
    const bsrc_cuda_status cs = d.prepare ? d.prepare(M, s) : BSRC_CUDA_OK;
    if (cs != BSRC_CUDA_OK) return cs;
    const bsrc_cuda_status cc = configured(M, k);
    if (cc != BSRC_CUDA_OK) return cc;
    BSRC_CUDA_CHECK(launch(k, view(M), tasks(M), M->cfg[k], alpha, x, beta, in, out, s), sink(M), d.name);
    return BSRC_CUDA_OK;
  }
  return cusparse_multadd(&M->cus, view(M), s, d.cusparse, alpha, x, beta, in, out, &M->bytes, sink(M));
}

bsrc_cuda_status finish(bsrc_cuda_matrix *M, const char *what)
{
  M->own_queued = false;
  BSRC_CUDA_CHECK(cudaStreamSynchronize(M->stream), sink(M), what);
  return BSRC_CUDA_OK;
}

/* ---- shared helpers declared in bsrcuda_kernels.cuh ---- */

bsrc_cuda_status fail(error_sink e, bsrc_cuda_status s, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e.msg, e.len, fmt, ap);
  va_end(ap);
  return s;
}

bsrc_cuda_status fail_cuda(error_sink e, cudaError_t err, const char *what)
{
  const bsrc_cuda_status s = err == cudaErrorMemoryAllocation ? BSRC_CUDA_ERR_MEM : err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ? BSRC_CUDA_ERR_NODEVICE : BSRC_CUDA_ERR_CUDA;
  return fail(e, s, "%s: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
}

bsrc_cuda_status fail_cuda_cleared(error_sink e, cudaError_t err, const char *what)
{
  (void)cudaGetLastError();
  return fail_cuda(e, err, what);
}

/* A cudaMalloc refused: the error cleared (allocation failures are not sticky), b left empty. */
static bsrc_cuda_status alloc_failed(dev_buffer &b, size_t bytes, const char *what, error_sink e, cudaError_t err)
{
  (void)cudaGetLastError();
  b.ptr = nullptr;
  return fail(e, err == cudaErrorMemoryAllocation ? BSRC_CUDA_ERR_MEM : BSRC_CUDA_ERR_CUDA, "cudaMalloc of %zu bytes for %s: %s (%s)", bytes, what, cudaGetErrorString(err), cudaGetErrorName(err));
}

bsrc_cuda_status dev_alloc(dev_buffer &b, size_t bytes, const char *what, size_t *counter, error_sink e)
{
  dev_free(b, counter);
  if (bytes == 0) return BSRC_CUDA_OK;
  BSRC_CUDA_CHECK_OR(cudaMalloc(&b.ptr, bytes), alloc_failed(b, bytes, what, e, bsrc_err));
  b.bytes = bytes;
  if (counter) *counter += bytes;
  return BSRC_CUDA_OK;
}

void dev_free(dev_buffer &b, size_t *counter)
{
  if (b.ptr) {
    (void)cudaFree(b.ptr);
    if (counter) *counter -= b.bytes;
  }
  b.ptr   = nullptr;
  b.bytes = 0;
}

} // namespace bsrc

using namespace bsrc;

/* ---- C interface ---- */

extern "C" int bsrc_cuda_device_count(void)
{
  int n = 0;
  BSRC_CUDA_CHECK_OR(cudaGetDeviceCount(&n), cleared(bsrc_err, 0));
  return n;
}

/* A's device properties and stream, read and created on `device`. */
static bsrc_cuda_status open_device(bsrc_cuda_matrix *A, int device)
{
  device_scope   ds(device);
  cudaDeviceProp prop;
  BSRC_CUDA_CHECK(ds.error(), sink(nullptr), "bsrc_cuda_create");
  BSRC_CUDA_CHECK(cudaGetDeviceProperties(&prop, device), sink(nullptr), "bsrc_cuda_create");
  /* A blocking stream: it orders itself after work the caller queued on the legacy default stream
     (cudaMemcpy / cudaMemset of the inputs), so device arrays filled that way are safe to pass. */
  BSRC_CUDA_CHECK(cudaStreamCreateWithFlags(&A->stream, cudaStreamDefault), sink(nullptr), "bsrc_cuda_create");
  A->dev.sm_count               = prop.multiProcessorCount;
  A->dev.max_threads_per_sm     = prop.maxThreadsPerMultiProcessor;
  A->dev.shared_per_block       = prop.sharedMemPerBlock;
  A->dev.shared_per_block_optin = std::max(prop.sharedMemPerBlockOptin, prop.sharedMemPerBlock);
  A->dev.cc_major               = prop.major;
  return BSRC_CUDA_OK;
}

extern "C" bsrc_cuda_status bsrc_cuda_create(int device, bsrc_cuda_matrix **M)
{
  if (!M) return fail(sink(nullptr), BSRC_CUDA_ERR_ARG, "bsrc_cuda_create: output pointer is NULL");
  *M          = nullptr;
  const int n = bsrc_cuda_device_count();
  if (n == 0) return fail(sink(nullptr), BSRC_CUDA_ERR_NODEVICE, "bsrc_cuda_create: no CUDA device visible");
  if (device < 0 || device >= n) return fail(sink(nullptr), BSRC_CUDA_ERR_ARG, "bsrc_cuda_create: device %d out of range [0, %d)", device, n);

  bsrc_cuda_matrix *A = new (std::nothrow) bsrc_cuda_matrix;
  if (!A) return fail(sink(nullptr), BSRC_CUDA_ERR_MEM, "bsrc_cuda_create: out of host memory");
  A->device                = device;
  const bsrc_cuda_status s = open_device(A, device);
  if (s != BSRC_CUDA_OK) {
    delete A;
    return s;
  }
  *M = A;
  return BSRC_CUDA_OK;
}

extern "C" void bsrc_cuda_destroy(bsrc_cuda_matrix *M)
{
  if (!M) return;
  device_scope ds(M->device);
  if (M->stream) {
    (void)join_caller(M, "destroy");
    (void)cudaStreamSynchronize(M->stream);
  }
  release_structure(M);
  destroy_events(M);
  if (M->caller_done) (void)cudaEventDestroy(M->caller_done);
  if (M->own_done) (void)cudaEventDestroy(M->own_done);
  if (M->stream) (void)cudaStreamDestroy(M->stream);
  delete M;
}

extern "C" const char *bsrc_cuda_last_error(const bsrc_cuda_matrix *M)
{
  return M ? M->msg : orphan_msg;
}

extern "C" bsrc_cuda_status bsrc_cuda_set_structure(bsrc_cuda_matrix *M, bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx bs, const bsrk_idx *rowptr, const bsrk_idx *colidx)
{
  if (!M) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_structure: matrix is NULL");
  if (nbrows < 0 || nbcols < 0) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_structure: negative size (%lld block rows, %lld block columns)", (long long)nbrows, (long long)nbcols);
  if (bs < 1 || bs > 4096) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_structure: block size %lld outside [1, 4096]", (long long)bs);
  if (!rowptr) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_structure: rowptr is NULL");
  if (rowptr[0] != 0) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_structure: rowptr[0] = %lld, expected 0", (long long)rowptr[0]);
  for (bsrk_idx r = 0; r < nbrows; ++r)
    if (rowptr[r + 1] < rowptr[r]) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_structure: rowptr decreases at block row %lld", (long long)r);
  const bsrk_idx nblocks = rowptr[nbrows];
  if (nblocks > 0 && !colidx) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_structure: colidx is NULL with %lld blocks", (long long)nblocks);
  for (bsrk_idx k = 0; k < nblocks; ++k)
    if (colidx[k] < 0 || colidx[k] >= nbcols) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_structure: colidx[%lld] = %lld outside [0, %lld)", (long long)k, (long long)colidx[k], (long long)nbcols);

  size_t value_bytes = 0, bs2 = (size_t)bs * (size_t)bs;
  if (!byte_count((size_t)nblocks, bs2 * sizeof(double), &value_bytes)) return fail(sink(M), BSRC_CUDA_ERR_MEM, "set_structure: %lld blocks of %lldx%lld need more than SIZE_MAX bytes", (long long)nblocks, (long long)bs, (long long)bs);

  device_scope ds(M->device);
  BSRC_CUDA_CHECK(ds.error(), sink(M), "cudaSetDevice");
  (void)join_caller(M, "set_structure");
  (void)cudaStreamSynchronize(M->stream);
  release_structure(M);

  bsrc_cuda_status s = dev_alloc(M->rowptr, ((size_t)nbrows + 1) * sizeof(bsrk_idx), "rowptr", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = dev_alloc(M->colidx, (size_t)nblocks * sizeof(bsrk_idx), "colidx", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = dev_alloc(M->values, value_bytes, "values", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = upload(M, M->rowptr, rowptr, ((size_t)nbrows + 1) * sizeof(bsrk_idx), "upload of rowptr");
  if (s == BSRC_CUDA_OK) s = upload(M, M->colidx, colidx, (size_t)nblocks * sizeof(bsrk_idx), "upload of colidx");
  if (s != BSRC_CUDA_OK) {
    release_structure(M);
    return s;
  }
  M->nbrows  = nbrows;
  M->nbcols  = nbcols;
  M->bs      = bs;
  M->nblocks = nblocks;
  try {
    M->host_rowptr.assign(rowptr, rowptr + (size_t)nbrows + 1);
  } catch (const std::bad_alloc &) {
    release_structure(M);
    return fail(sink(M), BSRC_CUDA_ERR_MEM, "set_structure: out of host memory for the row pointers");
  }
  s = build_tasks(M);
  if (s != BSRC_CUDA_OK) {
    release_structure(M);
    return s;
  }

  M->max_row_blocks = 0;
  for (bsrk_idx r = 0; r < nbrows; ++r) M->max_row_blocks = std::max(M->max_row_blocks, rowptr[r + 1] - rowptr[r]);
  const double mean  = nbrows > 0 ? (double)nblocks / (double)nbrows : 0.0;
  M->lanes           = warp_row_lanes(bs, mean);
  int64_t short_rows = 0, short_blocks = 0;
  for (bsrk_idx r = 0; r < nbrows; ++r) {
    const int64_t n = rowptr[r + 1] - rowptr[r];
    if (n * bs < kHybridShortColumns) {
      ++short_rows;
      short_blocks += n;
    }
  }
  M->hybrid_lanes = hybrid_row_lanes(bs, short_rows > 0 ? (double)short_blocks / (double)short_rows : mean);
  /* each kernel's own work plan (the task partition above serves them all), once per plan */
  for (int k = 0; k < BSRC_CUDA_KERNEL_COUNT; ++k) {
    const plan_fn plan = kernel_table[k].plan;
    bool          seen = false;
    for (int j = 0; j < k; ++j) seen = seen || kernel_table[j].plan == plan;
    if (!plan || seen) continue;
    s = plan(M);
    if (s != BSRC_CUDA_OK) {
      release_structure(M);
      return s;
    }
  }
  M->auto_kernel   = auto_choice(nbrows, nblocks, bs, M->max_row_blocks, M->max_task_rows, M->slice_blocks);
  M->has_structure = true;
  M->has_values    = false;
  return BSRC_CUDA_OK;
}

extern "C" bsrc_cuda_status bsrc_cuda_set_values(bsrc_cuda_matrix *M, const double *values)
{
  if (!M) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_values: matrix is NULL");
  if (!M->has_structure) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_values: no structure set (call bsrc_cuda_set_structure first)");
  if (M->nblocks > 0 && !values) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_values: values is NULL");
  device_scope ds(M->device);
  BSRC_CUDA_CHECK(ds.error(), sink(M), "cudaSetDevice");
  bsrc_cuda_status s = join_caller(M, "set_values: ordering after queued products");
  if (s == BSRC_CUDA_OK) s = upload(M, M->values, values, M->values.bytes, "upload of the values");
  if (s != BSRC_CUDA_OK) return s;
  M->has_values = true;
  ++M->values_epoch;
  return BSRC_CUDA_OK;
}

extern "C" bsrc_cuda_kernel bsrc_cuda_auto_kernel(const bsrc_cuda_matrix *M)
{
  return M ? M->auto_kernel : BSRC_CUDA_KERNEL_VECTOR_UNROLLED;
}

extern "C" bsrc_cuda_status bsrc_cuda_multadd_device_async(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, double alpha, const double *x_dev, double beta, const double *in_dev, double *out_dev)
{
  const bsrc_cuda_status s = check_product_args(M, k, x_dev, beta, in_dev, out_dev);
  if (s != BSRC_CUDA_OK) return s;
  device_scope ds(M->device);
  BSRC_CUDA_CHECK(ds.error(), sink(M), "cudaSetDevice");
  const bsrc_cuda_status j = join_caller(M, "device product: ordering after queued products");
  if (j != BSRC_CUDA_OK) return j;
  M->own_queued = true;
  return queue_product(M, k, alpha, x_dev, beta, in_dev, out_dev);
}

extern "C" bsrc_cuda_status bsrc_cuda_multadd_device_on(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, void *stream, double alpha, const double *x_dev, double beta, const double *in_dev, double *out_dev)
{
  const bsrc_cuda_status s = check_product_args(M, k, x_dev, beta, in_dev, out_dev);
  if (s != BSRC_CUDA_OK) return s;
  if (M->split_open) return fail(sink(M), BSRC_CUDA_ERR_ARG, "multadd_device_on: a split product is open (bsrc_cuda_split_begin without its end)");
  device_scope ds(M->device);
  BSRC_CUDA_CHECK(ds.error(), sink(M), "cudaSetDevice");
  const cudaStream_t cs = stream ? (cudaStream_t)stream : cudaStreamLegacy;
  bsrc_cuda_status   st = join_own(M, cs, "device product: ordering after M's own stream");
  if (st != BSRC_CUDA_OK) return st;
  st = queue_product(M, k, alpha, x_dev, beta, in_dev, out_dev, cs);
  if (st != BSRC_CUDA_OK) return st;
  return mark_caller(M, cs, "device product: recording its completion");
}

extern "C" bsrc_cuda_status bsrc_cuda_multadd_device(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, double alpha, const double *x_dev, double beta, const double *in_dev, double *out_dev)
{
  bsrc_cuda_status s = bsrc_cuda_multadd_device_async(M, k, alpha, x_dev, beta, in_dev, out_dev);
  if (s != BSRC_CUDA_OK) {
    if (M && M->stream) (void)cudaStreamSynchronize(M->stream);
    return s;
  }
  device_scope ds(M->device);
  return finish(M, "product (device entry)");
}

/* A refused (un)registration, cleared (not sticky: later calls must not see it) and reported. */
extern "C" size_t bsrc_cuda_device_bytes(const bsrc_cuda_matrix *M)
{
  return M ? M->bytes : 0;
}

extern "C" void *bsrc_cuda_stream(const bsrc_cuda_matrix *M)
{
  return M ? (void *)M->stream : nullptr;
}

extern "C" bsrc_cuda_status bsrc_cuda_set_task_count(bsrc_cuda_matrix *M, bsrk_idx ntasks)
{
  if (!M) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_task_count: matrix is NULL");
  if (ntasks < 0) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_task_count: %lld tasks", (long long)ntasks);
  M->tasks_wanted = ntasks;
  if (!M->has_structure) return BSRC_CUDA_OK;
  device_scope ds(M->device);
  BSRC_CUDA_CHECK(ds.error(), sink(M), "cudaSetDevice");
  (void)join_caller(M, "set_task_count");
  (void)cudaStreamSynchronize(M->stream);
  const bsrc_cuda_status s = build_tasks(M);
  if (s != BSRC_CUDA_OK) M->has_structure = M->has_values = false; /* unusable until the next set_structure */
  else M->auto_kernel = auto_choice(M->nbrows, M->nblocks, M->bs, M->max_row_blocks, M->max_task_rows, M->slice_blocks);
  return s;
}

extern "C" bsrk_idx bsrc_cuda_task_count(const bsrc_cuda_matrix *M)
{
  return M ? M->ntasks : 0;
}

extern "C" bsrc_cuda_status bsrc_cuda_set_threads(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, int threads)
{
  if (!M) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_threads: matrix is NULL");
  if (!is_own_kernel(k)) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_threads: kernel %d is not one of ours", (int)k);
  if (threads != 0 && (threads < 32 || threads > 1024 || threads % 32 != 0)) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_threads: %d threads (a multiple of 32 in [32, 1024], or 0)", threads);
  /* kernels compiled for fewer threads a block (SLICED: its registers would not fit 1024 threads) */
  const kernel_desc &d = kernel_info(k);
  if (threads > d.max_threads) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_threads: %d threads for %s (a multiple of 32 in [32, %d], or 0)", threads, d.name, d.max_threads);
  M->threads_override[k] = threads;
  M->cfg_valid[k]        = false;
  return BSRC_CUDA_OK;
}

extern "C" bsrc_cuda_status bsrc_cuda_set_lanes(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, int lanes)
{
  if (!M) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_lanes: matrix is NULL");
  if (!has_lanes(k)) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_lanes: kernel %d has no lanes per row (warp_row or hybrid)", (int)k);
  const kernel_desc &d     = kernel_info(k);
  const bool         small = (lanes == 1 || lanes == 2) && lanes >= d.min_lanes; /* HYBRID only: WARP_ROW's tables start at 4 */
  if (lanes != 0 && lanes != 4 && lanes != 8 && lanes != 16 && lanes != 32 && !small) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_lanes: %d lanes for %s (4, 8, 16 or 32%s, or 0)", lanes, d.name, d.min_lanes < 4 ? "; 1 or 2 too" : "");
  M->lanes_override[k] = lanes;
  M->cfg_valid[k]      = false;
  if (!d.plan || !M->has_structure) return BSRC_CUDA_OK; /* a plan built for the lanes (HYBRID's) is built again */
  device_scope ds(M->device);
  BSRC_CUDA_CHECK(ds.error(), sink(M), "cudaSetDevice");
  (void)join_caller(M, "set_lanes");
  (void)cudaStreamSynchronize(M->stream); /* a queued product may still read the old plan */
  const bsrc_cuda_status s = d.plan(M);
  if (s != BSRC_CUDA_OK) M->has_structure = M->has_values = false; /* unusable until the next set_structure */
  return s;
}

extern "C" bsrc_cuda_status bsrc_cuda_launch_info(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, int *threads, int *grid, int *blocks_per_sm, int *lanes)
{
  if (!M) return fail(sink(M), BSRC_CUDA_ERR_ARG, "launch_info: matrix is NULL");
  if ((int)k < 0 || k >= BSRC_CUDA_KERNEL_COUNT) return fail(sink(M), BSRC_CUDA_ERR_ARG, "launch_info: unknown kernel %d", (int)k);
  if (!M->has_structure) return fail(sink(M), BSRC_CUDA_ERR_ARG, "launch_info: no structure set");
  if (k == BSRC_CUDA_KERNEL_AUTO) k = M->auto_kernel;
  launch_config c{};
  if (is_own_kernel(k)) {
    device_scope           ds(M->device);
    const bsrc_cuda_status s = configured(M, k);
    if (s != BSRC_CUDA_OK) return s;
    c = M->cfg[k];
  }
  if (threads) *threads = c.threads;
  if (grid) *grid = c.grid;
  if (blocks_per_sm) *blocks_per_sm = c.blocks_per_sm;
  if (lanes) *lanes = c.lanes;
  return BSRC_CUDA_OK;
}

extern "C" int bsrc_cuda_spmv_bsr_layout(const bsrc_cuda_matrix *M)
{
  return M ? cusparse_spmv_bsr_layout(M->cus) : -1;
}
