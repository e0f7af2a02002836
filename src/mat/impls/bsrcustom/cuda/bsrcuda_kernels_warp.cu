/*
   Our CUDA BSR products: out = alpha*A*x + beta*in, A in PETSc's BAIJ layout (column-major blocks).

   WARP_ROW: a group of L = 4/8/16/32 lanes of one warp per block row, the VECTOR_UNROLLED access
   pattern within the row, no shared memory, no barrier. The group's bs sums are reduced by a
   butterfly that halves the accumulators a lane keeps at each step (reduce_scatter: 9 shuffles
   for 8 rows over 32 lanes instead of 40), so each row's sum ends in one lane. For PDE matrices
   whose block rows are short (7-27 blocks) and even.

   HYBRID: WARP_ROW (with 1 to 32 lanes a row: hybrid_row_lanes) for every row of at most 16 columns
   per lane (32 columns for one lane: kLongColumnsMin; 24 with bs 1, below), and the longer rows
   cut into pieces of kPieceColumns columns, a warp each, whose partial sums a second pass adds per
   row in piece order (deterministic). For rows of very uneven lengths (power-law): the short rows
   keep the WARP_ROW pattern, and a very long row is spread over many warps instead of one. The
   pieces are built on the host at set_structure (bsrcuda_plan.cu), and each warp takes an item of a
   work list in row order (a group of rows, or a piece), so that the warps running together read
   nearby parts of x (listing all pieces first read more from DRAM and was slower). With one lane a
   row (bs 1), rows of 25-128 columns form a middle tier between the two: 8 lanes a row, four listed
   rows a warp, where a piece would give a whole warp to one row (kMediumLanes in
   bsrcuda_kernels.cuh). Like WARP_ROW (prefetch_rows_ahead), each thread block asks the L2 for the
   matrix a fixed distance ahead of its items, for blocks of 1-3 and where there are pieces
   (prefetch_items_ahead, prefetch_blocks).

   SEGMENTED: a warp per strip of up to 32 consecutive short rows, walked as one run of items (32 a
   step, every lane busy whatever the row lengths), the per-row sums taken by a segmented scan over
   the warp; long rows in pieces as in HYBRID, in the same row-ordered list. It keeps every lane busy
   but executes about twice the instructions of WARP_ROW: it ties HYBRID on scalar power-law rows
   and is slower elsewhere, so AUTO does not pick it.
*/
#include <cmath>

#include "bsrcuda_launch.cuh"

