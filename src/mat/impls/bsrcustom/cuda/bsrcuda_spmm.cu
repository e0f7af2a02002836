/*
   Block SpMM on the GPU: Y = alpha*A*X + beta*Y for k dense columns, X and Y column-major with
   leading dimensions (bsrcuda.h), A in BAIJ's layout (column-major blocks).

   One MatMult per column reads the whole matrix k times; here a group of L lanes of one warp takes a
   block row (WARP_ROW's access pattern: each lane whole block columns, bs contiguous values) and
   walks it in chunks of a few items a lane, each chunk once per tile of kTile columns, holding the
   chunk's bs x kTile sums in registers: every value loaded is multiplied into kTile columns of X.
   The first tile reads a chunk's blocks from memory; the later tiles find them in L1 (a chunk is
   8 block columns a lane), so DRAM sees the matrix once however many columns there are, even for
   rows far longer than L1 (later chunks of a row add into Y). The group's sums are reduced by
   WARP_ROW's halving butterfly (spmm_butterfly, written for up to 32 accumulators), at most 32:
   tiles of 8 columns for bs 1-4 (padded rows <= 4), of 4 for bs 5-8 and for larger blocks, which
   run in passes of 8 block rows.

   Lanes per row: WARP_ROW's choice for the matrix (about one lane per two scalar columns of the mean
   row, 4-32). No atomics: the same matrix and columns give the same bits every time; the sums run
   in another order than the single-column kernels', so the two agree to rounding.
*/
#include "bsrcuda_matrix.cuh"

#include <algorithm>

