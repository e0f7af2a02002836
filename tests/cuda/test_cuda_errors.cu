/*
   Bad input to the CUDA layer gets an error status with a message, never a crash, and leaves the
   matrix usable; running out of device memory is reported; device memory returns to its baseline
   after create/destroy cycles.
*/
#include <cstdio>
#include <cstring>

#include "cuda_test_hooks.h"
#include "cuda_test_support.h"

namespace cudatest {
namespace {

using Errors = CudaTest;

TEST_F(Errors, Create)
{
  bsrc_cuda_matrix *N = nullptr;
  EXPECT_EQ(bsrc_cuda_create(0, nullptr), BSRC_CUDA_ERR_ARG) << "create NULL output";
  EXPECT_TRUE(bsrc_cuda_create(-1, &N) == BSRC_CUDA_ERR_ARG && !N && strlen(bsrc_cuda_last_error(nullptr)) > 0) << "create device -1: expected ERR_ARG with a message";
  printf("  message: %s\n", bsrc_cuda_last_error(nullptr));
  EXPECT_EQ(bsrc_cuda_create(bsrc_cuda_device_count() + 3, &N), BSRC_CUDA_ERR_ARG) << "create device out of range";
  EXPECT_EQ(bsrc_cuda_set_structure(nullptr, 1, 1, 1, nullptr, nullptr), BSRC_CUDA_ERR_ARG) << "set_structure NULL matrix";
  bsrc_cuda_destroy(N);
}

/* Structures that are refused, then a valid one: the matrix is usable after the errors. */
TEST_F(Errors, Structure)
{
  const bsrk_idx rp[] = {0, 1, 2}, bad[] = {0, 2, 1}, ci[] = {0, 1}, cbad[] = {0, 5};
  const double   vals[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(bsrc_cuda_set_values(M, vals), BSRC_CUDA_ERR_ARG) << "set_values before set_structure: " << bsrc_cuda_last_error(M);
  EXPECT_TRUE(bsrc_cuda_set_structure(M, 2, 2, 0, rp, ci) == BSRC_CUDA_ERR_ARG && strstr(bsrc_cuda_last_error(M), "block size")) << "block size 0: " << bsrc_cuda_last_error(M);
  printf("  message: %s\n", bsrc_cuda_last_error(M));
  EXPECT_EQ(bsrc_cuda_set_structure(M, -1, 2, 1, rp, ci), BSRC_CUDA_ERR_ARG) << "negative rows: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_set_structure(M, 2, 2, 1, bad, ci), BSRC_CUDA_ERR_ARG) << "rowptr decreasing: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_set_structure(M, 2, 2, 1, rp, cbad), BSRC_CUDA_ERR_ARG) << "colidx out of range: " << bsrc_cuda_last_error(M);
  printf("  message: %s\n", bsrc_cuda_last_error(M));
  EXPECT_EQ(bsrc_cuda_set_structure(M, 2, 2, 1, rp, nullptr), BSRC_CUDA_ERR_ARG) << "colidx NULL: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_set_structure(M, 2, 2, 2, rp, ci), BSRC_CUDA_OK) << "valid structure after errors: " << bsrc_cuda_last_error(M);
}

/* Products and settings that are refused: before the values, unknown kernel, beta without in, NULL
   vectors, thread counts a kernel does not take, a CSR algorithm cuSPARSE does not have. */
TEST_F(Errors, Products)
{
  const bsrk_idx rp[] = {0, 1, 2}, ci[] = {0, 1};
  const double   vals[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  device_array   dx(8), dy(8);
  CUDA_ASSERT(dx.status);
  CUDA_ASSERT(dy.status);
  CUDA_ASSERT(cudaMemset(dx.ptr, 0, 8 * sizeof(double)));
  CUDA_ASSERT(cudaDeviceSynchronize());
  ASSERT_EQ(bsrc_cuda_set_structure(M, 2, 2, 2, rp, ci), BSRC_CUDA_OK) << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_multadd_device(M, BSRC_CUDA_KERNEL_AUTO, 1.0, dx.ptr, 0.0, nullptr, dy.ptr), BSRC_CUDA_ERR_ARG) << "product before set_values: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_set_values(M, nullptr), BSRC_CUDA_ERR_ARG) << "set_values NULL: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_set_values(M, vals), BSRC_CUDA_OK) << "set_values: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_multadd_device(M, (bsrc_cuda_kernel)99, 1.0, dx.ptr, 0.0, nullptr, dy.ptr), BSRC_CUDA_ERR_ARG) << "unknown kernel: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_multadd_device(M, BSRC_CUDA_KERNEL_WARP_ROW, 1.0, dx.ptr, 1.0, nullptr, dy.ptr), BSRC_CUDA_ERR_ARG) << "beta != 0 with in NULL: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_multadd_device(M, BSRC_CUDA_KERNEL_WARP_ROW, 1.0, nullptr, 0.0, nullptr, dy.ptr), BSRC_CUDA_ERR_ARG) << "x NULL: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_multadd_host(M, BSRC_CUDA_KERNEL_WARP_ROW, 1.0, vals, 0.0, nullptr, nullptr), BSRC_CUDA_ERR_ARG) << "out NULL (host): " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_set_threads(M, BSRC_CUDA_KERNEL_VECTOR_UNROLLED, 33), BSRC_CUDA_ERR_ARG) << "threads 33: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_set_threads(M, BSRC_CUDA_KERNEL_CUSPARSE_BSRMV, 64), BSRC_CUDA_ERR_ARG) << "threads for cuSPARSE: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(run_baseline(M, 3, 1.0, dx.ptr, 0.0, nullptr, dy.ptr), BSRC_CUDA_ERR_ARG) << "csr alg 3: " << bsrc_cuda_last_error(M);
}