namespace bsrc {
namespace {

constexpr int kPrefetchMaxBs = 3; /* the L2 prefetches of WARP_ROW and HYBRID: block sizes 1-3 (prefetch_rows, prefetch_blocks) */

/* ---------------------------------------------------------------------------------------------
   WARP_ROW: L lanes per block row (L divides 32, the thread block is whole warps). No shared
   memory, no barrier; the grid-stride loop's condition is the same for the whole thread block so
   that every lane of a warp reaches every shuffle.
   --------------------------------------------------------------------------------------------- */
/* Scalar blocks s + first, s + first + stride, ... below e added to acc, kScalarBatch at a time: a
   batch's values, column indices and x entries are all loaded (each guarded by e) before its first
   product is summed, in the order of the plain loop. for_each_item_unrolled leaves a lane's last
   items to a serial remainder, one dependent chain colidx -> x per item, and with WARP_ROW's 4 lanes
   on rows of about 15 scalar blocks that remainder is most of a lane's work; batches of 4 were the
   fastest there. Not used elsewhere: for HYBRID's short scalar rows and for other block sizes the
   batches were slower or no faster. */
constexpr int kScalarBatch = 4;
template <bool STREAM>
__device__ __forceinline__ double scalar_batches(const product_args &a, double acc, bsrk_idx s, bsrk_idx e, int first, int stride)
{
  for (int64_t i0 = (int64_t)s + first; i0 < e; i0 += (int64_t)kScalarBatch * stride) {
    double v[kScalarBatch], xv[kScalarBatch];
#pragma unroll
    for (int u = 0; u < kScalarBatch; ++u) {
      const int64_t k = i0 + (int64_t)u * stride;
      v[u]            = k < e ? load_value<STREAM>(a.values + k, a.stream_values) : 0.0;
      xv[u]           = k < e ? x_entry(a, 1, (bsrk_idx)k, 0) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < kScalarBatch; ++u)
      if (i0 + (int64_t)u * stride < e) acc += v[u] * xv[u];
  }
  return acc;
}

/* Segment [s, e) summed by a group of L lanes: each lane takes whole block columns (the
   VECTOR_UNROLLED access pattern), keeps the rows of a pass in registers (padded to a power of two
   for the butterfly), and the lane that ends up holding a row's sum calls store(row in block, sum)
   when `active`. All 32 lanes of the warp must call it (inactive ones with s == e). BATCH: scalar
   blocks go through scalar_batches (WARP_ROW only). */
template <int BS, int L, bool BATCH = false, class Store>
__device__ __forceinline__ void group_segment(const product_args &a, int bs, bsrk_idx s, bsrk_idx e, int lane, bool active, Store store)
{
  constexpr int kAcc = accumulators<BS>();
  constexpr int kPad = pow2_ceil(kAcc);
  /* Items unrolled 4 deep for odd block sizes (scalar loads; 2 or 3 deep was slower), but 3 deep
     for scalar blocks (HYBRID's rows and pieces; WARP_ROW's go through scalar_batches), the fastest
     of 1-8 there. Not for even sizes, whose 16-byte loads already keep enough in flight (unrolling
     slowed them), nor for the generic path (the registers of 1024-thread blocks). */
  constexpr int kUnroll = BS == 1 ? 3 : BS > 0 && BS % 2 == 1 ? 4 : 1;
  for (int r0 = 0; r0 < bs; r0 += kAcc) {
    const int nr = rows_in_pass<BS>(bs, r0);
    double    acc[kPad];
#pragma unroll
    for (int q = 0; q < kPad; ++q) acc[q] = 0.0;
    if constexpr (BS == 2) {
      /* 2x2 blocks: a lane takes a whole block (32 contiguous bytes, two 16-byte loads, one column
         index, x as one 16-byte load when x is 16-byte aligned), not one column: fewer loads per
         byte, and a group's step covers L x 32 contiguous bytes (faster on every bs 2 matrix
         measured) */
      const bool x16 = (reinterpret_cast<uintptr_t>(a.x) & 15) == 0; /* the same for every thread */
      for_each_item_unrolled<1>(s, e, 1, lane, L, [&](bsrk_idx k, int) {
        const bsrk_idx col = __ldg(a.colidx + k);
        const double2  xv  = x16 ? __ldg(reinterpret_cast<const double2 *>(a.x) + col) : make_double2(__ldg(a.x + 2 * (int64_t)col), __ldg(a.x + 2 * (int64_t)col + 1));
        const double2 *v   = reinterpret_cast<const double2 *>(a.values + (int64_t)k * 4);
        const double2  c0 = load_value<streams<4, L>()>(v, a.stream_values), c1 = load_value<streams<4, L>()>(v + 1, a.stream_values);
        acc[0] += c0.x * xv.x + c1.x * xv.y;
        acc[1] += c0.y * xv.x + c1.y * xv.y;
      });
    } else if constexpr (BS == 1 && BATCH) {
      acc[0] = scalar_batches<streams<1, L>()>(a, acc[0], s, e, lane, L);
    } else for_each_item_unrolled<kUnroll>(s, e, bs, lane, L, [&](bsrk_idx k, int c) { accumulate_column<BS, kPad, streams<BS, L>()>(acc, a.values + ((int64_t)k * bs + c) * bs + r0, nr, x_entry(a, bs, k, c), a.stream_values); });
    const reduce_scatter<kPad, L> red(acc, lane);
    if (active && red.stores(lane)) {
#pragma unroll
      for (int i = 0; i < red.kept; ++i)
        if (red.first + i < nr) store(r0 + red.first + i, acc[i]);
    }
  }
}

/* Hopper's L2 bulk prefetch of the values and column indices of blocks [k0, k1): one instruction per
   array, no registers, nothing to wait for. Whole 16-byte units inside the arrays only (the
   instruction wants them, and nothing outside the arrays is touched). Unused (and so marked) where
   the code is built for compute capabilities below 9.0, as is item_start. */
[[maybe_unused]] __device__ __forceinline__ void prefetch_blocks_l2(const product_args &a, int bs, int64_t k0, int64_t k1)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const auto range = [](const void *start, const void *end) {
    const uintptr_t p0 = (reinterpret_cast<uintptr_t>(start) + 15) & ~(uintptr_t)15, p1 = reinterpret_cast<uintptr_t>(end) & ~(uintptr_t)15;
    if (p1 > p0) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p0), "r"((unsigned)(p1 - p0)));
  };
  const int64_t bs2 = (int64_t)bs * bs;
  range(a.values + k0 * bs2, a.values + k1 * bs2);
  range(a.colidx + k0, a.colidx + k1);
#endif
}

/* WARP_ROW's L2 prefetch (prefetch_rows, below): the first thread of each thread block asks the L2 for
   the rows a.prefetch_rows further on, a block's worth of them, so that more DRAM requests are in
   flight than the warps' own loads keep. */
