/*
   Our CUDA BSR products: out = alpha*A*x + beta*in, A in PETSc's BAIJ layout (column-major blocks).

   Task kernels (thesis ch. 8.3): the nonzero blocks are cut into fixed-size tasks on the host
   (bsrk_partition_build, uploaded at set_structure); a thread block runs one task at a time, a
   grid-stride loop over the tasks (8.3.1, Listing 12). A task is a run of row segments: the tail of
   a row it continues (its head row), then the rows it owns (see bsrkernels.h). They differ in the
   access pattern and the reduction (8.3.2):
     ROWMAJOR_SHARED  every thread takes entries in storage order, atomicAdd into a shared row
                      vector (Listing 14);
     THREAD_PRIVATE   same order, each thread keeps its own row vector, then a block reduction
                      (Listings 15-16). The thesis's vector went to local memory (run-time index);
                      ours is selected through a compile-time unrolled loop and stays in registers;
     TEAM_SCALAR      teams of bs*bs threads, one scalar accumulator per block entry, one shared
                      atomic per thread and segment (Listing 17);
     VECTOR_UNROLLED  each thread takes a whole block column (bs contiguous values) and keeps bs
                      accumulators in registers (loops unrolled over bs), warp shuffle reduction,
                      one shared atomic per warp and row (Listing 18). With column-major blocks a
                      column is contiguous, so a warp reads one contiguous range per step; the
                      values of matrices up to 400 MiB are loaded evict-first (load_value).
   Differences from the thesis: instead of scaling y first and adding every row with global atomics
   (Listing 13), the task owning a row stores alpha*sum + beta*in (so beta == 0 never reads in and
   in may alias out), a task continuing a row writes its partial sum to a per-task carry, and a
   fix-up pass adds the carries in task order: no global atomics, deterministic.

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

   SLICED: a lane per block row, on a copy of the matrix in slices of 32 consecutive rows stored step
   by step (slices_view), built on the device from the BAIJ arrays at the first product and after
   each change of values. Every load of a warp is contiguous and no lane waits for another's row,
   so short, even rows of 2x2-4x4 blocks stream faster than with WARP_ROW's groups of lanes; the
   price is a second copy of the matrix in device memory. Where consecutive rows are of uneven length
   (the natural layout would hold more than kSlicedMaxPadding of padding) the copy takes the sorted
   layout instead: rows sorted by length, one lane each up to sliced_lane_blocks blocks, a longer row
   shared out over an aligned group of 2-32 lanes that add their sums by a butterfly, a row too long
   for 32 lanes in whole slices whose sums the warp of its last slice adds (see slices_view). On
   uneven rows of 2x2 and 4x4 blocks that layout is faster than HYBRID, so AUTO picks it there; with
   scalar blocks it is slower. The sorted layout puts rows far apart side by side, so a warp's x loads
   miss the L1 and come from the L2; the column indices are loaded two iterations ahead so that x's
   L2 latency overlaps the values' DRAM latency.

   Every kernel is a template on the block size: 1..8 are compile-time constants (accumulators in
   registers, index arithmetic by constants); BS == 0 is the generic path for any bs, processing
   the rows of a block in passes of kGenericRows accumulators (the thesis's ROWS_AT_ONCE).
*/
#include "bsrcuda_kernel_table.cuh"

#include <algorithm>
#include <climits>

