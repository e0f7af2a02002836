/*
   Benchmark-only cuSPARSE baselines (bench_cuda_baselines.h), built into bench_cuda and the CUDA
   layer's test only. They reach the matrix through the layer's private headers (its device arrays,
   stream, ordering and error reporting), but keep their own cuSPARSE handle and copies, so the
   production library holds nothing for them.
*/
/* cusparseDbsrmm is deprecated since CUDA 12.8 (cusparseSpMM replaces it); it stays here as the
   legacy BSR baseline of the block SpMM, so its deprecation warning is turned off for this file */
#define DISABLE_CUSPARSE_DEPRECATED
#include "bench_cuda_baselines.h"

#include "bsrcuda_matrix.cuh"

#include <algorithm>
#include <climits>
#include <cusparse.h>
#include <new>

using namespace bsrc;

namespace {

constexpr int     kCopyThreads = 256;
constexpr int64_t kCopyMaxGrid = 1 << 20; /* grid-stride copies: enough thread blocks to fill any GPU */

constexpr cusparseIndexType_t kIdxType = sizeof(bsrk_idx) == 8 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;

/* SpMV paths, each with its descriptor, work buffer and the values epoch it was preprocessed for. */
enum spmv_slot {
  SLOT_CSR_ALG1 = 0,
  SLOT_CSR_ALG2,
  SLOT_CSR_BS1,
  /* cusparseSpMM: CSR ALG1-3 on the expanded copy, and on the BAIJ arrays for bs 1 */
  SLOT_SPMM_ALG1,
  SLOT_SPMM_ALG2,
  SLOT_SPMM_ALG3,
  SLOT_SPMM_BS1,
  SLOT_COUNT
};

bool on_baij_arrays(spmv_slot slot)
{
  return slot == SLOT_CSR_BS1 || slot == SLOT_SPMM_BS1;
}

int grid_for(int64_t n)
{
  return (int)std::max<int64_t>(1, std::min<int64_t>((n + kCopyThreads - 1) / kCopyThreads, kCopyMaxGrid));
}

__global__ void to_int32_kernel(int64_t n, const bsrk_idx *src, int *dst)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) dst[i] = (int)src[i];
}

/* Row-major copy of column-major blocks: dst[k][r][c] = src[k][c][r]. */
__global__ void transpose_blocks_kernel(int64_t nvalues, int bs, const double *src, double *dst)
{
  const int64_t bs2 = (int64_t)bs * bs;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < nvalues; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t k = i / bs2;
    const int     u = (int)(i - k * bs2); /* u = c*bs + r in the source */
    const int     c = u / bs, r = u - c * bs;
    dst[k * bs2 + r * bs + c] = src[i];
  }
}

/* Scalar row pointers of the expanded CSR: row br*bs + r starts at rowptr[br]*bs2 + r*len(br)*bs. */
template <class I>
__global__ void csr_rowptr_kernel(bsrk_idx nbrows, int bs, const bsrk_idx *rowptr, I *csr_rowptr)
{
  const int64_t nrows = (int64_t)nbrows * bs;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i <= nrows; i += (int64_t)gridDim.x * blockDim.x) {
    if (i == nrows) {
      csr_rowptr[i] = (I)((int64_t)rowptr[nbrows] * bs * bs);
      continue;
    }
    const int64_t br = i / bs, r = i - br * bs;
    const int64_t len = rowptr[br + 1] - rowptr[br];
    csr_rowptr[i]     = (I)((int64_t)rowptr[br] * bs * bs + r * len * bs);
  }
}