template <int BS>
__device__ __forceinline__ void prefetch_rows_ahead(const product_args &a, int bs, int64_t base, int rows_per_block)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (BS < 1 || BS > kPrefetchMaxBs) return; /* not compiled in: the other sizes' code stays as it was */
  if (a.prefetch_rows == 0 || threadIdx.x != 0) return;
  const int64_t f0 = base + a.prefetch_rows;
  if (f0 >= a.nbrows) return;
  const int64_t f1 = min(f0 + rows_per_block, (int64_t)a.nbrows);
  prefetch_blocks_l2(a, bs, a.rowptr[f0], a.rowptr[f1]);
#endif
}

template <int BS, int L>
__device__ __forceinline__ void warp_row_body(const product_args &a)
{
  static_assert(L >= 1 && L <= kWarpSize && (kWarpSize % L) == 0, "lanes per row divide the warp");
  const int bs             = block_size<BS>(a);
  const int lane           = threadIdx.x % L;
  const int rows_per_block = blockDim.x / L;
  for (int64_t base = (int64_t)blockIdx.x * rows_per_block; base < a.nbrows; base += (int64_t)gridDim.x * rows_per_block) {
    const int64_t  row    = base + threadIdx.x / L;
    const bool     active = row < a.nbrows;
    const bsrk_idx s      = active ? a.rowptr[row] : 0;
    const bsrk_idx e      = active ? a.rowptr[row + 1] : 0;
    prefetch_rows_ahead<BS>(a, bs, base, rows_per_block);
    group_segment<BS, L, true>(a, bs, s, e, lane, active, [&](int r, double sum) { store_result(a, row * bs + r, sum); });
  }
}

/* ---------------------------------------------------------------------------------------------
   HYBRID (see the top of the file): each warp takes one item of the row-ordered work list: a piece
   of a long row (its row sums to piece_sum) or a group of consecutive rows as WARP_ROW takes them.
   The branch is the same for a whole warp. piece_fixup_kernel then adds each long row's pieces.
   --------------------------------------------------------------------------------------------- */
/* Piece p of a long row (HYBRID, SEGMENTED) by one warp: its row sums to piece_sum, or straight to out
   for a row of one piece. */
template <int BS>
__device__ __forceinline__ void piece_body(const product_args &a, int bs, int64_t p)
{
  const bsrk_idx row   = a.piece_row[p];
  const bsrk_idx s     = a.piece_start[p];
  const bsrk_idx e     = min(s + a.piece_blocks, a.rowptr[row + 1]);
  const bool     whole = s == a.rowptr[row] && e == a.rowptr[row + 1]; /* a row of one piece: no fix-up */
  group_segment<BS, kWarpSize>(a, bs, s, e, threadIdx.x % kWarpSize, true, [&](int r, double sum) {
    if (whole) store_result(a, (int64_t)row * bs + r, sum);
    else a.piece_sum[p * bs + r] = sum;
  });
}

/* The work-list item of this warp (HYBRID, SEGMENTED): false when the warp has none (past the end:
   the whole warp, as w is the same for all its lanes) or when the item was a piece, which it runs;
   else *item is the first row of its rows and *w the item's index. */
template <int BS>
__device__ __forceinline__ bool rows_item(const product_args &a, int bs, int64_t *w, bsrk_idx *item)
{
  *w = (int64_t)blockIdx.x * (blockDim.x / kWarpSize) + threadIdx.x / kWarpSize;
  if (*w >= a.nwork) return false;
  *item = a.work[*w];
  if (*item < 0) {
    piece_body<BS>(a, bs, item_piece(*item));
    return false;
  }
  return true;
}

/* The first block of work item w (HYBRID), nblocks past the end. The list is in row order and each
   item is placed where its first row falls, so these never decrease: [start(w), start(w + 1)) tile
   the blocks, and a run of items' ranges is one contiguous range. */
[[maybe_unused]] __device__ __forceinline__ int64_t item_start(const product_args &a, int64_t w)
{
  if (w >= a.nwork) return a.rowptr[a.nbrows];
  const bsrk_idx item = a.work[w];
  if (item < 0) return a.piece_start[item_piece(item)];
  if (item >= a.nbrows) return a.rowptr[a.medium_rows[(int64_t)(item - a.nbrows) * kMediumRowsPerWarp]];
  return a.rowptr[item];
}

/* HYBRID's L2 prefetch (prefetch_blocks, below): the first thread of each thread block prefetches the
   range of its own items' blocks moved a.prefetch_blocks on; the thread blocks' ranges tile the
   matrix, so every block is asked for once, by the thread block that runs that far before it. */
