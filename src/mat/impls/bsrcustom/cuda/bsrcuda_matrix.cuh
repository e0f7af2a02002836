/*
   One matrix on the device (struct bsrc_cuda_matrix) and the helpers the CUDA layer's files share on
   it. Private: not installed, not for C callers. Included by
     bsrcuda_matrix.cu       device storage, the C interface of bsrcuda.h on device arrays;
     bsrcuda_hostentry.cu    its entry points on host arrays, staged through pinned buffers;
     bsrcuda_plan.cu         the kernels' work plans (task partition, pieces, strips, slices);
     bsrcuda_kernel_table.cu the kernel descriptors;
   and, outside the production library, by the benchmark baselines (bench/bench_cuda_baselines.cu)
   and the test hooks (tests/cuda/cuda_test_hooks.cu), which reach a matrix only through this header.
*/
#ifndef BSRCUDA_MATRIX_CUH
#define BSRCUDA_MATRIX_CUH

#include "bsrcuda_device.cuh"
#include "bsrcuda_kernels.cuh"

#include <vector>

namespace bsrc {
/* Staging of host vectors (bsrc_cuda_multadd_host). Vectors move in pieces of staging_chunk_bytes:
   the CPU copies piece k+1 into the pinned buffer while the copy engine moves piece k to the device,
   and on the way back the CPU copies piece k out while later pieces are still in flight, so only
   one piece's host copy at each end is not hidden behind DMA. 1 MiB: a cudaMemcpyAsync of 1 MiB
   from pinned memory already runs near the bus's speed (its per-call cost is small against the
   transfer), and a vector of a few MB still splits into several pieces. A vector in page-locked
   memory skips all this: one DMA straight from or to it (stage_up, stage_down), since the host copy
   into pinned memory is slower than the bus. */
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

/* A set of pieces of long rows on the device (pieces_view), with its buffers. */
struct piece_set {
  int         lanes   = 0;
  bsrk_idx    npieces = 0, nlong = 0, row_long_blocks = 0, piece_blocks = 0;
  dev_buffer  piece_row, piece_start, long_row, long_piece_begin, piece_sum;
  pieces_view view() const
  {
    return pieces_view{lanes, npieces, nlong, row_long_blocks, piece_blocks, (const bsrk_idx *)piece_row.ptr, (const bsrk_idx *)piece_start.ptr, (const bsrk_idx *)long_row.ptr, (const bsrk_idx *)long_piece_begin.ptr, (double *)piece_sum.ptr};
  }
};
} // namespace bsrc

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
  bsrk_idx         tasks_wanted  = 0; /* 0: default_task_count */
  bsrk_idx         ntasks        = 0;
  bool             has_carries   = false;
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
  bsrk_idx              nslices        = 0;
  int64_t               slice_blocks   = 0;     /* the natural layout's blocks, padding included (the auto choice) */
  bool                  slices_sorted  = false; /* the sorted layout (uneven rows): its lane rows, below */
  bool                  slices_planned = false; /* host_slice_step and the lane rows describe SLICED's layout */
  std::vector<bsrk_idx> host_lane_out, host_lane_len, host_slice_long_row, host_slice_long_begin, host_slot_long;
  std::vector<int64_t>  host_lane_b0;
  bsrk_idx              slice_nlong = 0, slice_nslots = 0;
  bsrc::dev_buffer      slice_step, slice_col, slice_values, lane_out, lane_b0, lane_len, slice_long_row, slice_long_begin, slot_sum, slot_long, long_arrivals;
  uint64_t              slices_epoch = 0; /* the values_epoch the copy was built from; 0: none */

  /* statistics, choices, launches */
  bsrk_idx            max_row_blocks                           = 0;
  int                 lanes                                    = 4; /* WARP_ROW: from the mean row */
  int                 hybrid_lanes                             = 4; /* HYBRID: from the mean of the short rows (hybrid_row_lanes) */
  int                 lanes_override[BSRC_CUDA_KERNEL_COUNT]   = {};
  bsrc_cuda_kernel    auto_kernel                              = BSRC_CUDA_KERNEL_VECTOR_UNROLLED;
  int                 threads_override[BSRC_CUDA_KERNEL_COUNT] = {};
  bsrc::launch_config cfg[BSRC_CUDA_KERNEL_COUNT]{};
  bool                cfg_valid[BSRC_CUDA_KERNEL_COUNT] = {};

  /* staging for the host entry point (pinned buffers as large as x and y; events of the download
     ring, created on first use and kept until bsrc_cuda_destroy) */
  bsrc::dev_buffer d_x, d_y;
  double          *h_x = nullptr, *h_y = nullptr;
  cudaEvent_t      piece_done[bsrc::staging_ring] = {};
  cudaEvent_t      split_mark                     = nullptr; /* split product: "x staged and local product queued" / "ghost x staged" */
  cudaStream_t     down_stream                    = nullptr; /* overlapped download of a page-locked out (multadd_host) */
  bool             have_events                    = false;
  bool             split_open                     = false; /* bsrc_cuda_split_begin ran, bsrc_cuda_split_end not yet */

  /* products queued on a caller's stream (bsrc_cuda_multadd_device_on) and work left running on M's
     own stream are ordered against each other through these, without host waits */
  cudaEvent_t caller_done   = nullptr; /* recorded after the last product on a caller's stream */
  bool        caller_queued = false;   /* caller_done not yet waited for by M's stream */
  cudaEvent_t own_done      = nullptr; /* recorded on M's stream when async work there must precede a caller's product */
  bool        own_queued    = false;   /* async work queued on M's stream since the last synchronisation */

  bsrc::cusparse_state *cus = nullptr;

  /* the block SpMM's device copies of X and Y for its host entry points (bsrcuda_spmm.cu), grown
     to the largest k seen and freed with the staging buffers; spmm_open: a split SpMM is begun */
  bsrc::dev_buffer spmm_x, spmm_y;
  double          *spmm_hx = nullptr, *spmm_hy = nullptr; /* pinned staging of X and Y (spmm_stage_up/down) */
  size_t           spmm_hx_bytes = 0, spmm_hy_bytes = 0;
  bool             spmm_open = false;
};