namespace bsrc {
namespace {

constexpr int kSpmmThreads          = 128; /* threads per thread block (a multiple of 32) */
constexpr int kSpmmGenericRows      = 8;   /* bs > 8: rows of a block per pass */
constexpr int kSpmmMaxBs            = 8;   /* 1..8 compiled as constants, larger ones generic */
constexpr int kSpmmLaneSlots        = 4;   /* 4, 8, 16, 32 lanes a row */
constexpr int kSpmmOversubscription = 8;   /* grid: resident thread blocks x this, then grid-stride */
constexpr int kSpmmChunkItems       = 8;   /* items (block columns) a lane takes per chunk of a row (spmm_kernel) */

/* Smallest power of two >= n (n >= 1). */
__host__ __device__ constexpr int spmm_pow2(int n)
{
  return n <= 1 ? 1 : 2 * spmm_pow2((n + 1) / 2);
}

/* Rows of a block one pass holds, and the tile of columns: accumulators <= 32. */
__host__ __device__ constexpr int spmm_rows(int BS)
{
  return BS > 0 ? BS : kSpmmGenericRows;
}
__host__ __device__ constexpr int spmm_tile(int BS)
{
  return spmm_pow2(spmm_rows(BS)) <= 4 ? 8 : 4;
}

struct spmm_args {
  bsrk_idx        nbrows, bs;
  const bsrk_idx *rowptr, *colidx;
  const double   *values;
  int64_t         k, ldx, ldy;
  double          alpha, beta;
  const double   *X;
  double         *Y;
};

/* Sums the N accumulators (a power of two) of each lane over the W lanes of its aligned group, as
   WARP_ROW's reduce_scatter does (a butterfly that halves the accumulators a lane keeps at each step:
   N - 1 shuffles instead of log2(W) per accumulator), written as a recursion on the step so that
   every index is a compile-time constant for any N (with loops, 32 accumulators went to local
   memory). Call with KEPT = N and OFFSET = W / 2. On return a lane holds the sums of accumulators
   first .. first + spmm_kept(N, W) - 1 in acc[0 ..]; lanes sharing a sum differ in their low bits
   below W / min(N, W), and the one with those bits zero stores it (spmm_stores). */
__host__ __device__ constexpr int spmm_kept(int N, int W)
{
  return N > W ? N / W : 1;
}
template <int W, int N>
__device__ __forceinline__ bool spmm_stores(int lane)
{
  return (lane & (W / (N < W ? N : W) - 1)) == 0;
}
template <int N, int KEPT, int W, int OFFSET>
__device__ __forceinline__ void spmm_butterfly(double (&acc)[N], int lane, int &first)
{
  if constexpr (OFFSET >= 1) {
    if constexpr (KEPT > 1) {
      const bool upper = (lane & OFFSET) != 0;
#pragma unroll
      for (int i = 0; i < KEPT / 2; ++i) {
        const double send = upper ? acc[i] : acc[i + KEPT / 2];
        const double keep = upper ? acc[i + KEPT / 2] : acc[i];
        acc[i]            = keep + __shfl_xor_sync(0xffffffffu, send, OFFSET, W);
      }
      if (upper) first += KEPT / 2;
      spmm_butterfly<N, KEPT / 2, W, OFFSET / 2>(acc, lane, first);
    } else {
      acc[0] += __shfl_xor_sync(0xffffffffu, acc[0], OFFSET, W);
      spmm_butterfly<N, 1, W, OFFSET / 2>(acc, lane, first);
    }
  }
}

/* The sums of items [i0, i1) (item i: block s + i / bs, its block column i % bs) of block row `row`
   for columns [j0, j0 + nt) and block rows [r0, r0 + nr), by a group of L lanes; the lane that ends
   up holding a sum stores it: first (the row's first chunk) as alpha*sum + beta*Y, later chunks
   add alpha*sum to what the same lane stored before. All 32 lanes of the warp call it (inactive
   ones, and groups whose row has no items left, with i0 >= i1). */
template <int BS, int L>
__device__ __forceinline__ void spmm_chunk(const spmm_args &a, int bs, int64_t row, bool active, bsrk_idx s, int64_t i0, int64_t i1, bool first, int lane, int64_t j0, int nt, int r0, int nr)
{
  constexpr int kRows = spmm_rows(BS), kPad = spmm_pow2(kRows), kTile = spmm_tile(BS), kAcc = kPad * kTile;
  double        acc[kAcc];
#pragma unroll
  for (int q = 0; q < kAcc; ++q) acc[q] = 0.0;
  const double *X = a.X + j0 * a.ldx;
  for (int64_t i = i0 + lane; i < i1; i += L) {
    const int64_t q   = i / bs;
    const int     c   = (int)(i - q * bs);
    const int64_t blk = s + q;
    const int64_t xr  = (int64_t)__ldg(a.colidx + blk) * bs + c;
    double        xv[kTile];
#pragma unroll
    for (int j = 0; j < kTile; ++j) xv[j] = j < nt ? __ldg(X + xr + j * a.ldx) : 0.0;
    const double *col = a.values + (blk * bs + c) * bs + r0;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      if (BS == 0 && r >= nr) break;
      const double v = __ldg(col + r);
#pragma unroll
      for (int j = 0; j < kTile; ++j) acc[j * kPad + r] += v * xv[j];
    }
  }
  int held = 0; /* the first accumulator whose sum this lane holds */
  spmm_butterfly<kAcc, kAcc, L, L / 2>(acc, lane, held);
  if (active && (first || i0 < i1) && spmm_stores<L, kAcc>(lane)) {
#pragma unroll
    for (int i = 0; i < spmm_kept(kAcc, L); ++i) {
      const int idx = held + i, r = idx % kPad, j = idx / kPad;
      if (r < nr && j < nt) {
        const int64_t y = row * bs + r0 + r + (j0 + j) * a.ldy;
        if (!first) a.Y[y] += a.alpha * acc[i];
        else a.Y[y] = a.beta == 0.0 ? a.alpha * acc[i] : a.alpha * acc[i] + a.beta * a.Y[y];
      }
    }
  }
}

/* The largest of v over the 32 lanes of the warp (all of them call it). */
__device__ __forceinline__ int64_t warp_max(int64_t v)
{
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) v = max(v, (int64_t)__shfl_xor_sync(0xffffffffu, (long long)v, offset));
  return v;
}

/* A group of L lanes per block row. The row is walked in chunks of kSpmmChunkItems items a lane, and
   each chunk once per tile of columns (and pass of block rows): a chunk (8 KB of 5x5 blocks with 32
   lanes) is still in L1 when the next tile reads it, so a long row (the thesis band: 64 KB of
   values) comes from DRAM once however many tiles there are, where walking the whole row once per
   tile would read it from DRAM again. The warp's groups walk as many chunks as its longest row has,
   so that all 32 lanes take part in every reduction. */