namespace bsrc {
namespace {

constexpr int kGenericRows      = 8;                   /* accumulators per pass when bs is a run-time value (thesis: ROWS_AT_ONCE = 8) */
constexpr int kSpecialisedMax   = 8;                   /* block sizes 1..8 have their own instantiations */
constexpr int kBsSlots          = kSpecialisedMax + 1; /* + the generic one */
constexpr int kOversubscription = 8;                   /* task kernels: grid = resident thread blocks x this (thesis 8.2.2, Tables 7-12) */
constexpr int kTasksPerSM       = 64;                  /* default partition: at least this many tasks per multiprocessor ... */
/* kMaxTaskValues: ... and at most this many values per task (512 blocks of 5x5: the thesis's tasks).
   Counted in values, not blocks, so that small blocks still give a task enough work to amortise
   its barriers (HYBRID on scalar power-law rows: 512-block tasks left most groups idle) */
constexpr int64_t kMaxTaskValues       = 512 * 25;
constexpr int     kAuxThreads          = 256;               /* fix-up and scale passes: plain element-wise loops */
constexpr int     kPrefetchMaxBs       = 3;                 /* the L2 prefetches of WARP_ROW and HYBRID: block sizes 1-3 (prefetch_rows, prefetch_blocks) */
constexpr double  kStreamMaxValueBytes = 400.0 * 1048576.0; /* evict-first value loads up to this size (load_value) */

/* Auto choice: WARP_ROW when block rows are short and even (PDE stencils), else the best task kernel. */
constexpr double   kWarpRowMaxMeanBlocks = 64.0; /* mean blocks per block row */
constexpr double   kWarpRowMaxSkew       = 4.0;  /* longest row <= skew * mean + slack */
constexpr bsrk_idx kWarpRowSkewSlack     = 16;
constexpr bsrk_idx kTaskMaxRows          = 1024; /* a task walking more block rows than this: warp per row */
/* SLICED: the mean block row's values at most this many bytes, and the natural layout's blocks
   (padding and the empty lanes of a last, partial slice included) at most kSlicedMaxPadding x the
   matrix's (bsrcuda_kernels.cuh). Against WARP_ROW, SLICED was faster on even rows of up to about
   840 bytes of values, slower on rows of about 1.7 KB and more, and with scalar blocks or 5x5 and
   8x8 ones. */
constexpr double kSlicedMaxRowBytes = 1024.0;
/* SLICED on uneven rows (its sorted layout, groups of lanes for the longer rows): 2x2 and 4x4 blocks,
   a mean row of at least kSlicedUnevenMinMeanBlocks blocks and at most kSlicedUnevenMaxRowBytes of
   values, where it was faster than HYBRID on power-law rows (with scalar blocks it is slower).
   Mostly empty MPI ghost blocks (mean row under the minimum) keep HYBRID, the kernel they were
   tuned with. */
constexpr double kSlicedUnevenMinMeanBlocks = 4.0;
constexpr double kSlicedUnevenMaxRowBytes   = 2048.0;

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

/* ---------------------------------------------------------------------------------------------
   Thesis kernel 1: row-major access order, shared-memory atomics (Listing 14).
   Dynamic shared memory: bs doubles.
   --------------------------------------------------------------------------------------------- */
template <int BS>
__global__ void rowmajor_shared_kernel(const product_args a)
{
  release_fixup();
  extern __shared__ double shared_rows[];
  const int                bs  = block_size<BS>(a);
  const int                bs2 = bs * bs;
  clear_shared(shared_rows, bs);
  __syncthreads();
  for_each_task_segment(a, [&](bsrk_idx s, bsrk_idx e, row_target tg) {
    for_each_item(s, e, bs2, threadIdx.x, blockDim.x, [&](bsrk_idx k, int u) {
      const int    c = u / bs;
      const double v = __ldg(a.values + (int64_t)k * bs2 + u) * x_entry(a, bs, k, c);
      atomicAdd(&shared_rows[u - c * bs], v);
    });
    __syncthreads();
    emit_and_clear(a, bs, tg, shared_rows);
    __syncthreads();
  });
}

/* ---------------------------------------------------------------------------------------------
   Thesis kernel 2: row-major access order, thread-private accumulation, block reduction
   (Listings 15-16: shuffles inside each warp, one partial per warp in shared memory).
   Dynamic shared memory: warps * accumulators doubles.
   --------------------------------------------------------------------------------------------- */
template <int BS>
__global__ void thread_private_kernel(const product_args a)
{
  release_fixup();
  constexpr int            kAcc = accumulators<BS>();
  extern __shared__ double warp_partials[];
  const int                bs     = block_size<BS>(a);
  const int                bs2    = bs * bs;
  const int                lane   = threadIdx.x % kWarpSize;
  const int                warp   = threadIdx.x / kWarpSize;
  const int                nwarps = blockDim.x / kWarpSize;
  for_each_task_segment(a, [&](bsrk_idx s, bsrk_idx e, row_target tg) {
    for (int r0 = 0; r0 < bs; r0 += kAcc) {
      const int nr = rows_in_pass<BS>(bs, r0);
      double    acc[kAcc];
#pragma unroll
      for (int q = 0; q < kAcc; ++q) acc[q] = 0.0;
      /* items of a pass: (block k, u = c*nr + rr) -> entry (r0 + rr, c), storage order */
      for_each_item(s, e, bs * nr, threadIdx.x, blockDim.x, [&](bsrk_idx k, int u) {
        const int c  = u / nr;
        const int rr = u - c * nr;
        add_to_slot(acc, rr, __ldg(a.values + (int64_t)k * bs2 + c * bs + r0 + rr) * x_entry(a, bs, k, c));
      });
#pragma unroll
      for (int q = 0; q < kAcc; ++q) {
        const double w = warp_reduce_sum<kWarpSize>(acc[q]);
        if (lane == 0) warp_partials[warp * kAcc + q] = w;
      }
      __syncthreads();
      if ((int)threadIdx.x < nr) {
        double sum = 0.0;
        for (int w = 0; w < nwarps; ++w) sum += warp_partials[w * kAcc + threadIdx.x];
        emit(a, bs, tg, r0 + threadIdx.x, sum);
      }
      __syncthreads();
    }
  });
}

/* ---------------------------------------------------------------------------------------------
   Thesis kernel 3: team-based scalar accumulation (Listing 17). A team of bs*bs threads covers one
   block (thread w of a team: entry w in storage order, i.e. row w % bs, column w / bs); the
   blockDim / (bs*bs) teams stride over the segment's blocks; one shared atomic per thread and
   segment. Thread blocks smaller than bs*bs fall back to one team with several entries per thread.
   Dynamic shared memory: bs doubles.
   --------------------------------------------------------------------------------------------- */
template <int BS>
__global__ void team_scalar_kernel(const product_args a)
{
  release_fixup();
  extern __shared__ double shared_rows[];
  const int                bs  = block_size<BS>(a);
  const int                bs2 = bs * bs;
  clear_shared(shared_rows, bs);
  __syncthreads();
  const bool full_teams = bs2 <= (int)blockDim.x;
  const int  teams      = full_teams ? (int)blockDim.x / bs2 : 1;
  const int  team       = threadIdx.x / bs2;
  const int  w0         = threadIdx.x % bs2;
  for_each_task_segment(a, [&](bsrk_idx s, bsrk_idx e, row_target tg) {
    if (full_teams) {
      if (team < teams) { /* threads past the last full team stay idle (thesis: "workers") */
        const int c   = w0 / bs;
        double    acc = 0.0;
        for (bsrk_idx k = s + team; k < e; k += teams) acc += __ldg(a.values + (int64_t)k * bs2 + w0) * x_entry(a, bs, k, c);
        atomicAdd(&shared_rows[w0 - c * bs], acc);
      }
    } else {
      for (int w = threadIdx.x; w < bs2; w += blockDim.x) {
        const int c   = w / bs;
        double    acc = 0.0;
        for (bsrk_idx k = s; k < e; ++k) acc += __ldg(a.values + (int64_t)k * bs2 + w) * x_entry(a, bs, k, c);
        atomicAdd(&shared_rows[w - c * bs], acc);
      }
    }
    __syncthreads();
    emit_and_clear(a, bs, tg, shared_rows);
    __syncthreads();
  });
}

/* ---------------------------------------------------------------------------------------------
   Thesis kernel 4: vector accumulation with unrolled loops (Listing 18). A thread takes whole block
   columns; accumulators in registers; per pass a warp shuffle reduction and one shared atomic per
   warp and row. Dynamic shared memory: bs doubles.
   --------------------------------------------------------------------------------------------- */
template <int BS>
__global__ void vector_unrolled_kernel(const product_args a)
{
  release_fixup();
  constexpr int            kAcc = accumulators<BS>();
  extern __shared__ double shared_rows[];
  const int                bs   = block_size<BS>(a);
  const int                lane = threadIdx.x % kWarpSize;
  clear_shared(shared_rows, bs);
  __syncthreads();
  for_each_task_segment(a, [&](bsrk_idx s, bsrk_idx e, row_target tg) {
    for (int r0 = 0; r0 < bs; r0 += kAcc) {
      const int nr = rows_in_pass<BS>(bs, r0);
      double    acc[kAcc];
#pragma unroll
      for (int q = 0; q < kAcc; ++q) acc[q] = 0.0;
      for_each_item(s, e, bs, threadIdx.x, blockDim.x, [&](bsrk_idx k, int c) { accumulate_column<BS, kAcc, streams<BS, kWarpSize>()>(acc, a.values + ((int64_t)k * bs + c) * bs + r0, nr, x_entry(a, bs, k, c), a.stream_values); });
#pragma unroll
      for (int q = 0; q < kAcc; ++q) {
        if (BS == 0 && q >= nr) break; /* nr is the same in the whole block */
        const double w = warp_reduce_sum<kWarpSize>(acc[q]);
        if (lane == 0) atomicAdd(&shared_rows[r0 + q], w);
      }
    }
    __syncthreads();
    emit_and_clear(a, bs, tg, shared_rows);
    __syncthreads();
  });
}

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
   --------------------------------------------------------------------------------------------- */
template <int BS>
__device__ __forceinline__ void segmented_body(const product_args &a)
{
  const int bs = block_size<BS>(a);
  int64_t   w;
  bsrk_idx  r0;
  if (!rows_item<BS>(a, bs, &w, &r0)) return;
  constexpr unsigned kFull = 0xffffffffu;
  constexpr int      kAcc  = BS == 1 ? 1 : BS == 2 ? 2 : accumulators<BS>();
  /* steps whose items are loaded ahead: 2 for bs 1 to 4 (the fastest of 1-8 on scalar power-law
     rows), 1 for larger blocks (their registers) */
  constexpr int  kUnroll = kAcc <= 4 ? 2 : 1;
  const int      lane    = threadIdx.x % kWarpSize;
  const int      per     = strip_items_per_block(bs); /* items per block */
  const int      m       = (int)(a.work_end[w] - r0);
  const bool     has_row = lane < m;
  const bsrk_idx rb = has_row ? a.rowptr[r0 + lane] : 0, re = has_row ? a.rowptr[r0 + lane + 1] : 0;
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
    /* kUnroll steps' items are loaded before the first is summed: the scans' shuffles would
       otherwise keep a warp's next loads waiting */
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

/* ---------------------------------------------------------------------------------------------
   SLICED: a lane per block row on the slices of slices_view. A warp's loads of one step are
   contiguous (column indices 128 B, each value component 256 B) whatever the row length, every lane
   is busy while the slice's rows are equally long, and no reduction is needed: the lane holds its
   row's bs sums. A lane keeps sliced_depth steps' loads in flight, with the column indices of the
   next two groups of steps. Against WARP_ROW it is faster on short even rows of 2x2-4x4 blocks and
   slower on 27-point rows of bs 3 and 4, where WARP_ROW's 16-32 lanes a row already stream.
   --------------------------------------------------------------------------------------------- */
template <int BS>
__host__ __device__ constexpr int sliced_depth()
{
  return BS <= 3 ? 4 : BS == 4 ? 2 : 1;
}

/* Final value of entry i of out from a lane's sum (store_result with SLICED's arguments). */
template <int BS>
__device__ __forceinline__ void sliced_store(const product_args &a, int64_t row, const double (&acc)[BS])
{
#pragma unroll
  for (int i = 0; i < BS; ++i) store_result(a, row * BS + i, acc[i]);
}

/* Sorted layout: the lanes of one group (aligned, sharing lane_out o; bsrcuda_kernels.cuh) add their
   n sums by a butterfly, each lane ending with its group's total in the same order (deterministic).
   Returns whether this lane stores the total (its group's first lane). A slice without groups (no
   two neighbouring lanes share o) skips the shuffles. The whole warp calls it. */
template <int N>
__device__ __forceinline__ bool sliced_group_sum(double (&acc)[N], bsrk_idx o, int lane)
{
  const bsrk_idx pair = __shfl_xor_sync(0xffffffffu, o, 1);
  if (!__any_sync(0xffffffffu, o != -1 && pair == o)) return true;
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2) {
    const bool same = __shfl_xor_sync(0xffffffffu, o, d) == o;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const double t = __shfl_xor_sync(0xffffffffu, acc[i], d);
      if (same) acc[i] += t;
    }
  }
  const bsrk_idx before = __shfl_up_sync(0xffffffffu, o, 1); /* every lane, before any test (lane 0 gets its own) */
  return lane == 0 || before != o;
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

/* Sorted layout, a slice that is one part of a row too long for a slice (every lane's lane_out is
   o < -1): its group's first lane has put the part's bs sums in slot -2 - o. The warp counts the
   part in the row's arrivals once those sums are visible device-wide; the warp of the row's last part
   to finish adds all its slots, in slot order (lanes striding, then a fixed butterfly: the same order
   whichever part finished last), stores the row and puts its count back to 0 for the next product.
   This replaces a fix-up launch after the product, which was slower. */
__device__ void sliced_long_row_end(const product_args &a, bsrk_idx o, int lane, int bs)
{
  const bsrk_idx q  = -2 - o;
  const bsrk_idx j  = a.slices.slot_long[q];
  const bsrk_idx q0 = a.slices.long_begin[j], q1 = a.slices.long_begin[j + 1];
  unsigned       last = 0;
  if (lane == 0) {
    __threadfence(); /* this part's slot before its count */
    last = atomicAdd(a.slices.long_arrivals + j, 1u) == (unsigned)(q1 - q0 - 1);
  }
  if (!__shfl_sync(0xffffffffu, last, 0)) return;
  __threadfence(); /* the other parts' slots after their counts */
  const int64_t row = a.slices.long_row[j];
  for (int r = 0; r < bs; ++r) {
    const double sum = slots_sum(a.slices.slot_sum, q0, q1, bs, r, lane);
    if (lane == 0) store_result(a, row * bs + r, sum);
  }
  if (lane == 0) a.slices.long_arrivals[j] = 0;
}

template <int BS>
__global__ void __launch_bounds__(kSlicedMaxThreads) sliced_kernel(const product_args a)
{
  constexpr int U    = sliced_depth<BS>();
  constexpr int BB   = BS * BS;
  const int64_t s    = (int64_t)blockIdx.x * (blockDim.x / kWarpSize) + threadIdx.x / kWarpSize;
  const int     lane = threadIdx.x % kWarpSize;
  if (s >= a.slices.nslices) return;
  const int64_t k0 = a.slices.slice_step[s], k1 = a.slices.slice_step[s + 1];
  double        acc[BS];
#pragma unroll
  for (int i = 0; i < BS; ++i) acc[i] = 0.0;
  /* Column indices run two iterations ahead (c for this one, c_next for the next), so an iteration
     issues its values and its x loads together and x's latency hides under the values' instead of
     following it: on uneven rows a slice's lanes read x far apart, from the L2 rather than the L1. */
  bsrk_idx c[U], c_next[U];
  auto     load_cols = [&](bsrk_idx(&into)[U], int64_t k) {
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (k + u < k1) into[u] = __ldcs(a.slices.slice_col + (k + u) * kWarpSize + lane);
  };
  load_cols(c, k0);
  load_cols(c_next, k0 + U);
  for (int64_t k = k0; k < k1; k += U) {
    double v[U][BB], xv[U][BS];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (k + u < k1) {
#pragma unroll
        for (int q = 0; q < BB; ++q) v[u][q] = __ldcs(a.slices.slice_values + ((k + u) * BB + q) * kWarpSize + lane);
#pragma unroll
        for (int j = 0; j < BS; ++j) xv[u][j] = __ldg(a.x + (int64_t)c[u] * BS + j);
      }
#pragma unroll
    for (int u = 0; u < U; ++u) c[u] = c_next[u];
    load_cols(c_next, k + 2 * U);
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (k + u < k1)
#pragma unroll
        for (int j = 0; j < BS; ++j)
#pragma unroll
          for (int i = 0; i < BS; ++i) acc[i] += v[u][j * BS + i] * xv[u][j];
  }
  if (a.slices.lane_out) { /* sorted layout: a block row or a partial sum of a long one, from a group of lanes */
    const bsrk_idx o    = a.slices.lane_out[s * kWarpSize + lane];
    const bool     lead = sliced_group_sum<BS>(acc, o, lane);
    if (o < -1) { /* the whole slice: a part of a long row (o is the same on every lane) */
      if (lead)
#pragma unroll
        for (int i = 0; i < BS; ++i) a.slices.slot_sum[(int64_t)(-2 - o) * BS + i] = acc[i];
      sliced_long_row_end(a, o, lane, BS);
    } else if (lead && o >= 0) sliced_store<BS>(a, o, acc);
    return;
  }
  const int64_t row = s * kWarpSize + lane;
  if (row < a.nbrows) sliced_store<BS>(a, row, acc);
}

/* Any block size (BS == 0 in the tables): the block's rows in passes of kGenericRows sums, each
   pass walking the slice again (its column indices and x from the caches, its values once). */
__global__ void __launch_bounds__(kSlicedMaxThreads) sliced_kernel_generic(const product_args a)
{
  const int     bs   = (int)a.bs;
  const int64_t bb   = (int64_t)bs * bs;
  const int64_t s    = (int64_t)blockIdx.x * (blockDim.x / kWarpSize) + threadIdx.x / kWarpSize;
  const int     lane = threadIdx.x % kWarpSize;
  if (s >= a.slices.nslices) return;
  const int64_t  k0 = a.slices.slice_step[s], k1 = a.slices.slice_step[s + 1];
  const bsrk_idx o   = a.slices.lane_out ? a.slices.lane_out[s * kWarpSize + lane] : -1;
  const int64_t  row = a.slices.lane_out ? (int64_t)o : s * kWarpSize + lane;
  for (int r0 = 0; r0 < bs; r0 += kGenericRows) {
    double acc[kGenericRows];
#pragma unroll
    for (int q = 0; q < kGenericRows; ++q) acc[q] = 0.0;
    for (int64_t k = k0; k < k1; ++k) {
      const bsrk_idx c = __ldg(a.slices.slice_col + k * kWarpSize + lane);
      for (int j = 0; j < bs; ++j) {
        const double  xv   = __ldg(a.x + (int64_t)c * bs + j);
        const double *vcol = a.slices.slice_values + (k * bb + (int64_t)j * bs + r0) * kWarpSize + lane;
#pragma unroll
        for (int q = 0; q < kGenericRows; ++q)
          if (r0 + q < bs) acc[q] += __ldcs(vcol + q * kWarpSize) * xv;
      }
    }
    if (a.slices.lane_out && !sliced_group_sum<kGenericRows>(acc, o, lane)) continue;
    if (row >= 0 && row < a.nbrows) {
#pragma unroll
      for (int q = 0; q < kGenericRows; ++q)
        if (r0 + q < bs) store_result(a, row * bs + r0 + q, acc[q]);
    } else if (a.slices.lane_out && o < -1) {
#pragma unroll
      for (int q = 0; q < kGenericRows; ++q)
        if (r0 + q < bs) a.slices.slot_sum[(int64_t)(-2 - o) * bs + r0 + q] = acc[q];
    }
  }
  if (a.slices.lane_out && o < -1) sliced_long_row_end(a, o, lane, bs); /* o the same on every lane */
}

/* Builds the slices from the BAIJ arrays: a warp per slice, a lane per lane row, step by step. */
__global__ void slices_build_kernel(bsrk_idx nbrows, bsrk_idx bs, const bsrk_idx *rowptr, const bsrk_idx *colidx, const double *values, const slices_view S, bsrk_idx *slice_col, double *slice_values)
{
  const int     lane = threadIdx.x % kWarpSize;
  const int64_t bb   = (int64_t)bs * bs;
  for (int64_t s = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize; s < S.nslices; s += (int64_t)gridDim.x * blockDim.x / kWarpSize) {
    const int64_t row = s * kWarpSize + lane;
    int64_t       b0, len;
    if (S.lane_out) {
      b0  = S.lane_b0[row];
      len = S.lane_len[row];
    } else {
      b0  = row < nbrows ? rowptr[row] : 0;
      len = row < nbrows ? rowptr[row + 1] - b0 : 0;
    }
    const int64_t k0 = S.slice_step[s], k1 = S.slice_step[s + 1];
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t j                 = k - k0;
      slice_col[k * kWarpSize + lane] = len > 0 ? colidx[b0 + (j < len ? j : len - 1)] : 0;
      for (int64_t q = 0; q < bb; ++q) slice_values[(k * bb + q) * kWarpSize + lane] = j < len ? values[(b0 + j) * bb + q] : 0.0;
    }
  }
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

/* ---------------------------------------------------------------------------------------------
   Auxiliary passes.
   --------------------------------------------------------------------------------------------- */

/* Adds the carries of tasks continuing a row, in task order: the first task of each run of tasks
   with the same head row sums the run, so no two threads touch one entry of out. */
__global__ void carry_fixup_kernel(bsrk_idx ntasks, int bs, const bsrk_idx *head_row, const double *carry, double alpha, double *out)
{
  wait_for_product();
  const int64_t total = (int64_t)ntasks * bs;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
    const bsrk_idx t = (bsrk_idx)(i / bs);
    const int      r = (int)(i - (int64_t)t * bs);
    const bsrk_idx h = head_row[t];
    if (h < 0 || (t > 0 && head_row[t - 1] == h)) continue;
    double sum = 0.0;
    for (bsrk_idx u = t; u < ntasks && head_row[u] == h; ++u) sum += carry[(int64_t)u * bs + r];
    out[(int64_t)h * bs + r] += alpha * sum;
  }
}

__global__ void scale_kernel(int64_t n, double alpha, double beta, const double *in, double *out)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) out[i] = beta == 0.0 ? alpha * 0.0 : alpha * 0.0 + beta * in[i];
}

