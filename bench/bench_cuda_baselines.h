/*
   Benchmark-only cuSPARSE baselines for bench_cuda (and their check in tests/cuda): not part of the
   production library. They show how our kernels compare with the other ways cuSPARSE offers for a
   BSR product, on copies of the matrix the library itself never needs:
     rowmajor_bsrmv  cusparseDbsrmv with CUSPARSE_DIRECTION_ROW on a copy of the values with every
                     block transposed (row-major blocks);
     spmv_csr        cusparseSpMV on an expanded scalar CSR copy (alg 1: CUSPARSE_SPMV_CSR_ALG1,
                     2: CUSPARSE_SPMV_CSR_ALG2);
   and, for the block SpMM (several columns), cusparseDbsrmm and cusparseSpMM (below).
   With bs == 1 rowmajor_bsrmv runs cusparseSpMV on the BAIJ arrays as CSR (bsrmv needs bs > 1).
   A product is queued on the matrix's stream like bsrc_cuda_multadd_device_async (same contract,
   errors in bsrc_cuda_last_error(M)). The copies are built on first use, rebuilt once the values
   change, and counted in bsrc_cuda_device_bytes(M) while they exist. After bsrc_cuda_set_structure(M)
   make the baselines anew (their copies are dropped only where the size or the device row pointers
   changed).
*/
#ifndef BENCH_CUDA_BASELINES_H
#define BENCH_CUDA_BASELINES_H

#include "bsrcuda.h"

typedef struct bench_baselines bench_baselines; /* the baselines' state for one matrix */

/* State for M's baselines (nothing is allocated on the device yet). */
bsrc_cuda_status bench_baselines_create(bsrc_cuda_matrix *M, bench_baselines **B);
/* Frees B's copies; call it before bsrc_cuda_destroy(M). NULL is fine. */
void bench_baselines_destroy(bench_baselines *B);

bsrc_cuda_status bench_cusparse_rowmajor_bsrmv(bench_baselines *B, double alpha, const double *x_dev, double beta, const double *in_dev, double *out_dev);
bsrc_cuda_status bench_cusparse_spmv_csr(bench_baselines *B, int alg, double alpha, const double *x_dev, double beta, const double *in_dev, double *out_dev);

/* SpMM baselines for bsrc_cuda_spmm_*: Y = alpha*A*X + beta*Y for k columns, X and Y column-major on
   the device with leading dimensions ldx, ldy, queued on M's stream like the products above.
     bsrmm     cusparseDbsrmm (the legacy BSR routine) with CUSPARSE_DIRECTION_COLUMN on the BAIJ
               values in place; bs 1: cusparseSpMM on the BAIJ arrays as CSR (bsrmm needs bs > 1);
     spmm_csr  cusparseSpMM on the expanded scalar CSR copy, alg 1, 2 or 3 (CUSPARSE_SPMM_CSR_ALG1-3). */
bsrc_cuda_status bench_cusparse_bsrmm(bench_baselines *B, int64_t k, double alpha, const double *X, int64_t ldx, double beta, double *Y, int64_t ldy);
bsrc_cuda_status bench_cusparse_spmm_csr(bench_baselines *B, int alg, int64_t k, double alpha, const double *X, int64_t ldx, double beta, double *Y, int64_t ldy);

#endif