/* Scatters block k into the expanded CSR (columns stay sorted when the block columns are). */
template <class I>
__global__ void csr_fill_kernel(bsrk_idx nbrows, bsrk_idx nblocks, int bs, const bsrk_idx *rowptr, const bsrk_idx *colidx, const double *values, I *csr_colidx, double *csr_values)
{
  const int64_t bs2 = (int64_t)bs * bs;
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < nblocks; k += (int64_t)gridDim.x * blockDim.x) {
    /* block row: the last br with rowptr[br] <= k (rows holding k are non-empty, so unique) */
    bsrk_idx lo = 0, hi = nbrows; /* invariant: rowptr[lo] <= k < rowptr[hi] */
    while (hi - lo > 1) {
      const bsrk_idx mid = lo + (hi - lo) / 2;
      if (rowptr[mid] <= k) lo = mid;
      else hi = mid;
    }
    const int64_t start = rowptr[lo], len = rowptr[lo + 1] - start, pos = k - start;
    for (int c = 0; c < bs; ++c)
      for (int r = 0; r < bs; ++r) {
        const int64_t dst = start * bs2 + r * len * bs + pos * bs + c;
        if (csr_colidx) csr_colidx[dst] = (I)((int64_t)colidx[k] * bs + c);
        csr_values[dst] = values[k * bs2 + c * bs + r];
      }
  }
}

} // namespace

struct bench_baselines {
  bsrc_cuda_matrix  *M      = nullptr;
  cusparseHandle_t   handle = nullptr;
  cusparseMatDescr_t legacy = nullptr; /* general, zero-based: bsrmv */

  /* the structure the copies below were made for: another one drops them all */
  const void *rowptr = nullptr;
  bsrk_idx    nbrows = -1, nbcols = -1, bs = -1, nblocks = -1;

  /* 32-bit copies of rowptr / colidx (bsrmv takes int *) when bsrk_idx is 64-bit */
  dev_buffer rowptr32, colidx32;
  bool       have_idx32 = false;
  /* values with every block transposed (row-major blocks) */
  dev_buffer values_rowmajor;
  uint64_t   rowmajor_epoch = 0; /* values_epoch the copy was made from; 0: none */
  /* expanded CSR copy (bs > 1) */
  dev_buffer csr_rowptr, csr_colidx, csr_values;
  bool       csr_idx64   = false;
  uint64_t   csr_epoch   = 0;
  bool       csr_indices = false; /* csr_rowptr / csr_colidx filled */

  cusparseConstSpMatDescr_t mat[SLOT_COUNT] = {};
  dev_buffer                work[SLOT_COUNT];
  uint64_t                  prepared_epoch[SLOT_COUNT] = {};
  int64_t                   prepared_k[SLOT_COUNT]     = {}; /* SpMM slots: the columns preprocessed for */
};

