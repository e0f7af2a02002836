/* The numeric phase of the block sparse products on the GPU (bsrcuda_blockproduct.h). */
#include "bsrcuda_blockproduct.h"
#include "bsrcuda_check.cuh"
#include "bsrcuda_matrix.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <new>

namespace {

using bsrc::dev_buffer;
using bsrc::device_scope;
using bsrc::error_sink;

/* A structure on the device: rowptr [nbrows+1], colidx [nblocks]. */
struct dev_structure {
  bsrk_idx   nbrows = 0, nbcols = 0;
  int64_t    nblocks = 0;
  dev_buffer rowptr, colidx;
};

} // namespace

struct bsrc_cuda_block_product {
  int               device   = -1;
  cudaStream_t      stream   = nullptr;
  int               sm_count = 1;
  bsrk_product_kind kind     = BSRK_PRODUCT_AP;
  bsrk_idx          b = 1, c = 1; /* A's b x b blocks, P's b x c: A P has b x c blocks, P^T A P c x c */
  bool              a_on_device = false;
  int64_t           a_nblocks   = 0; /* the plan's A: what A's device matrix must hold */
  dev_structure     A, P, ap, C;     /* A: only when A comes from the host; C: P^T A P's */
  dev_buffer        pt_rowptr, pt_row, pt_block;
  dev_buffer        a_values, p_values, ap_values, c_values; /* c_values: P^T A P's; A P's are ap_values */
  dev_buffer        bad;                                     /* one int: a product left C's structure */
  size_t            bytes    = 0;
  char              msg[512] = "";
};