template <int BS, int L>
__global__ void __launch_bounds__(kSpmmThreads) spmm_kernel(const spmm_args a)
{
  constexpr int     kRows = spmm_rows(BS), kTile = spmm_tile(BS);
  constexpr int64_t kChunk = (int64_t)L * kSpmmChunkItems;
  const int         bs     = BS > 0 ? BS : (int)a.bs;
  const int         lane   = threadIdx.x % L;
  const int         rpb    = blockDim.x / L; /* block rows a thread block takes at once */
  for (int64_t base = (int64_t)blockIdx.x * rpb; base < a.nbrows; base += (int64_t)gridDim.x * rpb) {
    const int64_t  row    = base + threadIdx.x / L;
    const bool     active = row < a.nbrows;
    const bsrk_idx s      = active ? a.rowptr[row] : 0;
    const int64_t  items  = active ? (int64_t)(a.rowptr[row + 1] - s) * bs : 0;
    const int64_t  most   = warp_max(items);
    for (int64_t c0 = 0; c0 == 0 || c0 < most; c0 += kChunk)
      for (int64_t j0 = 0; j0 < a.k; j0 += kTile) {
        const int nt = (int)min((int64_t)kTile, a.k - j0);
        for (int r0 = 0; r0 < bs; r0 += kRows) spmm_chunk<BS, L>(a, bs, row, active, s, c0, min(c0 + kChunk, items), c0 == 0, lane, j0, nt, r0, BS > 0 ? BS : min(kRows, bs - r0));
      }
  }
}

using spmm_fn = void (*)(spmm_args);

#define BSRC_SPMM_ROW(L) \
  { \
    spmm_kernel<1, L>, spmm_kernel<2, L>, spmm_kernel<3, L>, spmm_kernel<4, L>, spmm_kernel<5, L>, spmm_kernel<6, L>, spmm_kernel<7, L>, spmm_kernel<8, L>, spmm_kernel<0, L> \
  }
const spmm_fn spmm_kernels[kSpmmLaneSlots][kSpmmMaxBs + 1] = {BSRC_SPMM_ROW(4), BSRC_SPMM_ROW(8), BSRC_SPMM_ROW(16), BSRC_SPMM_ROW(32)};
#undef BSRC_SPMM_ROW

/* The launch, from the matrix (WARP_ROW's lanes for its mean row) and the device's properties. */
struct spmm_launch {
  int     lanes, tile, threads, grid;
  spmm_fn kernel;
};

spmm_launch spmm_shape(const bsrc_cuda_matrix *M)
{
  spmm_launch   l{};
  const int     lanes = std::min(32, std::max(4, M->lanes));
  const int     slot  = lanes <= 4 ? 0 : lanes <= 8 ? 1 : lanes <= 16 ? 2 : 3;
  const int     bslot = M->bs <= kSpmmMaxBs ? (int)M->bs - 1 : kSpmmMaxBs;
  const int64_t rpb   = kSpmmThreads / (4 << slot);
  const int64_t need  = (M->nbrows + rpb - 1) / rpb;
  const int64_t cap   = (int64_t)std::max(1, M->dev.sm_count) * std::max(1, M->dev.max_threads_per_sm / kSpmmThreads) * kSpmmOversubscription;
  l.lanes             = 4 << slot;
  l.tile              = M->bs <= 4 ? 8 : 4; /* spmm_tile */
  l.threads           = kSpmmThreads;
  l.grid              = (int)std::max<int64_t>(1, std::min(need, cap));
  l.kernel            = spmm_kernels[slot][bslot];
  return l;
}

bsrc_cuda_status check_spmm_args(bsrc_cuda_matrix *M, bsrk_idx k, const double *X, bsrk_idx ldx, double beta, const double *Y, bsrk_idx ldy, const char *what)
{
  if (!M) return fail(sink(M), BSRC_CUDA_ERR_ARG, "%s: matrix is NULL", what);
  if (!M->has_structure || !M->has_values) return fail(sink(M), BSRC_CUDA_ERR_ARG, "%s: no %s set", what, M->has_structure ? "values" : "structure");
  if (k < 0) return fail(sink(M), BSRC_CUDA_ERR_ARG, "%s: %lld columns", what, (long long)k);
  const int64_t ncols = (int64_t)M->nbcols * M->bs, nrows = (int64_t)M->nbrows * M->bs;
  if (k == 0 || nrows == 0) return BSRC_CUDA_OK;
  if (ldy < std::max<int64_t>(nrows, 1)) return fail(sink(M), BSRC_CUDA_ERR_ARG, "%s: leading dimension of Y %lld is less than its %lld rows", what, (long long)ldy, (long long)nrows);
  if (ncols > 0 && ldx < ncols) return fail(sink(M), BSRC_CUDA_ERR_ARG, "%s: leading dimension of X %lld is less than its %lld rows", what, (long long)ldx, (long long)ncols);
  if (ncols > 0 && !X) return fail(sink(M), BSRC_CUDA_ERR_ARG, "%s: X is NULL", what);
  if (!Y) return fail(sink(M), BSRC_CUDA_ERR_ARG, "%s: Y is NULL", what);
  (void)beta;
  return BSRC_CUDA_OK;
}

