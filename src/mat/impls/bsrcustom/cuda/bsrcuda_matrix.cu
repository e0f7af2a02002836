/*
   Device storage of one BSR matrix and the C interface of bsrcuda.h.

   Lifecycle: create (device, stream, properties) -> set_structure (rowptr, colidx, value storage,
   the task partition, row statistics and the auto choice) -> set_values (values only) -> products.
   set_structure again drops everything that depends on the structure, cuSPARSE's copies included.
   Every allocation goes through dev_alloc, so the byte count (bsrc_cuda_device_bytes) and the
   out-of-memory mapping (BSRC_CUDA_ERR_MEM with CUDA's text) are the same everywhere.
*/
#include "bsrcuda_kernels.cuh"

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
/* Staging of host vectors (bsrc_cuda_multadd_host). Vectors move in pieces of staging_chunk_bytes:
   the CPU copies piece k+1 into the pinned buffer while the copy engine moves piece k to the device,
   and on the way back the CPU copies piece k out while later pieces are still in flight, so only
   one piece's host copy at each end is not hidden behind DMA. 1 MiB: a cudaMemcpyAsync of 1 MiB
   from pinned memory already runs near the bus's speed (a few microseconds of per-call cost against
   ~20 us of transfer on PCIe 5), and a 5 MB vector still splits into 5 pieces. A vector in
   page-locked memory skips all this: one DMA straight from or to it (stage_up, stage_down), since
   the host copy into pinned memory (11-20 GB/s on an H100 host) is slower than the bus (51 GB/s). */
constexpr size_t staging_chunk_bytes = (size_t)1 << 20;
/* Download pieces queued ahead of the host's copy-out: one event each, reused round the ring. */
constexpr int staging_ring = 8;
/* A page-locked out of at least overlap_min_bytes comes back in overlap_chunks row ranges, each
   download overlapping the next range's product (WARP_ROW, unsorted SLICED and, in task ranges, the
   task kernels; bsrc_cuda_multadd_host). 4 x 256 KiB:
   each DMA still runs near the bus's speed. */
constexpr int    overlap_chunks    = 4;
constexpr size_t overlap_min_bytes = (size_t)1 << 20;
static_assert(overlap_chunks <= staging_ring, "the overlapped product marks its ranges with the ring's events");
/* Threads of the host copies: omp_get_max_threads(), at most this many (a few cores already reach
   memcpy's share of the memory bandwidth; more would only take cores from the caller's ranks). */
constexpr int staging_max_threads = 8;
/* Least bytes one thread copies: a smaller share costs more in fork/join than it saves. */
constexpr size_t staging_min_part_bytes = (size_t)64 << 10;

/* A set of pieces of long rows on the device (pieces_view), with its buffers. */
struct piece_set {
  int        lanes = 0;
  bsrk_idx   npieces = 0, nlong = 0, row_long_blocks = 0, piece_blocks = 0;
  dev_buffer piece_row, piece_start, long_row, long_piece_begin, piece_sum;
  pieces_view view() const
  {
    return pieces_view{lanes, npieces, nlong, row_long_blocks, piece_blocks, (const bsrk_idx *)piece_row.ptr, (const bsrk_idx *)piece_start.ptr, (const bsrk_idx *)long_row.ptr, (const bsrk_idx *)long_piece_begin.ptr, (double *)piece_sum.ptr};
  }
};
} // namespace bsrc

#define BSRC_CUDA_KERNEL_NAME(id, name, what) name,
extern "C" const char *const bsrc_cuda_kernel_names[BSRC_CUDA_KERNEL_COUNT] = {"auto", BSRC_CUDA_OWN_KERNELS(BSRC_CUDA_KERNEL_NAME) BSRC_CUDA_CUSPARSE_KERNELS(BSRC_CUDA_KERNEL_NAME)};
#undef BSRC_CUDA_KERNEL_NAME

struct bsrc_cuda_matrix {
  int               device = -1;
  cudaStream_t      stream = nullptr;
  bsrc::device_info dev{};
  char              msg[1024] = "";
  size_t            bytes     = 0; /* device memory held */

  /* structure and values */
  bool                  has_structure = false, has_values = false;
  bsrk_idx              nbrows = 0, nbcols = 0, bs = 0, nblocks = 0;
  bsrc::dev_buffer      rowptr, colidx, values;
  std::vector<bsrk_idx> host_rowptr; /* kept to rebuild the partition (bsrc_cuda_set_task_count) */
  uint64_t              values_epoch = 0;

  /* fixed-size tasks */
  bsrk_idx         tasks_wanted = 0; /* 0: default_task_count */
  bsrk_idx         ntasks       = 0;
  bool             has_carries  = false;
  bsrk_idx         max_task_rows = 0; /* most block rows one task walks (empty rows included) */
  bsrc::dev_buffer task_block_begin, task_row_begin, task_head_row, carry;
  /* the task kernels' overlapped download (overlapped_product): range c is tasks
     [overlap_task[c], overlap_task[c+1]) and brings back block rows [overlap_row[c], overlap_row[c+1]),
     the rows whose last block lies in tasks before overlap_task[c+1] */
  bsrk_idx overlap_task[bsrc::overlap_chunks + 1] = {}, overlap_row[bsrc::overlap_chunks + 1] = {};

  /* the pieces of long rows of HYBRID (built for the lanes it runs with) and of SEGMENTED, and
     SEGMENTED's strips (see tasks_view) */
  bsrc::piece_set  hybrid_pieces, segmented_pieces;
  bsrk_idx         hybrid_nwork = 0, hybrid_short_blocks = 0;
  bsrc::dev_buffer hybrid_work, hybrid_medium;
  bsrk_idx         nstrips = 0;
  bsrc::dev_buffer strip_begin, strip_end;

  /* SLICED's copy (slices_view): the slices' first steps are counted at set_structure, on the host;
     the device arrays are allocated and filled when SLICED first runs, and filled again once the
     values have changed (slices_epoch != values_epoch), so a matrix that never runs SLICED holds
     none of it */
  std::vector<int64_t>  host_slice_step;
  bsrk_idx              nslices = 0;
  int64_t               slice_blocks = 0; /* the natural layout's blocks, padding included (the auto choice) */
  bool                  slices_sorted = false;  /* the sorted layout (uneven rows): its lane rows, below */
  bool                  slices_planned = false; /* host_slice_step and the lane rows describe SLICED's layout */
  std::vector<bsrk_idx> host_lane_out, host_lane_len, host_slice_long_row, host_slice_long_begin, host_slot_long;
  std::vector<int64_t>  host_lane_b0;
  bsrk_idx              slice_nlong = 0, slice_nslots = 0;
  bsrc::dev_buffer      slice_step, slice_col, slice_values, lane_out, lane_b0, lane_len, slice_long_row, slice_long_begin, slot_sum, slot_long, long_arrivals;
  uint64_t              slices_epoch = 0; /* the values_epoch the copy was built from; 0: none */

  /* statistics, choices, launches */
  bsrk_idx              max_row_blocks = 0;
  int                   lanes          = 4; /* WARP_ROW: from the mean row */
  int                   hybrid_lanes   = 4; /* HYBRID: from the mean of the short rows (hybrid_row_lanes) */
  int                   lanes_override[BSRC_CUDA_KERNEL_COUNT] = {};
  bsrc_cuda_kernel      auto_kernel    = BSRC_CUDA_KERNEL_VECTOR_UNROLLED;
  int                   threads_override[BSRC_CUDA_KERNEL_COUNT] = {};
  bsrc::launch_config   cfg[BSRC_CUDA_KERNEL_COUNT]{};
  bool                  cfg_valid[BSRC_CUDA_KERNEL_COUNT] = {};

  /* staging for the host entry point (pinned buffers as large as x and y; events of the download
     ring, created on first use and kept until bsrc_cuda_destroy) */
  bsrc::dev_buffer d_x, d_y;
  double          *h_x = nullptr, *h_y = nullptr;
  cudaEvent_t      piece_done[bsrc::staging_ring] = {};
  cudaEvent_t      split_mark  = nullptr; /* split product: "x staged and local product queued" / "ghost x staged" */
  cudaStream_t     down_stream = nullptr; /* overlapped download of a page-locked out (multadd_host) */
  bool             have_events = false;
  bool             split_open  = false; /* bsrc_cuda_split_begin ran, bsrc_cuda_split_end not yet */

  /* products queued on a caller's stream (bsrc_cuda_multadd_device_on) and work left running on M's
     own stream are ordered against each other through these, without host waits */
  cudaEvent_t caller_done   = nullptr; /* recorded after the last product on a caller's stream */
  bool        caller_queued = false;   /* caller_done not yet waited for by M's stream */
  cudaEvent_t own_done      = nullptr; /* recorded on M's stream when async work there must precede a caller's product */
  bool        own_queued    = false;   /* async work queued on M's stream since the last synchronisation */

