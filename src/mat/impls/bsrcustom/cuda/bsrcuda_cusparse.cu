/*
   cuSPARSE baselines for out = alpha*A*x + beta*in (cuSPARSE computes y = alpha*A*x + beta*y in
   place, so with beta != 0 and in != out, in is first copied to out).

   Product paths (bsrc_cuda_kernel):
     CUSPARSE_BSRMV     cusparseDbsrmv, CUSPARSE_DIRECTION_COLUMN: BAIJ's column-major blocks in
                        place, no copy (32-bit index copies only when bsrk_idx is 64-bit);
     CUSPARSE_SPMV_BSR  cusparseSpMV with a BSR descriptor, CUSPARSE_ORDER_COL (BAIJ's layout in
                        place). Should cuSPARSE refuse column-major blocks (NOT_SUPPORTED), it runs
                        on a row-major copy instead, and bsrc_cuda_spmv_bsr_layout says which.
   The benchmark-only baselines (bsrmv on row-major blocks, SpMV on an expanded CSR copy) are not
   part of the library: bench/bench_cuda_baselines.cu.
   bsrmv supports only blocks larger than 1x1: for bs == 1 the BAIJ arrays are a CSR matrix and
   the bsrmv and BSR paths run cusparseSpMV on them as CSR (no copy).

   Every cuSPARSE status is checked; ALLOC_FAILED and INSUFFICIENT_RESOURCES map to
   BSRC_CUDA_ERR_MEM, the rest to BSRC_CUDA_ERR_CUSPARSE, with cuSPARSE's name and text.
*/
#include "bsrcuda_kernels.cuh"

#include <algorithm>
#include <climits>
#include <cusparse.h>
#include <new>

namespace bsrc {

namespace {

constexpr int     kCopyThreads = 256;
constexpr int64_t kCopyMaxGrid = 1 << 20; /* grid-stride copies: enough thread blocks to fill any GPU */

enum spmv_slot {
  SLOT_BSR = 0,
  SLOT_CSR_DEFAULT,
  SLOT_COUNT
};

} // namespace

struct cusparse_state {
  cusparseHandle_t   handle = nullptr;
  cusparseMatDescr_t legacy = nullptr; /* general, zero-based: bsrmv */

  /* 32-bit copies of rowptr / colidx (bsrmv takes int *) when bsrk_idx is 64-bit */
  dev_buffer rowptr32, colidx32;
  bool       have_idx32 = false;

  /* values with every block transposed (row-major blocks), for SpMV BSR should cuSPARSE refuse
     column-major blocks */
  dev_buffer values_rowmajor;
  uint64_t   rowmajor_epoch = 0; /* values_epoch the copy was made from; 0: none */