template <int BS>
__device__ __forceinline__ void prefetch_items_ahead(const product_args &a, int bs)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (BS < 1 || BS > kPrefetchMaxBs) return; /* as in prefetch_rows_ahead */
  if (a.prefetch_blocks == 0 || threadIdx.x != 0) return;
  const int64_t w0 = (int64_t)blockIdx.x * (blockDim.x / kWarpSize), n = a.rowptr[a.nbrows];
  const int64_t k0 = item_start(a, w0) + a.prefetch_blocks;
  if (k0 >= n) return;
  const int64_t k1 = min(item_start(a, w0 + blockDim.x / kWarpSize) + a.prefetch_blocks, n);
  if (k1 > k0) prefetch_blocks_l2(a, bs, k0, k1);
#endif
}

template <int BS, int L>
__device__ __forceinline__ void hybrid_body(const product_args &a)
{
  static_assert(L >= 1 && L <= kWarpSize && (kWarpSize % L) == 0, "lanes per row divide the warp");
  const int bs = block_size<BS>(a);
  prefetch_items_ahead<BS>(a, bs);
  int64_t  w;
  bsrk_idx item;
  if (!rows_item<BS>(a, bs, &w, &item)) return;
  if constexpr (BS == 1 && L == 1) {
    if (item >= a.nbrows) { /* a group of the middle tier: kMediumRowsPerWarp listed rows */
      const bsrk_idx mrow = a.medium_rows[(int64_t)(item - a.nbrows) * kMediumRowsPerWarp + (threadIdx.x % kWarpSize) / kMediumLanes];
      const bool     mine = mrow >= 0;
      group_segment<BS, kMediumLanes>(a, bs, mine ? a.rowptr[mrow] : 0, mine ? a.rowptr[mrow + 1] : 0, threadIdx.x % kMediumLanes, mine, [&](int r, double sum) { store_result(a, (int64_t)mrow * bs + r, sum); });
      return;
    }
  }
  /* kWarpSize / L consecutive rows from `item`, a group of L lanes each; longer rows are left to the
     middle tier or their pieces (a group made only of those has no work item) */
  const int64_t row    = (int64_t)item + (threadIdx.x % kWarpSize) / L;
  bool          active = row < a.nbrows;
  bsrk_idx      s      = active ? a.rowptr[row] : 0;
  bsrk_idx      e      = active ? a.rowptr[row + 1] : 0;
  if (e - s > a.row_short_blocks) {
    active = false;
    s = e = 0;
  }
  group_segment<BS, L>(a, bs, s, e, threadIdx.x % L, active, [&](int r, double sum) { store_result(a, row * bs + r, sum); });
}

/* ---------------------------------------------------------------------------------------------
   SEGMENTED: a warp per strip of consecutive short rows (built on the host: at most kStripRows
   rows, kStripItems items). The warp walks the strip's items as one run, 32 consecutive items a
   step, so every lane has work whatever the row lengths (a group of lanes per row idles when its
   row is short or shorter than its neighbours'). Each step's products are summed per row by a
   segmented inclusive scan over the warp (log2(32) shuffles per accumulator, the row starts of the
   step as a bit mask), and lane i, which holds row i of the strip, picks up the running sum of the
   last item of its row in the step. Lane i stores row i, so the stores of a strip are contiguous.
   kUnroll steps' items are loaded before the first is summed (the scans' shuffles would otherwise
   keep a warp's next loads waiting): 2 for bs 1 to 4 (the fastest of 1-8 on scalar power-law rows),
   1 for larger blocks (their registers).
   --------------------------------------------------------------------------------------------- */