namespace {

void drop_copies(bench_baselines *B)
{
  size_t *bytes = &B->M->bytes;
  for (int i = 0; i < SLOT_COUNT; ++i) {
    if (B->mat[i]) (void)cusparseDestroySpMat(B->mat[i]);
    B->mat[i]            = nullptr;
    B->prepared_epoch[i] = 0;
    dev_free(B->work[i], bytes);
  }
  for (dev_buffer *b : {&B->rowptr32, &B->colidx32, &B->values_rowmajor, &B->csr_rowptr, &B->csr_colidx, &B->csr_values}) dev_free(*b, bytes);
  B->have_idx32     = false;
  B->rowmajor_epoch = 0;
  B->csr_epoch      = 0;
  B->csr_indices    = false;
}

bsrc_cuda_status ensure_idx32(bench_baselines *B, const matrix_view &A, cudaStream_t s, error_sink e)
{
  if (A.nbrows > INT_MAX || A.nbcols > INT_MAX || A.nblocks > INT_MAX) return fail(e, BSRC_CUDA_ERR_ARG, "cusparseDbsrmv takes 32-bit sizes: %lld block rows, %lld blocks", (long long)A.nbrows, (long long)A.nblocks);
  if (sizeof(bsrk_idx) == sizeof(int) || B->have_idx32) return BSRC_CUDA_OK;
  bsrc_cuda_status r = dev_alloc(B->rowptr32, ((size_t)A.nbrows + 1) * sizeof(int), "32-bit rowptr for cuSPARSE", &B->M->bytes, e);
  if (r == BSRC_CUDA_OK) r = dev_alloc(B->colidx32, (size_t)A.nblocks * sizeof(int), "32-bit colidx for cuSPARSE", &B->M->bytes, e);
  if (r != BSRC_CUDA_OK) return r;
  to_int32_kernel<<<grid_for(A.nbrows + 1), kCopyThreads, 0, s>>>((int64_t)A.nbrows + 1, A.rowptr, (int *)B->rowptr32.ptr);
  to_int32_kernel<<<grid_for(A.nblocks), kCopyThreads, 0, s>>>(A.nblocks, A.colidx, (int *)B->colidx32.ptr);
  BSRC_CUDA_CHECK(cudaGetLastError(), e, "32-bit index copies");
  B->have_idx32 = true;
  return BSRC_CUDA_OK;
}

bsrc_cuda_status ensure_rowmajor(bench_baselines *B, const matrix_view &A, cudaStream_t s, error_sink e)
{
  if (B->rowmajor_epoch == A.values_epoch) return BSRC_CUDA_OK;
  const int64_t nvalues = (int64_t)A.nblocks * A.bs * A.bs;
  if (!B->values_rowmajor.ptr) {
    const bsrc_cuda_status r = dev_alloc(B->values_rowmajor, (size_t)nvalues * sizeof(double), "row-major block copy for cuSPARSE", &B->M->bytes, e);
    if (r != BSRC_CUDA_OK) return r;
  }
  transpose_blocks_kernel<<<grid_for(nvalues), kCopyThreads, 0, s>>>(nvalues, (int)A.bs, A.values, (double *)B->values_rowmajor.ptr);
  BSRC_CUDA_CHECK(cudaGetLastError(), e, "row-major block copy");
  B->rowmajor_epoch = A.values_epoch;
  return BSRC_CUDA_OK;
}

template <class I>
void launch_csr_fill(bench_baselines *B, const matrix_view &A, cudaStream_t s)
{
  if (!B->csr_indices) csr_rowptr_kernel<I><<<grid_for((int64_t)A.nbrows * A.bs + 1), kCopyThreads, 0, s>>>(A.nbrows, (int)A.bs, A.rowptr, (I *)B->csr_rowptr.ptr);
  csr_fill_kernel<I><<<grid_for(A.nblocks), kCopyThreads, 0, s>>>(A.nbrows, A.nblocks, (int)A.bs, A.rowptr, A.colidx, A.values, B->csr_indices ? nullptr : (I *)B->csr_colidx.ptr, (double *)B->csr_values.ptr);
}

bsrc_cuda_status ensure_csr(bench_baselines *B, const matrix_view &A, cudaStream_t s, error_sink e)
{
  if (B->csr_epoch == A.values_epoch) return BSRC_CUDA_OK;
  const int64_t nnz = (int64_t)A.nblocks * A.bs * A.bs, nrows = (int64_t)A.nbrows * A.bs, ncols = (int64_t)A.nbcols * A.bs;
  if (!B->csr_values.ptr) {
    B->csr_idx64         = nnz > INT_MAX || nrows > INT_MAX || ncols > INT_MAX;
    const size_t     isz = B->csr_idx64 ? sizeof(int64_t) : sizeof(int);
    bsrc_cuda_status r   = dev_alloc(B->csr_rowptr, (size_t)(nrows + 1) * isz, "CSR row pointers", &B->M->bytes, e);
    if (r == BSRC_CUDA_OK) r = dev_alloc(B->csr_colidx, (size_t)nnz * isz, "CSR column indices", &B->M->bytes, e);
    if (r == BSRC_CUDA_OK) r = dev_alloc(B->csr_values, (size_t)nnz * sizeof(double), "CSR values", &B->M->bytes, e);
    if (r != BSRC_CUDA_OK) return r;
  }
  if (B->csr_idx64) launch_csr_fill<int64_t>(B, A, s);
  else launch_csr_fill<int>(B, A, s);
  BSRC_CUDA_CHECK(cudaGetLastError(), e, "CSR copy");
  B->csr_indices = true;
  B->csr_epoch   = A.values_epoch;
  return BSRC_CUDA_OK;
}

/* Descriptor of the matrix for SpMV slot `slot`. */
bsrc_cuda_status ensure_descriptor(bench_baselines *B, const matrix_view &A, cudaStream_t s, spmv_slot slot, error_sink e)
{
  if (B->mat[slot]) return BSRC_CUDA_OK;
  const int64_t nrows = (int64_t)A.nbrows * A.bs, ncols = (int64_t)A.nbcols * A.bs;
  if (on_baij_arrays(slot)) { /* bs == 1: the BAIJ arrays are CSR */
    BSRC_CUSPARSE_CHECK(cusparseCreateConstCsr(&B->mat[slot], nrows, ncols, A.nblocks, A.rowptr, A.colidx, A.values, kIdxType, kIdxType, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F), e, "cusparseCreateConstCsr (bs 1)");
    return BSRC_CUDA_OK;
  }
  const bsrc_cuda_status r = ensure_csr(B, A, s, e);
  if (r != BSRC_CUDA_OK) return r;
  const cusparseIndexType_t it = B->csr_idx64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
  BSRC_CUSPARSE_CHECK(cusparseCreateConstCsr(&B->mat[slot], nrows, ncols, (int64_t)A.nblocks * A.bs * A.bs, B->csr_rowptr.ptr, B->csr_colidx.ptr, B->csr_values.ptr, it, it, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F), e, "cusparseCreateConstCsr");
  return BSRC_CUDA_OK;
}

/* One cusparseSpMV of slot `slot` (buffer sized on every call, preprocessed once per values epoch). */
bsrc_cuda_status run_spmv(bench_baselines *B, const matrix_view &A, cudaStream_t s, spmv_slot slot, double alpha, const double *x, double beta, double *y, error_sink e)
{
  static const cusparseSpMVAlg_t algs[SLOT_CSR_BS1 + 1] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2, CUSPARSE_SPMV_ALG_DEFAULT};
  static const char *const       what[SLOT_CSR_BS1 + 1] = {"cusparseSpMV (CSR ALG1)", "cusparseSpMV (CSR ALG2)", "cusparseSpMV (CSR, bs 1)"};
  bsrc_cuda_status               r                      = ensure_descriptor(B, A, s, slot, e);
  if (r == BSRC_CUDA_OK && !on_baij_arrays(slot)) r = ensure_csr(B, A, s, e); /* values may have changed since the descriptor was made */
  if (r != BSRC_CUDA_OK) return r;
  const cusparseSpMVAlg_t   alg   = algs[slot];
  cusparseConstDnVecDescr_t vx    = nullptr;
  cusparseDnVecDescr_t      vy    = nullptr;
  bsrc_cuda_status          alloc = BSRC_CUDA_OK;
  cusparseStatus_t          cs    = cusparseCreateConstDnVec(&vx, (int64_t)A.nbcols * A.bs, x, CUDA_R_64F);
  if (cs == CUSPARSE_STATUS_SUCCESS) cs = cusparseCreateDnVec(&vy, (int64_t)A.nbrows * A.bs, y, CUDA_R_64F);
  size_t need = 0;
  if (cs == CUSPARSE_STATUS_SUCCESS) cs = cusparseSpMV_bufferSize(B->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, B->mat[slot], vx, &beta, vy, CUDA_R_64F, alg, &need);
  if (cs == CUSPARSE_STATUS_SUCCESS && need > B->work[slot].bytes) {
    alloc = dev_alloc(B->work[slot], need, "cusparseSpMV work buffer", &B->M->bytes, e);
    if (alloc != BSRC_CUDA_OK) cs = CUSPARSE_STATUS_ALLOC_FAILED;
    else B->prepared_epoch[slot] = 0;
  }
  if (cs == CUSPARSE_STATUS_SUCCESS && B->prepared_epoch[slot] != A.values_epoch) {
    cs = cusparseSpMV_preprocess(B->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, B->mat[slot], vx, &beta, vy, CUDA_R_64F, alg, B->work[slot].ptr);
    if (cs == CUSPARSE_STATUS_SUCCESS) B->prepared_epoch[slot] = A.values_epoch;
  }
  if (cs == CUSPARSE_STATUS_SUCCESS) cs = cusparseSpMV(B->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, B->mat[slot], vx, &beta, vy, CUDA_R_64F, alg, B->work[slot].ptr);
  if (vx) (void)cusparseDestroyDnVec(vx);
  if (vy) (void)cusparseDestroyDnVec(vy);
  if (alloc != BSRC_CUDA_OK) return alloc;
  BSRC_CUSPARSE_CHECK(cs, e, what[slot]);
  return BSRC_CUDA_OK;
}