/* the kernels in namespace bsrc, as the layer's others (tools filter on it: compute-sanitizer's kns=bsrc) */
namespace bsrc {
namespace {

thread_local char create_msg[512] = "";

error_sink product_sink(const bsrc_cuda_block_product *D)
{
  return D ? error_sink{const_cast<char *>(D->msg), sizeof(D->msg)} : error_sink{create_msg, sizeof(create_msg)};
}

constexpr int      kWarp    = 32;
constexpr int      kThreads = 256; /* 8 warps a thread block, one block row of C each */
constexpr unsigned kFull    = 0xffffffffu;

/* The block of C's row [lo, hi) (sorted columns) at column j, or -1. */
__device__ inline int64_t find_block(const bsrk_idx *__restrict__ col, int64_t lo, int64_t hi, bsrk_idx j)
{
  const int64_t end = hi;
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (col[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return lo < end && col[lo] == j ? lo : -1;
}

/* Zeroes the values of C's row [c0, c1) of bsize-entry blocks, the warp's lanes striding. */
__device__ inline void zero_row(double *__restrict__ Cvalues, int64_t c0, int64_t c1, int64_t bsize, int lane)
{
  for (int64_t s = c0 * bsize + lane; s < c1 * bsize; s += kWarp) Cvalues[s] = 0.0;
  __syncwarp();
}

/*
   C += X Y for one block x of X (r x m, column-major) and the blocks [y0, y1) of one row of Y (m x n
   each), whose columns are distinct: they land in distinct blocks of C's row [c0, c1), so the lanes
   may each own entries (block t of a chunk, entry e) without conflict. transposed: x is stored m x r
   and X^T is meant (P^T's blocks). Every lane of the warp calls it.
*/
__device__ inline void add_block_times_row(const double *__restrict__ x, bool transposed, int64_t y0, int64_t y1, const bsrk_idx *__restrict__ Ycolidx, const double *__restrict__ Yvalues, const bsrk_idx *__restrict__ Ccolidx, int64_t c0, int64_t c1, double *__restrict__ Cvalues, int r, int m, int n, int lane, int *bad)
{
  const int bsize = r * n;
  for (int64_t base = y0; base < y1; base += kWarp) {
    const int     len = y1 - base < kWarp ? (int)(y1 - base) : kWarp;
    const int64_t q   = lane < len ? find_block(Ccolidx, c0, c1, Ycolidx[base + lane]) : -1;
    if (lane < len && q < 0) atomicOr(bad, 1);
    const int total = len * bsize;
    for (int start = 0; start < total; start += kWarp) {
      const int     idx = start + lane;
      const int     t   = idx < total ? idx / bsize : 0;
      const int64_t qt  = __shfl_sync(kFull, q, t);
      if (idx < total && qt >= 0) {
        const int     e = idx - t * bsize, rr = e % r, nn = e / r;
        const double *y = Yvalues + (base + t) * (int64_t)m * n + (int64_t)nn * m;
        double        s = 0.0;
        if (transposed)
          for (int k = 0; k < m; ++k) s += x[rr * m + k] * y[k];
        else
          for (int k = 0; k < m; ++k) s += x[k * r + rr] * y[k];
        Cvalues[qt * bsize + e] += s;
      }
    }
  }
  __syncwarp(); /* the next block of X may add into the same entries through other lanes */
}

/* C = A B (A: b x b blocks, B: b x n), a warp a block row of C. */
__global__ void __launch_bounds__(kThreads) product_rows(bsrk_idx nrows, const bsrk_idx *__restrict__ Arowptr, const bsrk_idx *__restrict__ Acolidx, const double *__restrict__ Avalues, bsrk_idx Bnbrows, const bsrk_idx *__restrict__ Browptr, const bsrk_idx *__restrict__ Bcolidx, const double *__restrict__ Bvalues, const bsrk_idx *__restrict__ Crowptr, const bsrk_idx *__restrict__ Ccolidx, double *__restrict__ Cvalues, int b, int n, int *bad)
{
  const int     lane  = threadIdx.x % kWarp;
  const int64_t warps = (int64_t)gridDim.x * (kThreads / kWarp);
  const int64_t bsize = (int64_t)b * n;
  for (int64_t i = ((int64_t)blockIdx.x * kThreads + threadIdx.x) / kWarp; i < nrows; i += warps) {
    const int64_t c0 = Crowptr[i], c1 = Crowptr[i + 1];
    zero_row(Cvalues, c0, c1, bsize, lane);
    for (int64_t k = Arowptr[i]; k < Arowptr[i + 1]; ++k) {
      const bsrk_idx j = Acolidx[k];
      if (j < 0 || j >= Bnbrows) { /* the same for every lane */
        if (lane == 0) atomicOr(bad, 1);
        continue;
      }
      add_block_times_row(Avalues + k * b * b, false, Browptr[j], Browptr[j + 1], Bcolidx, Bvalues, Ccolidx, c0, c1, Cvalues, b, b, n, lane, bad);
    }
  }
}

/* C = P^T D (P: b x c blocks, D = A P: b x c), a warp a block row of C through P^T's structure. */
__global__ void __launch_bounds__(kThreads) transposed_rows(bsrk_idx nrows, const bsrk_idx *__restrict__ PTrowptr, const bsrk_idx *__restrict__ PTrow, const bsrk_idx *__restrict__ PTblock, bsrk_idx Pnbrows, const bsrk_idx *__restrict__ Prowptr, const bsrk_idx *__restrict__ Pcolidx, const double *__restrict__ Pvalues, const bsrk_idx *__restrict__ Drowptr, const bsrk_idx *__restrict__ Dcolidx, const double *__restrict__ Dvalues, const bsrk_idx *__restrict__ Crowptr, const bsrk_idx *__restrict__ Ccolidx, double *__restrict__ Cvalues, int b, int c, int *bad)
{
  const int     lane  = threadIdx.x % kWarp;
  const int64_t warps = (int64_t)gridDim.x * (kThreads / kWarp);
  const int64_t bsize = (int64_t)c * c;
  for (int64_t i = ((int64_t)blockIdx.x * kThreads + threadIdx.x) / kWarp; i < nrows; i += warps) {
    const int64_t c0 = Crowptr[i], c1 = Crowptr[i + 1];
    zero_row(Cvalues, c0, c1, bsize, lane);
    for (int64_t e = PTrowptr[i]; e < PTrowptr[i + 1]; ++e) {
      const bsrk_idx k = PTrow[e], p = PTblock[e];
      /* P's block p must still be block (k, i): P's pattern is the plan's */
      if (k < 0 || k >= Pnbrows || p < Prowptr[k] || p >= Prowptr[k + 1] || Pcolidx[p] != (bsrk_idx)i) {
        if (lane == 0) atomicOr(bad, 1);
        continue;
      }
      add_block_times_row(Pvalues + (int64_t)p * b * c, true, Drowptr[k], Drowptr[k + 1], Dcolidx, Dvalues, Ccolidx, c0, c1, Cvalues, c, b, c, lane, bad);
    }
  }
}

unsigned grid_for(const bsrc_cuda_block_product *D, bsrk_idx nrows)
{
  const int64_t need = ((int64_t)nrows + kThreads / kWarp - 1) / (kThreads / kWarp);
  return (unsigned)std::max<int64_t>(1, std::min<int64_t>(need, (int64_t)D->sm_count * 32));
}

bsrc_cuda_status upload(bsrc_cuda_block_product *D, dev_buffer &b, const void *host, size_t bytes, const char *what)
{
  bsrc_cuda_status s = bsrc::dev_alloc(b, bytes, what, &D->bytes, product_sink(D));
  if (s != BSRC_CUDA_OK || bytes == 0) return s;
  BSRC_CUDA_CHECK(cudaMemcpyAsync(b.ptr, host, bytes, cudaMemcpyHostToDevice, D->stream), product_sink(D), what);
  return BSRC_CUDA_OK;
}

bsrc_cuda_status upload_structure(bsrc_cuda_block_product *D, dev_structure &s, const bsrk_rect_matrix &M, const char *what)
{
  s.nbrows            = M.nbrows;
  s.nbcols            = M.nbcols;
  s.nblocks           = M.rowptr[M.nbrows];
  bsrc_cuda_status st = upload(D, s.rowptr, M.rowptr, ((size_t)M.nbrows + 1) * sizeof(bsrk_idx), what);
  if (st == BSRC_CUDA_OK) st = upload(D, s.colidx, M.colidx, (size_t)s.nblocks * sizeof(bsrk_idx), what);
  return st;
}

size_t block_bytes(int64_t nblocks, bsrk_idx rbs, bsrk_idx cbs)
{
  return (size_t)nblocks * (size_t)rbs * (size_t)cbs * sizeof(double);
}

bool same_shape(const bsrk_rect_matrix *M, const bsrk_rect_matrix &shape, int64_t nblocks)
{
  return M && M->rowptr && M->nbrows == shape.nbrows && M->nbcols == shape.nbcols && M->rbs == shape.rbs && M->cbs == shape.cbs && (int64_t)M->rowptr[M->nbrows] == nblocks && (nblocks == 0 || M->colidx);
}

/* D's stream, buffers and structures; on an error what was made is left for destroy */
bsrc_cuda_status open_product(bsrc_cuda_block_product *D, const bsrk_block_product_layout *L, const bsrk_rect_matrix *A, const bsrk_rect_matrix *P)
{
  const char *what = "block product: creating its stream and buffers";
  BSRC_CUDA_CHECK(cudaStreamCreateWithFlags(&D->stream, cudaStreamNonBlocking), product_sink(D), what);
  BSRC_CUDA_CHECK(cudaDeviceGetAttribute(&D->sm_count, cudaDevAttrMultiProcessorCount, D->device), product_sink(D), what);
  bsrc_cuda_status s = bsrc::dev_alloc(D->bad, sizeof(int), "block product: its error flag", &D->bytes, product_sink(D));
  if (s == BSRC_CUDA_OK && !D->a_on_device) s = upload_structure(D, D->A, *A, "block product: A's structure");
  if (s == BSRC_CUDA_OK) s = upload_structure(D, D->P, *P, "block product: P's structure");
  if (s == BSRC_CUDA_OK) s = upload_structure(D, D->ap, L->ap, "block product: A P's structure");
  if (s == BSRC_CUDA_OK && !D->a_on_device) s = bsrc::dev_alloc(D->a_values, block_bytes(L->A_nblocks, D->b, D->b), "block product: A's values", &D->bytes, product_sink(D));
  if (s == BSRC_CUDA_OK) s = bsrc::dev_alloc(D->p_values, block_bytes(L->P_nblocks, D->b, D->c), "block product: P's values", &D->bytes, product_sink(D));
  if (s == BSRC_CUDA_OK) s = bsrc::dev_alloc(D->ap_values, block_bytes(D->ap.nblocks, D->b, D->c), "block product: A P's values", &D->bytes, product_sink(D));
  if (s == BSRC_CUDA_OK && D->kind == BSRK_PRODUCT_PTAP) {
    const bsrk_idx ncols = L->P.nbcols;
    const size_t   nt    = (size_t)L->pt_rowptr[ncols];
    s                    = upload(D, D->pt_rowptr, L->pt_rowptr, ((size_t)ncols + 1) * sizeof(bsrk_idx), "block product: P^T's structure");
    if (s == BSRC_CUDA_OK) s = upload(D, D->pt_row, L->pt_row, nt * sizeof(bsrk_idx), "block product: P^T's structure");
    if (s == BSRC_CUDA_OK) s = upload(D, D->pt_block, L->pt_block, nt * sizeof(bsrk_idx), "block product: P^T's structure");
    if (s == BSRC_CUDA_OK) s = upload_structure(D, D->C, L->c, "block product: C's structure");
    if (s == BSRC_CUDA_OK) s = bsrc::dev_alloc(D->c_values, block_bytes(D->C.nblocks, D->c, D->c), "block product: C's values", &D->bytes, product_sink(D));
  }
  if (s != BSRC_CUDA_OK) return s;
  BSRC_CUDA_CHECK(cudaStreamSynchronize(D->stream), product_sink(D), "block product: uploading the structures");
  return BSRC_CUDA_OK;
}

void free_structure(bsrc_cuda_block_product *D, dev_structure &s)
{
  bsrc::dev_free(s.rowptr, &D->bytes);
  bsrc::dev_free(s.colidx, &D->bytes);
}

} // namespace
} // namespace bsrc

using bsrc::product_sink;

extern "C" bsrc_cuda_status bsrc_cuda_block_product_create(int device, const bsrk_block_product_layout *L, const bsrk_rect_matrix *A, const bsrk_rect_matrix *P, int a_on_device, bsrc_cuda_block_product **Dout)
{
  if (!Dout) return bsrc::fail(product_sink(nullptr), BSRC_CUDA_ERR_ARG, "block product: no place for the result");
  *Dout = nullptr;
  if (!L || !L->ap.rowptr || (L->kind == BSRK_PRODUCT_PTAP && (!L->pt_rowptr || !L->c.rowptr))) return bsrc::fail(product_sink(nullptr), BSRC_CUDA_ERR_ARG, "block product: no plan");
  if (L->A.rbs != L->A.cbs || L->A.cbs != L->P.rbs || L->A.nbcols != L->P.nbrows)
    return bsrc::fail(product_sink(nullptr), BSRC_CUDA_ERR_ARG, "block product: A's blocks (%lld x %lld) must be square and P's rows (%lld) A's columns", (long long)L->A.rbs, (long long)L->A.cbs, (long long)L->P.rbs);
  if (!bsrc::same_shape(P, L->P, L->P_nblocks)) return bsrc::fail(product_sink(nullptr), BSRC_CUDA_ERR_ARG, "block product: P's structure is not the plan's shape");
  if (!a_on_device && !bsrc::same_shape(A, L->A, L->A_nblocks)) return bsrc::fail(product_sink(nullptr), BSRC_CUDA_ERR_ARG, "block product: A's structure is not the plan's shape");
  device_scope ds(device);
  BSRC_CUDA_CHECK(ds.error(), product_sink(nullptr), "block product: cudaSetDevice");
  bsrc_cuda_block_product *D = new (std::nothrow) bsrc_cuda_block_product;
  if (!D) return bsrc::fail(product_sink(nullptr), BSRC_CUDA_ERR_MEM, "block product: out of host memory");
  D->device                = device;
  D->kind                  = L->kind;
  D->b                     = L->A.rbs;
  D->c                     = L->P.cbs;
  D->a_on_device           = a_on_device != 0;
  D->a_nblocks             = L->A_nblocks;
  const bsrc_cuda_status s = bsrc::open_product(D, L, A, P);
  if (s != BSRC_CUDA_OK) {
    (void)bsrc::fail(product_sink(nullptr), s, "%s", D->msg);
    bsrc_cuda_block_product_destroy(D);
    return s;
  }
  *Dout = D;
  return BSRC_CUDA_OK;
}

extern "C" void bsrc_cuda_block_product_destroy(bsrc_cuda_block_product *D)
{
  if (!D) return;
  device_scope ds(D->device);
  if (D->stream) (void)cudaStreamSynchronize(D->stream);
  bsrc::free_structure(D, D->A);
  bsrc::free_structure(D, D->P);
  bsrc::free_structure(D, D->ap);
  bsrc::free_structure(D, D->C);
  for (dev_buffer *b : {&D->pt_rowptr, &D->pt_row, &D->pt_block, &D->a_values, &D->p_values, &D->ap_values, &D->c_values, &D->bad}) bsrc::dev_free(*b, &D->bytes);
  if (D->stream) (void)cudaStreamDestroy(D->stream);
  (void)cudaGetLastError();
  delete D;
}

extern "C" const char *bsrc_cuda_block_product_last_error(const bsrc_cuda_block_product *D)
{
  return D ? D->msg : bsrc::create_msg;
}

extern "C" size_t bsrc_cuda_block_product_device_bytes(const bsrc_cuda_block_product *D)
{
  return D ? D->bytes : 0;
}

extern "C" bsrc_cuda_status bsrc_cuda_block_product_numeric(bsrc_cuda_block_product *D, const bsrc_cuda_matrix *A_dev, const double *A_values, const double *P_values, double *C_values)
{
  if (!D) return bsrc::fail(product_sink(nullptr), BSRC_CUDA_ERR_ARG, "block product: NULL");
  const bool ptap = D->kind == BSRK_PRODUCT_PTAP;
  /* A's arrays: the device matrix's (the same structure as the plan's A) or D's own */
  const bsrk_idx *Arowptr = (const bsrk_idx *)D->A.rowptr.ptr, *Acolidx = (const bsrk_idx *)D->A.colidx.ptr;
  const double   *Avalues = (const double *)D->a_values.ptr;
  bsrk_idx        Anbrows = D->A.nbrows;
  if (D->a_on_device) {
    if (!A_dev || !A_dev->has_values || A_dev->device != D->device || A_dev->bs != D->b || (int64_t)A_dev->nblocks != D->a_nblocks || A_dev->nbcols != D->P.nbrows || A_dev->nbrows != D->ap.nbrows)
      return bsrc::fail(product_sink(D), BSRC_CUDA_ERR_ARG, "block product: A's device matrix is missing, without values, on another device or not of the plan's shape");
    Arowptr = (const bsrk_idx *)A_dev->rowptr.ptr;
    Acolidx = (const bsrk_idx *)A_dev->colidx.ptr;
    Avalues = (const double *)A_dev->values.ptr;
    Anbrows = A_dev->nbrows;
  } else if (D->a_values.bytes > 0 && !A_values) return bsrc::fail(product_sink(D), BSRC_CUDA_ERR_ARG, "block product: A's values are NULL");
  if ((D->p_values.bytes > 0 && !P_values) || (!C_values && (ptap ? D->c_values.bytes : D->ap_values.bytes) > 0)) return bsrc::fail(product_sink(D), BSRC_CUDA_ERR_ARG, "block product: P's or C's values are NULL");
  device_scope ds(D->device);
  BSRC_CUDA_CHECK(ds.error(), product_sink(D), "block product: cudaSetDevice");
  if (!D->a_on_device && D->a_values.bytes > 0) BSRC_CUDA_CHECK(cudaMemcpyAsync(D->a_values.ptr, A_values, D->a_values.bytes, cudaMemcpyHostToDevice, D->stream), product_sink(D), "block product: uploading A's values");
  if (D->p_values.bytes > 0) BSRC_CUDA_CHECK(cudaMemcpyAsync(D->p_values.ptr, P_values, D->p_values.bytes, cudaMemcpyHostToDevice, D->stream), product_sink(D), "block product: uploading P's values");
  BSRC_CUDA_CHECK(cudaMemsetAsync(D->bad.ptr, 0, sizeof(int), D->stream), product_sink(D), "block product: clearing its error flag");
  int *bad = (int *)D->bad.ptr;
  if (Anbrows > 0) {
    bsrc::product_rows<<<bsrc::grid_for(D, Anbrows), bsrc::kThreads, 0, D->stream>>>(Anbrows, Arowptr, Acolidx, Avalues, D->P.nbrows, (const bsrk_idx *)D->P.rowptr.ptr, (const bsrk_idx *)D->P.colidx.ptr, (const double *)D->p_values.ptr,
                                                                                     (const bsrk_idx *)D->ap.rowptr.ptr, (const bsrk_idx *)D->ap.colidx.ptr, (double *)D->ap_values.ptr, (int)D->b, (int)D->c, bad);
    BSRC_CUDA_CHECK(cudaGetLastError(), product_sink(D), "block product: launching A P");
  }
  if (ptap && D->C.nbrows > 0) {
    bsrc::transposed_rows<<<bsrc::grid_for(D, D->C.nbrows), bsrc::kThreads, 0, D->stream>>>(D->C.nbrows, (const bsrk_idx *)D->pt_rowptr.ptr, (const bsrk_idx *)D->pt_row.ptr, (const bsrk_idx *)D->pt_block.ptr, D->P.nbrows,
                                                                                            (const bsrk_idx *)D->P.rowptr.ptr, (const bsrk_idx *)D->P.colidx.ptr, (const double *)D->p_values.ptr, (const bsrk_idx *)D->ap.rowptr.ptr,
                                                                                            (const bsrk_idx *)D->ap.colidx.ptr, (const double *)D->ap_values.ptr, (const bsrk_idx *)D->C.rowptr.ptr, (const bsrk_idx *)D->C.colidx.ptr,
                                                                                            (double *)D->c_values.ptr, (int)D->b, (int)D->c, bad);
    BSRC_CUDA_CHECK(cudaGetLastError(), product_sink(D), "block product: launching P^T (A P)");
  }
  const dev_buffer &result = ptap ? D->c_values : D->ap_values;
  int               flag   = 0;
  if (result.bytes > 0) BSRC_CUDA_CHECK(cudaMemcpyAsync(C_values, result.ptr, result.bytes, cudaMemcpyDeviceToHost, D->stream), product_sink(D), "block product: copying C's values to the host");
  BSRC_CUDA_CHECK(cudaMemcpyAsync(&flag, D->bad.ptr, sizeof(int), cudaMemcpyDeviceToHost, D->stream), product_sink(D), "block product: reading its error flag");
  BSRC_CUDA_CHECK(cudaStreamSynchronize(D->stream), product_sink(D), "block product: the numeric phase");
  if (flag) return bsrc::fail(product_sink(D), BSRC_CUDA_ERR_ARG, "block product: a block of the product lies outside C's structure, or a block of P moved: A's or P's pattern is not the one planned");
  return BSRC_CUDA_OK;
}