/* Queues the SpMM on stream s (device arrays). */
bsrc_cuda_status queue_spmm(bsrc_cuda_matrix *M, cudaStream_t s, bsrk_idx k, double alpha, const double *X, int64_t ldx, double beta, double *Y, int64_t ldy)
{
  if (k == 0 || M->nbrows == 0) return BSRC_CUDA_OK;
  const spmm_launch l = spmm_shape(M);
  const spmm_args   a{M->nbrows, M->bs, (const bsrk_idx *)M->rowptr.ptr, (const bsrk_idx *)M->colidx.ptr, (const double *)M->values.ptr, (int64_t)k, std::max<int64_t>(ldx, 1), ldy, alpha, beta, X, Y};
  l.kernel<<<l.grid, l.threads, 0, s>>>(a);
  BSRC_CUDA_CHECK(cudaGetLastError(), sink(M), "block SpMM kernel launch");
  return BSRC_CUDA_OK;
}

/* M's device buffer b at least `bytes` (grown, never shrunk: the next product of as many columns
   reuses it). */
bsrc_cuda_status spmm_buffer(bsrc_cuda_matrix *M, dev_buffer &b, size_t bytes, const char *what)
{
  if (b.bytes >= bytes) return BSRC_CUDA_OK;
  return dev_alloc(b, bytes, what, &M->bytes, sink(M));
}

/* rows x k doubles from host src (leading dimension ld) into the device buffer (packed), on s, by one
   pageable 2D copy: the ghost rows of the split SpMM (few; X and Y go through pinned buffers). */
cudaError_t upload_columns(double *dev, const double *src, int64_t rows, int64_t k, int64_t ld, cudaStream_t s)
{
  if (rows == 0 || k == 0) return cudaSuccess;
  return cudaMemcpy2DAsync(dev, (size_t)rows * sizeof(double), src, (size_t)ld * sizeof(double), (size_t)rows * sizeof(double), (size_t)k, cudaMemcpyHostToDevice, s);
}

/* Uploads X (and Y when beta != 0) into M's device buffers through its pinned ones (spmm_stage_up)
   and queues M's SpMM into spmm_y on M's stream. */
bsrc_cuda_status stage_spmm(bsrc_cuda_matrix *M, bsrk_idx k, double alpha, const double *X, bsrk_idx ldx, double beta, const double *Y, bsrk_idx ldy, const char *what)
{
  const int64_t ncols = (int64_t)M->nbcols * M->bs, nrows = (int64_t)M->nbrows * M->bs;
  size_t        xb = 0, yb = 0;
  if (!byte_count((size_t)ncols * (size_t)k, sizeof(double), &xb) || !byte_count((size_t)nrows * (size_t)k, sizeof(double), &yb)) return fail(sink(M), BSRC_CUDA_ERR_MEM, "%s: %lld columns do not fit in memory", what, (long long)k);
  bsrc_cuda_status st = spmm_buffer(M, M->spmm_x, xb, "block SpMM: device copy of X");
  if (st == BSRC_CUDA_OK) st = spmm_buffer(M, M->spmm_y, yb, "block SpMM: device copy of Y");
  if (st != BSRC_CUDA_OK) return st;
  st = spmm_stage_up(M, (double *)M->spmm_x.ptr, X, ncols, k, ldx, false);
  if (st == BSRC_CUDA_OK && beta != 0.0) st = spmm_stage_up(M, (double *)M->spmm_y.ptr, Y, nrows, k, ldy, true);
  if (st != BSRC_CUDA_OK) return st;
  st = queue_spmm(M, M->stream, k, alpha, (const double *)M->spmm_x.ptr, ncols, beta, (double *)M->spmm_y.ptr, nrows);
  if (st != BSRC_CUDA_OK) (void)cudaStreamSynchronize(M->stream);
  return st;
}

/* spmm_y (nrows x k, packed) back into host Y (leading dimension ldy); waits for M's stream (errors
   of the SpMM surface here). */