namespace bsrc {

/* The message buffer of M, or the calling thread's for calls without a matrix (M null). */
error_sink sink(bsrc_cuda_matrix *M);

inline matrix_view view(const bsrc_cuda_matrix *M)
{
  return matrix_view{M->nbrows, M->nbcols, M->bs, M->nblocks, (const bsrk_idx *)M->rowptr.ptr, (const bsrk_idx *)M->colidx.ptr, (const double *)M->values.ptr, M->values_epoch};
}

inline tasks_view tasks(const bsrc_cuda_matrix *M)
{
  return tasks_view{M->ntasks,
                    (const bsrk_idx *)M->task_block_begin.ptr,
                    (const bsrk_idx *)M->task_row_begin.ptr,
                    (const bsrk_idx *)M->task_head_row.ptr,
                    (double *)M->carry.ptr,
                    M->has_carries,
                    M->hybrid_pieces.view(),
                    M->segmented_pieces.view(),
                    M->hybrid_nwork,
                    (const bsrk_idx *)M->hybrid_work.ptr,
                    M->hybrid_short_blocks,
                    (const bsrk_idx *)M->hybrid_medium.ptr,
                    M->nstrips,
                    (const bsrk_idx *)M->strip_begin.ptr,
                    (const bsrk_idx *)M->strip_end.ptr,
                    slices_view{M->nslices, (const int64_t *)M->slice_step.ptr, (const bsrk_idx *)M->slice_col.ptr, (const double *)M->slice_values.ptr, (const bsrk_idx *)M->lane_out.ptr, (const int64_t *)M->lane_b0.ptr, (const bsrk_idx *)M->lane_len.ptr, M->slice_nlong,
                                (const bsrk_idx *)M->slice_long_row.ptr, (const bsrk_idx *)M->slice_long_begin.ptr, (double *)M->slot_sum.ptr, (const bsrk_idx *)M->slot_long.ptr, (unsigned *)M->long_arrivals.ptr}};
}

/* Bytes of M's x (block columns x bs) and of its y / in (block rows x bs). */
inline size_t x_bytes(const bsrc_cuda_matrix *M)
{
  return (size_t)M->nbcols * (size_t)M->bs * sizeof(double);
}
inline size_t y_bytes(const bsrc_cuda_matrix *M)
{
  return (size_t)M->nbrows * (size_t)M->bs * sizeof(double);
}

/* bytes = count * size, or false when it does not fit in size_t. */
inline bool byte_count(size_t count, size_t size, size_t *bytes)
{
  if (size != 0 && count > SIZE_MAX / size) return false;
  *bytes = count * size;
  return true;
}

/* Host bytes -> device buffer b on M's stream, waited for; errors as "what: <CUDA text>". */
bsrc_cuda_status upload(bsrc_cuda_matrix *M, dev_buffer &b, const void *host, size_t bytes, const char *what);
/* The checks every product entry point makes before it queues anything (x, in, out as it gets them). */
bsrc_cuda_status check_product_args(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, const double *x, double beta, const double *in, const double *out);
/* M's own stream waits for products queued on a caller's stream (no host wait): every entry point
   that works on M's stream, or changes what a queued product reads, calls this first. */
bsrc_cuda_status join_caller(bsrc_cuda_matrix *M, const char *what);
/* The caller's stream s waits for async work left on M's own stream, so that a product queued on s
   never overlaps another product of M. */
bsrc_cuda_status join_own(bsrc_cuda_matrix *M, cudaStream_t s, const char *what);
/* After a product queued on a caller's stream s: records it, so that M's later work waits for it. */
bsrc_cuda_status mark_caller(bsrc_cuda_matrix *M, cudaStream_t s, const char *what);
/* bsrcuda_matrix.cu's, for the host entry points (bsrcuda_hostentry.cu): a pinned buffer given back
   (p null after); the staging buffers given back; the download ring's events and stream, made on
   first use; M->cfg[k] up to date; the product queued on stream s (M's own when null) on device
   arrays; M's own stream waited for (what names a failure). */
void             free_pinned(double *&p);
void             release_staging(bsrc_cuda_matrix *M);
bsrc_cuda_status ensure_events(bsrc_cuda_matrix *M);
bsrc_cuda_status configured(bsrc_cuda_matrix *M, bsrc_cuda_kernel k);
bsrc_cuda_status queue_product(bsrc_cuda_matrix *M, bsrc_cuda_kernel k, double alpha, const double *x, double beta, const double *in, double *out, cudaStream_t s = nullptr);
bsrc_cuda_status finish(bsrc_cuda_matrix *M, const char *what);
/* The block SpMM's host arrays (bsrcuda_spmm.cu), as bsrc_cuda_multadd_host stages its vectors:
   through pinned buffers of M in pieces, the host copies overlapping the DMAs (a page-locked array
   goes by one DMA; pageable copies where page-locked memory is refused). up: rows x k doubles of
   host src (leading dimension ld) into device dev (packed), queued on M's stream (y: through the
   buffer of Y, else of X); down: the same back into host dst once M's stream has run, waiting. */
bsrc_cuda_status spmm_stage_up(bsrc_cuda_matrix *M, double *dev, const double *src, int64_t rows, int64_t k, int64_t ld, bool y);
bsrc_cuda_status spmm_stage_down(bsrc_cuda_matrix *M, double *dst, int64_t ld, const double *dev, int64_t rows, int64_t k);

} // namespace bsrc

#endif
