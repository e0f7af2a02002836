/*
   The numeric phase of the block sparse products on the GPU (bsrcuda_blockproduct.h) against the
   kernel layer's on the host (bsrk_block_product_numeric, itself tested against dense products in
   tests/kernels): C = A P and P^T A P for square and rectangular blocks (bs 1-6, P with c columns a
   block row: c = bs, 1, 6, 2 bs), empty rows, one-block rows, a row with every block column, an empty
   P column; A from the host and from a device matrix of bsrcuda.h; new values on the same plan; the
   same bits on a second run; a device A whose pattern is not the plan's reported, and refused
   arguments.
*/
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "bsrcuda_blockproduct.h"
#include "cuda_test_support.h"

namespace cudatest {
namespace {

/* A block matrix of rbs x cbs blocks owning its arrays. */
struct rect {
  bsrk_idx              nbrows = 0, nbcols = 0, rbs = 1, cbs = 1;
  std::vector<bsrk_idx> rowptr{0}, colidx;
  std::vector<double>   values;
  bsrk_rect_matrix      view() const { return bsrk_rect_matrix{nbrows, nbcols, rbs, cbs, rowptr.data(), colidx.data(), values.data()}; }
};

/* Row i holds lengths[i % n] distinct sorted columns out of ncols (a length past ncols: every column),
   never column `unused` (-1: none), values in [-1, 1]. */
rect make_rect(bsrk_idx nbrows, bsrk_idx nbcols, bsrk_idx rbs, bsrk_idx cbs, std::initializer_list<int> lengths, bsrk_idx unused, rng_t &rng)
{
  rect                   M;
  const std::vector<int> len(lengths);
  M.nbrows = nbrows;
  M.nbcols = nbcols;
  M.rbs    = rbs;
  M.cbs    = cbs;
  std::vector<bsrk_idx> all;
  for (bsrk_idx j = 0; j < nbcols; ++j)
    if (j != unused) all.push_back(j);
  for (bsrk_idx i = 0; i < nbrows; ++i) {
    const size_t n = std::min((size_t)len[(size_t)i % len.size()], all.size());
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<bsrk_idx> cols(all.begin(), all.begin() + n);
    std::sort(cols.begin(), cols.end());
    M.colidx.insert(M.colidx.end(), cols.begin(), cols.end());
    M.rowptr.push_back((bsrk_idx)M.colidx.size());
  }
  M.values.resize(M.colidx.size() * (size_t)rbs * (size_t)cbs);
  for (double &v : M.values) v = uniform(rng, -1.0, 1.0);
  return M;
}

void new_values(rect &M, rng_t &rng)
{
  for (double &v : M.values) v = uniform(rng, -1.0, 1.0);
}

/* The plan on the host and its result's size. */
struct host_plan {
  bsrk_block_product *plan = nullptr;
  bsrk_rect_matrix    C{};
  size_t              scalars = 0;
  ~host_plan() { bsrk_block_product_free(plan); }
};

::testing::AssertionResult make_plan(bool ptap, const rect &A, const rect &P, host_plan &h)
{
  const bsrk_rect_matrix a = A.view(), p = P.view();
  const bsrk_status      st = ptap ? bsrk_ptap_symbolic(&a, &p, 2, &h.plan) : bsrk_ap_symbolic(&a, &p, 2, &h.plan);
  if (st != BSRK_OK) return ::testing::AssertionFailure() << "symbolic phase: status " << st;
  if (bsrk_block_product_result(h.plan, &h.C) != BSRK_OK) return ::testing::AssertionFailure() << "no result";
  h.scalars = (size_t)h.C.rowptr[h.C.nbrows] * (size_t)h.C.rbs * (size_t)h.C.cbs;
  return ::testing::AssertionSuccess();
}

/* GPU against host, entry by entry, to 1e-12 of the largest entry of the host's C */
::testing::AssertionResult same_values(const std::vector<double> &gpu, const std::vector<double> &host)
{
  double scale = 0.0;
  for (double v : host) scale = std::max(scale, std::fabs(v));
  for (size_t k = 0; k < host.size(); ++k)
    if (!(std::fabs(gpu[k] - host[k]) <= 1e-12 * std::max(scale, 1.0))) return ::testing::AssertionFailure() << "value " << k << " of " << host.size() << ": GPU " << gpu[k] << ", host " << host[k];
  return ::testing::AssertionSuccess();
}

/* A device matrix of bsrcuda.h holding square A */
bsrc_cuda_matrix *device_matrix(const rect &A)
{
  bsrc_cuda_matrix *M = nullptr;
  if (bsrc_cuda_create(0, &M) != BSRC_CUDA_OK) return nullptr;
  if (bsrc_cuda_set_structure(M, A.nbrows, A.nbcols, A.rbs, A.rowptr.data(), A.colidx.data()) != BSRC_CUDA_OK || bsrc_cuda_set_values(M, A.values.data()) != BSRC_CUDA_OK) {
    bsrc_cuda_destroy(M);
    return nullptr;
  }
  return M;
}

/* A P or P^T A P on the GPU against the host, A from the host or from a device matrix, then new values on
   the same plans, then a second run for the same bits. */
void check_product(bool ptap, bsrk_idx b, bsrk_idx c, bool a_on_device, rng_t &rng)
{
  SCOPED_TRACE(::testing::Message() << (ptap ? "P^T A P" : "A P") << ", A " << b << " x " << b << ", P " << b << " x " << c << (a_on_device ? ", A on the device" : ", A from the host"));
  const bsrk_idx n = 61, nc = 23;
  /* A: an empty row, one-block rows, a row with every column; P: empty rows, one-block rows, column nc-1 unused */
  rect      A = make_rect(n, n, b, b, {3, 0, 1, 5, 2, 9, 4, 1000}, -1, rng);
  rect      P = make_rect(n, nc, b, c, {2, 0, 1, 3, 1}, nc - 1, rng);
  host_plan h;
  ASSERT_TRUE(make_plan(ptap, A, P, h));
  bsrk_block_product_layout L;
  ASSERT_EQ(bsrk_block_product_get_layout(h.plan, &L), BSRK_OK);
  const bsrk_rect_matrix a = A.view(), p = P.view();
  bsrc_cuda_matrix      *M = a_on_device ? device_matrix(A) : nullptr;
  if (a_on_device) ASSERT_NE(M, nullptr) << bsrc_cuda_last_error(nullptr);
  bsrc_cuda_block_product *D = nullptr;
  ASSERT_EQ(bsrc_cuda_block_product_create(0, &L, &a, &p, a_on_device, &D), BSRC_CUDA_OK) << bsrc_cuda_block_product_last_error(nullptr);
  EXPECT_GT(bsrc_cuda_block_product_device_bytes(D), 0u);
  std::vector<double> host(h.scalars), gpu(h.scalars, 7.0), again(h.scalars, -7.0);
  for (int round = 0; round < 2; ++round) {
    if (round == 1) { /* new values, same patterns: the same plans */
      new_values(A, rng);
      new_values(P, rng);
      if (M) ASSERT_EQ(bsrc_cuda_set_values(M, A.values.data()), BSRC_CUDA_OK);
    }
    const bsrk_rect_matrix av = A.view(), pv = P.view();
    ASSERT_EQ(bsrk_block_product_numeric(h.plan, &av, &pv, 2, host.data()), BSRK_OK);
    ASSERT_EQ(bsrc_cuda_block_product_numeric(D, M, M ? nullptr : A.values.data(), P.values.data(), gpu.data()), BSRC_CUDA_OK) << bsrc_cuda_block_product_last_error(D);
    EXPECT_TRUE(same_values(gpu, host)) << "round " << round;
  }
  ASSERT_EQ(bsrc_cuda_block_product_numeric(D, M, M ? nullptr : A.values.data(), P.values.data(), again.data()), BSRC_CUDA_OK) << bsrc_cuda_block_product_last_error(D);
  EXPECT_EQ(std::memcmp(gpu.data(), again.data(), gpu.size() * sizeof(double)), 0) << "a second run gave other bits";
  bsrc_cuda_block_product_destroy(D);
  bsrc_cuda_destroy(M);
}

class BlockProductsGPU : public CudaTest { };

TEST_F(BlockProductsGPU, SquareAndRectangularBlocks)
{
  for (bsrk_idx b = 1; b <= 6; ++b) {
    std::vector<bsrk_idx> cs = {b, 1, 6, 2 * b};
    std::sort(cs.begin(), cs.end());
    cs.erase(std::unique(cs.begin(), cs.end()), cs.end());
    for (bsrk_idx c : cs)
      for (bool ptap : {false, true}) check_product(ptap, b, c, false, rng);
  }
}

TEST_F(BlockProductsGPU, AFromItsDeviceMatrix)
{
  for (bsrk_idx b : {1, 3, 6})
    for (bsrk_idx c : {b, (bsrk_idx)6})
      for (bool ptap : {false, true}) check_product(ptap, b, c, true, rng);
}

/* A P with A empty (no blocks) and P with no blocks: C of zero blocks, nothing to move */
TEST_F(BlockProductsGPU, EmptyOperands)
{
  rect      A = make_rect(9, 9, 3, 3, {0}, -1, rng), P = make_rect(9, 4, 3, 6, {0}, -1, rng);
  host_plan h;
  ASSERT_TRUE(make_plan(true, A, P, h));
  bsrk_block_product_layout L;
  ASSERT_EQ(bsrk_block_product_get_layout(h.plan, &L), BSRK_OK);
  const bsrk_rect_matrix   a = A.view(), p = P.view();
  bsrc_cuda_block_product *D = nullptr;
  ASSERT_EQ(bsrc_cuda_block_product_create(0, &L, &a, &p, 0, &D), BSRC_CUDA_OK) << bsrc_cuda_block_product_last_error(nullptr);
  EXPECT_EQ(bsrc_cuda_block_product_numeric(D, nullptr, nullptr, nullptr, nullptr), BSRC_CUDA_OK) << bsrc_cuda_block_product_last_error(D);
  bsrc_cuda_block_product_destroy(D);
}

/* A device matrix of the plan's shape and block count whose columns moved: reported, and nothing is
   written outside C (compute-sanitizer's memcheck runs these cases too) */
TEST_F(BlockProductsGPU, DevicePatternNotThePlans)
{
  rect      A = make_rect(40, 40, 3, 3, {3, 2, 4}, -1, rng), P = make_rect(40, 11, 3, 6, {1, 2}, 10, rng);
  host_plan h;
  ASSERT_TRUE(make_plan(true, A, P, h));
  bsrk_block_product_layout L;
  ASSERT_EQ(bsrk_block_product_get_layout(h.plan, &L), BSRK_OK);
  const bsrk_rect_matrix   a = A.view(), p = P.view();
  bsrc_cuda_block_product *D = nullptr;
  ASSERT_EQ(bsrc_cuda_block_product_create(0, &L, &a, &p, 1, &D), BSRC_CUDA_OK) << bsrc_cuda_block_product_last_error(nullptr);
  rect moved = A; /* every row's columns shifted by 7: the same counts, other columns */
  for (bsrk_idx i = 0; i < moved.nbrows; ++i) {
    for (bsrk_idx k = moved.rowptr[i]; k < moved.rowptr[i + 1]; ++k) moved.colidx[k] = (moved.colidx[k] + 7) % moved.nbcols;
    std::sort(moved.colidx.begin() + moved.rowptr[i], moved.colidx.begin() + moved.rowptr[i + 1]);
  }
  bsrc_cuda_matrix *M = device_matrix(moved);
  ASSERT_NE(M, nullptr) << bsrc_cuda_last_error(nullptr);
  std::vector<double> C(h.scalars);
  EXPECT_EQ(bsrc_cuda_block_product_numeric(D, M, nullptr, P.values.data(), C.data()), BSRC_CUDA_ERR_ARG);
  EXPECT_NE(std::strstr(bsrc_cuda_block_product_last_error(D), "not the one planned"), nullptr) << bsrc_cuda_block_product_last_error(D);
  /* the plan still works with the right A afterwards */
  ASSERT_EQ(bsrc_cuda_set_structure(M, A.nbrows, A.nbcols, A.rbs, A.rowptr.data(), A.colidx.data()), BSRC_CUDA_OK);
  ASSERT_EQ(bsrc_cuda_set_values(M, A.values.data()), BSRC_CUDA_OK);
  std::vector<double> host(h.scalars);
  ASSERT_EQ(bsrk_block_product_numeric(h.plan, &a, &p, 1, host.data()), BSRK_OK);
  ASSERT_EQ(bsrc_cuda_block_product_numeric(D, M, nullptr, P.values.data(), C.data()), BSRC_CUDA_OK) << bsrc_cuda_block_product_last_error(D);
  EXPECT_TRUE(same_values(C, host));
  bsrc_cuda_block_product_destroy(D);
  bsrc_cuda_destroy(M);
}

TEST_F(BlockProductsGPU, RefusedArguments)
{
  rect      A = make_rect(12, 12, 2, 2, {2, 1}, -1, rng), P = make_rect(12, 5, 2, 3, {1}, -1, rng), B = make_rect(12, 12, 3, 3, {2}, -1, rng);
  host_plan h;
  ASSERT_TRUE(make_plan(false, A, P, h));
  bsrk_block_product_layout L;
  ASSERT_EQ(bsrk_block_product_get_layout(h.plan, &L), BSRK_OK);
  const bsrk_rect_matrix   a = A.view(), p = P.view(), wrong = B.view();
  bsrc_cuda_block_product *D = nullptr;
  EXPECT_EQ(bsrc_cuda_block_product_create(0, nullptr, &a, &p, 0, &D), BSRC_CUDA_ERR_ARG);
  EXPECT_EQ(bsrc_cuda_block_product_create(0, &L, &a, &wrong, 0, &D), BSRC_CUDA_ERR_ARG); /* P not of the plan's shape */
  EXPECT_EQ(bsrc_cuda_block_product_create(0, &L, &wrong, &p, 0, &D), BSRC_CUDA_ERR_ARG); /* A likewise */
  EXPECT_EQ(D, nullptr);
  ASSERT_EQ(bsrc_cuda_block_product_create(0, &L, &a, &p, 1, &D), BSRC_CUDA_OK) << bsrc_cuda_block_product_last_error(nullptr);
  std::vector<double> C(h.scalars);
  EXPECT_EQ(bsrc_cuda_block_product_numeric(D, nullptr, A.values.data(), P.values.data(), C.data()), BSRC_CUDA_ERR_ARG); /* its A is a device matrix */
  bsrc_cuda_matrix *M = device_matrix(B);                                                                                /* of another block size */
  ASSERT_NE(M, nullptr);
  EXPECT_EQ(bsrc_cuda_block_product_numeric(D, M, nullptr, P.values.data(), C.data()), BSRC_CUDA_ERR_ARG);
  EXPECT_EQ(bsrc_cuda_block_product_numeric(nullptr, M, nullptr, P.values.data(), C.data()), BSRC_CUDA_ERR_ARG);
  bsrc_cuda_destroy(M);
  bsrc_cuda_block_product_destroy(D);
  bsrc_cuda_block_product_destroy(nullptr);
}

} // namespace
} // namespace cudatest
