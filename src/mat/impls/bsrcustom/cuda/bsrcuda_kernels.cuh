/*
   Private interface of the CUDA layer's parts (not installed, not for C callers):
     bsrcuda_matrix.cu       device storage, the C API of bsrcuda.h on device arrays;
     bsrcuda_hostentry.cu    its entry points on host arrays, staged through pinned buffers;
     bsrcuda_plan.cu         the kernels' work plans (bsrcuda_plan.cuh);
     bsrcuda_kernels_tasks.cu  the thesis's task kernels (ch. 8);
     bsrcuda_kernels_warp.cu   WARP_ROW, HYBRID, SEGMENTED (lanes or warps per row, pieces of long rows);
     bsrcuda_kernels_sliced.cu SLICED and the build of its copy of the matrix;
     bsrcuda_kernels_device.cuh the device pieces they share; bsrcuda_launch.cuh how they are launched;
     bsrcuda_launch.cu       launch configuration and the launches, whatever the kernel;
     bsrcuda_auto.cu         the auto choice;
     bsrcuda_kernel_table.cu the kernel descriptors (bsrcuda_kernel_table.cuh);
     bsrcuda_cusparse.cu     the cuSPARSE kernels;
   errors and their checks: bsrcuda_check.cuh.
*/
#ifndef BSRCUDA_KERNELS_CUH
#define BSRCUDA_KERNELS_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "bsrcuda.h"
#include "bsrcuda_check.cuh"

