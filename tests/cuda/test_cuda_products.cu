/*
   Every product of the CUDA layer (its kernels and the benchmark's cuSPARSE baselines) against the
   host reference: matrices of every block size and shape, task partitions and thread counts other
   than the defaults, x at an address of 8-byte alignment, and new values or a new structure.
*/
#include <functional>

#include "cuda_test_support.h"

namespace cudatest {
namespace {

/* A matrix of the product sweep: its name in the test's name, how it is made, whether quick mode runs it. */
struct product_case {
  std::string                         id;
  std::function<host_matrix(rng_t &)> make;
  bool                                quick;
};

std::string bs_id(const char *name, bsrk_idx bs)
{
  return std::string(name) + "_bs" + std::to_string((long long)bs);
}

std::vector<product_case> product_cases()
{
  std::vector<product_case> cases;
  for (bsrk_idx bs : {1, 2, 3, 4, 5, 6, 7, 8, 11, 16}) {
    const bool quick = bs == 1 || bs == 3 || bs == 5 || bs == 8 || bs == 11;
    cases.push_back({bs_id("random", bs), [bs](rng_t &rng) { return random_matrix("random", 37, 41, bs, 5, 0.2, rng); }, quick});
  }
  for (bsrk_idx bs : {1, 3, 5, 11}) {
    const bool quick = bs == 3 || bs == 11;
    cases.push_back({bs_id("heavy_row", bs), [bs](rng_t &rng) { return heavy_row_matrix("heavy_row", 61, 300, bs, rng); }, quick});
    cases.push_back({bs_id("powerlaw", bs), [bs](rng_t &rng) { return powerlaw_matrix("powerlaw", 900, 3000, bs, rng); }, quick});
    cases.push_back({bs_id("single_block", bs), [bs](rng_t &rng) { return from_rows("single_block", 4, bs, {{}, {2}, {}}, rng); }, quick});
    cases.push_back({bs_id("no_blocks", bs), [bs](rng_t &rng) { return from_rows("no_blocks", 5, bs, {{}, {}, {}, {}, {}}, rng); }, quick});
  }
  cases.push_back({"random_large_bs3", [](rng_t &rng) { return random_matrix("random_large", 3000, 2500, 3, 10, 0.05, rng); }, false});
  cases.push_back({"random_large_bs5", [](rng_t &rng) { return random_matrix("random_large", 2000, 2000, 5, 12, 0.05, rng); }, false});
  cases.push_back({"stencil27_bs3", [](rng_t &rng) { return stencil_matrix("stencil27", 9, 3, true, rng); }, false});
  cases.push_back({"stencil7_bs4", [](rng_t &rng) { return stencil_matrix("stencil7", 10, 4, false, rng); }, false});
  return cases;
}

class Products : public CudaTest, public ::testing::WithParamInterface<product_case> { };

/* Every product, over the (alpha, beta) pairs, host and device entries, in separate and aliasing out. */
TEST_P(Products, MatchReference)
{
  if (!GetParam().quick) SKIP_IN_QUICK_MODE();
  const host_matrix A = GetParam().make(rng);
  ASSERT_TRUE(upload(M, A));
  expect_all_products(M, A, case_name(A), rng);
}

INSTANTIATE_TEST_SUITE_P(Matrices, Products, ::testing::ValuesIn(product_cases()), [](const ::testing::TestParamInfo<product_case> &info) { return info.param.id; });

using Partitions = CudaTest;

/* Task partitions other than the default: one task (no carries), a few, and one block per task. */
TEST_F(Partitions, TaskCounts)
{
  for (bsrk_idx bs : {3, 11}) {
    const host_matrix A = heavy_row_matrix("heavy_row", 40, 120, bs, rng);
    ASSERT_TRUE(upload(M, A));
    for (bsrk_idx nt : {(bsrk_idx)1, (bsrk_idx)5, A.nblocks(), (bsrk_idx)0}) {
      const bsrc_cuda_status s   = bsrc_cuda_set_task_count(M, nt);
      const std::string      tag = case_name(A) + "/tasks=" + std::to_string((long long)nt) + "(got " + std::to_string((long long)bsrc_cuda_task_count(M)) + ")";
      EXPECT_EQ(s, BSRC_CUDA_OK) << tag << ": set_task_count: " << bsrc_cuda_last_error(M);
      if (s != BSRC_CUDA_OK) continue;
      for (int p = BSRC_CUDA_KERNEL_ROWMAJOR_SHARED; p <= BSRC_CUDA_KERNEL_VECTOR_UNROLLED; ++p) EXPECT_TRUE(check_product(M, A, p, rng)) << tag << "/" << product_name(p);
    }
  }
}

/* Thread counts other than the defaults (the team kernel's fallback when bs*bs > threads). */
TEST_F(Partitions, ThreadCounts)
{
  for (bsrk_idx bs : {2, 8, 16}) {
    const host_matrix A = random_matrix("random", 50, 60, bs, 6, 0.1, rng);
    ASSERT_TRUE(upload(M, A));
    for (int t : {32, 256, 1024}) {
      for (int p = BSRC_CUDA_KERNEL_ROWMAJOR_SHARED; p <= BSRC_CUDA_KERNEL_LAST_OWN; ++p) {
        const std::string name = case_name(A) + "/threads=" + std::to_string(t) + "/" + product_name(p);
        if (p == BSRC_CUDA_KERNEL_SLICED && t > 256) { /* compiled for at most 256 threads a block */
          EXPECT_EQ(bsrc_cuda_set_threads(M, (bsrc_cuda_kernel)p, t), BSRC_CUDA_ERR_ARG) << name << " refused: " << bsrc_cuda_last_error(M);
          continue;
        }
        const bsrc_cuda_status s = bsrc_cuda_set_threads(M, (bsrc_cuda_kernel)p, t);
        EXPECT_EQ(s, BSRC_CUDA_OK) << name << ": set_threads: " << bsrc_cuda_last_error(M);
        if (s == BSRC_CUDA_OK) EXPECT_TRUE(check_product(M, A, p, rng)) << name;
        (void)bsrc_cuda_set_threads(M, (bsrc_cuda_kernel)p, 0);
      }
    }
  }
}

/* x at an address that is 8 but not 16 bytes aligned (a device pointer into the middle of an array):
   the bs 2 path loads x 16 bytes at a time only when x allows it. */
TEST_F(Partitions, UnalignedX)
{
  const host_matrix A = random_matrix("unaligned_x", 300, 280, 2, 9, 0.1, rng);
  ASSERT_TRUE(upload(M, A));
  const size_t        nx = (size_t)A.nbcols * 2, ny = (size_t)A.nbrows * 2;
  std::vector<double> x(nx), in(ny, 0.0), out(ny);
  for (double &v : x) v = uniform(rng, -1, 1);
  device_array dx(nx + 1), dy(ny);
  CUDA_ASSERT(dx.status);
  CUDA_ASSERT(dy.status);
  CUDA_ASSERT(cudaMemcpy(dx.ptr + 1, x.data(), nx * sizeof(double), cudaMemcpyHostToDevice));
  for (bsrc_cuda_kernel k : {BSRC_CUDA_KERNEL_WARP_ROW, BSRC_CUDA_KERNEL_HYBRID, BSRC_CUDA_KERNEL_SEGMENTED, BSRC_CUDA_KERNEL_SLICED}) {
    SCOPED_TRACE(case_name(A) + "/x 8-byte aligned/" + bsrc_cuda_kernel_names[k]);
    const bsrc_cuda_status s = bsrc_cuda_multadd_device(M, k, 1.5, dx.ptr + 1, 0.0, nullptr, dy.ptr);
    EXPECT_EQ(s, BSRC_CUDA_OK) << bsrc_cuda_last_error(M);
    if (s != BSRC_CUDA_OK) continue;
    CUDA_ASSERT(cudaMemcpy(out.data(), dy.ptr, ny * sizeof(double), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(compare(A, 1.5, x, 0.0, in, out));
  }
}

using Updates = CudaTest;

/* set_values again (same structure): the products that keep derived copies (cuSPARSE row-major /
   CSR) must see the new values. */
TEST_F(Updates, NewValues)
{
  host_matrix A = random_matrix("update", 30, 30, 4, 4, 0.1, rng);
  ASSERT_TRUE(upload(M, A));
  expect_all_products(M, A, "first values/" + case_name(A), rng); /* builds the derived copies */
  fill_values(A, rng);
  ASSERT_EQ(bsrc_cuda_set_values(M, A.values.data()), BSRC_CUDA_OK) << "set_values again: " << bsrc_cuda_last_error(M);
  expect_all_products(M, A, "set_values again/" + case_name(A), rng);
}

/* set_structure + set_values with another matrix after products on a first one. */
TEST_F(Updates, NewStructure)
{
  const host_matrix A = random_matrix("update", 30, 30, 4, 4, 0.1, rng);
  ASSERT_TRUE(upload(M, A));
  expect_all_products(M, A, case_name(A), rng);
  const host_matrix B = random_matrix("update2", 45, 20, 3, 6, 0.2, rng);
  ASSERT_TRUE(upload(M, B)) << "set_structure again";
  expect_all_products(M, B, "set_structure again/" + case_name(B), rng);
  const int layout = bsrc_cuda_spmv_bsr_layout(M);
  printf("  cusparse_spmv_bsr layout (bs 3): %d (1 column-major blocks in place, 0 row-major copy, 2 CSR)%s%s\n", layout, layout == 0 ? ": " : "", layout == 0 ? bsrc_cuda_last_error(M) : "");
}

} // namespace
} // namespace cudatest