  /* generic-API descriptors, work buffers, and the values epoch each was preprocessed for */
  cusparseConstSpMatDescr_t mat[SLOT_COUNT] = {};
  dev_buffer                work[SLOT_COUNT];
  uint64_t                  prepared_epoch[SLOT_COUNT] = {};
  int                       bsr_layout                 = -1; /* see bsrc_cuda_spmv_bsr_layout */
};

namespace {

constexpr cusparseIndexType_t kIdxType = sizeof(bsrk_idx) == 8 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;

int grid_for(int64_t n)
{
  return (int)std::max<int64_t>(1, std::min<int64_t>((n + kCopyThreads - 1) / kCopyThreads, kCopyMaxGrid));
}

/* ---- copies built on the device ---- */

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

/* ---- state ---- */

/* A cuSPARSE handle or descriptor refused: st released, reported as cusparseCreate's. */
bsrc_cuda_status handle_failed(cusparse_state *st, cusparseStatus_t cs, error_sink e)
{
  cusparse_release(st, nullptr);
  return fail_cusparse(e, cs, "cusparseCreate");
}

bsrc_cuda_status ensure_handle(cusparse_state **pst, cudaStream_t s, error_sink e)
{
  if (!*pst) {
    cusparse_state *st = new (std::nothrow) cusparse_state;
    if (!st) return fail(e, BSRC_CUDA_ERR_MEM, "cuSPARSE state: out of host memory");
    BSRC_CUSPARSE_CHECK_OR(cusparseCreate(&st->handle), handle_failed(st, bsrc_st, e));
    BSRC_CUSPARSE_CHECK_OR(cusparseCreateMatDescr(&st->legacy), handle_failed(st, bsrc_st, e));
    BSRC_CUSPARSE_CHECK_OR(cusparseSetMatType(st->legacy, CUSPARSE_MATRIX_TYPE_GENERAL), handle_failed(st, bsrc_st, e));
    BSRC_CUSPARSE_CHECK_OR(cusparseSetMatIndexBase(st->legacy, CUSPARSE_INDEX_BASE_ZERO), handle_failed(st, bsrc_st, e));
    *pst = st;
  }
  BSRC_CUSPARSE_CHECK(cusparseSetStream((*pst)->handle, s), e, "cusparseSetStream");
  return BSRC_CUDA_OK;
}

bsrc_cuda_status ensure_idx32(cusparse_state *st, const matrix_view &A, cudaStream_t s, size_t *bytes, error_sink e)
{
  if (A.nbrows > INT_MAX || A.nbcols > INT_MAX || A.nblocks > INT_MAX) return fail(e, BSRC_CUDA_ERR_ARG, "cusparseDbsrmv takes 32-bit sizes: %lld block rows, %lld blocks", (long long)A.nbrows, (long long)A.nblocks);
  if (sizeof(bsrk_idx) == sizeof(int) || st->have_idx32) return BSRC_CUDA_OK;
  bsrc_cuda_status r = dev_alloc(st->rowptr32, ((size_t)A.nbrows + 1) * sizeof(int), "32-bit rowptr for cuSPARSE", bytes, e);
  if (r == BSRC_CUDA_OK) r = dev_alloc(st->colidx32, (size_t)A.nblocks * sizeof(int), "32-bit colidx for cuSPARSE", bytes, e);
  if (r != BSRC_CUDA_OK) return r;
  to_int32_kernel<<<grid_for(A.nbrows + 1), kCopyThreads, 0, s>>>((int64_t)A.nbrows + 1, A.rowptr, (int *)st->rowptr32.ptr);
  to_int32_kernel<<<grid_for(A.nblocks), kCopyThreads, 0, s>>>(A.nblocks, A.colidx, (int *)st->colidx32.ptr);
  BSRC_CUDA_CHECK(cudaGetLastError(), e, "32-bit index copies");
  st->have_idx32 = true;
  return BSRC_CUDA_OK;
}

const int *rowptr32(const cusparse_state *st, const matrix_view &A)
{
  return sizeof(bsrk_idx) == sizeof(int) ? (const int *)A.rowptr : (const int *)st->rowptr32.ptr;
}

const int *colidx32(const cusparse_state *st, const matrix_view &A)
{
  return sizeof(bsrk_idx) == sizeof(int) ? (const int *)A.colidx : (const int *)st->colidx32.ptr;
}

bsrc_cuda_status ensure_rowmajor(cusparse_state *st, const matrix_view &A, cudaStream_t s, size_t *bytes, error_sink e)
{
  if (st->rowmajor_epoch == A.values_epoch) return BSRC_CUDA_OK;
  const int64_t nvalues = (int64_t)A.nblocks * A.bs * A.bs;
  if (!st->values_rowmajor.ptr) {
    const bsrc_cuda_status r = dev_alloc(st->values_rowmajor, (size_t)nvalues * sizeof(double), "row-major block copy for cuSPARSE", bytes, e);
    if (r != BSRC_CUDA_OK) return r;
  }
  transpose_blocks_kernel<<<grid_for(nvalues), kCopyThreads, 0, s>>>(nvalues, (int)A.bs, A.values, (double *)st->values_rowmajor.ptr);
  BSRC_CUDA_CHECK(cudaGetLastError(), e, "row-major block copy");
  st->rowmajor_epoch = A.values_epoch;
  return BSRC_CUDA_OK;
}

/* Descriptor of the matrix for SpMV slot `slot`. */
bsrc_cuda_status ensure_descriptor(cusparse_state *st, const matrix_view &A, cudaStream_t s, spmv_slot slot, size_t *bytes, error_sink e)
{
  if (st->mat[slot]) return BSRC_CUDA_OK;
  const int64_t nrows = (int64_t)A.nbrows * A.bs, ncols = (int64_t)A.nbcols * A.bs;
  if (slot == SLOT_CSR_DEFAULT) { /* bs == 1: the BAIJ arrays are CSR */
    BSRC_CUSPARSE_CHECK(cusparseCreateConstCsr(&st->mat[slot], nrows, ncols, A.nblocks, A.rowptr, A.colidx, A.values, kIdxType, kIdxType, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F), e, "cusparseCreateConstCsr (bs 1)");
    return BSRC_CUDA_OK;
  }
  if (slot == SLOT_BSR) { /* row-major copy (column-major blocks are tried first in run_spmv) */
    const bsrc_cuda_status r = ensure_rowmajor(st, A, s, bytes, e);
    if (r != BSRC_CUDA_OK) return r;
    BSRC_CUSPARSE_CHECK(cusparseCreateConstBsr(&st->mat[slot], A.nbrows, A.nbcols, A.nblocks, A.bs, A.bs, A.rowptr, A.colidx, st->values_rowmajor.ptr, kIdxType, kIdxType, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F, CUSPARSE_ORDER_ROW), e, "cusparseCreateConstBsr (row-major blocks)");
    st->bsr_layout = 0;
    return BSRC_CUDA_OK;
  }
  return fail(e, BSRC_CUDA_ERR_ARG, "unknown cuSPARSE SpMV slot %d", (int)slot);
}

/* spmv_once's calls, the first error returned: the vectors' descriptors (vx, vy: the caller destroys
   them), the buffer, the preprocessing, the product. */
cusparseStatus_t spmv_steps(cusparse_state *st, const matrix_view &A, spmv_slot slot, cusparseSpMVAlg_t alg, double alpha, const double *x, double beta, double *y, cusparseConstDnVecDescr_t &vx, cusparseDnVecDescr_t &vy, size_t *bytes, error_sink e, bsrc_cuda_status *alloc_status)
{
  BSRC_CUSPARSE_CHECK_OR(cusparseCreateConstDnVec(&vx, (int64_t)A.nbcols * A.bs, x, CUDA_R_64F), bsrc_st);
  BSRC_CUSPARSE_CHECK_OR(cusparseCreateDnVec(&vy, (int64_t)A.nbrows * A.bs, y, CUDA_R_64F), bsrc_st);
  size_t need = 0;
  BSRC_CUSPARSE_CHECK_OR(cusparseSpMV_bufferSize(st->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, st->mat[slot], vx, &beta, vy, CUDA_R_64F, alg, &need), bsrc_st);
  if (need > st->work[slot].bytes) {
    *alloc_status = dev_alloc(st->work[slot], need, "cusparseSpMV work buffer", bytes, e);
    if (*alloc_status != BSRC_CUDA_OK) return CUSPARSE_STATUS_ALLOC_FAILED;
    st->prepared_epoch[slot] = 0;
  }
  if (st->prepared_epoch[slot] != A.values_epoch) {
    BSRC_CUSPARSE_CHECK_OR(cusparseSpMV_preprocess(st->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, st->mat[slot], vx, &beta, vy, CUDA_R_64F, alg, st->work[slot].ptr), bsrc_st);
    st->prepared_epoch[slot] = A.values_epoch;
  }
  BSRC_CUSPARSE_CHECK_OR(cusparseSpMV(st->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, st->mat[slot], vx, &beta, vy, CUDA_R_64F, alg, st->work[slot].ptr), bsrc_st);
  return CUSPARSE_STATUS_SUCCESS;
}

/* One cusparseSpMV of slot `slot` (buffer sized on every call, preprocessed once per values epoch). */
cusparseStatus_t spmv_once(cusparse_state *st, const matrix_view &A, spmv_slot slot, cusparseSpMVAlg_t alg, double alpha, const double *x, double beta, double *y, size_t *bytes, error_sink e, bsrc_cuda_status *alloc_status)
{
  *alloc_status                = BSRC_CUDA_OK;
  cusparseConstDnVecDescr_t vx = nullptr;
  cusparseDnVecDescr_t      vy = nullptr;
  const cusparseStatus_t    cs = spmv_steps(st, A, slot, alg, alpha, x, beta, y, vx, vy, bytes, e, alloc_status);
  if (vx) (void)cusparseDestroyDnVec(vx);
  if (vy) (void)cusparseDestroyDnVec(vy);
  return cs;
}

bsrc_cuda_status run_spmv(cusparse_state *st, const matrix_view &A, cudaStream_t s, spmv_slot slot, double alpha, const double *x, double beta, double *y, size_t *bytes, error_sink e)
{
  static const cusparseSpMVAlg_t algs[SLOT_COUNT] = {CUSPARSE_SPMV_BSR_ALG1, CUSPARSE_SPMV_ALG_DEFAULT};
  static const char *const       what[SLOT_COUNT] = {"cusparseSpMV (BSR)", "cusparseSpMV (CSR, bs 1)"};
  bsrc_cuda_status               alloc            = BSRC_CUDA_OK;
  if (slot == SLOT_BSR && st->bsr_layout != 0) {
    /* Column-major blocks in place. If cuSPARSE refuses them (at the descriptor or at the product),
       fall back to a row-major copy once and for all, and leave the reason in the message buffer. */
    cusparseStatus_t cs = CUSPARSE_STATUS_SUCCESS;
    if (!st->mat[slot]) {
      cs = cusparseCreateConstBsr(&st->mat[slot], A.nbrows, A.nbcols, A.nblocks, A.bs, A.bs, A.rowptr, A.colidx, A.values, kIdxType, kIdxType, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F, CUSPARSE_ORDER_COL);
      if (cs != CUSPARSE_STATUS_SUCCESS) st->mat[slot] = nullptr;
      else st->bsr_layout = 1;
    }
    if (cs == CUSPARSE_STATUS_SUCCESS) cs = spmv_once(st, A, slot, algs[slot], alpha, x, beta, y, bytes, e, &alloc);
    if (alloc != BSRC_CUDA_OK) return alloc;
    if (cs == CUSPARSE_STATUS_SUCCESS) return BSRC_CUDA_OK;
    if (cs == CUSPARSE_STATUS_ALLOC_FAILED || cs == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES) return fail_cusparse(e, cs, what[slot]);
    (void)fail_cusparse(e, cs, "cusparseSpMV refused column-major BSR blocks; using a row-major copy");
    if (st->mat[slot]) (void)cusparseDestroySpMat(st->mat[slot]);
    st->mat[slot]            = nullptr;
    st->prepared_epoch[slot] = 0;
    st->bsr_layout           = 0;
  }
  bsrc_cuda_status r = ensure_descriptor(st, A, s, slot, bytes, e);
  if (r != BSRC_CUDA_OK) return r;
  if (slot == SLOT_BSR) r = ensure_rowmajor(st, A, s, bytes, e);
  if (r != BSRC_CUDA_OK) return r;
  /* a refused work buffer is reported as dev_alloc's (spmv_once succeeds only with its buffer) */
  BSRC_CUSPARSE_CHECK_OR(spmv_once(st, A, slot, algs[slot], alpha, x, beta, y, bytes, e, &alloc), alloc != BSRC_CUDA_OK ? alloc : fail_cusparse(e, bsrc_st, what[slot]));
  return BSRC_CUDA_OK;
}

} // namespace

bsrc_cuda_status fail_cusparse(error_sink e, cusparseStatus_t st, const char *what)
{
  const bsrc_cuda_status s = (st == CUSPARSE_STATUS_ALLOC_FAILED || st == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES) ? BSRC_CUDA_ERR_MEM : BSRC_CUDA_ERR_CUSPARSE;
  return fail(e, s, "%s: %s (%s)", what, cusparseGetErrorString(st), cusparseGetErrorName(st));
}

int cusparse_spmv_bsr_layout(const cusparse_state *st)
{
  if (!st) return -1;
  if (st->mat[SLOT_CSR_DEFAULT]) return 2;
  return st->bsr_layout;
}

void cusparse_release(cusparse_state *st, size_t *bytes)
{
  if (!st) return;
  for (int i = 0; i < SLOT_COUNT; ++i) {
    if (st->mat[i]) (void)cusparseDestroySpMat(st->mat[i]);
    dev_free(st->work[i], bytes);
  }
  dev_free(st->rowptr32, bytes);
  dev_free(st->colidx32, bytes);
  dev_free(st->values_rowmajor, bytes);
  if (st->legacy) (void)cusparseDestroyMatDescr(st->legacy);
  if (st->handle) (void)cusparseDestroy(st->handle);
  delete st;
}

bsrc_cuda_status cusparse_multadd(cusparse_state **pst, const matrix_view &A, cudaStream_t s, cusparse_variant v, double alpha, const double *x, double beta, const double *in, double *out, size_t *bytes, error_sink e)
{
  if (A.nbrows <= 0) return BSRC_CUDA_OK;
  const int64_t n = (int64_t)A.nbrows * A.bs;
  if (A.nblocks == 0) { /* nothing for cuSPARSE to do: out = alpha*0 + beta*in */
    BSRC_CUDA_CHECK(launch_scale(n, alpha, beta, in, out, s), e, "scale (empty matrix)");
    return BSRC_CUDA_OK;
  }
  bsrc_cuda_status r = ensure_handle(pst, s, e);
  if (r != BSRC_CUDA_OK) return r;
  cusparse_state *st = *pst;
  if (beta != 0.0 && in != out) BSRC_CUDA_CHECK(cudaMemcpyAsync(out, in, (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice, s), e, "copy of in to out");

  if (A.bs == 1) return run_spmv(st, A, s, SLOT_CSR_DEFAULT, alpha, x, beta, out, bytes, e);

  switch (v) {
  case CUSP_BSRMV_COL:
    r = ensure_idx32(st, A, s, bytes, e);
    if (r != BSRC_CUDA_OK) return r;
    BSRC_CUSPARSE_CHECK(cusparseDbsrmv(st->handle, CUSPARSE_DIRECTION_COLUMN, CUSPARSE_OPERATION_NON_TRANSPOSE, (int)A.nbrows, (int)A.nbcols, (int)A.nblocks, &alpha, st->legacy, A.values, rowptr32(st, A), colidx32(st, A), (int)A.bs, x, &beta, out), e, "cusparseDbsrmv (column-major blocks)");
    return BSRC_CUDA_OK;
  case CUSP_SPMV_BSR:
    return run_spmv(st, A, s, SLOT_BSR, alpha, x, beta, out, bytes, e);
  }
  return fail(e, BSRC_CUDA_ERR_ARG, "unknown cuSPARSE variant %d", (int)v);
}

} // namespace bsrc
