/*
   The device pieces our product kernels share (bsrcuda_kernels_tasks.cu, bsrcuda_kernels_warp.cu,
   bsrcuda_kernels_sliced.cu): the arguments every product kernel reads (product_args), block-size
   helpers, reductions over a warp, the strided walks over a segment's items, value loads, and where
   a row's sum goes. Templates and inline functions only, so each kernel file compiles them into its
   own kernels as before. Private: not installed.

   Every kernel is a template on the block size: 1..8 are compile-time constants (accumulators in
   registers, index arithmetic by constants); BS == 0 is the generic path for any bs, processing
   the rows of a block in passes of kGenericRows accumulators (the thesis's ROWS_AT_ONCE).
*/
#ifndef BSRCUDA_KERNELS_DEVICE_CUH
#define BSRCUDA_KERNELS_DEVICE_CUH

#include "bsrcuda_kernels.cuh"

namespace bsrc {

constexpr int kGenericRows    = 8;                   /* accumulators per pass when bs is a run-time value (thesis: ROWS_AT_ONCE = 8) */
constexpr int kSpecialisedMax = 8;                   /* block sizes 1..8 have their own instantiations */
constexpr int kBsSlots        = kSpecialisedMax + 1; /* + the generic one */

/* Everything a product kernel reads, by value. `in` may alias `out`: neither is __restrict__. */
struct product_args {
  bsrk_idx        nbrows, bs;
  const bsrk_idx *rowptr, *colidx;
  const double   *values;
  bsrk_idx        ntasks;
  const bsrk_idx *block_begin, *row_begin, *head_row;
  double         *carry;
  /* HYBRID and SEGMENTED: the kernel's pieces of long rows (pieces_view) and its warps' work in row
     order (tasks_view: hybrid_work, or the strips with work_end) */
  bsrk_idx        npieces, piece_blocks;
  const bsrk_idx *piece_row, *piece_start;
  double         *piece_sum;
  bsrk_idx        nwork;
  const bsrk_idx *work, *work_end;
  bsrk_idx        row_short_blocks; /* HYBRID: the longest row a group of its work list takes */
  const bsrk_idx *medium_rows;      /* HYBRID: the middle tier's rows (tasks_view::hybrid_medium) */
  bool            stream_values;    /* load_value: evict-first loads (values_streamed) */
  bsrk_idx        prefetch_rows;    /* WARP_ROW: rows ahead of a thread block's own that it prefetches into L2; 0: none */
  bsrk_idx        prefetch_blocks;  /* HYBRID: blocks ahead of a thread block's items that it prefetches into L2; 0: none */
  double          alpha, beta;
  const double   *x;
  const double   *in;
  double         *out;
  slices_view     slices; /* SLICED's copy (tasks_view::slices) */
};

/* ---------------------------------------------------------------------------------------------
   Small device pieces
   --------------------------------------------------------------------------------------------- */

/* Block size: the template constant when specialised, else the run-time value. */
template <int BS>
__device__ __forceinline__ int block_size(const product_args &a)
{
  return BS > 0 ? BS : (int)a.bs;
}

/* Accumulators a thread keeps per pass over a segment. */
template <int BS>
__host__ __device__ constexpr int accumulators()
{
  return BS > 0 ? BS : kGenericRows;
}

/* Rows handled in the pass starting at row r0 of the block. */
template <int BS>
__device__ __forceinline__ int rows_in_pass(int bs, int r0)
{
  return BS > 0 ? BS : min(kGenericRows, bs - r0);
}

/* Sum over the WIDTH lanes of each aligned group of a warp; every lane gets the group's sum.
   All 32 lanes must call it. */
template <int WIDTH>
__device__ __forceinline__ double warp_reduce_sum(double v)
{
#pragma unroll
  for (int offset = WIDTH / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset, WIDTH);
  return v;
}

/* Smallest power of two >= n (n >= 1), and log2 of a power of two. */
__host__ __device__ constexpr int pow2_ceil(int n)
{
  return n <= 1 ? 1 : 2 * pow2_ceil((n + 1) / 2);
}
__host__ __device__ constexpr int log2_exact(int n)
{
  return n <= 1 ? 0 : 1 + log2_exact(n / 2);
}

/* Sums N accumulators (a power of two) over the W lanes of each aligned group of a warp, leaving
   each sum in one lane: a butterfly that halves the accumulators a lane keeps at every step
   (N - 1 shuffles for the first log2(min(N, W)) steps, then one per remaining step), instead of
   log2(W) shuffles for every accumulator. On return lane `lane` (its index in the group) holds the
   sums of accumulators first..first + kept - 1 in acc[0..kept - 1], where kept = max(1, N / W), and
   the lanes that hold a given sum are those whose low log2(W / min(N, W)) bits differ: only the one
   with those bits zero (stores() true) should write it. All 32 lanes must call it. */
template <int N, int W>
struct reduce_scatter {
  static constexpr int kSteps = log2_exact(N < W ? N : W); /* halving steps */
  static constexpr int kept   = N >> kSteps;
  static constexpr int kRest  = W >> kSteps; /* lanes that still share each sum */
  int                  first  = 0;