bsrc_cuda_status download_y(bsrc_cuda_matrix *M, bsrk_idx k, double *Y, bsrk_idx ldy)
{
  M->own_queued = false;
  return spmm_stage_down(M, Y, ldy, (const double *)M->spmm_y.ptr, (int64_t)M->nbrows * M->bs, k);
}

} // namespace
} // namespace bsrc

using namespace bsrc;

extern "C" bsrc_cuda_status bsrc_cuda_spmm_host(bsrc_cuda_matrix *M, bsrc_cuda_kernel one, bsrk_idx k, double alpha, const double *X, bsrk_idx ldx, double beta, double *Y, bsrk_idx ldy)
{
  bsrc_cuda_status s = check_spmm_args(M, k, X, ldx, beta, Y, ldy, "spmm_host");
  if (s != BSRC_CUDA_OK) return s;
  if (k == 0 || M->nbrows == 0) return BSRC_CUDA_OK;
  if (k == 1) return bsrc_cuda_multadd_host(M, one, alpha, X, beta, Y, Y);
  if (M->split_open || M->spmm_open) return fail(sink(M), BSRC_CUDA_ERR_ARG, "spmm_host: a split product is open");
  device_scope ds(M->device);
  BSRC_CUDA_CHECK(ds.error(), sink(M), "cudaSetDevice");
  s = join_caller(M, "block SpMM: ordering after queued products");
  if (s == BSRC_CUDA_OK) s = stage_spmm(M, k, alpha, X, ldx, beta, Y, ldy, "spmm_host");
  if (s != BSRC_CUDA_OK) return s;
  return download_y(M, k, Y, ldy);
}

extern "C" bsrc_cuda_status bsrc_cuda_spmm_device_on(bsrc_cuda_matrix *M, bsrc_cuda_kernel one, void *stream, bsrk_idx k, double alpha, const double *X, bsrk_idx ldx, double beta, double *Y, bsrk_idx ldy)
{
  bsrc_cuda_status s = check_spmm_args(M, k, X, ldx, beta, Y, ldy, "spmm_device_on");
  if (s != BSRC_CUDA_OK) return s;
  if (k == 0 || M->nbrows == 0) return BSRC_CUDA_OK;
  if (k == 1) return bsrc_cuda_multadd_device_on(M, one, stream, alpha, X, beta, Y, Y);
  if (M->split_open || M->spmm_open) return fail(sink(M), BSRC_CUDA_ERR_ARG, "spmm_device_on: a split product is open");
  device_scope ds(M->device);
  BSRC_CUDA_CHECK(ds.error(), sink(M), "cudaSetDevice");
  const cudaStream_t cs = stream ? (cudaStream_t)stream : cudaStreamLegacy;
  s                     = join_own(M, cs, "block SpMM: ordering after M's own stream");
  if (s == BSRC_CUDA_OK) s = queue_spmm(M, cs, k, alpha, X, ldx, beta, Y, ldy);
  if (s != BSRC_CUDA_OK) return s;
  return mark_caller(M, cs, "block SpMM: recording its completion");
}

extern "C" bsrc_cuda_status bsrc_cuda_spmm_split_begin(bsrc_cuda_matrix *L, bsrk_idx k, double alpha, const double *X, bsrk_idx ldx)
{
  /* Y is given at the end: a placeholder that passes the checks stands for it here */
  bsrc_cuda_status s = check_spmm_args(L, k, X, ldx, 0.0, &alpha, L ? (bsrk_idx)std::max<int64_t>((int64_t)L->nbrows * L->bs, 1) : 1, "spmm_split_begin");
  if (s != BSRC_CUDA_OK) return s;
  if (L->split_open || L->spmm_open) return fail(sink(L), BSRC_CUDA_ERR_ARG, "spmm_split_begin: the previous split product was not ended");
  device_scope ds(L->device);
  BSRC_CUDA_CHECK(ds.error(), sink(L), "cudaSetDevice");
  s = join_caller(L, "split SpMM: ordering after queued products");
  if (s == BSRC_CUDA_OK) s = stage_spmm(L, k, alpha, X, ldx, 0.0, nullptr, 1, "spmm_split_begin");
  if (s != BSRC_CUDA_OK) return s;
  L->spmm_open = true;
  return BSRC_CUDA_OK;
}