/* ---------------------------------------------------------------------------------------------
   Dispatch tables, written once: [kernel][block-size slot], slot bs-1 for bs <= 8, else generic.
   --------------------------------------------------------------------------------------------- */
using product_kernel = void (*)(product_args);

#define BSRC_BS_TABLE(kernel) \
  { \
    kernel<1>, kernel<2>, kernel<3>, kernel<4>, kernel<5>, kernel<6>, kernel<7>, kernel<8>, kernel<0> \
  }
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

/* Order: BSRC_CUDA_KERNEL_ROWMAJOR_SHARED .. BSRC_CUDA_KERNEL_VECTOR_UNROLLED. */
const product_kernel task_kernels[4][kBsSlots] = {BSRC_BS_TABLE(rowmajor_shared_kernel), BSRC_BS_TABLE(thread_private_kernel), BSRC_BS_TABLE(team_scalar_kernel), BSRC_BS_TABLE(vector_unrolled_kernel)};
/* Lanes 4, 8, 16, 32 (WARP_ROW); 1, 2, 4, 8, 16, 32 (HYBRID). */
const product_kernel warp_row_kernels[4][kBsSlots] = {BSRC_WARP_ROW_TABLE(4), BSRC_WARP_ROW_TABLE(8), BSRC_WARP_ROW_TABLE(16), BSRC_WARP_ROW_TABLE(32)};
const product_kernel hybrid_kernels[6][kBsSlots]   = {BSRC_HYBRID_TABLE(1), BSRC_HYBRID_TABLE(2), BSRC_HYBRID_TABLE(4), BSRC_HYBRID_TABLE(8), BSRC_HYBRID_TABLE(16), BSRC_HYBRID_TABLE(32)};
/* bs 7, 8 and the generic size need more than 64 registers unbounded (66-72): bounded, so that 1024
   threads per block launch. */