template <int BS>
__device__ __forceinline__ void segmented_body(const product_args &a)
{
  const int bs = block_size<BS>(a);
  int64_t   w;
  bsrk_idx  r0;
  if (!rows_item<BS>(a, bs, &w, &r0)) return;
  constexpr unsigned kFull   = 0xffffffffu;
  constexpr int      kAcc    = BS == 1 ? 1 : BS == 2 ? 2 : accumulators<BS>();
  constexpr int      kUnroll = kAcc <= 4 ? 2 : 1;
  const int          lane    = threadIdx.x % kWarpSize;
  const int          per     = strip_items_per_block(bs); /* items per block */
  const int          m       = (int)(a.work_end[w] - r0);
  const bool         has_row = lane < m;
  const bsrk_idx     rb = has_row ? a.rowptr[r0 + lane] : 0, re = has_row ? a.rowptr[r0 + lane + 1] : 0;
  /* the strip's items [ib, ie), row i's [rb_i * per, re_i * per) */
  const int64_t ib = (int64_t)__shfl_sync(kFull, rb, 0) * per, ie = (int64_t)__shfl_sync(kFull, re, m - 1) * per;
  const int64_t row_ib = (int64_t)rb * per, row_ie = (int64_t)re * per;
  const bool    x16        = (reinterpret_cast<uintptr_t>(a.x) & 15) == 0; /* bs 2: x as 16-byte loads when aligned */
  const int     passes_end = BS == 1 || BS == 2 ? 1 : bs;
  for (int r0p = 0; r0p < passes_end; r0p += kAcc) { /* passes: several for the generic size only */
    const int nr = BS == 1 ? 1 : BS == 2 ? 2 : rows_in_pass<BS>(bs, r0p);
    double    row_sum[kAcc];
#pragma unroll
    for (int q = 0; q < kAcc; ++q) row_sum[q] = 0.0;
    for (int64_t base0 = ib; base0 < ie; base0 += kUnroll * kWarpSize) {
      double v[kUnroll][kAcc];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
        for (int q = 0; q < kAcc; ++q) v[u][q] = 0.0;
        const int64_t i = base0 + u * kWarpSize + lane;
        if (i >= ie) continue;
        if constexpr (BS == 1) {
          v[u][0] = load_value<true>(a.values + i, a.stream_values) * __ldg(a.x + __ldg(a.colidx + i));
        } else if constexpr (BS == 2) {
          const bsrk_idx col = __ldg(a.colidx + i);
          const double2  xv  = x16 ? __ldg(reinterpret_cast<const double2 *>(a.x) + col) : make_double2(__ldg(a.x + 2 * (int64_t)col), __ldg(a.x + 2 * (int64_t)col + 1));
          const double2 *bv  = reinterpret_cast<const double2 *>(a.values + i * 4);
          const double2  c0 = load_value<true>(bv, a.stream_values), c1 = load_value<true>(bv + 1, a.stream_values);
          v[u][0] = c0.x * xv.x + c1.x * xv.y;
          v[u][1] = c0.y * xv.x + c1.y * xv.y;
        } else {
          const int64_t k = i / bs;
          const int     c = (int)(i - k * bs);
          accumulate_column<BS, kAcc, true>(v[u], a.values + (i * bs) + r0p, nr, x_entry(a, bs, (bsrk_idx)k, c), a.stream_values);
        }
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int64_t base = base0 + u * kWarpSize;
        if (base >= ie) break; /* the same for the whole warp */
        /* rows starting inside this step (after its first item): bit j for item base + j */
        const int64_t  h     = row_ib - base;
        const unsigned heads = __reduce_or_sync(kFull, has_row && row_ie > row_ib && h > 0 && h < kWarpSize ? 1u << (int)h : 0u);
        const unsigned upto  = heads & (kFull >> (kWarpSize - 1 - lane)); /* starts at or before this lane */
        const int      seg   = upto ? kWarpSize - 1 - __clz(upto) : 0;    /* where this lane's row starts in the step */
#pragma unroll
        for (int d = 1; d < kWarpSize; d *= 2) {
#pragma unroll
          for (int q = 0; q < kAcc; ++q) {
            const double t = __shfl_up_sync(kFull, v[u][q], d);
            if (lane - d >= seg) v[u][q] += t;
          }
        }
        /* lane i: the running sum at its row's last item in this step, if the row has items here */
        const bool mine = has_row && row_ib < base + kWarpSize && row_ie > base && row_ie > row_ib;
        const int  src  = mine ? (int)(min(row_ie, base + kWarpSize) - 1 - base) : lane;
#pragma unroll
        for (int q = 0; q < kAcc; ++q) {
          const double t = __shfl_sync(kFull, v[u][q], src);
          if (mine) row_sum[q] += t;
        }
      }
    }
    if (has_row) {
#pragma unroll
      for (int q = 0; q < kAcc; ++q)
        if (q < nr) store_result(a, ((int64_t)r0 + lane) * bs + r0p + q, row_sum[q]);
    }
  }
}

/* The kernels around the two bodies, with and without a launch bound of 1024 threads. The bound caps
   a thread at 64 registers, which the generic block size of HYBRID needs to launch with 1024 threads
   (it used 72), and it changes the code ptxas schedules even where fewer registers are used: faster
   for some sizes, slower for others. The tables below say which sizes take them. */
