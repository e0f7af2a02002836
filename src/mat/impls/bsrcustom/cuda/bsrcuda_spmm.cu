/*
   Block SpMM on the GPU: Y = alpha*A*X + beta*Y for k dense columns, X and Y column-major with
   leading dimensions (bsrcuda.h), A in BAIJ's layout (column-major blocks).

   One MatMult per column reads the whole matrix k times; here a group of L lanes of one warp takes a
   block row (WARP_ROW's access pattern: each lane whole block columns, bs contiguous values) and
   walks it once per tile of kTile columns, holding the row's bs x kTile sums in registers: every
   value loaded is multiplied into kTile columns of X. The first tile reads the row's blocks from
   memory; the later tiles of the same row find them in L1/L2 (a 27-block row of 5x5 blocks is 5.4
   KB), so DRAM sees the matrix once however many columns there are. The group's sums are reduced by
   the halving butterfly of WARP_ROW (reduce_scatter, bsrcuda_warp.cuh), at most 32 accumulators:
   tiles of 8 columns for bs 1-4 (padded rows <= 4), of 4 for bs 5-8 and for larger blocks, which
   run in passes of 8 block rows.

   Lanes per row: WARP_ROW's choice for the matrix (about one lane per two scalar columns of the mean
   row, 4-32). The product is the same bits for any launch; the order of the sums differs from the
   single-column kernels', so the two agree to rounding.
*/
#include "bsrcuda_matrix.cuh"
#include "bsrcuda_warp.cuh"

#include <algorithm>