namespace bsrc {

/* What the launch heuristics need to know about the GPU (read once at create). */
struct device_info {
  int    sm_count;
  int    max_threads_per_sm;
  size_t shared_per_block;       /* default dynamic shared-memory limit per thread block */
  size_t shared_per_block_optin; /* the limit after cudaFuncSetAttribute */
  int    cc_major;               /* compute capability: 9 and up use launch_config::sm90 */
};

/* A matrix on the device, as the kernels and cuSPARSE see it (BAIJ layout, column-major blocks). */
struct matrix_view {
  bsrk_idx        nbrows, nbcols, bs, nblocks;
  const bsrk_idx *rowptr, *colidx;
  const double   *values;
  uint64_t        values_epoch; /* bumped by every set_values: derived copies are rebuilt when it moves */
};

constexpr int kWarpSize = 32;

/* Long rows cut into pieces of piece_blocks blocks, a warp each (HYBRID and SEGMENTED each have a set,
   built on the host at set_structure): rows of more than row_long_blocks blocks; piece q starts at
   block piece_start[q] of row piece_row[q]. Rows of two or more pieces are the long rows, listed
   first: long row l is long_row[l], its pieces [long_piece_begin[l], long_piece_begin[l + 1]), their
   row sums in piece_sum[q * bs] (q < long_piece_begin[nlong]); rows of one piece (only when
   row_long_blocks < piece_blocks) follow and store their result directly. */
struct pieces_view {
  int             lanes; /* HYBRID: the lanes per short row the set was built for; SEGMENTED: 0 */
  bsrk_idx        npieces, nlong, row_long_blocks, piece_blocks;
  const bsrk_idx *piece_row, *piece_start, *long_row, *long_piece_begin;
  double         *piece_sum;
};

/* What the kernels use besides the matrix: the fixed-size task partition (bsrk_partition) with one
   carry per task and row, the pieces of HYBRID and SEGMENTED, and the work of their warps, in row
   order (so that the warps running at one time read nearby parts of x: with the pieces of all long
   rows first, more was read from DRAM). Warp w of HYBRID takes hybrid_work[w]: >= 0, the kWarpSize /
   lanes rows from there (those of more than hybrid_short_blocks blocks left to the other items);
   >= nbrows, the kWarpSize / kMediumLanes rows hybrid_medium[(item - nbrows) * kWarpSize /
   kMediumLanes ...] (-1: none), kMediumLanes lanes each; < 0, piece -1 - hybrid_work[w]. (Sorting
   the short rows by length within windows of 256 rows, so that a warp's rows are about as long, was
   slower.) Warp w of
   SEGMENTED takes strip_begin[w]: >= 0, the strip of block rows [strip_begin[w], strip_end[w]) (at
   most kStripRows rows of at most kStripItems items together, none of them long); < 0, a piece. */
/* SLICED's copy of the matrix (built on the device from the BAIJ arrays when SLICED first runs and
   again after the values change, bsrcuda_plan.cu). Slice s holds 32 "lane rows", one lane each, and
   as many steps as its longest, steps [slice_step[s], slice_step[s + 1]). Step k stores its lanes'
   blocks component by component: component q (column-major inside the block) of lane l at
   slice_values[(k * bs * bs + q) * 32 + l], the block column at slice_col[k * 32 + l]; so a warp's
   load of one component is 256 contiguous bytes. A lane row shorter than its slice is padded with
   zero blocks at its last column (the lane reads x it already has). Two layouts:
   - natural (lane_out null): lane l of slice s is block row 32 s + l. Chosen when that leaves at
     most kSlicedMaxPadding of padding (even rows);
   - sorted (uneven rows): a block row of at most sliced_lane_blocks(bs) blocks takes one lane, a longer
     one a group of 2-32 lanes (aligned, in one slice) that share its blocks out evenly and add their
     sums by a butterfly at the end, one of more than 32 x that many blocks whole slices that
     each leave one partial sum (a slot). Units sorted by lanes, then by their longest lane, so that a slice's
     lanes are about equally long (plan_sorted_slices in bsrcuda_plan.cu).
     lane_out[32 s + l] is the block row the lane's group stores (>= 0), -2 - q for the q-th partial
     sum (in slot_sum[q * bs]; the long row long_row[j] owns slots [long_begin[j], long_begin[j + 1]),
     and the warp of its last slice to finish adds them, see sliced_long_row_end), or -1 for an empty
     lane; lanes of one group share their lane_out. lane_b0 / lane_len are where a lane's blocks start in the BAIJ arrays and how many (for
     the build). */
constexpr int kSlicedMaxThreads = 256; /* SLICED's kernels: threads per block at most (their launch bound) */
/* SLICED, sorted layout: a lane's blocks at most, the fastest on power-law rows of 2x2 (64) and 4x4
   (32) blocks of the values tried. */
inline int sliced_lane_blocks(bsrk_idx bs)
{
  return bs == 2 ? 64 : 32;
}
constexpr double kSlicedMaxPadding = 1.02; /* SLICED: the natural layout while its blocks are at most this x the matrix's */
struct slices_view {
  bsrk_idx        nslices;
  const int64_t  *slice_step;
  const bsrk_idx *slice_col;
  const double   *slice_values;
  const bsrk_idx *lane_out; /* sorted layout; null: natural */
  const int64_t  *lane_b0;
  const bsrk_idx *lane_len;
  bsrk_idx        nlong;
  const bsrk_idx *long_row, *long_begin;
  double         *slot_sum;
  const bsrk_idx *slot_long;     /* slot q belongs to long row slot_long[q] */
  unsigned       *long_arrivals; /* per long row: its slices finished in this product (0 between products) */
};

struct tasks_view {
  bsrk_idx        ntasks;
  const bsrk_idx *block_begin, *row_begin, *head_row;
  double         *carry;       /* [ntasks * bs]: partial sums of rows a task continues */
  bool            has_carries; /* some task continues a row (head_row >= 0): the fix-up pass runs */
  pieces_view     hybrid, segmented;
  bsrk_idx        hybrid_nwork;
  const bsrk_idx *hybrid_work;
  bsrk_idx        hybrid_short_blocks; /* rows a group of hybrid_work takes: at most this long */
  const bsrk_idx *hybrid_medium;       /* the middle tier's rows (kMediumLanes), or null */
  bsrk_idx        nstrips;
  const bsrk_idx *strip_begin, *strip_end;
  slices_view     slices; /* SLICED: null arrays until its copy is built */
};

/* A work-list item (hybrid_work, strip_begin) that stands for piece q, and back. */
__host__ __device__ constexpr bsrk_idx piece_item(bsrk_idx q)
{
  return -1 - q;
}
__host__ __device__ constexpr bsrk_idx item_piece(bsrk_idx item)
{
  return -1 - item;
}

/* SEGMENTED's strips: a warp walks the items (bs 1: blocks; bs 2: whole 2x2 blocks; else block
   columns) of up to kStripRows consecutive rows as one run, 32 consecutive items per step, for at
   most kStripSteps steps; a row with more items than that is cut into pieces of a warp each. */
constexpr int kStripRows  = 32; /* a lane per row holds the row's sums */
constexpr int kStripSteps = 16;
constexpr int kStripItems = 32 * kStripSteps;
/* Items per block of size bs in SEGMENTED's walk. */
__host__ __device__ constexpr int strip_items_per_block(int bs)
{
  return bs <= 2 ? 1 : bs;
}

/* HYBRID: a row goes to the pieces from kLongColumnsPerLane columns per lane of its group, and from
   no fewer than kLongColumnsMin columns (a group's lanes wait for the longest row of their warp;
   both values were the fastest of those tried on scalar power-law rows), and is cut into pieces of
   kPieceColumns columns (16 steps of a warp; 256 or 1024 columns were slower or no faster). With
   2x2 blocks, from 8 columns a lane (4 lanes: rows of more than 16 blocks, instead of 32), a little
   faster for bs 2 and slower for bs 4, hence only for bs 2. */
constexpr int                     kLongColumnsPerLane    = 16;
constexpr int                     kLongColumnsPerLaneBs2 = 8;
constexpr int                     kLongColumnsMin        = 32;
constexpr int                     kPieceColumns          = 16 * 32;
__host__ __device__ constexpr int long_columns_per_lane(int bs)
{
  return bs == 2 ? kLongColumnsPerLaneBs2 : kLongColumnsPerLane;
}
/* HYBRID with one lane a short row (bs 1) has a middle tier: rows of more than kOneLaneColumnsMax
   and at most kMediumColumnsMax columns are taken kMediumLanes lanes each, four rows a warp, from a
   list of such rows in row order, instead of a whole warp for a row of 33-128 columns (faster on
   scalar power-law rows than 4 or 16 lanes, or no tier; the result is flat near these edges).
   Longer rows go to the pieces. */
constexpr int kOneLaneColumnsMax = 24;
constexpr int kMediumColumnsMax  = 128;
constexpr int kMediumLanes       = 8;
constexpr int kMediumRowsPerWarp = kWarpSize / kMediumLanes;

struct launch_config {
  int      threads;         /* per thread block */
  int      grid;            /* thread blocks */
  int      blocks_per_sm;   /* resident thread blocks per multiprocessor (occupancy API) */
  int      lanes;           /* WARP_ROW: lanes per block row; HYBRID: per short block row; else 0 */
  size_t   shared_bytes;    /* dynamic shared memory per thread block */
  bool     sm90;            /* compute capability 9.0+: fix-up passes as programmatic dependent launches, the L2 bulk prefetches */
  bsrk_idx prefetch_rows;   /* WARP_ROW: how far ahead its thread blocks prefetch into L2, in rows (prefetch_rows); 0: not at all */
  bsrk_idx prefetch_blocks; /* HYBRID: the same in blocks (prefetch_blocks); 0: not at all */
};

/* Device memory with its size, so that frees keep the matrix's byte count right. */
struct dev_buffer {
  void  *ptr   = nullptr;
  size_t bytes = 0;
};
/* cudaMalloc through one path (error text names `what` and the size); *counter += bytes on success. */
bsrc_cuda_status dev_alloc(dev_buffer &b, size_t bytes, const char *what, size_t *counter, error_sink e);
void             dev_free(dev_buffer &b, size_t *counter);

/* ---- bsrcuda_kernels_*.cu, bsrcuda_launch.cu, bsrcuda_auto.cu ---- */
/* How each of our kernels is launched (block-size dispatch, default threads, shared memory, grid,
   fix-up passes, row ranges: bsrcuda_launch.cuh), each defined in its family's file; the descriptor
   table (bsrcuda_kernel_table.cuh) points to these. */
struct kernel_launch;
extern const kernel_launch launch_rowmajor_shared, launch_thread_private, launch_team_scalar, launch_vector_unrolled, launch_warp_row, launch_hybrid, launch_segmented, launch_sliced;
bsrk_idx                   default_task_count(bsrk_idx nblocks, bsrk_idx bs, const device_info &dev);
int                        warp_row_lanes(bsrk_idx bs, double mean_blocks_per_row);
int                        hybrid_row_lanes(bsrk_idx bs, double mean_short_blocks);
/* Block rows of fewer columns than this are the "short" rows HYBRID's lanes are sized for. */
constexpr int kHybridShortColumns = 512;
/* padded_blocks: the blocks SLICED's slices would hold (32 x the longest row of each slice). */
bsrc_cuda_kernel auto_choice(bsrk_idx nbrows, bsrk_idx nblocks, bsrk_idx bs, bsrk_idx max_row_blocks, bsrk_idx max_task_rows, int64_t padded_blocks);
/* Queues the build of SLICED's copy of A on stream s: S's columns and values, written through
   slice_col and slice_values (S holds them read-only, as the products see them); the rest of S
   already on the device. */
cudaError_t launch_slices_build(const matrix_view &A, const slices_view &S, bsrk_idx *slice_col, double *slice_values, cudaStream_t s);
/* Launch configuration of kernel k for this matrix from the device's properties and the occupancy
   API (threads_override > 0 replaces the default threads per block). */
cudaError_t configure(bsrc_cuda_kernel k, const matrix_view &A, const tasks_view &T, int lanes, const device_info &dev, int threads_override, launch_config *cfg);
/* Queues out = alpha*A*x + beta*in on stream s (and the carry fix-up for the task kernels). */
cudaError_t launch(bsrc_cuda_kernel k, const matrix_view &A, const tasks_view &T, const launch_config &cfg, double alpha, const double *x, double beta, const double *in, double *out, cudaStream_t s);
/* WARP_ROW or SLICED on block rows [r0, r1) only (their rows are independent; SLICED: r0 a
   multiple of 32, so that the range starts a slice, and its copy built): out and in are the whole
   vectors; cfg is k's configuration for A. For overlapping a product with its download. */
cudaError_t launch_row_range(bsrc_cuda_kernel k, const matrix_view &A, const tasks_view &T, const launch_config &cfg, bsrk_idx r0, bsrk_idx r1, double alpha, const double *x, double beta, const double *in, double *out, cudaStream_t s);
/* A task kernel (is_task_kernel) on tasks [t0, t1) only, with the carry fix-up of those tasks: the
   rows those tasks own get their share, the rows they continue get their carries added. Queued for
   consecutive ranges in order on one stream, the ranges make up the whole product; a row is final
   once the range holding its last block is done. out and in are the whole vectors. */
cudaError_t launch_task_range(bsrc_cuda_kernel k, const matrix_view &A, const tasks_view &T, const launch_config &cfg, bsrk_idx t0, bsrk_idx t1, double alpha, const double *x, double beta, const double *in, double *out, cudaStream_t s);
/* out = alpha*0 + beta*in over n entries (in not read when beta == 0): products of empty matrices. */
cudaError_t launch_scale(int64_t n, double alpha, double beta, const double *in, double *out, cudaStream_t s);

/* ---- bsrcuda_cusparse.cu ---- */
struct cusparse_state; /* handle, descriptors, derived copies (int32 indices, row-major blocks, CSR) */
enum cusparse_variant {
  CUSP_BSRMV_COL, /* cusparseDbsrmv, CUSPARSE_DIRECTION_COLUMN, BAIJ values in place */
  CUSP_SPMV_BSR   /* cusparseSpMV, BSR descriptor, column-major blocks in place */
};
bsrc_cuda_status cusparse_multadd(cusparse_state **st, const matrix_view &A, cudaStream_t s, cusparse_variant v, double alpha, const double *x, double beta, const double *in, double *out, size_t *device_bytes, error_sink e);
void             cusparse_release(cusparse_state *st, size_t *device_bytes);
int              cusparse_spmv_bsr_layout(const cusparse_state *st);

} // namespace bsrc

#endif