const product_kernel sliced_kernels[kBsSlots]    = {sliced_kernel<1>, sliced_kernel<2>, sliced_kernel<3>, sliced_kernel<4>, sliced_kernel<5>, sliced_kernel<6>, sliced_kernel<7>, sliced_kernel<8>, sliced_kernel_generic};
const product_kernel segmented_kernels[kBsSlots] = {segmented_kernel<1>, segmented_kernel<2>,         segmented_kernel<3>,         segmented_kernel<4>,        segmented_kernel<5>,
                                                    segmented_kernel<6>, segmented_kernel_bounded<7>, segmented_kernel_bounded<8>, segmented_kernel_bounded<0>};

#undef BSRC_BS_TABLE
#undef BSRC_WARP_ROW_TABLE
#undef BSRC_HYBRID_TABLE

int bs_slot(bsrk_idx bs)
{
  return bs <= kSpecialisedMax ? (int)bs - 1 : kSpecialisedMax;
}

/* Index of a power of two in [1, 32] (log2); WARP_ROW's tables start at 4 lanes. */
int lanes_slot(int lanes)
{
  return lanes <= 1 ? 0 : lanes <= 2 ? 1 : lanes <= 4 ? 2 : lanes <= 8 ? 3 : lanes <= 16 ? 4 : 5;
}