/* One cusparseSpMM of slot `slot` (buffer sized on every call, preprocessed once per values epoch and
   column count). */
bsrc_cuda_status run_spmm(bench_baselines *B, const matrix_view &A, cudaStream_t s, spmv_slot slot, int64_t k, double alpha, const double *X, int64_t ldx, double beta, double *Y, int64_t ldy, error_sink e)
{
  static const cusparseSpMMAlg_t algs[] = {CUSPARSE_SPMM_CSR_ALG1, CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_CSR_ALG3, CUSPARSE_SPMM_ALG_DEFAULT};
  static const char *const       what[] = {"cusparseSpMM (CSR ALG1)", "cusparseSpMM (CSR ALG2)", "cusparseSpMM (CSR ALG3)", "cusparseSpMM (CSR, bs 1)"};
  const int                      i      = (int)slot - (int)SLOT_SPMM_ALG1;
  bsrc_cuda_status               r      = ensure_descriptor(B, A, s, slot, e);
  if (r == BSRC_CUDA_OK && !on_baij_arrays(slot)) r = ensure_csr(B, A, s, e);
  if (r != BSRC_CUDA_OK) return r;
  const int64_t             nrows = (int64_t)A.nbrows * A.bs, ncols = (int64_t)A.nbcols * A.bs;
  cusparseConstDnMatDescr_t mx    = nullptr;
  cusparseDnMatDescr_t      my    = nullptr;
  bsrc_cuda_status          alloc = BSRC_CUDA_OK;
  cusparseStatus_t          cs    = cusparseCreateConstDnMat(&mx, ncols, k, std::max<int64_t>(ldx, 1), X, CUDA_R_64F, CUSPARSE_ORDER_COL);
  if (cs == CUSPARSE_STATUS_SUCCESS) cs = cusparseCreateDnMat(&my, nrows, k, ldy, Y, CUDA_R_64F, CUSPARSE_ORDER_COL);
  size_t need = 0;
  if (cs == CUSPARSE_STATUS_SUCCESS) cs = cusparseSpMM_bufferSize(B->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, B->mat[slot], mx, &beta, my, CUDA_R_64F, algs[i], &need);
  if (cs == CUSPARSE_STATUS_SUCCESS && need > B->work[slot].bytes) {
    alloc = dev_alloc(B->work[slot], need, "cusparseSpMM work buffer", &B->M->bytes, e);
    if (alloc != BSRC_CUDA_OK) cs = CUSPARSE_STATUS_ALLOC_FAILED;
    else B->prepared_epoch[slot] = 0;
  }
  if (cs == CUSPARSE_STATUS_SUCCESS && (B->prepared_epoch[slot] != A.values_epoch || B->prepared_k[slot] != k)) {
    cs = cusparseSpMM_preprocess(B->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, B->mat[slot], mx, &beta, my, CUDA_R_64F, algs[i], B->work[slot].ptr);
    if (cs == CUSPARSE_STATUS_SUCCESS) {
      B->prepared_epoch[slot] = A.values_epoch;
      B->prepared_k[slot]     = k;
    }
  }
  if (cs == CUSPARSE_STATUS_SUCCESS) cs = cusparseSpMM(B->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, B->mat[slot], mx, &beta, my, CUDA_R_64F, algs[i], B->work[slot].ptr);
  if (mx) (void)cusparseDestroyDnMat(mx);
  if (my) (void)cusparseDestroyDnMat(my);
  if (alloc != BSRC_CUDA_OK) return alloc;
  BSRC_CUSPARSE_CHECK(cs, e, what[i]);
  return BSRC_CUDA_OK;
}