template <int BS, int L>
__global__ void warp_row_kernel(const product_args a)
{
  warp_row_body<BS, L>(a);
}
template <int BS, int L>
__global__ void __launch_bounds__(1024) warp_row_kernel_bounded(const product_args a)
{
  warp_row_body<BS, L>(a);
}
template <int BS, int L>
__global__ void hybrid_kernel(const product_args a)
{
  release_fixup();
  hybrid_body<BS, L>(a);
}
template <int BS, int L>
__global__ void __launch_bounds__(1024) hybrid_kernel_bounded(const product_args a)
{
  release_fixup();
  hybrid_body<BS, L>(a);
}

template <int BS>
__global__ void segmented_kernel(const product_args a)
{
  release_fixup();
  segmented_body<BS>(a);
}
template <int BS>
__global__ void __launch_bounds__(1024) segmented_kernel_bounded(const product_args a)
{
  release_fixup();
  segmented_body<BS>(a);
}

/* out[row] = alpha * (sum of the row's pieces, in order) + beta * in[row] for every long row: a warp
   per (long row, row of the block), lanes striding over the pieces, a fixed reduction order. */
__global__ void piece_fixup_kernel(bsrk_idx nlong, int bs, const bsrk_idx *long_row, const bsrk_idx *long_piece_begin, const double *piece_sum, double alpha, double beta, const double *in, double *out)
{
  wait_for_product();
  const int     lane  = threadIdx.x % kWarpSize;
  const int64_t total = (int64_t)nlong * bs;
  /* w is the same for the whole warp, so every lane reaches the shuffles */
  for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize; w < total; w += (int64_t)gridDim.x * blockDim.x / kWarpSize) {
    const bsrk_idx l   = (bsrk_idx)(w / bs);
    const int      r   = (int)(w - (int64_t)l * bs);
    const double   sum = slots_sum(piece_sum, long_piece_begin[l], long_piece_begin[l + 1], bs, r, lane);
    if (lane == 0) {
      const int64_t i = (int64_t)long_row[l] * bs + r;
      out[i]          = beta == 0.0 ? alpha * sum : alpha * sum + beta * in[i];
    }
  }
}

/* The dispatch tables, written once: [lanes slot][block-size slot]. */
/* Which sizes take the bounded kernels (see warp_row_kernel_bounded), where the bound was faster.
   WARP_ROW: bs 2, the generic size, and bs 3 with 32 lanes (27-point stencils), not with fewer lanes
   (slower bounded) nor for bs 5 (no difference). HYBRID: every even size and the generic. */
template <int BS, int L>
product_kernel warp_row_pick()
{
  if constexpr (BS == 2 || BS == 0 || (BS == 3 && L == kWarpSize)) return warp_row_kernel_bounded<BS, L>;
  else return warp_row_kernel<BS, L>;
}
#define BSRC_WARP_ROW_TABLE(L) \
  { \
    warp_row_pick<1, L>(), warp_row_pick<2, L>(), warp_row_pick<3, L>(), warp_row_pick<4, L>(), warp_row_pick<5, L>(), warp_row_pick<6, L>(), warp_row_pick<7, L>(), warp_row_pick<8, L>(), warp_row_pick<0, L>() \
  }
#define BSRC_HYBRID_TABLE(L) \
  { \
    hybrid_kernel<1, L>, hybrid_kernel_bounded<2, L>, hybrid_kernel<3, L>, hybrid_kernel_bounded<4, L>, hybrid_kernel<5, L>, hybrid_kernel_bounded<6, L>, hybrid_kernel<7, L>, hybrid_kernel_bounded<8, L>, hybrid_kernel_bounded<0, L> \
  }
/* Lanes 4, 8, 16, 32 (WARP_ROW); 1, 2, 4, 8, 16, 32 (HYBRID). */
const product_kernel warp_row_kernels[4][kBsSlots] = {BSRC_WARP_ROW_TABLE(4), BSRC_WARP_ROW_TABLE(8), BSRC_WARP_ROW_TABLE(16), BSRC_WARP_ROW_TABLE(32)};
const product_kernel hybrid_kernels[6][kBsSlots]   = {BSRC_HYBRID_TABLE(1), BSRC_HYBRID_TABLE(2), BSRC_HYBRID_TABLE(4), BSRC_HYBRID_TABLE(8), BSRC_HYBRID_TABLE(16), BSRC_HYBRID_TABLE(32)};
/* bs 7, 8 and the generic size need more than 64 registers unbounded (66-72): bounded, so that 1024
   threads per block launch. */
const product_kernel segmented_kernels[kBsSlots] = {segmented_kernel<1>, segmented_kernel<2>,         segmented_kernel<3>,         segmented_kernel<4>,        segmented_kernel<5>,
                                                    segmented_kernel<6>, segmented_kernel_bounded<7>, segmented_kernel_bounded<8>, segmented_kernel_bounded<0>};