  __device__ __forceinline__ reduce_scatter(double (&acc)[N], int lane)
  {
    int offset = W / 2;
#pragma unroll
    for (int step = 0, n = N; step < kSteps; ++step, n /= 2, offset /= 2) {
      const bool upper = (lane & offset) != 0;
#pragma unroll
      for (int i = 0; i < n / 2; ++i) {
        const double send = upper ? acc[i] : acc[i + n / 2];
        const double keep = upper ? acc[i + n / 2] : acc[i];
        acc[i]            = keep + __shfl_xor_sync(0xffffffffu, send, offset, W);
      }
      if (upper) first += n / 2;
    }
#pragma unroll
    for (int o = kRest / 2; o > 0; o /= 2) {
#pragma unroll
      for (int i = 0; i < kept; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o, W);
    }
  }
  __device__ __forceinline__ static bool stores(int lane)
  {
    return (lane & (kRest - 1)) == 0;
  }
};

/* acc[slot] += v for a run-time slot, without indexing the array at run time (which would move it
   to local memory): every slot is tested with a compile-time index. */
template <int N>
__device__ __forceinline__ void add_to_slot(double (&acc)[N], int slot, double v)
{
#pragma unroll
  for (int q = 0; q < N; ++q)
    if (q == slot) acc[q] += v;
}

/* Items (block k, sub-index u in [0, per_block)) of blocks [s, e) in storage order, starting at
   item `first` and stepping by `stride` items: the strided loop that keeps a warp on consecutive
   items. (k, u) is stepped without a flat item index, so no index can overflow. */
template <class Visit>
__device__ __forceinline__ void for_each_item(bsrk_idx s, bsrk_idx e, int per_block, int first, int stride, Visit visit)
{
  bsrk_idx k = s + first / per_block;
  int      u = first % per_block;
  while (k < e) {
    visit(k, u);
    u += stride;
    k += u / per_block;
    u %= per_block;
  }
}

/* The same walk as for_each_item as a counted loop the compiler unrolls UNROLL times, so that a
   lane issues the loads of several items before it uses the first (short rows give a lane only a
   few items, each a chain colidx -> x). */
template <int UNROLL, class Visit>
__device__ __forceinline__ void for_each_item_unrolled(bsrk_idx s, bsrk_idx e, int per_block, int first, int stride, Visit visit)
{
  const int64_t n = (int64_t)(e - s) * per_block;
#pragma unroll UNROLL
  for (int64_t i = first; i < n; i += stride) {
    const int64_t q = i / per_block;
    visit(s + (bsrk_idx)q, (int)(i - q * per_block));
  }
}

/* x entry that multiplies column c of block k. */
__device__ __forceinline__ double x_entry(const product_args &a, int bs, bsrk_idx k, int c)
{
  return __ldg(a.x + (int64_t)__ldg(a.colidx + k) * bs + c);
}

/* acc[q] += col[q] * xv for the rows of one pass of block column `col` (bs contiguous values).
   Even compile-time sizes load 16 bytes at a time (a column then starts 16-byte aligned). */
/* A matrix value: read once per product, so with STREAM (and `on`) it is loaded evict-first
   (__ldcs), which keeps x in the caches. Only where it helped:
   - where a warp's load covers whole cache lines (>= 64 contiguous values per group of lanes:
     streams()): with small groups the next iteration reads the rest of the line, and an evicted
     line is read twice (much slower on short scalar rows);
   - for matrices of at most kStreamMaxValueBytes (on = product_args::stream_values): larger ones
     were slower streamed, for a reason we have not found. */
template <bool STREAM, class T>
__device__ __forceinline__ T load_value(const T *p, bool on)
{
  if constexpr (STREAM) return on ? __ldcs(p) : __ldg(p);
  else return __ldg(p);
}

/* Whether a group of `lanes` lanes reading bs-value columns streams its values (see load_value). */
template <int BS, int LANES>
__host__ __device__ constexpr bool streams()
{
  return LANES * (BS > 0 ? BS : kSpecialisedMax + 1) >= 64;
}

template <int BS, int NACC = accumulators<BS>(), bool STREAM = false>
__device__ __forceinline__ void accumulate_column(double (&acc)[NACC], const double *col, int nr, double xv, bool stream = false)
{
  if constexpr (BS > 0 && BS % 2 == 0) {
    const double2 *col2 = reinterpret_cast<const double2 *>(col);
#pragma unroll
    for (int q = 0; q < BS / 2; ++q) {
      const double2 v = load_value<STREAM>(col2 + q, stream);
      acc[2 * q] += v.x * xv;
      acc[2 * q + 1] += v.y * xv;
    }
  } else if constexpr (BS > 0) {
#pragma unroll
    for (int q = 0; q < BS; ++q) acc[q] += load_value<STREAM>(col + q, stream) * xv;
  } else {
#pragma unroll
    for (int q = 0; q < kGenericRows; ++q)
      if (q < nr) acc[q] += load_value<STREAM>(col + q, stream) * xv;
  }
}

/* Programmatic dependent launch (compute capability 9.0 and up): a product kernel followed by a
   fix-up pass lets the fix-up grid be launched once all its own thread blocks have started, and the
   fix-up waits here for the product to finish and its stores to be visible. That hides the fix-up's
   launch behind the product's last wave. Without the launch attribute (older GPUs) both are no-ops. */
__device__ __forceinline__ void release_fixup()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void wait_for_product()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* Final value of entry i of out. beta == 0 never reads in. */
__device__ __forceinline__ void store_result(const product_args &a, int64_t i, double sum)
{
  a.out[i] = a.beta == 0.0 ? a.alpha * sum : a.alpha * sum + a.beta * a.in[i];
}

/* Where a segment's row sums go: a row the task owns (out) or the carry of the task (a row it continues). */
struct row_target {
  bsrk_idx index; /* block row, or task for a carry */
  bool     is_carry;
};

__device__ __forceinline__ void emit(const product_args &a, int bs, row_target tg, int r, double sum)
{
  const int64_t i = (int64_t)tg.index * bs + r;
  if (tg.is_carry) a.carry[i] = sum;
  else store_result(a, i, sum);
}

/* The row segments of this thread block's tasks (grid-stride over tasks, thesis Listing 12):
   seg(s, e, target) for blocks [s, e) of one block row. All threads of the block call seg with the
   same arguments, so seg may use __syncthreads. */
template <class Segment>
__device__ __forceinline__ void for_each_task_segment(const product_args &a, Segment seg)
{
  for (bsrk_idx t = blockIdx.x; t < a.ntasks; t += gridDim.x) {
    const bsrk_idx b1 = a.block_begin[t + 1];
    const bsrk_idx h  = a.head_row[t];
    if (h >= 0) seg(a.block_begin[t], min(b1, a.rowptr[h + 1]), row_target{t, true});
    const bsrk_idx rows_end = a.row_begin[t + 1];
    for (bsrk_idx row = a.row_begin[t]; row < rows_end; ++row) seg(a.rowptr[row], min(a.rowptr[row + 1], b1), row_target{row, false});
  }
}

/* Writes the shared row vector of a segment and clears it for the next one (between barriers). */
__device__ __forceinline__ void emit_and_clear(const product_args &a, int bs, row_target tg, double *sums)
{
  for (int r = threadIdx.x; r < bs; r += blockDim.x) {
    emit(a, bs, tg, r, sums[r]);
    sums[r] = 0.0;
  }
}

__device__ __forceinline__ void clear_shared(double *sums, int n)
{
  for (int r = threadIdx.x; r < n; r += blockDim.x) sums[r] = 0.0;
}

/* Entry r of the sum of slots [q0, q1) of a long row's partial sums (bs doubles a slot), for a
   whole warp: lanes stride over the slots, then a fixed butterfly, so the bits do not depend on
   which warp adds them or when. Read through L2 only: other blocks wrote the slots. Used by the
   sliced kernels' long-row end and by the fix-up pass of the other kernels. */
__device__ __forceinline__ double slots_sum(const double *slots, bsrk_idx q0, bsrk_idx q1, int bs, int r, int lane)
{
  double sum = 0.0;
  for (bsrk_idx q = q0 + lane; q < q1; q += kWarpSize) sum += __ldcg(slots + (int64_t)q * bs + r);
  return warp_reduce_sum<kWarpSize>(sum);
}

} // namespace bsrc

#endif