namespace bsrc {
namespace {

constexpr int kSpmmThreads          = 128; /* threads per thread block (a multiple of 32) */
constexpr int kSpmmGenericRows      = 8;   /* bs > 8: rows of a block per pass */
constexpr int kSpmmMaxBs            = 8;   /* 1..8 compiled as constants, larger ones generic */
constexpr int kSpmmLaneSlots        = 4;   /* 4, 8, 16, 32 lanes a row */
constexpr int kSpmmOversubscription = 8;   /* grid: resident thread blocks x this, then grid-stride */

/* Rows of a block one pass holds, and the tile of columns: accumulators <= 32. */
__host__ __device__ constexpr int spmm_rows(int BS)
{
  return BS > 0 ? BS : kSpmmGenericRows;
}
__host__ __device__ constexpr int spmm_tile(int BS)
{
  return pow2_ceil(spmm_rows(BS)) <= 4 ? 8 : 4;
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

/* The sums of block row `row` (blocks [s, e)) for columns [j0, j0 + nt) and block rows
   [r0, r0 + nr) by a group of L lanes, stored by the lane that ends up holding each. All 32 lanes of
   the warp call it (inactive ones with s == e). */
template <int BS, int L>
__device__ __forceinline__ void spmm_tile_rows(const spmm_args &a, int bs, int64_t row, bool active, bsrk_idx s, bsrk_idx e, int lane, int64_t j0, int nt, int r0, int nr)
{
  constexpr int kRows = spmm_rows(BS), kPad = pow2_ceil(kRows), kTile = spmm_tile(BS), kAcc = kPad * kTile;
  double        acc[kAcc];
#pragma unroll
  for (int q = 0; q < kAcc; ++q) acc[q] = 0.0;
  const double *X     = a.X + j0 * a.ldx;
  const int64_t items = (int64_t)(e - s) * bs; /* (block, block column) pairs of the row */
  for (int64_t i = lane; i < items; i += L) {
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
  const reduce_scatter<kAcc, L> red(acc, lane);
  if (active && red.stores(lane)) {
#pragma unroll
    for (int i = 0; i < red.kept; ++i) {
      const int idx = red.first + i, r = idx % kPad, j = idx / kPad;
      if (r < nr && j < nt) {
        const int64_t y = row * bs + r0 + r + (j0 + j) * a.ldy;
        a.Y[y]          = a.beta == 0.0 ? a.alpha * acc[i] : a.alpha * acc[i] + a.beta * a.Y[y];
      }
    }
  }
}

template <int BS, int L>
__global__ void __launch_bounds__(kSpmmThreads) spmm_kernel(const spmm_args a)
{
  constexpr int kRows = spmm_rows(BS), kTile = spmm_tile(BS);
  const int     bs   = BS > 0 ? BS : (int)a.bs;
  const int     lane = threadIdx.x % L;
  const int     rpb  = blockDim.x / L; /* block rows a thread block takes at once */
  for (int64_t base = (int64_t)blockIdx.x * rpb; base < a.nbrows; base += (int64_t)gridDim.x * rpb) {
    const int64_t  row    = base + threadIdx.x / L;
    const bool     active = row < a.nbrows;
    const bsrk_idx s      = active ? a.rowptr[row] : 0;
    const bsrk_idx e      = active ? a.rowptr[row + 1] : 0;
    for (int64_t j0 = 0; j0 < a.k; j0 += kTile) {
      const int nt = (int)min((int64_t)kTile, a.k - j0);
      for (int r0 = 0; r0 < bs; r0 += kRows) spmm_tile_rows<BS, L>(a, bs, row, active, s, e, lane, j0, nt, r0, BS > 0 ? BS : min(kRows, bs - r0));
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

/* rows x k doubles from host src (leading dimension ld) into the device buffer (packed), on s. */
cudaError_t upload_columns(double *dev, const double *src, int64_t rows, int64_t k, int64_t ld, cudaStream_t s)
{
  if (rows == 0 || k == 0) return cudaSuccess;
  return cudaMemcpy2DAsync(dev, (size_t)rows * sizeof(double), src, (size_t)ld * sizeof(double), (size_t)rows * sizeof(double), (size_t)k, cudaMemcpyHostToDevice, s);
}

/* Uploads X (and Y when beta != 0) into M's buffers and queues M's SpMM into spmm_y on M's stream. */
bsrc_cuda_status stage_spmm(bsrc_cuda_matrix *M, bsrk_idx k, double alpha, const double *X, bsrk_idx ldx, double beta, const double *Y, bsrk_idx ldy, const char *what)
{
  const int64_t ncols = (int64_t)M->nbcols * M->bs, nrows = (int64_t)M->nbrows * M->bs;
  size_t        xb = 0, yb = 0;
  if (!byte_count((size_t)ncols * (size_t)k, sizeof(double), &xb) || !byte_count((size_t)nrows * (size_t)k, sizeof(double), &yb)) return fail(sink(M), BSRC_CUDA_ERR_MEM, "%s: %lld columns do not fit in memory", what, (long long)k);
  bsrc_cuda_status st = spmm_buffer(M, M->spmm_x, xb, "block SpMM: device copy of X");
  if (st == BSRC_CUDA_OK) st = spmm_buffer(M, M->spmm_y, yb, "block SpMM: device copy of Y");
  if (st != BSRC_CUDA_OK) return st;
  cudaError_t err = upload_columns((double *)M->spmm_x.ptr, X, ncols, k, ldx, M->stream);
  if (err == cudaSuccess && beta != 0.0) err = upload_columns((double *)M->spmm_y.ptr, Y, nrows, k, ldy, M->stream);
  if (err != cudaSuccess) {
    (void)cudaStreamSynchronize(M->stream);
    (void)cudaGetLastError();
    return fail_cuda(sink(M), err, "block SpMM: host-to-device copy of X / Y");
  }
  st = queue_spmm(M, M->stream, k, alpha, (const double *)M->spmm_x.ptr, ncols, beta, (double *)M->spmm_y.ptr, nrows);
  if (st != BSRC_CUDA_OK) (void)cudaStreamSynchronize(M->stream);
  return st;
}

/* spmm_y (nrows x k, packed) back into host Y (leading dimension ldy); waits for M's stream. */
bsrc_cuda_status download_y(bsrc_cuda_matrix *M, bsrk_idx k, double *Y, bsrk_idx ldy)
{
  const int64_t nrows = (int64_t)M->nbrows * M->bs;
  cudaError_t   err   = cudaSuccess;
  if (nrows > 0 && k > 0) err = cudaMemcpy2DAsync(Y, (size_t)ldy * sizeof(double), M->spmm_y.ptr, (size_t)nrows * sizeof(double), (size_t)nrows * sizeof(double), (size_t)k, cudaMemcpyDeviceToHost, M->stream);
  const cudaError_t wait = cudaStreamSynchronize(M->stream); /* errors of the SpMM surface here */
  if (err == cudaSuccess) err = wait;
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return fail_cuda(sink(M), err, "block SpMM (host entry)");
  }
  return BSRC_CUDA_OK;
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
  M->own_queued = false;
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
  bsrc_cuda_status s = check_spmm_args(L, k, X, ldx, 0.0, L && L->nbrows > 0 ? X : nullptr, L ? (bsrk_idx)std::max<int64_t>((int64_t)L->nbrows * L->bs, 1) : 1, "spmm_split_begin");
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
  L->own_queued = false;
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