extern "C" bsrc_cuda_status bsrc_cuda_spmm_split_end(bsrc_cuda_matrix *L, bsrc_cuda_matrix *G, bsrk_idx k, double alpha, const double *Xg, bsrk_idx ldg, double *Y, bsrk_idx ldy)
{
  if (!L) return fail(sink(L), BSRC_CUDA_ERR_ARG, "spmm_split_end: local matrix is NULL");
  if (!L->spmm_open) return fail(sink(L), BSRC_CUDA_ERR_ARG, "spmm_split_end: no split SpMM begun (bsrc_cuda_spmm_split_begin)");
  L->spmm_open = false;
  device_scope ds(L->device);
  BSRC_CUDA_CHECK(ds.error(), sink(L), "cudaSetDevice");
  const int64_t    nrows = (int64_t)L->nbrows * L->bs;
  bsrc_cuda_status s     = BSRC_CUDA_OK;
  if (nrows > 0 && k > 0 && (!Y || ldy < nrows)) s = fail(sink(L), BSRC_CUDA_ERR_ARG, "spmm_split_end: Y is NULL or its leading dimension %lld is less than its %lld rows", (long long)ldy, (long long)nrows);
  if (s == BSRC_CUDA_OK && G && G->nbrows > 0 && G->nbcols > 0 && k > 0) {
    const int64_t gcols = (int64_t)G->nbcols * G->bs;
    size_t        gb    = 0;
    if (G->device != L->device) s = fail(sink(L), BSRC_CUDA_ERR_ARG, "spmm_split_end: ghost block on device %d, local block on device %d", G->device, L->device);
    else if (G->nbrows != L->nbrows || G->bs != L->bs)
      s = fail(sink(L), BSRC_CUDA_ERR_ARG, "spmm_split_end: ghost block has %lld block rows of bs %lld, local block %lld of bs %lld", (long long)G->nbrows, (long long)G->bs, (long long)L->nbrows, (long long)L->bs);
    else if ((s = check_spmm_args(G, k, Xg, ldg, 1.0, (const double *)L->spmm_y.ptr, nrows, "ghost block")) != BSRC_CUDA_OK) (void)snprintf(L->msg, sizeof(L->msg), "%.1000s", G->msg);
    else if (!byte_count((size_t)gcols * (size_t)k, sizeof(double), &gb)) s = fail(sink(L), BSRC_CUDA_ERR_MEM, "spmm_split_end: %lld ghost columns do not fit in memory", (long long)k);
    else if ((s = spmm_buffer(G, G->spmm_x, gb, "block SpMM: device copy of the ghost rows of X")) != BSRC_CUDA_OK) (void)snprintf(L->msg, sizeof(L->msg), "ghost block: %.1000s", G->msg);
    else if ((s = join_caller(G, "split SpMM: ordering after queued products")) != BSRC_CUDA_OK) (void)snprintf(L->msg, sizeof(L->msg), "ghost block: %.1000s", G->msg);
    if (s == BSRC_CUDA_OK) { /* on L's stream: after the local SpMM, into its Y */
      const cudaError_t err = upload_columns((double *)G->spmm_x.ptr, Xg, gcols, k, ldg, L->stream);
      if (err != cudaSuccess) {
        (void)cudaGetLastError();
        s = fail_cuda(sink(L), err, "split SpMM: host-to-device copy of the ghost rows of X");
      } else if ((s = queue_spmm(G, L->stream, k, alpha, (const double *)G->spmm_x.ptr, gcols, 1.0, (double *)L->spmm_y.ptr, nrows)) != BSRC_CUDA_OK) (void)snprintf(L->msg, sizeof(L->msg), "ghost block: %.1000s", G->msg);
    }
  }
  if (s != BSRC_CUDA_OK) {
    (void)cudaStreamSynchronize(L->stream);
    return s;
  }
  return download_y(L, k, Y, ldy);
}

extern "C" bsrc_cuda_status bsrc_cuda_spmm_launch_info(const bsrc_cuda_matrix *M, int *lanes, int *tile, int *threads, int *grid)
{
  if (!M || !M->has_structure) return M ? fail(sink(const_cast<bsrc_cuda_matrix *>(M)), BSRC_CUDA_ERR_ARG, "spmm_launch_info: no structure set") : fail(sink(nullptr), BSRC_CUDA_ERR_ARG, "spmm_launch_info: matrix is NULL");
  const spmm_launch l = spmm_shape(M);
  if (lanes) *lanes = l.lanes;
  if (tile) *tile = l.tile;
  if (threads) *threads = l.threads;
  if (grid) *grid = l.grid;
  return BSRC_CUDA_OK;
}