#undef BSRC_WARP_ROW_TABLE
#undef BSRC_HYBRID_TABLE

/* Block-size and lanes dispatch of each kernel: its __global__ product for bs and lanes. */
product_kernel select_warp_row(bsrk_idx bs, int lanes)
{
  return warp_row_kernels[std::max(0, lanes_slot(lanes) - 2)][bs_slot(bs)];
}
product_kernel select_hybrid(bsrk_idx bs, int lanes)
{
  return hybrid_kernels[lanes_slot(lanes)][bs_slot(bs)];
}
product_kernel select_segmented(bsrk_idx bs, int)
{
  return segmented_kernels[bs_slot(bs)];
}

/* WARP_ROW's L2 prefetch distance (prefetch_rows_ahead), in rows: about kPrefetchAheadBytes of matrix
   ahead of each thread block. 0 (none) before compute capability 9.0, for blocks larger than
   kPrefetchMaxBs, and where the values are loaded evict-first (group_segment: streams<>), as streamed
   loads and these prefetches work against each other (for 2x2 blocks the prefetch wins: below).
   2 MiB ahead was faster than none and than 4 or 8 MiB for blocks of 1-3; for larger blocks every
   distance was slower. BSRC_PF_BYTES overrides the distance at compile time, for such comparisons. */
#ifndef BSRC_PF_BYTES
  #define BSRC_PF_BYTES (2.0 * 1048576.0)
#endif
constexpr double kPrefetchAheadBytes = BSRC_PF_BYTES;
bsrk_idx         prefetch_rows(const matrix_view &A, const launch_config &cfg)
{
  if (!cfg.sm90 || A.bs > kPrefetchMaxBs || A.nbrows <= 0 || A.nblocks <= 0) return 0;
  /* streamed values (group_segment's streams<>: a group's lanes read >= 64 values a step): no
     prefetch, except for 2x2 blocks, where the prefetch replaces the evict-first loads
     (values_streamed): faster for 27-point bs 2 stencils, while the same swap slowed bs 3. */
  if (A.bs != 2 && stream_values(A) && (int)A.bs * cfg.lanes >= 64) return 0;
  const double row_bytes = (double)A.nblocks / (double)A.nbrows * ((double)A.bs * A.bs * sizeof(double) + sizeof(bsrk_idx));
  return (bsrk_idx)std::min<double>(std::ceil(kPrefetchAheadBytes / row_bytes), (double)A.nbrows);
}

/* HYBRID's L2 prefetch distance (prefetch_items_ahead), in blocks: kHybridPrefetchAheadBytes, for
   block sizes 1-3, where the work list holds pieces (uneven rows). Its pieces keep their evict-first
   loads. Slower for bs 4, and on even rows (which AUTO gives to WARP_ROW) it made HYBRID read more
   from DRAM, hence the pieces condition; 1 MiB was a little faster than 2, 3 or 4 MiB. */
constexpr double kHybridPrefetchAheadBytes = 1048576.0;
bsrk_idx         prefetch_blocks(const matrix_view &A, const tasks_view &T, const launch_config &cfg)
{
  if (!cfg.sm90 || A.bs > kPrefetchMaxBs || A.nbrows <= 0 || A.nblocks <= 0 || T.hybrid.npieces <= 0) return 0;
  const double block_bytes = (double)A.bs * A.bs * sizeof(double) + sizeof(bsrk_idx);
  return (bsrk_idx)std::min<double>(std::ceil(kHybridPrefetchAheadBytes / block_bytes), (double)A.nblocks);
}

int threads_warps(bsrk_idx, double)
{
  return 128;
}

cudaError_t shape_warp_row(const matrix_view &A, const tasks_view &, const device_info &, launch_config *cfg)
{
  cfg->grid          = clamp_grid(ceil_div(A.nbrows, cfg->threads / cfg->lanes));
  cfg->prefetch_rows = prefetch_rows(A, *cfg);
  return cudaSuccess;
}
cudaError_t shape_hybrid(const matrix_view &A, const tasks_view &T, const device_info &, launch_config *cfg)
{
  if (T.hybrid.lanes != cfg->lanes) return cudaErrorInvalidValue; /* work built for other lanes */
  BSRC_CUDA_CHECK_OR(shape_warp_items(T.hybrid_nwork, cfg), bsrc_err);
  cfg->prefetch_blocks = prefetch_blocks(A, T, *cfg);
  return cudaSuccess;
}
cudaError_t shape_segmented(const matrix_view &, const tasks_view &T, const device_info &, launch_config *cfg)
{
  return shape_warp_items(T.nstrips, cfg);
}