enum baseline {
  ROWMAJOR_BSRMV,
  CSR_ALG1,
  CSR_ALG2
};

/* What every baseline does first, on the device of M (current when called): orders itself after
   products queued on M's caller streams, drops copies made for another structure, makes the
   handle and puts it on M's stream. */
bsrc_cuda_status prepare(bench_baselines *B)
{
  bsrc_cuda_matrix      *M = B->M;
  const bsrc_cuda_status s = join_caller(M, "benchmark baseline: ordering after queued products");
  if (s != BSRC_CUDA_OK) return s;
  M->own_queued       = true;
  const matrix_view A = view(M);
  const error_sink  e = sink(M);
  if (A.rowptr != B->rowptr || A.nbrows != B->nbrows || A.nbcols != B->nbcols || A.bs != B->bs || A.nblocks != B->nblocks) {
    drop_copies(B);
    B->rowptr  = A.rowptr;
    B->nbrows  = A.nbrows;
    B->nbcols  = A.nbcols;
    B->bs      = A.bs;
    B->nblocks = A.nblocks;
  }
  if (!B->handle) {
    cusparseStatus_t cs = cusparseCreate(&B->handle);
    if (cs == CUSPARSE_STATUS_SUCCESS) cs = cusparseCreateMatDescr(&B->legacy);
    if (cs == CUSPARSE_STATUS_SUCCESS) cs = cusparseSetMatType(B->legacy, CUSPARSE_MATRIX_TYPE_GENERAL);
    if (cs == CUSPARSE_STATUS_SUCCESS) cs = cusparseSetMatIndexBase(B->legacy, CUSPARSE_INDEX_BASE_ZERO);
    BSRC_CUSPARSE_CHECK(cs, e, "cusparseCreate");
  }
  BSRC_CUSPARSE_CHECK(cusparseSetStream(B->handle, M->stream), e, "cusparseSetStream");
  return BSRC_CUDA_OK;
}

