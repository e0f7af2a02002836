/*
   What every GoogleTest case of the CUDA layer (bsrcuda.h) shares: host matrices of known shapes,
   the host reference product (bsrk_reference_multadd) with its error bound, the runs of one product
   through the layer's host and device entries, and the fixture that skips a case, with its reason,
   where no GPU is visible.

   BSRC_TEST_QUICK=1 runs fewer (alpha, beta) pairs and matrices (for the slow sanitizer tools); the
   cases it leaves out report themselves skipped.
*/
#ifndef CUDA_TEST_SUPPORT_H
#define CUDA_TEST_SUPPORT_H

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "bsrcuda.h"
#include "bsrkernels.h"

namespace cudatest {

/* Stops the (void) test function with a failure naming the CUDA call. */
#define CUDA_ASSERT(call) \
  do { \
    const cudaError_t e_ = (call); \
    ASSERT_EQ(e_, cudaSuccess) << #call << ": " << cudaGetErrorString(e_); \
  } while (0)

/* Returns an AssertionFailure naming the CUDA call (in a function that returns AssertionResult). */
#define CUDA_OR_FAIL(call) \
  do { \
    const cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) return ::testing::AssertionFailure() << #call << ": " << cudaGetErrorString(e_); \
  } while (0)

bool quick_mode(); /* BSRC_TEST_QUICK set and not 0 */

/* In a test body: a case that quick mode leaves out reports itself skipped. */
#define SKIP_IN_QUICK_MODE() \
  do { \
    if (::cudatest::quick_mode()) GTEST_SKIP() << "left out in quick mode (BSRC_TEST_QUICK)"; \
  } while (0)

/* ---- host matrices ---- */

struct host_matrix {
  std::string           name;
  bsrk_idx              nbrows = 0, nbcols = 0, bs = 1;
  std::vector<bsrk_idx> rowptr{0}, colidx;
  std::vector<double>   values;

  bsrk_idx    nblocks() const { return rowptr.back(); }
  bsrk_matrix view() const { return bsrk_matrix{nbrows, nbcols, bs, rowptr.data(), colidx.data(), values.data()}; }
};

using rng_t  = std::mt19937_64;
using rows_t = std::vector<std::vector<bsrk_idx>>;

double uniform(rng_t &rng, double lo, double hi);
void   fill_values(host_matrix &A, rng_t &rng);
/* nrows rows whose lengths cycle through `lengths`; row i holds columns (i * step + j) % nbcols,
   j < its length (distinct: no length may exceed nbcols), sorted. */
rows_t cycled_rows(size_t nrows, std::initializer_list<bsrk_idx> lengths, bsrk_idx step, bsrk_idx nbcols);
/* Sorts each row and drops repeated columns. */
void sort_unique(rows_t &rows);
/* Rows from per-row column lists (sorted, unique). */
host_matrix from_rows(const std::string &name, bsrk_idx nbcols, bsrk_idx bs, const rows_t &rows, rng_t &rng, bool with_values = true);
/* Random rows: lengths uniform in [0, 2*mean], about `empty_share` of rows empty. */
host_matrix random_matrix(const std::string &name, bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx bs, int mean, double empty_share, rng_t &rng);
/* Each row `per_row` random columns (drawn row by row: for shapes too wide to shuffle every row). */
host_matrix sparse_random_matrix(const std::string &name, bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx bs, int per_row, rng_t &rng);
/* One block row holds most blocks (every column), the others 0-2 blocks. */
host_matrix heavy_row_matrix(const std::string &name, bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx bs, rng_t &rng);
/* Block rows of power-law lengths (Pareto, exponent 2.2, at least 1 block, at most nbcols), columns
   distinct and spread over the whole width: mostly short rows and a few very long ones. */
host_matrix powerlaw_matrix(const std::string &name, bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx bs, rng_t &rng);
/* 3D grid n^3, one block per point, neighbours within distance 1 in each direction (27 or 7 points). */
host_matrix stencil_matrix(const std::string &name, int n, bsrk_idx bs, bool full27, rng_t &rng, bool with_values = true);
/* Thesis dataset structure: 32000 x 32000, 5x5 blocks, 320 blocks per block row in a band. */
host_matrix thesis_structure(rng_t &rng);
std::string case_name(const host_matrix &A);

/* ---- products ---- */

/* What a check runs: a kernel of the API, or one of the benchmark-only cuSPARSE paths. */
enum {
  BENCH_BSRMV_ROW = BSRC_CUDA_KERNEL_COUNT,
  BENCH_CSR_ALG1,
  BENCH_CSR_ALG2,
  PRODUCT_COUNT
};
const char *product_name(int p);

/* One benchmark-only baseline (bench/bench_cuda_baselines.h) on M, with baselines made for this
   call and freed after it (which waits for M's stream). */
bsrc_cuda_status run_baseline(bsrc_cuda_matrix *M, int p, double alpha, const double *x, double beta, const double *in, double *out);
bsrc_cuda_status run_device(bsrc_cuda_matrix *M, int p, double alpha, const double *x, double beta, const double *in, double *out);

struct ab_pair {
  double alpha, beta;
};
/* (1, 0), (1, 1), (2.5, -0.5), (0, 1); in quick mode (1, 0) and (2.5, -0.5) */
std::vector<ab_pair> ab_pairs();
std::vector<ab_pair> all_ab_pairs();

/* A device array of n doubles (at least one), freed with the object. */
struct device_array {
  double     *ptr = nullptr;
  cudaError_t status;
  explicit device_array(size_t n) : status(cudaMalloc(&ptr, (n ? n : 1) * sizeof(double))) { }
  device_array(const device_array &)            = delete;
  device_array &operator=(const device_array &) = delete;
  ~device_array() { (void)cudaFree(ptr); }
};

/* out against the reference: |out - ref| <= 1e-13 * (|alpha| |A| |x| + |beta| |in|) per entry. */
::testing::AssertionResult compare(const host_matrix &A, double alpha, const std::vector<double> &x, double beta, const std::vector<double> &in, const std::vector<double> &out);
/* Product p over the (alpha, beta) pairs, host and device entries, in separate from and aliasing out. */
::testing::AssertionResult check_product(bsrc_cuda_matrix *M, const host_matrix &A, int p, rng_t &rng);
/* set_structure + set_values of A into M */
::testing::AssertionResult upload(bsrc_cuda_matrix *M, const host_matrix &A);
/* Every product on A (already uploaded to M): one expectation a product. */
void expect_all_products(bsrc_cuda_matrix *M, const host_matrix &A, const std::string &tag, rng_t &rng);
/* Kernel k on the uploaded A with each of `values` set through `set` (bsrc_cuda_set_lanes or
   bsrc_cuda_set_threads, `what` names it), then back to the default (0): one expectation a value. */
using kernel_setting = bsrc_cuda_status (*)(bsrc_cuda_matrix *, bsrc_cuda_kernel, int);
void expect_settings(bsrc_cuda_matrix *M, const host_matrix &A, bsrc_cuda_kernel k, kernel_setting set, const char *what, std::initializer_list<int> values, rng_t &rng);
/* "status s: <M's last error>" */
std::string status_text(bsrc_cuda_status s, const bsrc_cuda_matrix *M);

/* ---- fixture ---- */

/* A case of the CUDA layer: skipped (with its reason) where no GPU is visible; M is a fresh matrix on
   device 0, rng a generator of fixed seed. */
class CudaTest : public ::testing::Test {
protected:
  void              SetUp() override;
  void              TearDown() override;
  bsrc_cuda_matrix *M = nullptr;
  rng_t             rng{20240611};
};

} // namespace cudatest

#endif