cudaError_t queue_plain(const kernel_launch &L, const matrix_view &A, const tasks_view &, const launch_config &cfg, product_args args, cudaStream_t s)
{
  return launch_product(L, A, cfg, args, s);
}
/* HYBRID and SEGMENTED: the product, then the long rows' pieces added up (SLICED adds its own in the product). */
cudaError_t queue_with_pieces(const kernel_launch &L, const matrix_view &A, const pieces_view &P, const launch_config &cfg, const product_args &args, cudaStream_t s)
{
  BSRC_CUDA_CHECK_OR(launch_product(L, A, cfg, args, s), bsrc_err);
  if (P.nlong <= 0) return cudaSuccess;
  const int grid = (int)std::min<int64_t>(ceil_div((int64_t)P.nlong * A.bs * kWarpSize, kAuxThreads), INT_MAX);
  return launch_fixup(piece_fixup_kernel, grid, cfg.sm90, s, P.nlong, (int)A.bs, P.long_row, P.long_piece_begin, P.piece_sum, args.alpha, args.beta, args.in, args.out);
}
cudaError_t queue_hybrid(const kernel_launch &L, const matrix_view &A, const tasks_view &T, const launch_config &cfg, product_args args, cudaStream_t s)
{
  return queue_with_pieces(L, A, T.hybrid, cfg, args, s);
}
cudaError_t queue_segmented(const kernel_launch &L, const matrix_view &A, const tasks_view &T, const launch_config &cfg, product_args args, cudaStream_t s)
{
  const pieces_view &P  = T.segmented;
  args.npieces          = P.npieces;
  args.piece_blocks     = P.piece_blocks;
  args.piece_row        = P.piece_row;
  args.piece_start      = P.piece_start;
  args.piece_sum        = P.piece_sum;
  args.nwork            = T.nstrips;
  args.work             = T.strip_begin;
  args.work_end         = T.strip_end;
  args.row_short_blocks = 0;
  args.medium_rows      = nullptr;
  return queue_with_pieces(L, A, P, cfg, args, s);
}

/* Block rows [r0, r1) of WARP_ROW or SLICED (launch_row_range): args hold the range's rows. */
cudaError_t rows_warp_row(const kernel_launch &L, const matrix_view &, const tasks_view &, const launch_config &cfg, bsrk_idx r0, bsrk_idx r1, product_args args, cudaStream_t s)
{
  const int64_t grid = ceil_div(r1 - r0, cfg.threads / cfg.lanes);
  L.select(args.bs, cfg.lanes)<<<(int)std::min<int64_t>(grid, INT_MAX), cfg.threads, 0, s>>>(args);
  return cudaGetLastError();
}

} // namespace

const kernel_launch launch_warp_row  = {select_warp_row, threads_warps, shared_none, shape_warp_row, queue_plain, rows_warp_row};
const kernel_launch launch_hybrid    = {select_hybrid, threads_warps, shared_row_vector_per_warp, shape_hybrid, queue_hybrid, nullptr};
const kernel_launch launch_segmented = {select_segmented, threads_warps, shared_none, shape_segmented, queue_segmented, nullptr};

/* Lanes per block row: a power of two in [4, 32] near half the row's block columns, so that each
   lane takes about two columns (rows of 27 3x3 blocks: 81 columns -> 32 lanes; 7 scalar blocks -> 4). */
int warp_row_lanes(bsrk_idx bs, double mean_blocks_per_row)
{
  const double columns = mean_blocks_per_row * (double)bs;
  int          lanes   = 4;
  while (lanes < kWarpSize && 2.0 * lanes <= columns / 2.0) lanes *= 2;
  return lanes;
}

/* HYBRID's lanes per short block row: the most lanes (a power of two in [1, 32]) that leave each
   lane at least kHybridLaneBytes of the short rows' mean bytes (values + column indices). Fitted to
   the power-law matrices of bench_cuda (short rows of about 8-10 blocks): it gives 1 lane for bs 1,
   4 for bs 2 and 16 for bs 4, the fastest of the lane counts tried for each (WARP_ROW's rule, a
   lane per two columns, gives more lanes and was slower). */
constexpr double kHybridLaneBytes = 64.0;
int              hybrid_row_lanes(bsrk_idx bs, double mean_short_blocks)
{
  const double bytes = mean_short_blocks * ((double)bs * (double)bs * sizeof(double) + sizeof(bsrk_idx));
  int          lanes = 1;
  while (lanes < kWarpSize && bytes / (2.0 * lanes) >= kHybridLaneBytes) lanes *= 2;
  return lanes;
}

} // namespace bsrc