/* out = alpha*A*x + beta*in by one baseline, queued on M's stream after what was queued there. */
bsrc_cuda_status run(bench_baselines *B, baseline which, double alpha, const double *x, double beta, const double *in, double *out)
{
  if (!B) return BSRC_CUDA_ERR_ARG;
  bsrc_cuda_matrix *M = B->M;
  bsrc_cuda_status  s = check_product_args(M, BSRC_CUDA_KERNEL_CUSPARSE_BSRMV, x, beta, in, out);
  if (s != BSRC_CUDA_OK) return s;
  device_scope ds(M->device);
  BSRC_CUDA_CHECK(ds.error(), sink(M), "cudaSetDevice");
  if (M->nbrows == 0) return BSRC_CUDA_OK;

  const matrix_view  A  = view(M);
  const cudaStream_t st = M->stream;
  const error_sink   e  = sink(M);
  const int64_t      n  = (int64_t)A.nbrows * A.bs;
  if (A.nblocks == 0) { /* nothing for cuSPARSE to do: out = alpha*0 + beta*in */
    s = join_caller(M, "benchmark baseline: ordering after queued products");
    if (s != BSRC_CUDA_OK) return s;
    M->own_queued = true;
    BSRC_CUDA_CHECK(launch_scale(n, alpha, beta, in, out, st), e, "scale (empty matrix)");
    return BSRC_CUDA_OK;
  }
  s = prepare(B);
  if (s != BSRC_CUDA_OK) return s;
  if (beta != 0.0 && in != out) BSRC_CUDA_CHECK(cudaMemcpyAsync(out, in, (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice, st), e, "copy of in to out");

  if (which == CSR_ALG1) return run_spmv(B, A, st, SLOT_CSR_ALG1, alpha, x, beta, out, e);
  if (which == CSR_ALG2) return run_spmv(B, A, st, SLOT_CSR_ALG2, alpha, x, beta, out, e);
  if (A.bs == 1) return run_spmv(B, A, st, SLOT_CSR_BS1, alpha, x, beta, out, e); /* bsrmv needs bs > 1 */
  s = ensure_idx32(B, A, st, e);
  if (s == BSRC_CUDA_OK) s = ensure_rowmajor(B, A, st, e);
  if (s != BSRC_CUDA_OK) return s;
  const int *rowptr32 = sizeof(bsrk_idx) == sizeof(int) ? (const int *)A.rowptr : (const int *)B->rowptr32.ptr;
  const int *colidx32 = sizeof(bsrk_idx) == sizeof(int) ? (const int *)A.colidx : (const int *)B->colidx32.ptr;
  BSRC_CUSPARSE_CHECK(cusparseDbsrmv(B->handle, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, (int)A.nbrows, (int)A.nbcols, (int)A.nblocks, &alpha, B->legacy, (const double *)B->values_rowmajor.ptr, rowptr32, colidx32, (int)A.bs, x, &beta, out), e, "cusparseDbsrmv (row-major blocks)");
  return BSRC_CUDA_OK;
}

} // namespace