  bsrc::cusparse_state *cus = nullptr;
};

namespace bsrc {

namespace {

thread_local char orphan_msg[512] = ""; /* messages of calls that have no matrix to hold them */

error_sink sink(bsrc_cuda_matrix *M)
{
  if (M) return error_sink{M->msg, sizeof(M->msg)};
  return error_sink{orphan_msg, sizeof(orphan_msg)};
}

/* Makes M's device current for the duration of a call and puts the caller's back afterwards. */
class device_scope {
public:
  explicit device_scope(int device)
  {
    if (cudaGetDevice(&previous_) != cudaSuccess) {
      previous_ = -1;
      (void)cudaGetLastError();
    }
    if (device >= 0 && device != previous_) err_ = cudaSetDevice(device);
  }
  ~device_scope()
  {
    int now = -1;
    if (previous_ >= 0 && cudaGetDevice(&now) == cudaSuccess && now != previous_) (void)cudaSetDevice(previous_);
  }
  cudaError_t error() const { return err_; }

private:
  int         previous_ = -1;
  cudaError_t err_      = cudaSuccess;
};

matrix_view view(const bsrc_cuda_matrix *M)
{
  return matrix_view{M->nbrows, M->nbcols, M->bs, M->nblocks, (const bsrk_idx *)M->rowptr.ptr, (const bsrk_idx *)M->colidx.ptr, (const double *)M->values.ptr, M->values_epoch};
}

tasks_view tasks(const bsrc_cuda_matrix *M)
{
  return tasks_view{M->ntasks, (const bsrk_idx *)M->task_block_begin.ptr, (const bsrk_idx *)M->task_row_begin.ptr, (const bsrk_idx *)M->task_head_row.ptr, (double *)M->carry.ptr, M->has_carries,
                    M->hybrid_pieces.view(), M->segmented_pieces.view(), M->hybrid_nwork, (const bsrk_idx *)M->hybrid_work.ptr, M->hybrid_short_blocks,
                    (const bsrk_idx *)M->hybrid_medium.ptr, M->nstrips, (const bsrk_idx *)M->strip_begin.ptr, (const bsrk_idx *)M->strip_end.ptr,
                    slices_view{M->nslices, (const int64_t *)M->slice_step.ptr, (const bsrk_idx *)M->slice_col.ptr, (const double *)M->slice_values.ptr,
                                (const bsrk_idx *)M->lane_out.ptr, (const int64_t *)M->lane_b0.ptr, (const bsrk_idx *)M->lane_len.ptr, M->slice_nlong,
                                (const bsrk_idx *)M->slice_long_row.ptr, (const bsrk_idx *)M->slice_long_begin.ptr, (double *)M->slot_sum.ptr,
                                (const bsrk_idx *)M->slot_long.ptr, (unsigned *)M->long_arrivals.ptr}};
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
  free_pinned(M->h_x);
  free_pinned(M->h_y);
}

void release_tasks(bsrc_cuda_matrix *M)
{
  dev_free(M->task_block_begin, &M->bytes);
  dev_free(M->task_row_begin, &M->bytes);
  dev_free(M->task_head_row, &M->bytes);
  dev_free(M->carry, &M->bytes);
  M->ntasks      = 0;
  M->has_carries = false;
  for (bool &v : M->cfg_valid) v = false;
}

void release_piece_set(bsrc_cuda_matrix *M, piece_set &P)
{
  dev_free(P.piece_row, &M->bytes);
  dev_free(P.piece_start, &M->bytes);
  dev_free(P.long_row, &M->bytes);
  dev_free(P.long_piece_begin, &M->bytes);
  dev_free(P.piece_sum, &M->bytes);
  P.lanes   = 0;
  P.npieces = P.nlong = P.row_long_blocks = P.piece_blocks = 0;
}

void release_hybrid(bsrc_cuda_matrix *M)
{
  release_piece_set(M, M->hybrid_pieces);
  dev_free(M->hybrid_work, &M->bytes);
  dev_free(M->hybrid_medium, &M->bytes);
  M->hybrid_nwork = M->hybrid_short_blocks = 0;
  M->cfg_valid[BSRC_CUDA_KERNEL_HYBRID] = false;
}

void release_strips(bsrc_cuda_matrix *M)
{
  release_piece_set(M, M->segmented_pieces);
  dev_free(M->strip_begin, &M->bytes);
  dev_free(M->strip_end, &M->bytes);
  M->nstrips                               = 0;
  M->cfg_valid[BSRC_CUDA_KERNEL_SEGMENTED] = false;
}

void free_slices_device(bsrc_cuda_matrix *M)
{
  for (dev_buffer *b : {&M->slice_step, &M->slice_col, &M->slice_values, &M->lane_out, &M->lane_b0, &M->lane_len, &M->slice_long_row, &M->slice_long_begin, &M->slot_sum, &M->slot_long, &M->long_arrivals}) dev_free(*b, &M->bytes);
}

void release_slices(bsrc_cuda_matrix *M)
{
  free_slices_device(M);
  M->host_slice_step.clear();
  M->host_lane_out.clear();
  M->host_lane_b0.clear();
  M->host_lane_len.clear();
  M->host_slice_long_row.clear();
  M->host_slice_long_begin.clear();
  M->host_slot_long.clear();
  M->nslices       = 0;
  M->slice_blocks  = 0;
  M->slices_sorted = M->slices_planned = false;
  M->slice_nlong = M->slice_nslots = 0;
  M->slices_epoch  = 0;
}

void release_structure(bsrc_cuda_matrix *M)
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

/* Bytes of M's x (block columns x bs) and of its y / in (block rows x bs). */
size_t x_bytes(const bsrc_cuda_matrix *M)
{
  return (size_t)M->nbcols * (size_t)M->bs * sizeof(double);
}
size_t y_bytes(const bsrc_cuda_matrix *M)
{
  return (size_t)M->nbrows * (size_t)M->bs * sizeof(double);
}

/* bytes = count * size, or false when it does not fit in size_t. */
bool byte_count(size_t count, size_t size, size_t *bytes)
{
  if (size != 0 && count > SIZE_MAX / size) return false;
  *bytes = count * size;
  return true;
}

bsrc_cuda_status upload(bsrc_cuda_matrix *M, dev_buffer &b, const void *host, size_t bytes, const char *what)
{
  if (bytes == 0) return BSRC_CUDA_OK;
  cudaError_t err = cudaMemcpyAsync(b.ptr, host, bytes, cudaMemcpyHostToDevice, M->stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(M->stream);
  if (err != cudaSuccess) return fail_cuda(sink(M), err, what);
  return BSRC_CUDA_OK;
}

/* Builds the fixed-size task partition on the host (bsrk_partition_build) and uploads it. */
bsrc_cuda_status build_tasks(bsrc_cuda_matrix *M)
{
  release_tasks(M);
  const bsrk_idx want = M->tasks_wanted > 0 ? M->tasks_wanted : default_task_count(M->nblocks, M->bs, M->dev);
  bsrk_partition p;
  const bsrk_status ps = bsrk_partition_build(M->nbrows, M->host_rowptr.data(), want, &p);
  if (ps == BSRK_ERR_ALLOC) return fail(sink(M), BSRC_CUDA_ERR_MEM, "task partition: out of host memory (%lld tasks)", (long long)want);
  if (ps != BSRK_OK) return fail(sink(M), BSRC_CUDA_ERR_ARG, "task partition: invalid row pointers");

  const size_t     n1 = (size_t)p.ntasks + 1;
  bsrc_cuda_status s  = dev_alloc(M->task_block_begin, n1 * sizeof(bsrk_idx), "task block ranges", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = dev_alloc(M->task_row_begin, n1 * sizeof(bsrk_idx), "task row ranges", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = dev_alloc(M->task_head_row, (size_t)p.ntasks * sizeof(bsrk_idx), "task head rows", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = dev_alloc(M->carry, (size_t)p.ntasks * (size_t)M->bs * sizeof(double), "task carries", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = upload(M, M->task_block_begin, p.block_begin, n1 * sizeof(bsrk_idx), "upload of the task block ranges");
  if (s == BSRC_CUDA_OK) s = upload(M, M->task_row_begin, p.row_begin, n1 * sizeof(bsrk_idx), "upload of the task row ranges");
  if (s == BSRC_CUDA_OK) s = upload(M, M->task_head_row, p.head_row, (size_t)p.ntasks * sizeof(bsrk_idx), "upload of the task head rows");
  if (s == BSRC_CUDA_OK) {
    M->ntasks        = p.ntasks;
    M->has_carries   = std::any_of(p.head_row, p.head_row + p.ntasks, [](bsrk_idx h) { return h >= 0; });
    M->max_task_rows = 0;
    for (bsrk_idx t = 0; t < p.ntasks; ++t) M->max_task_rows = std::max(M->max_task_rows, p.row_begin[t + 1] - p.row_begin[t]);
    /* a range ends before task t: the rows before the one t continues (head_row), or before the
       first row t owns when it starts a row, have all their blocks in earlier tasks */
    for (int c = 0; c <= overlap_chunks && p.ntasks >= overlap_chunks; ++c) { /* fewer tasks: one download */
      const bsrk_idx t   = (bsrk_idx)((int64_t)p.ntasks * c / overlap_chunks);
      M->overlap_task[c] = t;
      M->overlap_row[c]  = c == 0 ? 0 : c == overlap_chunks ? M->nbrows : std::max(M->overlap_row[c - 1], p.head_row[t] >= 0 ? p.head_row[t] : p.row_begin[t]);
    }
  } else {
    release_tasks(M);
  }
  bsrk_partition_free(&p);
  return s;
}

void destroy_events(bsrc_cuda_matrix *M)
{
  for (cudaEvent_t &e : M->piece_done) {
    if (e) (void)cudaEventDestroy(e);
    e = nullptr;
  }
  if (M->split_mark) (void)cudaEventDestroy(M->split_mark);
  M->split_mark  = nullptr;
  if (M->down_stream) {
    (void)cudaStreamSynchronize(M->down_stream);
    (void)cudaStreamDestroy(M->down_stream);
  }
  M->down_stream = nullptr;
  M->have_events = false;
}

/* Pinned host and device staging for bsrc_cuda_multadd_host, allocated on first use; the events of
   the download ring outlive set_structure (they do not depend on the sizes). */
bsrc_cuda_status ensure_staging(bsrc_cuda_matrix *M)
{
  if (!M->have_events) {
    cudaError_t err = cudaSuccess;
    for (cudaEvent_t &e : M->piece_done)
      if (err == cudaSuccess) err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaEventCreateWithFlags(&M->split_mark, cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&M->down_stream, cudaStreamNonBlocking);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      destroy_events(M);
      return fail_cuda(sink(M), err, "staging events and stream (cudaEventCreate, cudaStreamCreate)");
    }
    M->have_events = true;
  }
  if (M->h_x) return BSRC_CUDA_OK;
  const size_t     xbytes = x_bytes(M), ybytes = y_bytes(M);
  bsrc_cuda_status s = dev_alloc(M->d_x, xbytes, "device staging of x", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = dev_alloc(M->d_y, ybytes, "device staging of in/out", &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) {
    cudaError_t err = cudaMallocHost((void **)&M->h_x, std::max<size_t>(xbytes, sizeof(double)));
    if (err == cudaSuccess) err = cudaMallocHost((void **)&M->h_y, std::max<size_t>(ybytes, sizeof(double)));
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      s = fail_cuda(sink(M), err, "pinned host staging buffers (cudaMallocHost)");
    }
  }
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
  const char *env = getenv("BSRC_CUDA_STAGING");
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
  #pragma omp parallel for num_threads((int)parts) schedule(static, 1)
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
    if (cudaPointerGetAttributes(&a, e) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
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
    const cudaError_t err = cudaMemcpyAsync((char *)dev + off, (char *)pinned + off, n, cudaMemcpyHostToDevice, M->stream);
    if (err != cudaSuccess) return err;
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
    cudaError_t err = cudaMemcpyAsync(dst, dev, bytes, cudaMemcpyDeviceToHost, M->stream);
    if (err == cudaSuccess) {
      err = cudaStreamSynchronize(M->stream);
      return err == cudaSuccess ? BSRC_CUDA_OK : abandon(M, err, "product (host entry)");
    }
    if (err != cudaErrorInvalidValue) return abandon(M, err, "device-to-host copy of out");
    (void)cudaGetLastError();
  }
  const size_t pieces = bytes == 0 ? 0 : (bytes - 1) / plan.chunk + 1;
  auto         queue  = [&](size_t k) {
    const size_t off = k * plan.chunk, n = std::min(plan.chunk, bytes - off);
    cudaError_t  err = cudaMemcpyAsync((char *)pinned + off, (const char *)dev + off, n, cudaMemcpyDeviceToHost, M->stream);
    if (err == cudaSuccess) err = cudaEventRecord(M->piece_done[k % staging_ring], M->stream);
    return err;
  };
  size_t queued = 0;
  for (; queued < pieces && queued < (size_t)staging_ring; ++queued) {
    const cudaError_t err = queue(queued);
    if (err != cudaSuccess) return abandon(M, err, "device-to-host copy of out");
  }
  for (size_t k = 0; k < pieces; ++k) {
    cudaError_t err = cudaEventSynchronize(M->piece_done[k % staging_ring]);
    if (err != cudaSuccess) return abandon(M, err, "product (host entry)");
    if (queued < pieces) { /* piece k's event has fired: it can mark piece `queued` now */
      err = queue(queued++);
      if (err != cudaSuccess) return abandon(M, err, "device-to-host copy of out");
    }
    const size_t off = k * plan.chunk;
    host_copy((char *)dst + off, (const char *)pinned + off, std::min(plan.chunk, bytes - off), plan.threads);
  }
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

/* Lanes per row (WARP_ROW) or per short row (HYBRID): the override, else the matrix's choice. */
int lanes_of(const bsrc_cuda_matrix *M, bsrc_cuda_kernel k)
{
  if (M->lanes_override[k] > 0) return M->lanes_override[k];
  return k == BSRC_CUDA_KERNEL_HYBRID ? M->hybrid_lanes : M->lanes;
}

/* Cuts the rows of more than long_blocks blocks into pieces of piece_blocks blocks (rows of several
   pieces first, so that each long row's pieces are one range, then the rows of one piece) and
   uploads them into P, whose old pieces are released first. Row r's pieces are first_piece[r] ..
   first_piece[r] + npieces_of[r] - 1 (for the work lists). On failure P is left empty. */
bsrc_cuda_status build_piece_set(bsrc_cuda_matrix *M, piece_set &P, bsrk_idx long_blocks, bsrk_idx piece_blocks, int lanes, const char *what, std::vector<bsrk_idx> &first_piece, std::vector<bsrk_idx> &npieces_of)
{
  release_piece_set(M, P);
  const bsrk_idx       *rp = M->host_rowptr.data();
  std::vector<bsrk_idx> prow, pstart, lrow, lbegin, single_row;
  try {
    lbegin.push_back(0);
    for (bsrk_idx r = 0; r < M->nbrows; ++r) {
      const bsrk_idx n = rp[r + 1] - rp[r];
      if (n <= long_blocks) continue;
      if (n <= piece_blocks) {
        single_row.push_back(r);
        continue;
      }
      for (bsrk_idx b = rp[r]; b < rp[r + 1]; b += std::min(piece_blocks, rp[r + 1] - b)) {
        prow.push_back(r);
        pstart.push_back(b);
      }
      lrow.push_back(r);
      lbegin.push_back((bsrk_idx)prow.size());
    }
    for (bsrk_idx r : single_row) {
      prow.push_back(r);
      pstart.push_back(rp[r]);
    }
    first_piece.assign((size_t)M->nbrows, 0);
    npieces_of.assign((size_t)M->nbrows, 0);
    for (size_t q = 0; q < prow.size(); ++q)
      if (npieces_of[prow[q]]++ == 0) first_piece[prow[q]] = (bsrk_idx)q;
  } catch (const std::bad_alloc &) {
    return fail(sink(M), BSRC_CUDA_ERR_MEM, "%s pieces: out of host memory", what);
  }
  /* only the pieces of rows of several pieces have sums: rows of one piece store directly */
  const size_t     np = prow.size(), nl = lrow.size(), nsums = (size_t)lbegin.back();
  bsrc_cuda_status s  = BSRC_CUDA_OK;
  char             label[96];
  auto             named = [&](const char *part) {
    snprintf(label, sizeof(label), "%s %s", what, part);
    return label;
  };
  if (np > 0) {
    s = dev_alloc(P.piece_row, np * sizeof(bsrk_idx), named("piece rows"), &M->bytes, sink(M));
    if (s == BSRC_CUDA_OK) s = dev_alloc(P.piece_start, np * sizeof(bsrk_idx), named("piece starts"), &M->bytes, sink(M));
    if (s == BSRC_CUDA_OK) s = dev_alloc(P.long_row, nl * sizeof(bsrk_idx), named("long rows"), &M->bytes, sink(M));
    if (s == BSRC_CUDA_OK) s = dev_alloc(P.long_piece_begin, (nl + 1) * sizeof(bsrk_idx), named("long-row pieces"), &M->bytes, sink(M));
    if (s == BSRC_CUDA_OK) s = dev_alloc(P.piece_sum, nsums * (size_t)M->bs * sizeof(double), named("piece sums"), &M->bytes, sink(M));
    if (s == BSRC_CUDA_OK) s = upload(M, P.piece_row, prow.data(), np * sizeof(bsrk_idx), named("piece rows (upload)"));
    if (s == BSRC_CUDA_OK) s = upload(M, P.piece_start, pstart.data(), np * sizeof(bsrk_idx), named("piece starts (upload)"));
    if (s == BSRC_CUDA_OK) s = upload(M, P.long_row, lrow.data(), nl * sizeof(bsrk_idx), named("long rows (upload)"));
    if (s == BSRC_CUDA_OK) s = upload(M, P.long_piece_begin, lbegin.data(), (nl + 1) * sizeof(bsrk_idx), named("long-row pieces (upload)"));
  }
  if (s != BSRC_CUDA_OK) {
    release_piece_set(M, P);
    return s;
  }
  P.npieces         = (bsrk_idx)np;
  P.nlong           = (bsrk_idx)nl;
  P.row_long_blocks = long_blocks;
  P.piece_blocks    = piece_blocks;
  P.lanes           = lanes;
  return BSRC_CUDA_OK;
}

/* Uploads a work list (the warps' items in row order) into b. */
bsrc_cuda_status upload_work(bsrc_cuda_matrix *M, dev_buffer &b, const std::vector<bsrk_idx> &w, const char *what)
{
  if (w.empty()) return BSRC_CUDA_OK;
  char label[96];
  snprintf(label, sizeof(label), "%s (upload)", what);
  bsrc_cuda_status s = dev_alloc(b, w.size() * sizeof(bsrk_idx), what, &M->bytes, sink(M));
  if (s == BSRC_CUDA_OK) s = upload(M, b, w.data(), w.size() * sizeof(bsrk_idx), label);
  return s;
}

/* HYBRID for the lanes it runs with: rows longer than long_columns_per_lane columns per lane (or than
   kLongColumnsMin columns, whichever is more) cut into pieces of kPieceColumns columns, and the
   warps' work in row order: each group of kWarpSize / lanes rows (unless none of them is short)
   followed by the pieces of its long rows. With one lane a row and bs 1, rows of kOneLaneColumnsMax
   to kMediumColumnsMax columns are the middle tier instead: listed in row order, a work item for
   each kMediumRowsPerWarp of them, placed where its first row falls. Its items are numbered from
   nbrows up, so the tier is left out where that would overflow bsrk_idx. */
bsrc_cuda_status build_hybrid_work(bsrc_cuda_matrix *M)
{
  release_hybrid(M);
  const int             lanes  = lanes_of(M, BSRC_CUDA_KERNEL_HYBRID);
  const bsrk_idx        bs     = M->bs;
  const bool            medium = lanes == 1 && bs == 1 && (int64_t)M->nbrows + M->nbrows / kMediumRowsPerWarp + 1 <= (int64_t)std::numeric_limits<bsrk_idx>::max();
  const bsrk_idx        long_blocks  = medium ? kMediumColumnsMax : std::max<bsrk_idx>(1, (bsrk_idx)std::max(long_columns_per_lane((int)bs) * lanes, kLongColumnsMin) / bs);
  const bsrk_idx        short_blocks = medium ? kOneLaneColumnsMax : long_blocks;
  const bsrk_idx       *rp           = M->host_rowptr.data();
  std::vector<bsrk_idx> first, count, work, medium_rows;
  bsrc_cuda_status      s = build_piece_set(M, M->hybrid_pieces, long_blocks, std::max<bsrk_idx>(1, (bsrk_idx)kPieceColumns / bs), lanes, "hybrid", first, count);
  if (s != BSRC_CUDA_OK) return s;
  try {
    const bsrk_idx rows_per_warp = kWarpSize / lanes;
    for (bsrk_idx g = 0; g < M->nbrows; g += rows_per_warp) {
      const bsrk_idx end = std::min(M->nbrows, g + rows_per_warp);
      bool           any_short = false;
      for (bsrk_idx r = g; r < end; ++r) any_short = any_short || rp[r + 1] - rp[r] <= short_blocks;
      if (any_short) work.push_back(g);
      for (bsrk_idx r = g; r < end; ++r) {
        if (medium && count[r] == 0 && rp[r + 1] - rp[r] > short_blocks) { /* the middle tier */
          if (medium_rows.size() % kMediumRowsPerWarp == 0) work.push_back(M->nbrows + (bsrk_idx)(medium_rows.size() / kMediumRowsPerWarp));
          medium_rows.push_back(r);
        }
        for (bsrk_idx q = first[r]; q < first[r] + count[r]; ++q) work.push_back(piece_item(q));
      }
    }
    while (medium_rows.size() % kMediumRowsPerWarp) medium_rows.push_back(-1);
  } catch (const std::bad_alloc &) {
    release_hybrid(M);
    return fail(sink(M), BSRC_CUDA_ERR_MEM, "hybrid work list: out of host memory");
  }
  s = upload_work(M, M->hybrid_work, work, "hybrid work list");
  if (s == BSRC_CUDA_OK && !medium_rows.empty()) s = upload_work(M, M->hybrid_medium, medium_rows, "hybrid middle-tier rows");
  if (s != BSRC_CUDA_OK) {
    release_hybrid(M);
    return s;
  }
  M->hybrid_nwork        = (bsrk_idx)work.size();
  M->hybrid_short_blocks = short_blocks;
  return BSRC_CUDA_OK;
}

/* SEGMENTED's strips: consecutive rows, greedily, up to kStripRows rows and kStripItems items; a
   row of more items is a long row, cut into pieces of kPieceColumns columns that take its place in
   the list, and ends the strip before it (a strip's items are one contiguous run). Empty rows join
   strips (they store beta * in). */
bsrc_cuda_status build_strips(bsrc_cuda_matrix *M)
{
  release_strips(M);
  const bsrk_idx        bs           = M->bs;
  const bsrk_idx        long_blocks  = std::max<bsrk_idx>(1, (bsrk_idx)(kStripItems / strip_items_per_block((int)bs)));
  const bsrk_idx        piece_blocks = std::max<bsrk_idx>(1, (bsrk_idx)kPieceColumns / bs);
  const bsrk_idx       *rp           = M->host_rowptr.data();
  std::vector<bsrk_idx> first, count, begin, end;
  bsrc_cuda_status      s = build_piece_set(M, M->segmented_pieces, long_blocks, piece_blocks, 0, "segmented", first, count);
  if (s != BSRC_CUDA_OK) return s;
  try {
    bsrk_idx r = 0;
    while (r < M->nbrows) {
      if (rp[r + 1] - rp[r] > long_blocks) { /* its pieces, each a work item of its own */
        for (bsrk_idx q = first[r]; q < first[r] + count[r]; ++q) {
          begin.push_back(piece_item(q));
          end.push_back(0);
        }
        ++r;
        continue;
      }
      const bsrk_idx row0 = r;
      while (r < M->nbrows && r - row0 < kStripRows && rp[r + 1] - rp[r] <= long_blocks && rp[r + 1] - rp[row0] <= long_blocks) ++r;
      begin.push_back(row0);
      end.push_back(r);
    }
  } catch (const std::bad_alloc &) {
    release_strips(M);
    return fail(sink(M), BSRC_CUDA_ERR_MEM, "segmented strips: out of host memory");
  }
  s = upload_work(M, M->strip_begin, begin, "segmented strip starts");
  if (s == BSRC_CUDA_OK) s = upload_work(M, M->strip_end, end, "segmented strip ends");
  if (s != BSRC_CUDA_OK) {
    release_strips(M);
    return s;
  }
  M->nstrips = (bsrk_idx)begin.size();
  return BSRC_CUDA_OK;
}

/* SLICED's natural layout, planned on the host from the row pointers (host_rowptr; slices_view) at
   set_structure: its slices' steps, and the blocks they hold with their padding (the auto choice's
   measure). Where that is more than kSlicedMaxPadding x the matrix's blocks, SLICED takes the sorted
   layout, planned only when SLICED is first configured or run (plan_sorted_slices). */
bsrc_cuda_status plan_slices(bsrc_cuda_matrix *M)
{
  const bsrk_idx *rp      = M->host_rowptr.data();
  const bsrk_idx  nslices = (bsrk_idx)(((int64_t)M->nbrows + kWarpSize - 1) / kWarpSize);
  try {
    M->host_slice_step.assign((size_t)nslices + 1, 0);
  } catch (const std::bad_alloc &) {
    return fail(sink(M), BSRC_CUDA_ERR_MEM, "set_structure: out of host memory for the slices of sliced");
  }
  for (bsrk_idx sl = 0; sl < nslices; ++sl) {
    bsrk_idx longest = 0;
    for (int64_t r = (int64_t)sl * kWarpSize; r < std::min<int64_t>(M->nbrows, ((int64_t)sl + 1) * kWarpSize); ++r) longest = std::max(longest, rp[r + 1] - rp[r]);
    M->host_slice_step[sl + 1] = M->host_slice_step[sl] + longest;
  }
  M->nslices        = nslices;
  M->slice_blocks   = M->host_slice_step.back() * kWarpSize;
  M->slices_sorted  = (double)M->slice_blocks > kSlicedMaxPadding * (double)M->nblocks;
  M->slices_planned = !M->slices_sorted;
  return BSRC_CUDA_OK;
}

/* The sorted layout (slices_view), once. Each block row is a unit of lanes: one lane for a row of
   at most sliced_lane_blocks(bs) blocks, else the fewest of 2, 4, .., 32 lanes that leave each at
   most that many (the row's blocks shared out evenly, in order); a row too long for 32 such lanes
   is cut into equal parts of one whole slice each, whose sums go to slots that the warp of the
   row's last part to finish adds up (sliced_long_row_end in bsrcuda_kernels.cu).
   Units are sorted by lanes, then by their longest lane (longest first; ties in row order) and laid
   out in that order: a unit of g lanes then starts at a multiple of g, so it never straddles two
   slices and the kernel's butterfly over g lanes stays inside it. */
bsrc_cuda_status plan_sorted_slices(bsrc_cuda_matrix *M)
{
  if (M->slices_planned) return BSRC_CUDA_OK;
  const bsrk_idx *rp = M->host_rowptr.data();
  try {
    struct unit {
      int64_t  b0;
      bsrk_idx len, out;
      int      lanes;
      bsrk_idx lane_blocks; /* its longest lane */
    };
    std::vector<unit> units;
    bsrk_idx          nslots = 0;
    const bsrk_idx    lane_blocks = sliced_lane_blocks(M->bs);
    M->host_slice_long_row.clear();
    M->host_slice_long_begin.clear();
    M->host_slot_long.clear();
    for (bsrk_idx r = 0; r < M->nbrows; ++r) {
      const bsrk_idx len = rp[r + 1] - rp[r]; /* empty rows too: their lanes store beta * in */
      if (len <= (bsrk_idx)kWarpSize * lane_blocks) {
        int g = 1;
        while ((len + g - 1) / g > lane_blocks) g *= 2;
        units.push_back({rp[r], len, r, g, (len + g - 1) / g});
        continue;
      }
      const bsrk_idx parts = (bsrk_idx)(((int64_t)len + kWarpSize * lane_blocks - 1) / (kWarpSize * lane_blocks));
      M->host_slice_long_row.push_back(r);
      M->host_slice_long_begin.push_back(nslots);
      int64_t b0 = rp[r];
      for (bsrk_idx q = 0; q < parts; ++q) {
        const bsrk_idx part = len / parts + (q < len % parts ? 1 : 0);
        units.push_back({b0, part, -2 - nslots++, kWarpSize, (part + kWarpSize - 1) / kWarpSize});
        M->host_slot_long.push_back((bsrk_idx)M->host_slice_long_row.size() - 1);
        b0 += part;
      }
    }
    M->host_slice_long_begin.push_back(nslots);
    std::stable_sort(units.begin(), units.end(), [](const unit &a, const unit &b) { return a.lanes != b.lanes ? a.lanes > b.lanes : a.lane_blocks > b.lane_blocks; });
    int64_t nlanes = 0;
    for (const unit &u : units) nlanes += u.lanes;
    const bsrk_idx       sorted_slices = (bsrk_idx)((nlanes + kWarpSize - 1) / kWarpSize);
    std::vector<int64_t> step((size_t)sorted_slices + 1, 0);
    M->host_lane_out.assign((size_t)sorted_slices * kWarpSize, -1);
    M->host_lane_b0.assign((size_t)sorted_slices * kWarpSize, 0);
    M->host_lane_len.assign((size_t)sorted_slices * kWarpSize, 0);
    int64_t lane = 0;
    for (const unit &u : units) {
      int64_t b0 = u.b0;
      for (int i = 0; i < u.lanes; ++i, ++lane) {
        const bsrk_idx n = u.len / u.lanes + (i < u.len % u.lanes ? 1 : 0);
        M->host_lane_out[lane] = u.out;
        M->host_lane_b0[lane]  = b0;
        M->host_lane_len[lane] = n;
        b0 += n;
        step[lane / kWarpSize + 1] = std::max<int64_t>(step[lane / kWarpSize + 1], n);
      }
    }
    for (bsrk_idx sl = 0; sl < sorted_slices; ++sl) step[sl + 1] += step[sl];
    M->host_slice_step.swap(step);
    M->nslices        = sorted_slices;
    M->slice_nlong    = (bsrk_idx)M->host_slice_long_row.size();
    M->slice_nslots   = nslots;
    M->slices_planned = true;
  } catch (const std::bad_alloc &) {
    for (auto *v : {&M->host_lane_out, &M->host_lane_len, &M->host_slice_long_row, &M->host_slice_long_begin, &M->host_slot_long}) v->clear();
    M->host_lane_b0.clear();
    return fail(sink(M), BSRC_CUDA_ERR_MEM, "sliced: out of host memory for the plan of its sorted layout");
  }
  return BSRC_CUDA_OK;
}

/* M->cfg[k] up to date for one of our kernels. */
bsrc_cuda_status configured(bsrc_cuda_matrix *M, bsrc_cuda_kernel k)
{
  if (M->cfg_valid[k]) return BSRC_CUDA_OK;
  if (k == BSRC_CUDA_KERNEL_SLICED) { /* its grid counts the slices of its layout */
    const bsrc_cuda_status ps = plan_sorted_slices(M);
    if (ps != BSRC_CUDA_OK) return ps;
  }
  const cudaError_t err = configure(k, view(M), tasks(M), lanes_of(M, k), M->dev, M->threads_override[k], &M->cfg[k]);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return fail(sink(M), err == cudaErrorMemoryAllocation ? BSRC_CUDA_ERR_MEM : BSRC_CUDA_ERR_CUDA, "launch configuration of %s (bs %lld, %d threads): %s (%s)", bsrc_cuda_kernel_names[k], (long long)M->bs,
                M->threads_override[k], cudaGetErrorString(err), cudaGetErrorName(err));
  }
  M->cfg_valid[k] = true;
  return BSRC_CUDA_OK;
}

/* SLICED's copy up to date with the values (struct bsrc_cuda_matrix, slices_view): allocated on
   first use, rebuilt on stream s (ahead of the product queued there) after set_values. */
bsrc_cuda_status ensure_slices(bsrc_cuda_matrix *M, cudaStream_t s)
{
  if (M->slices_epoch == M->values_epoch) return BSRC_CUDA_OK;
  const bsrc_cuda_status ps = plan_sorted_slices(M);
  if (ps != BSRC_CUDA_OK) return ps;
  const size_t steps = (size_t)M->host_slice_step.back();
  size_t       col_bytes = 0, value_bytes = 0;
  if (!byte_count(steps * kWarpSize, sizeof(bsrk_idx), &col_bytes) || !byte_count(steps * kWarpSize, (size_t)M->bs * (size_t)M->bs * sizeof(double), &value_bytes))
    return fail(sink(M), BSRC_CUDA_ERR_MEM, "sliced: %zu padded blocks of %lldx%lld need more than SIZE_MAX bytes", steps * kWarpSize, (long long)M->bs, (long long)M->bs);
  bsrc_cuda_status st = BSRC_CUDA_OK;
  if (!M->slice_step.ptr) {
    auto put = [&](dev_buffer &b, const void *host, size_t bytes, const char *what) {
      if (st == BSRC_CUDA_OK) st = dev_alloc(b, bytes, what, &M->bytes, sink(M));
      if (st == BSRC_CUDA_OK && host) st = upload(M, b, host, bytes, what);
    };
    put(M->slice_step, M->host_slice_step.data(), M->host_slice_step.size() * sizeof(int64_t), "sliced: slice starts");
    if (M->slices_sorted) {
      put(M->lane_out, M->host_lane_out.data(), M->host_lane_out.size() * sizeof(bsrk_idx), "sliced: lane rows' outputs");
      put(M->lane_b0, M->host_lane_b0.data(), M->host_lane_b0.size() * sizeof(int64_t), "sliced: lane rows' first blocks");
      put(M->lane_len, M->host_lane_len.data(), M->host_lane_len.size() * sizeof(bsrk_idx), "sliced: lane rows' lengths");
      put(M->slice_long_row, M->host_slice_long_row.data(), M->host_slice_long_row.size() * sizeof(bsrk_idx), "sliced: long rows");
      put(M->slice_long_begin, M->host_slice_long_begin.data(), M->host_slice_long_begin.size() * sizeof(bsrk_idx), "sliced: long rows' partial sums");
      put(M->slot_sum, nullptr, (size_t)M->slice_nslots * (size_t)M->bs * sizeof(double), "sliced: partial sums of the long rows");
      put(M->slot_long, M->host_slot_long.data(), M->host_slot_long.size() * sizeof(bsrk_idx), "sliced: the long row of each partial sum");
      put(M->long_arrivals, nullptr, (size_t)M->slice_nlong * sizeof(unsigned), "sliced: the long rows' arrival counts");
      if (st == BSRC_CUDA_OK && M->slice_nlong > 0) { /* 0 before the first product, on the stream that runs it; each product leaves them at 0 */
        const cudaError_t e = cudaMemsetAsync(M->long_arrivals.ptr, 0, (size_t)M->slice_nlong * sizeof(unsigned), s);
        if (e != cudaSuccess) st = fail_cuda(sink(M), e, "sliced: zeroing the long rows' arrival counts");
      }
    }
    put(M->slice_col, nullptr, col_bytes, "sliced: column indices (its copy of the matrix; -mat_bsrcustom_cuda_kernel warp_row or hybrid needs none)");
    put(M->slice_values, nullptr, value_bytes, "sliced: values (its copy of the matrix; -mat_bsrcustom_cuda_kernel warp_row or hybrid needs none)");
    if (st != BSRC_CUDA_OK) {
      free_slices_device(M);
      return st;
    }
  }
  const cudaError_t err = launch_slices_build(view(M), tasks(M).slices, (bsrk_idx *)M->slice_col.ptr, (double *)M->slice_values.ptr, s);
  if (err != cudaSuccess) return fail_cuda(sink(M), err, "sliced: build of its copy");
  M->slices_epoch = M->values_epoch;
  return BSRC_CUDA_OK;
}

/* Queues the product on stream s (M's own when null) on device arrays. */
bsrc_cuda_status queue_product(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, double alpha, const double *x, double beta, const double *in, double *out, cudaStream_t s = nullptr)
{
  if (!s) s = M->stream;
  if (k == BSRC_CUDA_KERNEL_AUTO) k = M->auto_kernel;
  if (M->nbrows == 0) return BSRC_CUDA_OK;
  if (is_own_kernel(k)) {
    const bsrc_cuda_status cs = k == BSRC_CUDA_KERNEL_SLICED ? ensure_slices(M, s) : BSRC_CUDA_OK;
    if (cs != BSRC_CUDA_OK) return cs;
    const bsrc_cuda_status cc = configured(M, k);
    if (cc != BSRC_CUDA_OK) return cc;
    const cudaError_t err = launch(k, view(M), tasks(M), M->cfg[k], alpha, x, beta, in, out, s);
    if (err != cudaSuccess) return fail_cuda(sink(M), err, bsrc_cuda_kernel_names[k]);
    return BSRC_CUDA_OK;
  }
  const cusparse_variant v = k == BSRC_CUDA_KERNEL_CUSPARSE_BSRMV ? CUSP_BSRMV_COL : CUSP_SPMV_BSR;
  return cusparse_multadd(&M->cus, view(M), s, v, alpha, x, beta, in, out, &M->bytes, sink(M));
}

/* M's own stream waits for products queued on a caller's stream (no host wait): every entry point
   that works on M's stream, or changes what a queued product reads, calls this first. */
bsrc_cuda_status join_caller(bsrc_cuda_matrix *M, const char *what)
{
  if (!M->caller_queued) return BSRC_CUDA_OK;
  const cudaError_t err = cudaStreamWaitEvent(M->stream, M->caller_done, 0);
  if (err != cudaSuccess) return fail_cuda(sink(M), err, what);
  M->caller_queued = false;
  return BSRC_CUDA_OK;
}

/* The caller's stream s waits for async work left on M's stream (the async and benchmark entry
   points), so a product queued on s never overlaps another product of M. */
bsrc_cuda_status join_own(bsrc_cuda_matrix *M, cudaStream_t s, const char *what)
{
  if (!M->own_queued) return BSRC_CUDA_OK;
  cudaError_t err = cudaSuccess;
  if (!M->own_done) err = cudaEventCreateWithFlags(&M->own_done, cudaEventDisableTiming);
  if (err == cudaSuccess) err = cudaEventRecord(M->own_done, M->stream);
  if (err == cudaSuccess) err = cudaStreamWaitEvent(s, M->own_done, 0);
  if (err != cudaSuccess) return fail_cuda(sink(M), err, what);
  M->own_queued = false;
  return BSRC_CUDA_OK;
}

bsrc_cuda_status finish(bsrc_cuda_matrix *M, const char *what)
{
  M->own_queued = false;
  const cudaError_t err = cudaStreamSynchronize(M->stream);
  if (err != cudaSuccess) return fail_cuda(sink(M), err, what);
  return BSRC_CUDA_OK;
}

bsrc_cuda_status bench_baseline(bsrc_cuda_matrix *M, cusparse_variant v, double alpha, const double *x, double beta, const double *in, double *out)
{
  bsrc_cuda_status s = check_product_args(M, BSRC_CUDA_KERNEL_CUSPARSE_BSRMV, x, beta, in, out);
  if (s != BSRC_CUDA_OK) return s;
  device_scope ds(M->device);
  if (ds.error() != cudaSuccess) return fail_cuda(sink(M), ds.error(), "cudaSetDevice");
  if (M->nbrows == 0) return BSRC_CUDA_OK;
  s = join_caller(M, "benchmark baseline: ordering after queued products");
  if (s != BSRC_CUDA_OK) return s;
  M->own_queued = true;
  return cusparse_multadd(&M->cus, view(M), M->stream, v, alpha, x, beta, in, out, &M->bytes, sink(M));
}

} // namespace

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

bsrc_cuda_status dev_alloc(dev_buffer &b, size_t bytes, const char *what, size_t *counter, error_sink e)
{
  dev_free(b, counter);
  if (bytes == 0) return BSRC_CUDA_OK;
  const cudaError_t err = cudaMalloc(&b.ptr, bytes);
  if (err != cudaSuccess) {
    (void)cudaGetLastError(); /* allocation failures are not sticky; clear them */
    b.ptr = nullptr;
    return fail(e, err == cudaErrorMemoryAllocation ? BSRC_CUDA_ERR_MEM : BSRC_CUDA_ERR_CUDA, "cudaMalloc of %zu bytes for %s: %s (%s)", bytes, what, cudaGetErrorString(err), cudaGetErrorName(err));
  }
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
  int               n   = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

extern "C" bsrc_cuda_status bsrc_cuda_create(int device, bsrc_cuda_matrix **M)
{
  if (!M) return fail(sink(nullptr), BSRC_CUDA_ERR_ARG, "bsrc_cuda_create: output pointer is NULL");
  *M            = nullptr;
  const int n   = bsrc_cuda_device_count();
  if (n == 0) return fail(sink(nullptr), BSRC_CUDA_ERR_NODEVICE, "bsrc_cuda_create: no CUDA device visible");
  if (device < 0 || device >= n) return fail(sink(nullptr), BSRC_CUDA_ERR_ARG, "bsrc_cuda_create: device %d out of range [0, %d)", device, n);

  bsrc_cuda_matrix *A = new (std::nothrow) bsrc_cuda_matrix;
  if (!A) return fail(sink(nullptr), BSRC_CUDA_ERR_MEM, "bsrc_cuda_create: out of host memory");
  A->device = device;
  device_scope ds(device);
  cudaError_t  err = ds.error();
  cudaDeviceProp prop;
  if (err == cudaSuccess) err = cudaGetDeviceProperties(&prop, device);
  /* A blocking stream: it orders itself after work the caller queued on the legacy default stream
     (cudaMemcpy / cudaMemset of the inputs), so device arrays filled that way are safe to pass. */
  if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&A->stream, cudaStreamDefault);
  if (err != cudaSuccess) {
    const bsrc_cuda_status s = fail_cuda(sink(nullptr), err, "bsrc_cuda_create");
    delete A;
    return s;
  }
  A->dev.sm_count               = prop.multiProcessorCount;
  A->dev.max_threads_per_sm     = prop.maxThreadsPerMultiProcessor;
  A->dev.shared_per_block       = prop.sharedMemPerBlock;
  A->dev.shared_per_block_optin = std::max(prop.sharedMemPerBlockOptin, prop.sharedMemPerBlock);
  A->dev.cc_major               = prop.major;
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
  if (ds.error() != cudaSuccess) return fail_cuda(sink(M), ds.error(), "cudaSetDevice");
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
  const double mean = nbrows > 0 ? (double)nblocks / (double)nbrows : 0.0;
  M->lanes          = warp_row_lanes(bs, mean);
  int64_t short_rows = 0, short_blocks = 0;
  for (bsrk_idx r = 0; r < nbrows; ++r) {
    const int64_t n = rowptr[r + 1] - rowptr[r];
    if (n * bs < kHybridShortColumns) {
      ++short_rows;
      short_blocks += n;
    }
  }
  M->hybrid_lanes   = hybrid_row_lanes(bs, short_rows > 0 ? (double)short_blocks / (double)short_rows : mean);
  s                 = build_hybrid_work(M);
  if (s == BSRC_CUDA_OK) s = build_strips(M);
  if (s != BSRC_CUDA_OK) {
    release_structure(M);
    return s;
  }
  s = plan_slices(M);
  if (s != BSRC_CUDA_OK) {
    release_structure(M);
    return s;
  }
  M->auto_kernel    = auto_choice(nbrows, nblocks, bs, M->max_row_blocks, M->max_task_rows, M->slice_blocks);
  M->has_structure  = true;
  M->has_values     = false;
  return BSRC_CUDA_OK;
}

extern "C" bsrc_cuda_status bsrc_cuda_set_values(bsrc_cuda_matrix *M, const double *values)
{
  if (!M) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_values: matrix is NULL");
  if (!M->has_structure) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_values: no structure set (call bsrc_cuda_set_structure first)");
  if (M->nblocks > 0 && !values) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_values: values is NULL");
  device_scope ds(M->device);
  if (ds.error() != cudaSuccess) return fail_cuda(sink(M), ds.error(), "cudaSetDevice");
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

namespace bsrc {
namespace {
/* WARP_ROW, SLICED or a task kernel (k) into a page-locked out in overlap_chunks row ranges (a task
   kernel's ranges follow its task ranges, overlap_task): range c's download (on the
   download stream, after range c's product) overlaps the product of range c + 1, so of the
   download only the last range's is not hidden. dx (and dy holding in, beta != 0) are queued on
   M's stream already. Returns once out holds the result. */
bsrc_cuda_status overlapped_product(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, double alpha, const double *dx, double beta, double *out)
{
  bsrc_cuda_status s = k == BSRC_CUDA_KERNEL_SLICED ? ensure_slices(M, M->stream) : BSRC_CUDA_OK;
  if (s == BSRC_CUDA_OK) s = configured(M, k);
  if (s != BSRC_CUDA_OK) {
    (void)cudaStreamSynchronize(M->stream);
    return s;
  }
  double     *dy    = (double *)M->d_y.ptr;
  const bool  tasky = is_task_kernel(k);
  cudaError_t err   = cudaSuccess;
  for (int c = 0; c < overlap_chunks && err == cudaSuccess; ++c) {
    /* SLICED: ranges start at slices (multiples of 32 rows); task kernels: at the task ranges' rows */
    const int64_t  unit = k == BSRC_CUDA_KERNEL_SLICED ? kWarpSize : 1;
    const bsrk_idx r0 = tasky ? M->overlap_row[c] : (bsrk_idx)((int64_t)M->nbrows * c / overlap_chunks / unit * unit);
    const bsrk_idx r1 = tasky ? M->overlap_row[c + 1] : c + 1 == overlap_chunks ? M->nbrows : (bsrk_idx)((int64_t)M->nbrows * (c + 1) / overlap_chunks / unit * unit);
    const size_t   off = (size_t)r0 * (size_t)M->bs, n = (size_t)(r1 - r0) * (size_t)M->bs;
    if (tasky) err = launch_task_range(k, view(M), tasks(M), M->cfg[k], M->overlap_task[c], M->overlap_task[c + 1], alpha, dx, beta, dy, dy, M->stream);
    else err = launch_row_range(k, view(M), tasks(M), M->cfg[k], r0, r1, alpha, dx, beta, dy, dy, M->stream);
    if (err == cudaSuccess) err = cudaEventRecord(M->piece_done[c], M->stream);
    if (err == cudaSuccess) err = cudaStreamWaitEvent(M->down_stream, M->piece_done[c], 0);
    if (err == cudaSuccess && n > 0) err = cudaMemcpyAsync(out + off, dy + off, n * sizeof(double), cudaMemcpyDeviceToHost, M->down_stream);
  }
  const cudaError_t wait_down = cudaStreamSynchronize(M->down_stream);
  if (err != cudaSuccess) return abandon(M, err, "overlapped product (host entry)");
  err = cudaStreamSynchronize(M->stream); /* errors of the products surface here */
  if (err == cudaSuccess) err = wait_down;
  if (err != cudaSuccess) return abandon(M, err, "product (host entry)");
  return BSRC_CUDA_OK;
}

/* The host entry points' first step: x into d_x and, when beta != 0, in into d_y (stage_up), the
   staging buffers allocated on first use. in is then read in full, by the host or by a DMA queued
   on the stream, before any product writes d_y, so in may alias the caller's out. */
bsrc_cuda_status stage_inputs(bsrc_cuda_matrix *M, const staging_plan &plan, const double *x, double beta, const double *in, const char *what)
{
  const bsrc_cuda_status s = ensure_staging(M);
  if (s != BSRC_CUDA_OK) return s;
  cudaError_t err = stage_up(M, plan, (double *)M->d_x.ptr, M->h_x, x, x_bytes(M));
  if (err == cudaSuccess && beta != 0.0) err = stage_up(M, plan, (double *)M->d_y.ptr, M->h_y, in, y_bytes(M));
  if (err != cudaSuccess) return abandon(M, err, what);
  return BSRC_CUDA_OK;
}
} // namespace
} // namespace bsrc

extern "C" bsrc_cuda_status bsrc_cuda_multadd_host(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, double alpha, const double *x, double beta, const double *in, double *out)
{
  bsrc_cuda_status s = check_product_args(M, k, x, beta, in, out);
  if (s != BSRC_CUDA_OK) return s;
  if (M->nbrows == 0) return BSRC_CUDA_OK;
  device_scope ds(M->device);
  if (ds.error() != cudaSuccess) return fail_cuda(sink(M), ds.error(), "cudaSetDevice");
  s = join_caller(M, "host product: ordering after queued products");
  if (s != BSRC_CUDA_OK) return s;
  const staging_plan plan = staging_settings();
  s                       = stage_inputs(M, plan, x, beta, in, "host-to-device copy of x / in");
  if (s != BSRC_CUDA_OK) return s;
  const size_t ybytes = y_bytes(M);
  double      *dx = (double *)M->d_x.ptr, *dy = (double *)M->d_y.ptr;
  /* out is asked whether it is page-locked once (cudaPointerGetAttributes calls): here only where the
     overlapped download could run, else by stage_down once the product is queued, so that the
     calls overlap the kernel (in the H100 run where it was asked before every launch, PETSc's
     MatMult on the thesis matrix took 0.200 ms against 0.170 the run before) */
  const bsrc_cuda_kernel kr = k == BSRC_CUDA_KERNEL_AUTO ? M->auto_kernel : k;
  const bool ranged  = kr == BSRC_CUDA_KERNEL_WARP_ROW || (kr == BSRC_CUDA_KERNEL_SLICED && !M->slices_sorted) || (is_task_kernel(kr) && M->ntasks >= overlap_chunks);
  const bool overlap = ranged && ybytes >= overlap_min_bytes;
  const bool locked  = overlap && page_locked(out, ybytes);
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
  /* out is only known at split_end: check the rest here (x stands in for it) */
  bsrc_cuda_status s = check_product_args(L, kl, x, beta, in, L && L->nbrows > 0 ? x : nullptr);
  if (s != BSRC_CUDA_OK) return s;
  if (L->split_open) return fail(sink(L), BSRC_CUDA_ERR_ARG, "split_begin: the previous split product was not ended (bsrc_cuda_split_end)");
  device_scope ds(L->device);
  if (ds.error() != cudaSuccess) return fail_cuda(sink(L), ds.error(), "cudaSetDevice");
  s = join_caller(L, "split product: ordering after queued products");
  if (s == BSRC_CUDA_OK) s = stage_inputs(L, staging_settings(), x, beta, in, "host-to-device copy of x / in (split product)");
  if (s != BSRC_CUDA_OK) return s;
  double *dx = (double *)L->d_x.ptr, *dy = (double *)L->d_y.ptr;
  s          = queue_product(L, kl, alpha, dx, beta, dy, dy);
  if (s != BSRC_CUDA_OK) {
    (void)cudaStreamSynchronize(L->stream);
    return s;
  }
  L->split_open = true;
  return BSRC_CUDA_OK;
}

/* end: ghost_x staged on G's stream (its DMA overlaps L's product), L's stream made to wait for it,
   G's product queued on L's stream accumulating into L's y, and y brought back once. */
extern "C" bsrc_cuda_status bsrc_cuda_split_end(bsrc_cuda_matrix *L, bsrc_cuda_matrix *G, bsrc_cuda_kernel kg, double alpha, const double *ghost_x, double *out)
{
  if (!L) return fail(sink(L), BSRC_CUDA_ERR_ARG, "split_end: local matrix is NULL");
  if (!L->split_open) return fail(sink(L), BSRC_CUDA_ERR_ARG, "split_end: no split product begun (bsrc_cuda_split_begin)");
  L->split_open = false;
  device_scope ds(L->device);
  if (ds.error() != cudaSuccess) return fail_cuda(sink(L), ds.error(), "cudaSetDevice");
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
    else if (G->nbrows != L->nbrows || G->bs != L->bs) s = fail(sink(L), BSRC_CUDA_ERR_ARG, "split_end: ghost block has %lld block rows of bs %lld, local block %lld of bs %lld", (long long)G->nbrows, (long long)G->bs, (long long)L->nbrows, (long long)L->bs);
    else if (!ghost_x) s = fail(sink(L), BSRC_CUDA_ERR_ARG, "split_end: ghost_x is NULL");
    else if ((s = check_product_args(G, kg, ghost_x, 1.0, dy, dy)) != BSRC_CUDA_OK) (void)snprintf(L->msg, sizeof(L->msg), "ghost block: %.900s", G->msg);
    else if ((s = ensure_staging(G)) != BSRC_CUDA_OK) (void)snprintf(L->msg, sizeof(L->msg), "ghost block: %.900s", G->msg);
    else if ((s = join_caller(G, "split product: ordering after queued products")) != BSRC_CUDA_OK) (void)snprintf(L->msg, sizeof(L->msg), "ghost block: %.900s", G->msg);
    if (s != BSRC_CUDA_OK) {
      (void)cudaStreamSynchronize(L->stream);
      return s;
    }
    cudaError_t err = stage_up(G, plan, G->d_x.ptr, G->h_x, ghost_x, x_bytes(G));
    if (err == cudaSuccess) err = cudaEventRecord(G->split_mark, G->stream);
    if (err == cudaSuccess) err = cudaStreamWaitEvent(L->stream, G->split_mark, 0);
    if (err != cudaSuccess) {
      (void)cudaStreamSynchronize(G->stream);
      return abandon(L, err, "host-to-device copy of the ghost values (split product)");
    }
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

extern "C" bsrc_cuda_status bsrc_cuda_multadd_device_async(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, double alpha, const double *x_dev, double beta, const double *in_dev, double *out_dev)
{
  const bsrc_cuda_status s = check_product_args(M, k, x_dev, beta, in_dev, out_dev);
  if (s != BSRC_CUDA_OK) return s;
  device_scope ds(M->device);
  if (ds.error() != cudaSuccess) return fail_cuda(sink(M), ds.error(), "cudaSetDevice");
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
  if (ds.error() != cudaSuccess) return fail_cuda(sink(M), ds.error(), "cudaSetDevice");
  const cudaStream_t cs = stream ? (cudaStream_t)stream : cudaStreamLegacy;
  bsrc_cuda_status   st = join_own(M, cs, "device product: ordering after M's own stream");
  if (st != BSRC_CUDA_OK) return st;
  st = queue_product(M, k, alpha, x_dev, beta, in_dev, out_dev, cs);
  if (st != BSRC_CUDA_OK) return st;
  cudaError_t err = cudaSuccess;
  if (!M->caller_done) err = cudaEventCreateWithFlags(&M->caller_done, cudaEventDisableTiming);
  if (err == cudaSuccess) err = cudaEventRecord(M->caller_done, cs);
  if (err != cudaSuccess) return fail_cuda(sink(M), err, "device product: recording its completion");
  M->caller_queued = true;
  return BSRC_CUDA_OK;
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

extern "C" bsrc_cuda_status bsrc_cuda_host_register(void *ptr, size_t bytes)
{
  if (!ptr || bytes == 0) return fail(sink(nullptr), BSRC_CUDA_ERR_ARG, "host_register: %s", ptr ? "0 bytes" : "pointer is NULL");
  const cudaError_t err = cudaHostRegister(ptr, bytes, cudaHostRegisterPortable);
  if (err != cudaSuccess) {
    (void)cudaGetLastError(); /* not sticky: later calls must not see it */
    char what[96];
    snprintf(what, sizeof(what), "cudaHostRegister of %zu bytes at %p", bytes, ptr);
    return fail_cuda(sink(nullptr), err, what);
  }
  return BSRC_CUDA_OK;
}

extern "C" bsrc_cuda_status bsrc_cuda_host_unregister(void *ptr)
{
  if (!ptr) return fail(sink(nullptr), BSRC_CUDA_ERR_ARG, "host_unregister: pointer is NULL");
  const cudaError_t err = cudaHostUnregister(ptr);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    char what[64];
    snprintf(what, sizeof(what), "cudaHostUnregister at %p", ptr);
    return fail_cuda(sink(nullptr), err, what);
  }
  return BSRC_CUDA_OK;
}

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
  if (ds.error() != cudaSuccess) return fail_cuda(sink(M), ds.error(), "cudaSetDevice");
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
  /* SLICED's kernels are compiled for at most kSlicedMaxThreads a block: their registers (up to 128
     with 4x4 blocks and two steps in flight) would not fit 1024 threads */
  if (k == BSRC_CUDA_KERNEL_SLICED && threads > kSlicedMaxThreads) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_threads: %d threads for sliced (a multiple of 32 in [32, %d], or 0)", threads, kSlicedMaxThreads);
  M->threads_override[k] = threads;
  M->cfg_valid[k]        = false;
  return BSRC_CUDA_OK;
}

extern "C" bsrc_cuda_status bsrc_cuda_set_lanes(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, int lanes)
{
  if (!M) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_lanes: matrix is NULL");
  if (!has_lanes(k)) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_lanes: kernel %d has no lanes per row (warp_row or hybrid)", (int)k);
  const bool small = k == BSRC_CUDA_KERNEL_HYBRID && (lanes == 1 || lanes == 2); /* HYBRID only: WARP_ROW's tables start at 4 */
  if (lanes != 0 && lanes != 4 && lanes != 8 && lanes != 16 && lanes != 32 && !small) return fail(sink(M), BSRC_CUDA_ERR_ARG, "set_lanes: %d lanes for %s (4, 8, 16 or 32%s, or 0)", lanes, bsrc_cuda_kernel_names[k], k == BSRC_CUDA_KERNEL_HYBRID ? "; 1 or 2 too" : "");
  M->lanes_override[k] = lanes;
  M->cfg_valid[k]      = false;
  if (k != BSRC_CUDA_KERNEL_HYBRID || !M->has_structure) return BSRC_CUDA_OK;
  device_scope ds(M->device);
  if (ds.error() != cudaSuccess) return fail_cuda(sink(M), ds.error(), "cudaSetDevice");
  (void)join_caller(M, "set_lanes");
  (void)cudaStreamSynchronize(M->stream); /* a queued product may still read the old pieces */
  const bsrc_cuda_status s = build_hybrid_work(M);
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

extern "C" bsrc_cuda_status bsrc_cuda_bench_cusparse_rowmajor_bsrmv(bsrc_cuda_matrix *M, double alpha, const double *x_dev, double beta, const double *in_dev, double *out_dev)
{
  return bench_baseline(M, CUSP_BSRMV_ROW, alpha, x_dev, beta, in_dev, out_dev);
}

extern "C" bsrc_cuda_status bsrc_cuda_bench_cusparse_spmv_csr(bsrc_cuda_matrix *M, int alg, double alpha, const double *x_dev, double beta, const double *in_dev, double *out_dev)
{
  if (alg != 1 && alg != 2) return fail(sink(M), BSRC_CUDA_ERR_ARG, "bench_cusparse_spmv_csr: alg %d (1 or 2)", alg);
  return bench_baseline(M, alg == 1 ? CUSP_SPMV_CSR_ALG1 : CUSP_SPMV_CSR_ALG2, alpha, x_dev, beta, in_dev, out_dev);
}

extern "C" int bsrc_cuda_spmv_bsr_layout(const bsrc_cuda_matrix *M)
{
  return M ? cusparse_spmv_bsr_layout(M->cus) : -1;
}

extern "C" bsrc_cuda_status bsrc_cuda_debug_try_alloc(bsrc_cuda_matrix *M, size_t bytes)
{
  if (!M) return fail(sink(M), BSRC_CUDA_ERR_ARG, "debug_try_alloc: matrix is NULL");
  device_scope ds(M->device);
  if (ds.error() != cudaSuccess) return fail_cuda(sink(M), ds.error(), "cudaSetDevice");
  dev_buffer             b;
  const bsrc_cuda_status s = dev_alloc(b, bytes, "debug_try_alloc", &M->bytes, sink(M));
  dev_free(b, &M->bytes);
  return s;
}