/* Block-size (and lanes) dispatch of each kernel: its __global__ product for bs (and lanes). */
template <int TASK_KERNEL> /* row of task_kernels */
product_kernel select_task(bsrk_idx bs, int)
{
  return task_kernels[TASK_KERNEL][bs_slot(bs)];
}
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
product_kernel select_sliced(bsrk_idx bs, int)
{
  return sliced_kernels[bs_slot(bs)];
}

/* Dynamic shared memory per thread block: a row vector of bs sums (ROWMAJOR_SHARED, TEAM_SCALAR,
   VECTOR_UNROLLED), one per warp (THREAD_PRIVATE's block reduction, HYBRID's pieces), or none. */
size_t shared_row_vector(bsrk_idx bs, int)
{
  return (size_t)bs * sizeof(double);
}
size_t shared_row_vector_per_warp(bsrk_idx bs, int threads)
{
  return (size_t)(threads / kWarpSize) * (size_t)(bs <= kSpecialisedMax ? bs : kGenericRows) * sizeof(double);
}
size_t shared_none(bsrk_idx, int)
{
  return 0;
}

int round_up_pow2(int64_t v)
{
  int p = 1;
  while (p < v && p < (1 << 30)) p *= 2;
  return p;
}

int64_t ceil_div(int64_t a, int64_t b)
{
  return (a + b - 1) / b;
}

/* load_value's run-time switch for this matrix. */
bool stream_values(const matrix_view &A)
{
  return (double)A.nblocks * A.bs * A.bs * sizeof(double) <= kStreamMaxValueBytes;
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

/* Whether the product's values are loaded evict-first (load_value's run-time switch): the matrix is
   small enough (stream_values), unless WARP_ROW prefetches 2x2 blocks instead (prefetch_rows). */
bool values_streamed(const matrix_view &A, const launch_config &cfg)
{
  return stream_values(A) && !(cfg.prefetch_rows > 0 && A.bs == 2);
}

} // namespace

/* ---------------------------------------------------------------------------------------------
   Host side: choices and launches.
   --------------------------------------------------------------------------------------------- */

/* Enough tasks for every multiprocessor to hold several (balance through oversubscription), none
   with more than kMaxTaskValues values, never more tasks than blocks. */
bsrk_idx default_task_count(bsrk_idx nblocks, bsrk_idx bs, const device_info &dev)
{
  if (nblocks <= 0) return 1;
  const int64_t want = std::max<int64_t>((int64_t)dev.sm_count * kTasksPerSM, ceil_div((int64_t)nblocks * bs * bs, kMaxTaskValues));
  return (bsrk_idx)std::min<int64_t>(want, nblocks);
}

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

