/*
   The block SpMM of the CUDA layer (bsrc_cuda_spmm_*): Y = alpha*A*X + beta*Y column by column
   against the host reference, on host and device arrays with leading dimensions larger than their
   rows; the split SpMM of an MPI rank; refused arguments; the benchmark's cuSPARSE SpMM baselines.
*/
#include <cmath>
#include <cstdio>
#include <memory>

#include "bench_cuda_baselines.h"
#include "cuda_test_support.h"

namespace cudatest {
namespace {

/* Y = alpha*A*X + beta*Y0 column by column with the reference product, against the GPU's Y (leading
   dimension ldy); the padding rows of Y (beyond A's rows) must be untouched (pad). */
::testing::AssertionResult compare_spmm(const host_matrix &A, int64_t k, double alpha, const std::vector<double> &X, int64_t ldx, double beta, const std::vector<double> &Y0, const std::vector<double> &Y, int64_t ldy, double pad)
{
  const int64_t     nrows = (int64_t)A.nbrows * A.bs, ncols = (int64_t)A.nbcols * A.bs;
  const bsrk_matrix V    = A.view();
  host_matrix       Aabs = A;
  for (double &v : Aabs.values) v = std::fabs(v);
  const bsrk_matrix   Va = Aabs.view();
  std::vector<double> xc(ncols), xa(ncols), in(nrows), ref(nrows), scale(nrows);
  for (int64_t j = 0; j < k; ++j) {
    for (int64_t i = 0; i < ncols; ++i) {
      xc[i] = X[j * ldx + i];
      xa[i] = std::fabs(xc[i]);
    }
    for (int64_t i = 0; i < nrows; ++i) in[i] = Y0[j * ldy + i];
    bsrk_reference_multadd(&V, alpha, xc.data(), beta, beta != 0.0 ? in.data() : nullptr, ref.data());
    for (double &v : in) v = std::fabs(v);
    bsrk_reference_multadd(&Va, std::fabs(alpha), xa.data(), std::fabs(beta), beta != 0.0 ? in.data() : nullptr, scale.data());
    for (int64_t i = 0; i < ldy; ++i) {
      const double got = Y[j * ldy + i];
      char         buf[200];
      if (i >= nrows) {
        if (got == pad) continue;
        snprintf(buf, sizeof(buf), "column %lld: padding row %lld written (%.17g)", (long long)j, (long long)i, got);
        return ::testing::AssertionFailure() << buf;
      }
      if (!(std::fabs(got - ref[i]) <= 1e-13 * scale[i] + 1e-300)) {
        snprintf(buf, sizeof(buf), "column %lld of %lld, row %lld: %.17g vs reference %.17g", (long long)j, (long long)k, (long long)i, got, ref[i]);
        return ::testing::AssertionFailure() << buf;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

/* bsrc_cuda_spmm_device_on on a stream of its own, X and Y copied to the device and Y back. */
::testing::AssertionResult spmm_on_device(bsrc_cuda_matrix *M, int64_t k, double alpha, const std::vector<double> &X, int64_t ldx, double beta, std::vector<double> &Y, int64_t ldy, bsrc_cuda_status &s)
{
  device_array dX(X.size()), dY(Y.size());
  CUDA_OR_FAIL(dX.status);
  CUDA_OR_FAIL(dY.status);
  CUDA_OR_FAIL(cudaMemcpy(dX.ptr, X.data(), X.size() * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_OR_FAIL(cudaMemcpy(dY.ptr, Y.data(), Y.size() * sizeof(double), cudaMemcpyHostToDevice));
  cudaStream_t st;
  CUDA_OR_FAIL(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  s                   = bsrc_cuda_spmm_device_on(M, BSRC_CUDA_KERNEL_AUTO, st, k, alpha, dX.ptr, ldx, beta, dY.ptr, ldy);
  const cudaError_t e = cudaStreamSynchronize(st);
  CUDA_OR_FAIL(cudaStreamDestroy(st));
  CUDA_OR_FAIL(e);
  CUDA_OR_FAIL(cudaMemcpy(Y.data(), dY.ptr, Y.size() * sizeof(double), cudaMemcpyDeviceToHost));
  return ::testing::AssertionSuccess();
}

/* One SpMM of A (uploaded to M) with k columns, alpha, beta, on the device (entry `device`) or on
   host arrays; X and Y with leading dimensions larger than their rows, Y's padding poisoned. */
::testing::AssertionResult check_spmm(bsrc_cuda_matrix *M, const host_matrix &A, int64_t k, double alpha, double beta, bool device, rng_t &rng)
{
  const int64_t       nrows = (int64_t)A.nbrows * A.bs, ncols = (int64_t)A.nbcols * A.bs;
  const int64_t       ldx = ncols + 3, ldy = nrows + 5;
  const double        pad = -777.0;
  std::vector<double> X((size_t)(ldx * k)), Y0((size_t)(ldy * k)), Y;
  for (int64_t j = 0; j < k; ++j) {
    for (int64_t i = 0; i < ldx; ++i) X[j * ldx + i] = i < ncols ? uniform(rng, -1, 1) : NAN;                        /* padding of X: never read */
    for (int64_t i = 0; i < ldy; ++i) Y0[j * ldy + i] = i < nrows ? (beta != 0.0 ? uniform(rng, -1, 1) : NAN) : pad; /* beta 0: Y not read */
  }
  Y                  = Y0;
  bsrc_cuda_status s = BSRC_CUDA_OK;
  if (device) {
    const ::testing::AssertionResult run = spmm_on_device(M, k, alpha, X, ldx, beta, Y, ldy, s);
    if (!run) return run;
  } else s = bsrc_cuda_spmm_host(M, BSRC_CUDA_KERNEL_AUTO, k, alpha, X.data(), ldx, beta, Y.data(), ldy);
  if (s != BSRC_CUDA_OK) return ::testing::AssertionFailure() << status_text(s, M);
  return compare_spmm(A, k, alpha, X, ldx, beta, Y0, Y, ldy, pad);
}

class Spmm : public CudaTest, public ::testing::WithParamInterface<bsrk_idx> { };

/* Random rows with empty ones among them, one very long row, a 27-point stencil; k from 1 to 64
   columns, host and device arrays, beta 0 and not. */
TEST_P(Spmm, MatchesReference)
{
  const bsrk_idx bs      = GetParam();
  host_matrix    cases[] = {random_matrix("spmm_random", 61, 57, bs, 5, 0.2, rng), heavy_row_matrix("spmm_heavy_row", 45, 400, bs, rng), stencil_matrix("spmm_stencil27", 5, bs, true, rng)};
  for (const host_matrix &A : cases) {
    ASSERT_TRUE(upload(M, A));
    for (int64_t k : {1, 2, 3, 8, 17, 64})
      for (int variant = 0; variant < 4; ++variant) {
        if (quick_mode() && variant != 0 && k != 17) continue;
        const bool   device = variant % 2 == 0;
        const double alpha = variant < 2 ? 1.0 : -1.5, beta = variant < 2 ? 0.0 : 0.75;
        EXPECT_TRUE(check_spmm(M, A, k, alpha, beta, device, rng)) << "spmm/" << case_name(A) << "/k=" << k << "/" << (device ? "device" : "host") << "/alpha=" << alpha << ",beta=" << beta;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(BlockSizes, Spmm, ::testing::Values(1, 2, 3, 4, 5, 8, 11), [](const ::testing::TestParamInfo<bsrk_idx> &info) { return "bs" + std::to_string((long long)info.param); });

using SpmmErrors = CudaTest;

/* Bad leading dimensions and a NULL X are errors, not crashes; the matrix still works afterwards. */
TEST_F(SpmmErrors, RefusedArguments)
{
  const host_matrix A = random_matrix("spmm_errors", 10, 12, 3, 3, 0.0, rng);
  ASSERT_TRUE(upload(M, A));
  std::vector<double> X(36 * 4), Y(30 * 4);
  EXPECT_EQ(bsrc_cuda_spmm_host(M, BSRC_CUDA_KERNEL_AUTO, 4, 1.0, X.data(), 35, 0.0, Y.data(), 30), BSRC_CUDA_ERR_ARG) << "ldx too small: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_spmm_host(M, BSRC_CUDA_KERNEL_AUTO, 4, 1.0, X.data(), 36, 0.0, Y.data(), 29), BSRC_CUDA_ERR_ARG) << "ldy too small: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_spmm_host(M, BSRC_CUDA_KERNEL_AUTO, 4, 1.0, nullptr, 36, 0.0, Y.data(), 30), BSRC_CUDA_ERR_ARG) << "X NULL: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_spmm_host(M, BSRC_CUDA_KERNEL_AUTO, -1, 1.0, X.data(), 36, 0.0, Y.data(), 30), BSRC_CUDA_ERR_ARG) << "negative k: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_spmm_split_end(M, nullptr, 4, 1.0, nullptr, 1, Y.data(), 30), BSRC_CUDA_ERR_ARG) << "end without begin: " << bsrc_cuda_last_error(M);
  EXPECT_TRUE(check_spmm(M, A, 4, 1.0, 0.0, false, rng)) << "spmm/errors/after";
}

class SpmmSplit : public CudaTest, public ::testing::WithParamInterface<bsrk_idx> { };

/* One rank's split SpMM: Y = alpha*(L*X + G*Xg) against the reference of the two products (the local
   one through bsrc_cuda_spmm_host, itself checked against the reference first). */
TEST_P(SpmmSplit, LocalPlusGhost)
{
  const bsrk_idx    bs = GetParam();
  const host_matrix L = random_matrix("spmm_split_local", 40, 40, bs, 4, 0.1, rng), G = random_matrix("spmm_split_ghost", 40, 9, bs, 1, 0.6, rng);
  bsrc_cuda_matrix *Mg = nullptr;
  ASSERT_EQ(bsrc_cuda_create(0, &Mg), BSRC_CUDA_OK) << bsrc_cuda_last_error(nullptr);
  const bool up = upload(M, L) && upload(Mg, G);
  EXPECT_TRUE(up) << "upload: " << bsrc_cuda_last_error(M) << " / " << bsrc_cuda_last_error(Mg);
  for (int64_t k : {1, 5, 17}) {
    if (!up) break;
    SCOPED_TRACE("spmm_split/bs=" + std::to_string((long long)bs) + "/k=" + std::to_string((long long)k));
    const int64_t       nl = 40 * bs, ng = 9 * bs, ldx = nl + 2, ldg = ng + 1, ldy = nl + 4;
    const double        alpha = 1.25, pad = -5.0;
    std::vector<double> X(ldx * k), Xg(ldg * k), Y(ldy * k, pad), Zero(ldy * k, pad), YL(ldy * k, pad);
    for (double &v : X) v = uniform(rng, -1, 1);
    for (double &v : Xg) v = uniform(rng, -1, 1);
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = 0; i < nl; ++i) Zero[j * ldy + i] = 0.0;
    bsrc_cuda_status s = bsrc_cuda_spmm_split_begin(M, k, alpha, X.data(), ldx);
    if (s == BSRC_CUDA_OK) s = bsrc_cuda_spmm_split_end(M, Mg, k, alpha, Xg.data(), ldg, Y.data(), ldy);
    EXPECT_EQ(s, BSRC_CUDA_OK) << bsrc_cuda_last_error(M);
    if (s != BSRC_CUDA_OK) continue;
    /* reference: YL = alpha L X, then Y_ref = alpha G Xg + 1 * YL */
    EXPECT_EQ(bsrc_cuda_spmm_host(M, BSRC_CUDA_KERNEL_AUTO, k, alpha, X.data(), ldx, 0.0, YL.data(), ldy), BSRC_CUDA_OK) << "local reference: " << bsrc_cuda_last_error(M);
    const ::testing::AssertionResult local = compare_spmm(L, k, alpha, X, ldx, 0.0, Zero, YL, ldy, pad);
    EXPECT_TRUE(local) << "local product";
    if (local) EXPECT_TRUE(compare_spmm(G, k, alpha, Xg, ldg, 1.0, YL, Y, ldy, pad)) << "local plus ghost";
  }
  bsrc_cuda_destroy(Mg);
}

INSTANTIATE_TEST_SUITE_P(BlockSizes, SpmmSplit, ::testing::Values(1, 3, 5, 11), [](const ::testing::TestParamInfo<bsrk_idx> &info) { return "bs" + std::to_string((long long)info.param); });

class SpmmBaselines : public CudaTest, public ::testing::WithParamInterface<bsrk_idx> { };

/* The benchmark's cuSPARSE SpMM baselines (bsrmm, CSR SpMM algorithms 1-3) give the reference product too. */
TEST_P(SpmmBaselines, MatchReference)
{
  const bsrk_idx    bs = GetParam();
  const host_matrix A  = random_matrix("spmm_baselines", 50, 47, bs, 4, 0.1, rng);
  ASSERT_TRUE(upload(M, A));
  bench_baselines *B = nullptr;
  ASSERT_EQ(bench_baselines_create(M, &B), BSRC_CUDA_OK) << "spmm_baselines/create: " << bsrc_cuda_last_error(M);
  const std::unique_ptr<bench_baselines, void (*)(bench_baselines *)> owner(B, bench_baselines_destroy);
  const int64_t                                                       k = 6, ncols = 47 * bs, nrows = 50 * bs, ldx = ncols + 1, ldy = nrows + 2;
  std::vector<double>                                                 X(ldx * k), Y0(ldy * k, 0.0), Y(ldy * k);
  for (double &v : X) v = uniform(rng, -1, 1);
  for (int64_t j = 0; j < k; ++j)
    for (int64_t i = nrows; i < ldy; ++i) Y0[j * ldy + i] = -3.0;
  device_array dX(X.size()), dY(Y.size());
  CUDA_ASSERT(dX.status);
  CUDA_ASSERT(dY.status);
  CUDA_ASSERT(cudaMemcpy(dX.ptr, X.data(), X.size() * sizeof(double), cudaMemcpyHostToDevice));
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(std::string("spmm_baselines/bs=") + std::to_string((long long)bs) + "/" + (which == 0 ? "bsrmm" : which == 1 ? "spmm_csr_alg1" : which == 2 ? "spmm_csr_alg2" : "spmm_csr_alg3"));
    CUDA_ASSERT(cudaMemcpy(dY.ptr, Y0.data(), Y0.size() * sizeof(double), cudaMemcpyHostToDevice));
    const bsrc_cuda_status s = which == 0 ? bench_cusparse_bsrmm(B, k, 1.0, dX.ptr, ldx, 0.0, dY.ptr, ldy) : bench_cusparse_spmm_csr(B, which, k, 1.0, dX.ptr, ldx, 0.0, dY.ptr, ldy);
    EXPECT_EQ(s, BSRC_CUDA_OK) << bsrc_cuda_last_error(M);
    if (s != BSRC_CUDA_OK) continue;
    CUDA_ASSERT(cudaStreamSynchronize((cudaStream_t)bsrc_cuda_stream(M)));
    CUDA_ASSERT(cudaMemcpy(Y.data(), dY.ptr, Y.size() * sizeof(double), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(compare_spmm(A, k, 1.0, X, ldx, 0.0, Y0, Y, ldy, -3.0));
  }
}

INSTANTIATE_TEST_SUITE_P(BlockSizes, SpmmBaselines, ::testing::Values(1, 3, 4), [](const ::testing::TestParamInfo<bsrk_idx> &info) { return "bs" + std::to_string((long long)info.param); });

} // namespace
} // namespace cudatest