bsrc_cuda_status bench_baselines_create(bsrc_cuda_matrix *M, bench_baselines **B)
{
  if (!B) return BSRC_CUDA_ERR_ARG;
  *B = nullptr;
  if (!M) return fail(sink(M), BSRC_CUDA_ERR_ARG, "bench_baselines_create: matrix is NULL");
  *B = new (std::nothrow) bench_baselines;
  if (!*B) return fail(sink(M), BSRC_CUDA_ERR_MEM, "bench_baselines_create: out of host memory");
  (*B)->M = M;
  return BSRC_CUDA_OK;
}

void bench_baselines_destroy(bench_baselines *B)
{
  if (!B) return;
  device_scope ds(B->M->device);
  (void)cudaStreamSynchronize(B->M->stream); /* a queued baseline may still read the copies */
  drop_copies(B);
  if (B->legacy) (void)cusparseDestroyMatDescr(B->legacy);
  if (B->handle) (void)cusparseDestroy(B->handle);
  delete B;
}

bsrc_cuda_status bench_cusparse_rowmajor_bsrmv(bench_baselines *B, double alpha, const double *x_dev, double beta, const double *in_dev, double *out_dev)
{
  return run(B, ROWMAJOR_BSRMV, alpha, x_dev, beta, in_dev, out_dev);
}

bsrc_cuda_status bench_cusparse_spmv_csr(bench_baselines *B, int alg, double alpha, const double *x_dev, double beta, const double *in_dev, double *out_dev)
{
  if (B && alg != 1 && alg != 2) return fail(sink(B->M), BSRC_CUDA_ERR_ARG, "bench_cusparse_spmv_csr: alg %d (1 or 2)", alg);
  return run(B, alg == 1 ? CSR_ALG1 : CSR_ALG2, alpha, x_dev, beta, in_dev, out_dev);
}

