/*
   The entry points of bsrcuda.h on host arrays: x and in staged up through M's pinned buffers piece by
   piece (the host copies overlapping the DMAs, a page-locked array moved by one DMA), the product
   queued, out brought back the same way (WARP_ROW, SLICED and the task kernels into a page-locked out
   in row ranges whose downloads overlap the next range's product); the two halves of an MPI rank's
   split product; the block SpMM's staging of its host arrays; host memory registration.
*/
#include "bsrcuda_kernel_table.cuh"
#include "bsrcuda_plan.cuh"

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
  #include <omp.h>
#endif

namespace bsrc {
namespace {

/* Threads of the host copies: omp_get_max_threads(), at most this many (a few cores already reach
   memcpy's share of the memory bandwidth; more would only take cores from the caller's ranks). */
constexpr int staging_max_threads = 8;
/* Least bytes one thread copies: a smaller share costs more in fork/join than it saves. */
constexpr size_t staging_min_part_bytes = (size_t)64 << 10;

/* The pinned host buffers of the staging. */
bsrc_cuda_status alloc_pinned_staging(bsrc_cuda_matrix *M, size_t xbytes, size_t ybytes)
{
  const char *what = "pinned host staging buffers (cudaMallocHost)";
  BSRC_CUDA_CHECK_OR(cudaMallocHost((void **)&M->h_x, std::max<size_t>(xbytes, sizeof(double))), fail_cuda_cleared(sink(M), bsrc_err, what));
  BSRC_CUDA_CHECK_OR(cudaMallocHost((void **)&M->h_y, std::max<size_t>(ybytes, sizeof(double))), fail_cuda_cleared(sink(M), bsrc_err, what));
  return BSRC_CUDA_OK;
}

/* Pinned host and device staging for bsrc_cuda_multadd_host, allocated on first use. */
bsrc_cuda_status ensure_staging(bsrc_cuda_matrix *M)
{
  const bsrc_cuda_status e = ensure_events(M);
  if (e != BSRC_CUDA_OK) return e;
  if (M->h_x) return BSRC_CUDA_OK;
  const size_t     xbytes = x_bytes(M), ybytes = y_bytes(M);
  bsrc_cuda_status s = dev_alloc(M->d_x, xbytes, "device staging of x", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = dev_alloc(M->d_y, ybytes, "device staging of in/out", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = alloc_pinned_staging(M, xbytes, ybytes);
  if (s != BSRC_CUDA_OK) release_staging(M);
  return s;
}

/* How bsrc_cuda_multadd_host stages one call: piece size and host-copy threads. BSRC_CUDA_STAGING
   overrides the defaults, for benchmarks only: "serial" = each vector as one piece copied by one
   thread (the staging before pieces, kept for before/after timings), "<KiB>" or "<KiB>x<threads>"
   = another piece size (and thread count). */
struct staging_plan {
  size_t chunk;
  int    threads;
};

staging_plan staging_settings()
{
  int available = 1;
#ifdef _OPENMP
  available = omp_get_max_threads();
#endif
  staging_plan p{staging_chunk_bytes, std::max(1, std::min(available, staging_max_threads))};
  const char  *env = getenv("BSRC_CUDA_STAGING");
  if (env && *env) {
    if (strcmp(env, "serial") == 0) return staging_plan{SIZE_MAX, 1};
    unsigned long long kib = 0;
    int                t   = 0;
    const int          n   = sscanf(env, "%llux%d", &kib, &t);
    if (n >= 1 && kib > 0 && kib <= (unsigned long long)(SIZE_MAX >> 10)) p.chunk = (size_t)kib << 10;
    if (n == 2 && t >= 1) p.threads = std::min(t, 64);
  }
  return p;
}

/* memcpy by up to `threads` OpenMP threads, each taking a contiguous share of whole cache lines and
   of at least staging_min_part_bytes; one thread (plain memcpy) below that or without OpenMP. */
void host_copy(void *dst, const void *src, size_t bytes, int threads)
{
  if (bytes == 0) return;
  const size_t parts = std::min<size_t>((size_t)std::max(threads, 1), bytes / staging_min_part_bytes);
  if (parts <= 1) {
    memcpy(dst, src, bytes);
    return;
  }
#ifdef _OPENMP
  const size_t    share = ((bytes + parts - 1) / parts + 63) & ~(size_t)63;
  const long long np    = (long long)parts;
  #pragma omp     parallel for num_threads((int)parts) schedule(static, 1)
  for (long long q = 0; q < np; ++q) {
    const size_t begin = (size_t)q * share;
    if (begin < bytes) memcpy((char *)dst + begin, (const char *)src + begin, std::min(share, bytes - begin));
  }
#else
  memcpy(dst, src, bytes);
#endif
}

/* A staged product that stops half-way: waits for what was queued (no DMA may touch the pinned
   buffers once we return, the next call refills them), clears a non-sticky error, reports err. */
bsrc_cuda_status abandon(bsrc_cuda_matrix *M, cudaError_t err, const char *what)
{
  (void)cudaStreamSynchronize(M->stream);
  (void)cudaGetLastError();
  return fail_cuda(sink(M), err, what);
}

/* Whether the host range [p, p + bytes) is page-locked (bsrc_cuda_host_register, cudaHostRegister,
   cudaMallocHost), so that a DMA can run straight from or to it. Both ends are asked: a range that
   runs past a registration counts as pageable. Any error (a pointer the runtime does not know, an
   old runtime that rejects pageable pointers) counts as pageable and is cleared, so that it does not
   surface at a later call. */
bool page_locked(const void *p, size_t bytes)
{
  if (!p || bytes == 0) return false;
  const void *ends[2] = {p, (const char *)p + bytes - 1};
  for (const void *e : ends) {
    cudaPointerAttributes a;
    BSRC_CUDA_CHECK_OR(cudaPointerGetAttributes(&a, e), cleared(bsrc_err, false));
    if (a.type != cudaMemoryTypeHost) return false;
  }
  return true;
}

/* Host src -> device dev through the pinned buffer, piece by piece: each piece is copied into its
   place in the pinned buffer and its DMA queued on M's stream at once, so piece k moves while the
   CPU copies piece k+1. Returns the first CUDA error (pieces queued before it may still be moving).
   A page-locked src (the caller registered it: PETSc vectors with -mat_bsrcustom_cuda_pin_vectors)
   needs no host copy: one DMA straight from it is queued instead, and it may still be reading src
   when this returns (the callers' contracts say until when src must stay unchanged). CUDA refuses
   (cudaErrorInvalidValue) a range that is not all inside one registration, e.g. across two; such a
   range is staged like a pageable one. */
cudaError_t stage_up(bsrc_cuda_matrix *M, const staging_plan &plan, void *dev, void *pinned, const void *src, size_t bytes)
{
  if (page_locked(src, bytes)) {
    const cudaError_t err = cudaMemcpyAsync(dev, src, bytes, cudaMemcpyHostToDevice, M->stream);
    if (err != cudaErrorInvalidValue) return err;
    (void)cudaGetLastError();
  }
  for (size_t off = 0; off < bytes;) {
    const size_t n = std::min(plan.chunk, bytes - off);
    host_copy((char *)pinned + off, (const char *)src + off, n, plan.threads);
    BSRC_CUDA_CHECK_OR(cudaMemcpyAsync((char *)dev + off, (char *)pinned + off, n, cudaMemcpyHostToDevice, M->stream), bsrc_err);
    off += n;
  }
  return cudaSuccess;
}

/* Device dev (written by work already queued on M's stream) -> host dst through the pinned buffer:
   the pieces' DMAs are queued up to staging_ring ahead, each followed by its event; the CPU waits for
   piece k's event, queues the next piece on the freed event, and copies piece k out while the later
   pieces move. Errors of the queued product surface at the first wait ("product (host entry)").
   A page-locked dst takes one DMA straight into it and a wait for the stream instead (same
   messages; a range CUDA refuses, as in stage_up, goes the staged way); either way dst holds the
   result when this returns. dst_locked: page_locked(dst, bytes) when the caller has asked already. */
bsrc_cuda_status stage_down(bsrc_cuda_matrix *M, const staging_plan &plan, void *dst, void *pinned, const void *dev, size_t bytes, const bool *dst_locked = nullptr)
{
  if (dst_locked ? *dst_locked : page_locked(dst, bytes)) {
    const cudaError_t err = cudaMemcpyAsync(dst, dev, bytes, cudaMemcpyDeviceToHost, M->stream);
    if (err == cudaSuccess) { /* cudaErrorInvalidValue: the staged way below */
      BSRC_CUDA_CHECK_OR(cudaStreamSynchronize(M->stream), abandon(M, bsrc_err, "product (host entry)"));
      return BSRC_CUDA_OK;
    }
    if (err != cudaErrorInvalidValue) return abandon(M, err, "device-to-host copy of out");
    (void)cudaGetLastError();
  }
  const size_t pieces = bytes == 0 ? 0 : (bytes - 1) / plan.chunk + 1;
  auto         queue  = [&](size_t k) -> cudaError_t {
    const size_t off = k * plan.chunk, n = std::min(plan.chunk, bytes - off);
    BSRC_CUDA_CHECK_OR(cudaMemcpyAsync((char *)pinned + off, (const char *)dev + off, n, cudaMemcpyDeviceToHost, M->stream), bsrc_err);
    BSRC_CUDA_CHECK_OR(cudaEventRecord(M->piece_done[k % staging_ring], M->stream), bsrc_err);
    return cudaSuccess;
  };
  size_t queued = 0;
  for (; queued < pieces && queued < (size_t)staging_ring; ++queued) BSRC_CUDA_CHECK_OR(queue(queued), abandon(M, bsrc_err, "device-to-host copy of out"));
  for (size_t k = 0; k < pieces; ++k) {
    BSRC_CUDA_CHECK_OR(cudaEventSynchronize(M->piece_done[k % staging_ring]), abandon(M, bsrc_err, "product (host entry)"));
    if (queued < pieces) { /* piece k's event has fired: it can mark piece `queued` now */
      BSRC_CUDA_CHECK_OR(queue(queued++), abandon(M, bsrc_err, "device-to-host copy of out"));
    }
    const size_t off = k * plan.chunk;
    host_copy((char *)dst + off, (const char *)pinned + off, std::min(plan.chunk, bytes - off), plan.threads);
  }
  return BSRC_CUDA_OK;
}

/* The chunks of an overlapped product queued: each chunk's product on M's stream, its download on the
   download stream after it; the first error stops the queueing. */
cudaError_t queue_overlapped_chunks(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, double alpha, const double *dx, double beta, double *out)
{
  const kernel_desc &d     = kernel_info(k);
  double            *dy    = (double *)M->d_y.ptr;
  const bool         tasky = d.tasks;
  for (int c = 0; c < overlap_chunks; ++c) {
    /* ranges start at multiples of the kernel's row unit (SLICED: whole slices); task kernels: at the task ranges' rows */
    const int64_t  unit = std::max(1, d.row_unit);
    const bsrk_idx r0   = tasky ? M->overlap_row[c] : (bsrk_idx)((int64_t)M->nbrows * c / overlap_chunks / unit * unit);
    const bsrk_idx r1   = tasky ? M->overlap_row[c + 1] : c + 1 == overlap_chunks ? M->nbrows : (bsrk_idx)((int64_t)M->nbrows * (c + 1) / overlap_chunks / unit * unit);
    const size_t   off = (size_t)r0 * (size_t)M->bs, n = (size_t)(r1 - r0) * (size_t)M->bs;
    if (tasky) BSRC_CUDA_CHECK_OR(launch_task_range(k, view(M), tasks(M), M->cfg[k], M->overlap_task[c], M->overlap_task[c + 1], alpha, dx, beta, dy, dy, M->stream), bsrc_err);
    else BSRC_CUDA_CHECK_OR(launch_row_range(k, view(M), tasks(M), M->cfg[k], r0, r1, alpha, dx, beta, dy, dy, M->stream), bsrc_err);
    BSRC_CUDA_CHECK_OR(cudaEventRecord(M->piece_done[c], M->stream), bsrc_err);
    BSRC_CUDA_CHECK_OR(cudaStreamWaitEvent(M->down_stream, M->piece_done[c], 0), bsrc_err);
    if (n > 0) BSRC_CUDA_CHECK_OR(cudaMemcpyAsync(out + off, dy + off, n * sizeof(double), cudaMemcpyDeviceToHost, M->down_stream), bsrc_err);
  }
  return cudaSuccess;
}

/* WARP_ROW, SLICED or a task kernel (k) into a page-locked out in overlap_chunks row ranges (a task
   kernel's ranges follow its task ranges, overlap_task): range c's download (on the
   download stream, after range c's product) overlaps the product of range c + 1, so of the
   download only the last range's is not hidden. dx (and dy holding in, beta != 0) are queued on
   M's stream already. Returns once out holds the result. */
bsrc_cuda_status overlapped_product(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, double alpha, const double *dx, double beta, double *out)
{
  const kernel_desc &d = kernel_info(k);
  bsrc_cuda_status   s = d.prepare ? d.prepare(M, M->stream) : BSRC_CUDA_OK;
  if (s == BSRC_CUDA_OK) s = configured(M, k);
  if (s != BSRC_CUDA_OK) {
    (void)cudaStreamSynchronize(M->stream);
    return s;
  }
  const cudaError_t queued    = queue_overlapped_chunks(M, k, alpha, dx, beta, out);
  const cudaError_t wait_down = cudaStreamSynchronize(M->down_stream);
  BSRC_CUDA_CHECK_OR(queued, abandon(M, bsrc_err, "overlapped product (host entry)"));
  BSRC_CUDA_CHECK_OR(cudaStreamSynchronize(M->stream), abandon(M, bsrc_err, "product (host entry)")); /* errors of the products surface here */
  BSRC_CUDA_CHECK_OR(wait_down, abandon(M, bsrc_err, "product (host entry)"));
  return BSRC_CUDA_OK;
}

/* The host entry points' first step: x into d_x and, when beta != 0, in into d_y (stage_up), the
   staging buffers allocated on first use. in is then read in full, by the host or by a DMA queued
   on the stream, before any product writes d_y, so in may alias the caller's out. */
bsrc_cuda_status stage_inputs(bsrc_cuda_matrix *M, const staging_plan &plan, const double *x, double beta, const double *in, const char *what)
{
  const bsrc_cuda_status s = ensure_staging(M);
  if (s != BSRC_CUDA_OK) return s;
  BSRC_CUDA_CHECK_OR(stage_up(M, plan, (double *)M->d_x.ptr, M->h_x, x, x_bytes(M)), abandon(M, bsrc_err, what));
  if (beta != 0.0) BSRC_CUDA_CHECK_OR(stage_up(M, plan, (double *)M->d_y.ptr, M->h_y, in, y_bytes(M)), abandon(M, bsrc_err, what));
  return BSRC_CUDA_OK;
}
} // namespace

/* ---- the block SpMM's host arrays (bsrcuda_spmm.cu): k columns through pinned buffers ---- */

/* cudaMallocHost refused: p null, the error cleared; false. */
static bool pinned_refused(double *&p, cudaError_t err)
{
  p = nullptr;
  return cleared(err, false);
}

/* *p (pinned, *have bytes) at least `bytes`; false (CUDA's error cleared) where page-locked memory
   is refused: the caller then copies from pageable memory instead. */
static bool spmm_pinned(double *&p, size_t &have, size_t bytes)
{
  if (have >= bytes) return true;
  free_pinned(p);
  have = 0;
  BSRC_CUDA_CHECK_OR(cudaMallocHost((void **)&p, bytes), pinned_refused(p, bsrc_err));
  have = bytes;
  return true;
}

bsrc_cuda_status spmm_stage_up(bsrc_cuda_matrix *M, double *dev, const double *src, int64_t rows, int64_t k, int64_t ld, bool y)
{
  if (rows == 0 || k == 0) return BSRC_CUDA_OK;
  const size_t col = (size_t)rows * sizeof(double), bytes = col * (size_t)k;
  double     *&pinned = y ? M->spmm_hy : M->spmm_hx;
  const char  *what   = "block SpMM: host-to-device copy of X / Y";
  if (!spmm_pinned(pinned, y ? M->spmm_hy_bytes : M->spmm_hx_bytes, bytes)) BSRC_CUDA_CHECK_OR(cudaMemcpy2DAsync(dev, col, src, (size_t)ld * sizeof(double), col, (size_t)k, cudaMemcpyHostToDevice, M->stream), abandon(M, bsrc_err, what));
  else {
    const staging_plan plan = staging_settings();
    if (ld == rows) BSRC_CUDA_CHECK_OR(stage_up(M, plan, dev, pinned, src, bytes), abandon(M, bsrc_err, what));
    for (int64_t j = 0; ld != rows && j < k; ++j) BSRC_CUDA_CHECK_OR(stage_up(M, plan, dev + j * rows, pinned + j * rows, src + j * ld, col), abandon(M, bsrc_err, what));
  }
  return BSRC_CUDA_OK;
}

bsrc_cuda_status spmm_stage_down(bsrc_cuda_matrix *M, double *dst, int64_t ld, const double *dev, int64_t rows, int64_t k)
{
  bsrc_cuda_status s = ensure_events(M);
  if (s != BSRC_CUDA_OK) {
    (void)cudaStreamSynchronize(M->stream);
    return s;
  }
  const size_t col = (size_t)rows * sizeof(double), bytes = col * (size_t)k;
  if (rows == 0 || k == 0) return finish(M, "block SpMM (host entry)");
  if (!spmm_pinned(M->spmm_hy, M->spmm_hy_bytes, bytes)) {
    BSRC_CUDA_CHECK_OR(cudaMemcpy2DAsync(dst, (size_t)ld * sizeof(double), dev, col, col, (size_t)k, cudaMemcpyDeviceToHost, M->stream), abandon(M, bsrc_err, "block SpMM (host entry)"));
    BSRC_CUDA_CHECK_OR(cudaStreamSynchronize(M->stream), abandon(M, bsrc_err, "block SpMM (host entry)"));
    return BSRC_CUDA_OK;
  }
  const staging_plan plan = staging_settings();
  if (ld == rows) return stage_down(M, plan, dst, M->spmm_hy, dev, bytes);
  for (int64_t j = 0; j < k && s == BSRC_CUDA_OK; ++j) s = stage_down(M, plan, dst + j * ld, M->spmm_hy + j * rows, dev + j * rows, col);
  return s;
}

} // namespace bsrc

using namespace bsrc;

extern "C" bsrc_cuda_status bsrc_cuda_multadd_host(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, double alpha, const double *x, double beta, const double *in, double *out)
{
  bsrc_cuda_status s = check_product_args(M, k, x, beta, in, out);
  if (s != BSRC_CUDA_OK) return s;
  if (M->nbrows == 0) return BSRC_CUDA_OK;
  device_scope ds(M->device);
  BSRC_CUDA_CHECK(ds.error(), sink(M), "cudaSetDevice");
  s = join_caller(M, "host product: ordering after queued products");
  if (s != BSRC_CUDA_OK) return s;
  const staging_plan plan = staging_settings();
  s                       = stage_inputs(M, plan, x, beta, in, "host-to-device copy of x / in");
  if (s != BSRC_CUDA_OK) return s;
  const size_t ybytes = y_bytes(M);
  double      *dx = (double *)M->d_x.ptr, *dy = (double *)M->d_y.ptr;
  /* out is asked whether it is page-locked once (cudaPointerGetAttributes calls): here only where the
     overlapped download could run, else by stage_down once the product is queued, so that the
     calls overlap the kernel (asked before every launch, they showed in the time of MatMult) */
  const bsrc_cuda_kernel kr = k == BSRC_CUDA_KERNEL_AUTO ? M->auto_kernel : k;
  /* row ranges (SLICED's sorted layout has none), or task ranges */
  const kernel_desc &d       = kernel_info(kr);
  const bool         ranged  = (d.row_unit > 0 && !(kr == BSRC_CUDA_KERNEL_SLICED && M->slices_sorted)) || (d.tasks && M->ntasks >= overlap_chunks);
  const bool         overlap = ranged && ybytes >= overlap_min_bytes;
  const bool         locked  = overlap && page_locked(out, ybytes);
  if (locked) return overlapped_product(M, kr, alpha, dx, beta, out);
  s = queue_product(M, k, alpha, dx, beta, dy, dy);
  if (s != BSRC_CUDA_OK) {
    (void)cudaStreamSynchronize(M->stream);
    return s;
  }
  return stage_down(M, plan, out, M->h_y, dy, ybytes, overlap ? &locked : nullptr);
}

/* The split product of one MPI rank (see bsrcuda.h). begin: x (and in) staged on L's stream and L's
   product queued behind them; nothing waits, so the caller's halo exchange runs while they move. */
extern "C" bsrc_cuda_status bsrc_cuda_split_begin(bsrc_cuda_matrix *L, bsrc_cuda_kernel kl, double alpha, const double *x, double beta, const double *in)
{
  /* out is only known at split_end: check the rest here, any address standing in for it (x may be NULL
     where L has no columns: a rank's block of a prolongator with no coarse points there) */
  bsrc_cuda_status s = check_product_args(L, kl, x, beta, in, L && L->nbrows > 0 ? &alpha : nullptr);
  if (s != BSRC_CUDA_OK) return s;
  if (L->split_open) return fail(sink(L), BSRC_CUDA_ERR_ARG, "split_begin: the previous split product was not ended (bsrc_cuda_split_end)");
  device_scope ds(L->device);
  BSRC_CUDA_CHECK(ds.error(), sink(L), "cudaSetDevice");
  s = join_caller(L, "split product: ordering after queued products");
  if (s == BSRC_CUDA_OK) s = stage_inputs(L, staging_settings(), x, beta, in, "host-to-device copy of x / in (split product)");
  if (s != BSRC_CUDA_OK) return s;
  double *dx = (double *)L->d_x.ptr, *dy = (double *)L->d_y.ptr;
  s = queue_product(L, kl, alpha, dx, beta, dy, dy);
  if (s != BSRC_CUDA_OK) {
    (void)cudaStreamSynchronize(L->stream);
    return s;
  }
  L->split_open = true;
  return BSRC_CUDA_OK;
}

/* The ghost values' upload or its ordering refused: G's queued copies finished, L's product
   abandoned. */
static bsrc_cuda_status ghost_upload_failed(bsrc_cuda_matrix *G, bsrc_cuda_matrix *L, cudaError_t err)
{
  (void)cudaStreamSynchronize(G->stream);
  return abandon(L, err, "host-to-device copy of the ghost values (split product)");
}

/* end: ghost_x staged on G's stream (its DMA overlaps L's product), L's stream made to wait for it,
   G's product queued on L's stream accumulating into L's y, and y brought back once. */
extern "C" bsrc_cuda_status bsrc_cuda_split_end(bsrc_cuda_matrix *L, bsrc_cuda_matrix *G, bsrc_cuda_kernel kg, double alpha, const double *ghost_x, double *out)
{
  if (!L) return fail(sink(L), BSRC_CUDA_ERR_ARG, "split_end: local matrix is NULL");
  if (!L->split_open) return fail(sink(L), BSRC_CUDA_ERR_ARG, "split_end: no split product begun (bsrc_cuda_split_begin)");
  L->split_open = false;
  device_scope ds(L->device);
  BSRC_CUDA_CHECK(ds.error(), sink(L), "cudaSetDevice");
  const size_t       ybytes = y_bytes(L);
  double            *dy     = (double *)L->d_y.ptr;
  const staging_plan plan   = staging_settings();
  if (L->nbrows > 0 && !out) {
    (void)cudaStreamSynchronize(L->stream);
    return fail(sink(L), BSRC_CUDA_ERR_ARG, "split_end: out is NULL");
  }
  if (G && G->nbrows > 0 && G->nbcols > 0) {
    bsrc_cuda_status s = BSRC_CUDA_OK;
    if (G->device != L->device) s = fail(sink(L), BSRC_CUDA_ERR_ARG, "split_end: ghost block on device %d, local block on device %d", G->device, L->device);
    else if (G->nbrows != L->nbrows || G->bs != L->bs)
      s = fail(sink(L), BSRC_CUDA_ERR_ARG, "split_end: ghost block has %lld block rows of bs %lld, local block %lld of bs %lld", (long long)G->nbrows, (long long)G->bs, (long long)L->nbrows, (long long)L->bs);
    else if (!ghost_x) s = fail(sink(L), BSRC_CUDA_ERR_ARG, "split_end: ghost_x is NULL");
    else if ((s = check_product_args(G, kg, ghost_x, 1.0, dy, dy)) != BSRC_CUDA_OK) (void)snprintf(L->msg, sizeof(L->msg), "ghost block: %.900s", G->msg);
    else if ((s = ensure_staging(G)) != BSRC_CUDA_OK) (void)snprintf(L->msg, sizeof(L->msg), "ghost block: %.900s", G->msg);
    else if ((s = join_caller(G, "split product: ordering after queued products")) != BSRC_CUDA_OK) (void)snprintf(L->msg, sizeof(L->msg), "ghost block: %.900s", G->msg);
    if (s != BSRC_CUDA_OK) {
      (void)cudaStreamSynchronize(L->stream);
      return s;
    }
    BSRC_CUDA_CHECK_OR(stage_up(G, plan, G->d_x.ptr, G->h_x, ghost_x, x_bytes(G)), ghost_upload_failed(G, L, bsrc_err));
    BSRC_CUDA_CHECK_OR(cudaEventRecord(G->split_mark, G->stream), ghost_upload_failed(G, L, bsrc_err));
    BSRC_CUDA_CHECK_OR(cudaStreamWaitEvent(L->stream, G->split_mark, 0), ghost_upload_failed(G, L, bsrc_err));
    s = queue_product(G, kg, alpha, (const double *)G->d_x.ptr, 1.0, dy, dy, L->stream);
    if (s != BSRC_CUDA_OK) {
      (void)snprintf(L->msg, sizeof(L->msg), "ghost block: %.900s", G->msg);
      (void)cudaStreamSynchronize(L->stream);
      return s;
    }
  }
  if (L->nbrows == 0) return finish(L, "split product");
  return stage_down(L, plan, out, L->h_y, dy, ybytes);
}

static bsrc_cuda_status register_failed(cudaError_t err, void *ptr, size_t bytes)
{
  char what[96];
  snprintf(what, sizeof(what), "cudaHostRegister of %zu bytes at %p", bytes, ptr);
  return fail_cuda_cleared(sink(nullptr), err, what);
}
static bsrc_cuda_status unregister_failed(cudaError_t err, void *ptr)
{
  char what[64];
  snprintf(what, sizeof(what), "cudaHostUnregister at %p", ptr);
  return fail_cuda_cleared(sink(nullptr), err, what);
}

extern "C" bsrc_cuda_status bsrc_cuda_host_register(void *ptr, size_t bytes)
{
  if (!ptr || bytes == 0) return fail(sink(nullptr), BSRC_CUDA_ERR_ARG, "host_register: %s", ptr ? "0 bytes" : "pointer is NULL");
  BSRC_CUDA_CHECK_OR(cudaHostRegister(ptr, bytes, cudaHostRegisterPortable), register_failed(bsrc_err, ptr, bytes));
  return BSRC_CUDA_OK;
}

extern "C" bsrc_cuda_status bsrc_cuda_host_unregister(void *ptr)
{
  if (!ptr) return fail(sink(nullptr), BSRC_CUDA_ERR_ARG, "host_unregister: pointer is NULL");
  BSRC_CUDA_CHECK_OR(cudaHostUnregister(ptr), unregister_failed(bsrc_err, ptr));
  return BSRC_CUDA_OK;
}