/* Out of device memory: a petabyte through the matrix's own allocation path; the byte count is
   unchanged and the matrix still works afterwards. */
TEST_F(Errors, OutOfDeviceMemory)
{
  const size_t           absurd = (size_t)1 << 50;
  const size_t           before = bsrc_cuda_device_bytes(M);
  const bsrc_cuda_status s      = cuda_test_try_alloc(M, absurd);
  printf("  message: %s\n", bsrc_cuda_last_error(M));
  EXPECT_TRUE(s == BSRC_CUDA_ERR_MEM && strstr(bsrc_cuda_last_error(M), "out of memory") != nullptr) << "out of device memory: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_device_bytes(M), before) << "device bytes changed after the failed allocation";
  const host_matrix A = random_matrix("after_oom", 6, 6, 2, 2, 0.0, rng);
  ASSERT_TRUE(upload(M, A)) << "usable after out-of-memory";
  EXPECT_TRUE(check_product(M, A, BSRC_CUDA_KERNEL_VECTOR_UNROLLED, rng)) << "usable after out-of-memory";
}

/* bsrc_cuda_destroy(NULL) does nothing (a crash fails the case). */
TEST_F(Errors, DestroyNull)
{
  bsrc_cuda_destroy(nullptr);
  SUCCEED();
}

/* One create / upload / every product / destroy cycle; false where a step failed. */
::testing::AssertionResult leak_cycle(const host_matrix &A)
{
  bsrc_cuda_matrix *N = nullptr;
  if (bsrc_cuda_create(0, &N) != BSRC_CUDA_OK) return ::testing::AssertionFailure() << "create: " << bsrc_cuda_last_error(nullptr);
  ::testing::AssertionResult ok = upload(N, A);
  std::vector<double>        x((size_t)A.nbcols * A.bs, 1.0), y((size_t)A.nbrows * A.bs);
  for (int p = 0; p < BSRC_CUDA_KERNEL_COUNT && ok; ++p)
    if (bsrc_cuda_multadd_host(N, (bsrc_cuda_kernel)p, 1.0, x.data(), 0.0, nullptr, y.data()) != BSRC_CUDA_OK) ok = ::testing::AssertionFailure() << product_name(p) << ": " << bsrc_cuda_last_error(N);
  {
    device_array dx(x.size()), dy(y.size());
    if (ok && (dx.status != cudaSuccess || dy.status != cudaSuccess || cudaMemset(dx.ptr, 0, x.size() * sizeof(double)) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)) ok = ::testing::AssertionFailure() << "device vectors";
    for (int p : {(int)BENCH_BSRMV_ROW, (int)BENCH_CSR_ALG1, (int)BENCH_CSR_ALG2})
      if (ok && run_baseline(N, p, 1.0, dx.ptr, 0.0, nullptr, dy.ptr) != BSRC_CUDA_OK) ok = ::testing::AssertionFailure() << product_name(p) << ": " << bsrc_cuda_last_error(N);
    if (ok && cudaStreamSynchronize((cudaStream_t)bsrc_cuda_stream(N)) != cudaSuccess) ok = ::testing::AssertionFailure() << "cudaStreamSynchronize";
    if (ok) printf("  leak cycle: matrix held %.1f MiB of device memory\n", bsrc_cuda_device_bytes(N) / 1048576.0);
  }
  bsrc_cuda_destroy(N);
  return ok;
}

using Leaks = CudaTest;

/* Device memory returns to its baseline after destroy (cudaMemGetInfo; the allocator's granularity
   is 2 MiB, so a matrix of ~64 MiB makes any leak of its storage visible). */
TEST_F(Leaks, DeviceMemoryBackToBaseline)
{
  SKIP_IN_QUICK_MODE();
  const host_matrix A     = random_matrix("leak", 4000, 4000, 8, 16, 0.0, rng); /* ~64000 blocks x 512 B */
  size_t            free0 = 0, free1 = 0, total = 0;
  ASSERT_TRUE(leak_cycle(A)) << "first cycle"; /* lazy initialisation (cuSPARSE library, module loading) */
  CUDA_ASSERT(cudaDeviceSynchronize());
  CUDA_ASSERT(cudaMemGetInfo(&free0, &total));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(leak_cycle(A)) << "cycle " << i + 2;
  CUDA_ASSERT(cudaDeviceSynchronize());
  CUDA_ASSERT(cudaMemGetInfo(&free1, &total));
  const double delta = ((double)free0 - (double)free1) / 1048576.0;
  printf("  device memory free before %.1f MiB, after 3 create/destroy cycles %.1f MiB (delta %.1f MiB)\n", free0 / 1048576.0, free1 / 1048576.0, delta);
  EXPECT_LE(delta, 2.0) << "MiB of device memory not returned";
}

} // namespace
} // namespace cudatest