bsrc_cuda_kernel auto_choice(bsrk_idx nbrows, bsrk_idx nblocks, bsrk_idx bs, bsrk_idx max_row_blocks, bsrk_idx max_task_rows, int64_t padded_blocks)
{
  if (nbrows <= 0 || nblocks <= 0) return BSRC_CUDA_KERNEL_WARP_ROW;
  const double mean = (double)nblocks / (double)nbrows;
  const bool   even = (double)max_row_blocks <= kWarpRowMaxSkew * mean + (double)kWarpRowSkewSlack;
  /* SLICED where it was faster than WARP_ROW (see sliced_kernel): 2x2 to 4x4 blocks, rows of at
     most kSlicedMaxRowBytes of values, slices with almost no padding */
  const double row_bytes = mean * (double)bs * (double)bs * sizeof(double);
  if (even && row_bytes <= kSlicedMaxRowBytes && bs >= 2 && bs <= 4 && (double)padded_blocks <= kSlicedMaxPadding * (double)nblocks) return BSRC_CUDA_KERNEL_SLICED;
  if (mean <= kWarpRowMaxMeanBlocks && even) return BSRC_CUDA_KERNEL_WARP_ROW;
  /* Uneven rows of 2x2 and 4x4 blocks: SLICED's sorted layout, where it was faster than HYBRID
     (power-law rows, see kSlicedUnevenMinMeanBlocks) */
  if (!even && (bs == 2 || bs == 4) && row_bytes <= kSlicedUnevenMaxRowBytes && mean >= kSlicedUnevenMinMeanBlocks) return BSRC_CUDA_KERNEL_SLICED;
  /* Uneven rows (power-law lengths, an MPI ghost block whose few non-empty rows sit at the band's
     edge): with VECTOR_UNROLLED the many short rows each hold a whole thread block behind two
     barriers (several times slower than a warp per row), while WARP_ROW leaves the longest rows to
     one group of lanes (very slow for a row of hundreds of thousands of blocks). HYBRID uses no
     tasks, so this comes before the task test below: with it after, large power-law matrices (tasks
     of more than kTaskMaxRows rows) went to WARP_ROW. */
  if (!even) return BSRC_CUDA_KERNEL_HYBRID;
  /* Tasks are cut by blocks: a run of empty block rows falls into one task, whose thread block then
     walks thousands of rows one after another (milliseconds instead of microseconds on an MPI
     ghost block). A warp per row has no such serial walk. */
  if (max_task_rows > kTaskMaxRows) return BSRC_CUDA_KERNEL_WARP_ROW;
  return BSRC_CUDA_KERNEL_VECTOR_UNROLLED;
}

/* How one of our kernels is launched; its entry of the descriptor table (bsrcuda_kernel_table.cu)
   points to it. */
struct kernel_launch {
  product_kernel (*select)(bsrk_idx bs, int lanes); /* block-size (and lanes) dispatch */
  int (*default_threads)(bsrk_idx bs, double mean_blocks_per_row);
  size_t (*shared_bytes)(bsrk_idx bs, int threads);
  cudaError_t (*shape)(const matrix_view &A, const tasks_view &T, const device_info &dev, launch_config *cfg);
  /* queues the product (args filled for the whole matrix) and its fix-up pass */
  cudaError_t (*queue)(const kernel_launch &L, const matrix_view &A, const tasks_view &T, const launch_config &cfg, product_args args, cudaStream_t s);
  /* block rows [r0, r1) only (launch_row_range); null: the kernel has no row ranges */
  cudaError_t (*queue_rows)(const kernel_launch &L, const matrix_view &A, const tasks_view &T, const launch_config &cfg, bsrk_idx r0, bsrk_idx r1, product_args args, cudaStream_t s);
};