namespace {
/* Y = alpha*A*X + beta*Y by one SpMM baseline (slot: an SpMM slot, or -1 for cusparseDbsrmm). */
bsrc_cuda_status run_spmm_baseline(bench_baselines *B, int slot, int64_t k, double alpha, const double *X, int64_t ldx, double beta, double *Y, int64_t ldy)
{
  if (!B) return BSRC_CUDA_ERR_ARG;
  bsrc_cuda_matrix *M = B->M;
  if (!M->has_structure || !M->has_values) return fail(sink(M), BSRC_CUDA_ERR_ARG, "SpMM baseline: no structure or values set");
  const int64_t nrows = (int64_t)M->nbrows * M->bs, ncols = (int64_t)M->nbcols * M->bs;
  if (k < 1 || ldy < nrows || (ncols > 0 && ldx < ncols) || !Y || (ncols > 0 && !X))
    return fail(sink(M), BSRC_CUDA_ERR_ARG, "SpMM baseline: %lld columns, ldx %lld for %lld rows, ldy %lld for %lld rows", (long long)k, (long long)ldx, (long long)ncols, (long long)ldy, (long long)nrows);
  if (M->nbrows == 0) return BSRC_CUDA_OK;
  if (M->nblocks == 0) return fail(sink(M), BSRC_CUDA_ERR_ARG, "SpMM baseline: the matrix has no blocks");
  device_scope ds(M->device);
  BSRC_CUDA_CHECK(ds.error(), sink(M), "cudaSetDevice");
  bsrc_cuda_status s = prepare(B);
  if (s != BSRC_CUDA_OK) return s;
  const matrix_view A = view(M);
  const error_sink  e = sink(M);
  if (slot >= 0) return run_spmm(B, A, M->stream, (spmv_slot)slot, k, alpha, X, ldx, beta, Y, ldy, e);
  if (A.bs == 1) return run_spmm(B, A, M->stream, SLOT_SPMM_BS1, k, alpha, X, ldx, beta, Y, ldy, e); /* bsrmm needs bs > 1 */
  if (k > INT_MAX || ldx > INT_MAX || ldy > INT_MAX) return fail(e, BSRC_CUDA_ERR_ARG, "cusparseDbsrmm takes 32-bit sizes");
  s = ensure_idx32(B, A, M->stream, e);
  if (s != BSRC_CUDA_OK) return s;
  const int *rowptr32 = sizeof(bsrk_idx) == sizeof(int) ? (const int *)A.rowptr : (const int *)B->rowptr32.ptr;
  const int *colidx32 = sizeof(bsrk_idx) == sizeof(int) ? (const int *)A.colidx : (const int *)B->colidx32.ptr;
  BSRC_CUSPARSE_CHECK(cusparseDbsrmm(B->handle, CUSPARSE_DIRECTION_COLUMN, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, (int)A.nbrows, (int)k, (int)A.nbcols, (int)A.nblocks, &alpha, B->legacy, A.values, rowptr32, colidx32,
                                     (int)A.bs, X, (int)std::max<int64_t>(ldx, 1), &beta, Y, (int)ldy),
                      e, "cusparseDbsrmm (column-major blocks)");
  return BSRC_CUDA_OK;
}
} // namespace

bsrc_cuda_status bench_cusparse_bsrmm(bench_baselines *B, int64_t k, double alpha, const double *X, int64_t ldx, double beta, double *Y, int64_t ldy)
{
  return run_spmm_baseline(B, -1, k, alpha, X, ldx, beta, Y, ldy);
}

bsrc_cuda_status bench_cusparse_spmm_csr(bench_baselines *B, int alg, int64_t k, double alpha, const double *X, int64_t ldx, double beta, double *Y, int64_t ldy)
{
  if (B && (alg < 1 || alg > 3)) return fail(sink(B->M), BSRC_CUDA_ERR_ARG, "bench_cusparse_spmm_csr: alg %d (1, 2 or 3)", alg);
  return run_spmm_baseline(B, B && B->M->bs == 1 ? (int)SLOT_SPMM_BS1 : (int)SLOT_SPMM_ALG1 + alg - 1, k, alpha, X, ldx, beta, Y, ldy);
}