namespace {

/* Default threads per thread block of each kernel. The thesis found one warp best for the
   atomics-bound kernels 1 and 2, about four teams for kernel 3 and 128 threads for kernel 4; sweeps
   of bench/bench_cuda moved these to: kernels 1 and 2 two warps, kernel 3 about three teams, kernel 4
   about one thread per block column of an average block row (at most 256), the warp-based kernels
   128 (flat over a wide range), SLICED the bound its kernels are compiled for. */
int threads_two_warps(bsrk_idx, double)
{
  return 2 * kWarpSize;
}
int threads_team_scalar(bsrk_idx bs, double)
{
  return std::min(1024, std::max(kWarpSize, round_up_pow2(3 * (int64_t)bs * bs)));
}
int threads_vector_unrolled(bsrk_idx bs, double mean_blocks_per_row)
{
  const double columns = mean_blocks_per_row * (double)bs;
  int          threads = kWarpSize;
  while (threads < 256 && 2.0 * threads <= columns) threads *= 2;
  return threads;
}
int threads_warps(bsrk_idx, double)
{
  return 128;
}
int threads_sliced(bsrk_idx, double)
{
  return kSlicedMaxThreads; /* 8 slices a thread block */
}

/* Grid (and the L2 prefetch distances) of each kernel into cfg, whose threads, lanes,
   blocks_per_sm, shared_bytes and sm90 are set; an error where the launch cannot be made. */
int clamp_grid(int64_t grid)
{
  return (int)std::max<int64_t>(1, std::min<int64_t>(grid, INT_MAX));
}
cudaError_t shape_tasks(const matrix_view &, const tasks_view &T, const device_info &dev, launch_config *cfg)
{
  cfg->grid = clamp_grid(std::min<int64_t>(T.ntasks, (int64_t)cfg->blocks_per_sm * dev.sm_count * kOversubscription));
  return cudaSuccess;
}
cudaError_t shape_warp_row(const matrix_view &A, const tasks_view &, const device_info &, launch_config *cfg)
{
  cfg->grid          = clamp_grid(ceil_div(A.nbrows, cfg->threads / cfg->lanes));
  cfg->prefetch_rows = prefetch_rows(A, *cfg);
  return cudaSuccess;
}
/* A warp per item of a list of n. */
cudaError_t shape_warp_items(int64_t n, launch_config *cfg)
{
  const int64_t grid = ceil_div(n, cfg->threads / kWarpSize);
  if (grid > INT_MAX) return cudaErrorInvalidConfiguration;
  cfg->grid = clamp_grid(grid);
  return cudaSuccess;
}
cudaError_t shape_hybrid(const matrix_view &A, const tasks_view &T, const device_info &, launch_config *cfg)
{
  if (T.hybrid.lanes != cfg->lanes) return cudaErrorInvalidValue; /* work built for other lanes */
  const cudaError_t err = shape_warp_items(T.hybrid_nwork, cfg);
  if (err != cudaSuccess) return err;
  cfg->prefetch_blocks = prefetch_blocks(A, T, *cfg);
  return cudaSuccess;
}
cudaError_t shape_segmented(const matrix_view &, const tasks_view &T, const device_info &, launch_config *cfg)
{
  return shape_warp_items(T.nstrips, cfg);
}
cudaError_t shape_sliced(const matrix_view &, const tasks_view &T, const device_info &, launch_config *cfg)
{
  return shape_warp_items(T.slices.nslices, cfg); /* the sorted layout has more slices than rows / 32 */
}

/* A fix-up pass after the product kernel, kAuxThreads a block; `early`: as a programmatic dependent
   launch (release_fixup, wait_for_product), which lets it start while the product's last blocks
   run: slightly faster for HYBRID's pieces and the task kernels' carries; the fix-up is released at
   the start of the product's blocks, as releasing it only as they finish lost most of the gain. */
template <typename... Params, typename... Args>
cudaError_t launch_fixup(void (*kernel)(Params...), int grid, bool early, cudaStream_t s, Args... args)
{
  cudaLaunchAttribute attr                        = {};
  attr.id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t c                            = {};
  c.gridDim                                       = dim3((unsigned)grid);
  c.blockDim                                      = dim3((unsigned)kAuxThreads);
  c.stream                                        = s;
  c.attrs                                         = early ? &attr : nullptr;
  c.numAttrs                                      = early ? 1 : 0;
  return cudaLaunchKernelEx(&c, kernel, args...);
}

/* Each kernel's product launch with its fix-up pass: args filled for the whole matrix (with HYBRID's
   pieces and work list), L the kernel's launch. */
cudaError_t launch_product(const kernel_launch &L, const matrix_view &A, const launch_config &cfg, const product_args &args, cudaStream_t s);
cudaError_t queue_tasks(const kernel_launch &L, const matrix_view &A, const tasks_view &T, const launch_config &cfg, product_args args, cudaStream_t s)
{
  const cudaError_t err = launch_product(L, A, cfg, args, s);
  if (err != cudaSuccess || !T.has_carries) return err;
  const int64_t n    = (int64_t)T.ntasks * A.bs;
  const int     grid = (int)std::min<int64_t>(ceil_div(n, kAuxThreads), INT_MAX);
  return launch_fixup(carry_fixup_kernel, grid, cfg.sm90, s, T.ntasks, (int)A.bs, T.head_row, T.carry, args.alpha, args.out);
}
cudaError_t queue_plain(const kernel_launch &L, const matrix_view &A, const tasks_view &, const launch_config &cfg, product_args args, cudaStream_t s)
{
  return launch_product(L, A, cfg, args, s);
}
/* HYBRID and SEGMENTED: the product, then the long rows' pieces added up (SLICED adds its own in the product). */
cudaError_t queue_with_pieces(const kernel_launch &L, const matrix_view &A, const pieces_view &P, const launch_config &cfg, const product_args &args, cudaStream_t s)
{
  const cudaError_t err = launch_product(L, A, cfg, args, s);
  if (err != cudaSuccess || P.nlong <= 0) return err;
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
cudaError_t queue_sliced(const kernel_launch &L, const matrix_view &A, const tasks_view &T, const launch_config &cfg, product_args args, cudaStream_t s)
{
  if (!T.slices.slice_step) return cudaErrorInvalidValue; /* its copy not built (no steps: no columns nor values to hold) */
  return launch_product(L, A, cfg, args, s);
}

/* Block rows [r0, r1) of WARP_ROW or SLICED (launch_row_range): args hold the range's rows. */
cudaError_t rows_warp_row(const kernel_launch &L, const matrix_view &, const tasks_view &, const launch_config &cfg, bsrk_idx r0, bsrk_idx r1, product_args args, cudaStream_t s)
{
  const int64_t grid = ceil_div(r1 - r0, cfg.threads / cfg.lanes);
  L.select(args.bs, cfg.lanes)<<<(int)std::min<int64_t>(grid, INT_MAX), cfg.threads, 0, s>>>(args);
  return cudaGetLastError();
}
cudaError_t rows_sliced(const kernel_launch &L, const matrix_view &, const tasks_view &T, const launch_config &cfg, bsrk_idx r0, bsrk_idx r1, product_args args, cudaStream_t s)
{
  if (r0 % kWarpSize != 0 || !T.slices.slice_step || T.slices.lane_out) return cudaErrorInvalidValue; /* the sorted layout has no row ranges */
  args.slices            = T.slices;                                                                  /* the range's slices: slice_step holds absolute steps */
  args.slices.slice_step = T.slices.slice_step + r0 / kWarpSize;
  args.slices.nslices    = (bsrk_idx)ceil_div(r1 - r0, kWarpSize);
  const int64_t grid     = ceil_div(args.slices.nslices, cfg.threads / kWarpSize);
  L.select(args.bs, cfg.lanes)<<<(int)std::min<int64_t>(grid, INT_MAX), cfg.threads, 0, s>>>(args);
  return cudaGetLastError();
}

} // namespace

const kernel_launch launch_rowmajor_shared = {select_task<0>, threads_two_warps, shared_row_vector, shape_tasks, queue_tasks, nullptr};
const kernel_launch launch_thread_private  = {select_task<1>, threads_two_warps, shared_row_vector_per_warp, shape_tasks, queue_tasks, nullptr};
const kernel_launch launch_team_scalar     = {select_task<2>, threads_team_scalar, shared_row_vector, shape_tasks, queue_tasks, nullptr};
const kernel_launch launch_vector_unrolled = {select_task<3>, threads_vector_unrolled, shared_row_vector, shape_tasks, queue_tasks, nullptr};
const kernel_launch launch_warp_row        = {select_warp_row, threads_warps, shared_none, shape_warp_row, queue_plain, rows_warp_row};
const kernel_launch launch_hybrid          = {select_hybrid, threads_warps, shared_row_vector_per_warp, shape_hybrid, queue_hybrid, nullptr};
const kernel_launch launch_segmented       = {select_segmented, threads_warps, shared_none, shape_segmented, queue_segmented, nullptr};
const kernel_launch launch_sliced          = {select_sliced, threads_sliced, shared_none, shape_sliced, queue_sliced, rows_sliced};

namespace {
cudaError_t launch_product(const kernel_launch &L, const matrix_view &A, const launch_config &cfg, const product_args &args, cudaStream_t s)
{
  L.select(A.bs, cfg.lanes)<<<cfg.grid, cfg.threads, cfg.shared_bytes, s>>>(args);
  return cudaGetLastError();
}
} // namespace

cudaError_t configure(bsrc_cuda_kernel k, const matrix_view &A, const tasks_view &T, int lanes, const device_info &dev, int threads_override, launch_config *cfg)
{
  const kernel_launch *L = is_own_kernel(k) ? kernel_info(k).launch : nullptr;
  if (!L || A.bs < 1) return cudaErrorInvalidValue;
  const product_kernel fn      = L->select(A.bs, lanes);
  const double         mean    = A.nbrows > 0 ? (double)A.nblocks / (double)A.nbrows : 0.0;
  const int            threads = threads_override > 0 ? threads_override : L->default_threads(A.bs, mean);
  if (threads % kWarpSize != 0 || threads > 1024) return cudaErrorInvalidConfiguration;
  const size_t shared = L->shared_bytes(A.bs, threads);
  if (shared > dev.shared_per_block_optin) return cudaErrorInvalidConfiguration;
  if (shared > dev.shared_per_block) {
    const cudaError_t err = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
    if (err != cudaSuccess) return err;
  }
  int               per_sm = 0;
  const cudaError_t err    = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, shared);
  if (err != cudaSuccess) return err;
  if (per_sm < 1) return cudaErrorInvalidConfiguration;

  launch_config c         = {};
  c.threads               = threads;
  c.blocks_per_sm         = per_sm;
  c.lanes                 = has_lanes(k) ? lanes : 0;
  c.shared_bytes          = shared;
  c.sm90                  = dev.cc_major >= 9;
  const cudaError_t shape = L->shape(A, T, dev, &c);
  if (shape != cudaSuccess) return shape;
  *cfg = c;
  return cudaSuccess;
}

cudaError_t launch(bsrc_cuda_kernel k, const matrix_view &A, const tasks_view &T, const launch_config &cfg, double alpha, const double *x, double beta, const double *in, double *out, cudaStream_t s)
{
  if (A.nbrows <= 0) return cudaSuccess;
  const kernel_launch *L = is_own_kernel(k) ? kernel_info(k).launch : nullptr;
  if (!L) return cudaErrorInvalidValue;
  const product_args args = {A.nbrows,
                             A.bs,
                             A.rowptr,
                             A.colidx,
                             A.values,
                             T.ntasks,
                             T.block_begin,
                             T.row_begin,
                             T.head_row,
                             T.carry,
                             T.hybrid.npieces,
                             T.hybrid.piece_blocks,
                             T.hybrid.piece_row,
                             T.hybrid.piece_start,
                             T.hybrid.piece_sum,
                             T.hybrid_nwork,
                             T.hybrid_work,
                             nullptr,
                             T.hybrid_short_blocks,
                             T.hybrid_medium,
                             values_streamed(A, cfg),
                             cfg.prefetch_rows,
                             cfg.prefetch_blocks,
                             alpha,
                             beta,
                             x,
                             in,
                             out,
                             T.slices};
  return L->queue(*L, A, T, cfg, args, s);
}

cudaError_t launch_task_range(bsrc_cuda_kernel k, const matrix_view &A, const tasks_view &T, const launch_config &cfg, bsrk_idx t0, bsrk_idx t1, double alpha, const double *x, double beta, const double *in, double *out, cudaStream_t s)
{
  if (!is_task_kernel(k) || t0 < 0 || t1 > T.ntasks) return cudaErrorInvalidValue;
  if (t1 <= t0 || A.nbrows <= 0) return cudaSuccess;
  /* the task arrays hold absolute block and row indices: the range's view is a shift of the pointers */
  tasks_view R    = T;
  R.ntasks        = t1 - t0;
  R.block_begin   = T.block_begin + t0;
  R.row_begin     = T.row_begin + t0;
  R.head_row      = T.head_row + t0;
  R.carry         = T.carry + (int64_t)t0 * A.bs;
  launch_config c = cfg;
  c.grid          = (int)std::min<int64_t>(cfg.grid, R.ntasks);
  return launch(k, A, R, c, alpha, x, beta, in, out, s);
}

cudaError_t launch_slices_build(const matrix_view &A, const slices_view &S, bsrk_idx *slice_col, double *slice_values, cudaStream_t s)
{
  if (S.nslices <= 0) return cudaSuccess;
  const int grid = (int)std::min<int64_t>(ceil_div((int64_t)S.nslices * kWarpSize, kAuxThreads), INT_MAX);
  slices_build_kernel<<<grid, kAuxThreads, 0, s>>>(A.nbrows, A.bs, A.rowptr, A.colidx, A.values, S, slice_col, slice_values);
  return cudaGetLastError();
}

cudaError_t launch_row_range(bsrc_cuda_kernel k, const matrix_view &A, const tasks_view &T, const launch_config &cfg, bsrk_idx r0, bsrk_idx r1, double alpha, const double *x, double beta, const double *in, double *out, cudaStream_t s)
{
  if (r1 <= r0) return cudaSuccess;
  const kernel_launch *L = is_own_kernel(k) ? kernel_info(k).launch : nullptr;
  if (!L || !L->queue_rows) return cudaErrorInvalidValue;
  const int64_t off  = (int64_t)r0 * A.bs;
  product_args  args = {};
  args.nbrows        = r1 - r0;
  args.bs            = A.bs;
  args.rowptr        = A.rowptr + r0; /* row pointers hold absolute block indices: the view needs no other shift */
  args.colidx        = A.colidx;
  args.values        = A.values;
  args.stream_values = values_streamed(A, cfg);
  args.prefetch_rows = cfg.prefetch_rows;
  args.alpha         = alpha;
  args.beta          = beta;
  args.x             = x;
  args.in            = beta != 0.0 ? in + off : nullptr;
  args.out           = out + off;
  return L->queue_rows(*L, A, T, cfg, r0, r1, args, s);
}

cudaError_t launch_scale(int64_t n, double alpha, double beta, const double *in, double *out, cudaStream_t s)
{
  if (n <= 0) return cudaSuccess;
  const int grid = (int)std::min<int64_t>(ceil_div(n, kAuxThreads), INT_MAX);
  scale_kernel<<<grid, kAuxThreads, 0, s>>>(n, alpha, beta, in, out);
  return cudaGetLastError();
}

} // namespace bsrc
