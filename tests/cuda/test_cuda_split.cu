/*
   The split product of an MPI rank (bsrc_cuda_split_begin/end): local block L and ghost block G
   against the reference on F = [L G] with x = [x_local; x_ghost]; its misuse (end without begin,
   begin twice, a ghost block of other rows) is refused and leaves the pair usable.
*/
#include <cmath>
#include <cstring>

#include "cuda_test_support.h"

namespace cudatest {
namespace {

struct split_shape {
  const char *name;
  bsrk_idx    nbrows, nloc, nghost, bs;
  int         mean;
};

/* F = [L G] row by row (G empty where there are no ghost columns). */
host_matrix joined(const split_shape &sh, const host_matrix &L, const host_matrix &G)
{
  host_matrix F;
  F.nbrows         = sh.nbrows;
  F.nbcols         = sh.nloc + sh.nghost;
  F.bs             = sh.bs;
  const size_t bs2 = (size_t)sh.bs * sh.bs;
  for (bsrk_idx i = 0; i < sh.nbrows; ++i) {
    for (bsrk_idx k = L.rowptr[i]; k < L.rowptr[i + 1]; ++k) {
      F.colidx.push_back(L.colidx[k]);
      F.values.insert(F.values.end(), L.values.begin() + k * bs2, L.values.begin() + (k + 1) * bs2);
    }
    if (sh.nghost)
      for (bsrk_idx k = G.rowptr[i]; k < G.rowptr[i + 1]; ++k) {
        F.colidx.push_back(sh.nloc + G.colidx[k]);
        F.values.insert(F.values.end(), G.values.begin() + k * bs2, G.values.begin() + (k + 1) * bs2);
      }
    F.rowptr.push_back((bsrk_idx)F.colidx.size());
  }
  return F;
}

class SplitProduct : public CudaTest, public ::testing::WithParamInterface<split_shape> {
protected:
  void SetUp() override
  {
    CudaTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const split_shape &sh = GetParam();
    if (sh.nbrows > 100000) SKIP_IN_QUICK_MODE();
    /* random_matrix shuffles every column per row: fine for small shapes; the large one is drawn row by row */
    const bool big = sh.nbrows > 100000;
    L              = big ? sparse_random_matrix("split_local", sh.nbrows, sh.nloc, sh.bs, sh.mean, rng) : random_matrix("split_local", sh.nbrows, sh.nloc, sh.bs, sh.mean, 0.1, rng);
    if (sh.nghost) G = big ? sparse_random_matrix("split_ghost", sh.nbrows, sh.nghost, sh.bs, 1, rng) : random_matrix("split_ghost", sh.nbrows, sh.nghost, sh.bs, 2, 0.3, rng);
    F = joined(sh, L, G);
    ASSERT_EQ(bsrc_cuda_create(0, &MG), BSRC_CUDA_OK) << "create: " << bsrc_cuda_last_error(nullptr);
    ASSERT_TRUE(upload(M, L)) << "local";
    if (sh.nghost) ASSERT_TRUE(upload(MG, G)) << "ghost";
  }
  void TearDown() override
  {
    bsrc_cuda_destroy(MG);
    CudaTest::TearDown();
  }
  /* one split product into out (or, alias, into in) against F's reference */
  void expect_split(bsrc_cuda_kernel k, const ab_pair &ab, bool alias)
  {
    const split_shape  &sh = GetParam();
    std::vector<double> x(F.nbcols * sh.bs), in(sh.nbrows * sh.bs), out(sh.nbrows * sh.bs, NAN);
    for (double &v : x) v = uniform(rng, -1, 1);
    for (double &v : in) v = uniform(rng, -1, 1);
    const std::vector<double> in0 = in;
    double                   *dst = alias ? in.data() : out.data();
    SCOPED_TRACE(std::string("split/") + sh.name + "/" + bsrc_cuda_kernel_names[k] + "/alpha" + std::to_string(ab.alpha) + "/beta" + std::to_string(ab.beta) + (alias ? "/in=out" : ""));
    bsrc_cuda_status st = bsrc_cuda_split_begin(M, k, ab.alpha, x.data(), ab.beta, ab.beta != 0.0 ? in.data() : nullptr);
    if (st == BSRC_CUDA_OK) st = bsrc_cuda_split_end(M, sh.nghost ? MG : nullptr, k, ab.alpha, x.data() + sh.nloc * sh.bs, dst);
    EXPECT_EQ(st, BSRC_CUDA_OK) << bsrc_cuda_last_error(M);
    if (st == BSRC_CUDA_OK) EXPECT_TRUE(compare(F, ab.alpha, x, ab.beta, in0, alias ? in : out));
  }

  host_matrix       L, G, F;
  bsrc_cuda_matrix *MG = nullptr; /* M holds L */
};

TEST_P(SplitProduct, MatchesJoinedReference)
{
  for (bsrc_cuda_kernel k : {BSRC_CUDA_KERNEL_AUTO, BSRC_CUDA_KERNEL_VECTOR_UNROLLED, BSRC_CUDA_KERNEL_WARP_ROW, BSRC_CUDA_KERNEL_CUSPARSE_BSRMV}) {
    for (const ab_pair &ab : all_ab_pairs())
      for (int alias = 0; alias < 2; ++alias) expect_split(k, ab, alias);
    if (quick_mode()) break;
  }
}

/* End without begin, begin twice; with ghost columns, a ghost block of other rows (and the pair works
   again afterwards). */
TEST_P(SplitProduct, MisuseIsRefused)
{
  const split_shape  &sh = GetParam();
  std::vector<double> x(F.nbcols * sh.bs, 1.0), y(sh.nbrows * sh.bs);
  EXPECT_EQ(bsrc_cuda_split_end(M, MG, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), y.data()), BSRC_CUDA_ERR_ARG) << sh.name << "/end without begin";
  const bool twice = bsrc_cuda_split_begin(M, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), 0.0, nullptr) == BSRC_CUDA_OK && bsrc_cuda_split_begin(M, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), 0.0, nullptr) == BSRC_CUDA_ERR_ARG && bsrc_cuda_split_end(M, nullptr, BSRC_CUDA_KERNEL_AUTO, 1.0, nullptr, y.data()) == BSRC_CUDA_OK;
  EXPECT_TRUE(twice) << sh.name << "/begin twice: expected OK, ERR_ARG, then OK";
  if (!sh.nghost) return;
  const host_matrix other = random_matrix("split_other", 7, sh.nghost, sh.bs, 2, 0.3, rng);
  bsrc_cuda_matrix *MO    = nullptr;
  ASSERT_EQ(bsrc_cuda_create(0, &MO), BSRC_CUDA_OK) << bsrc_cuda_last_error(nullptr);
  const ::testing::AssertionResult up = upload(MO, other);
  if (up) {
    const bool             b = bsrc_cuda_split_begin(M, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), 0.0, nullptr) == BSRC_CUDA_OK;
    const bsrc_cuda_status e = bsrc_cuda_split_end(M, MO, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), y.data());
    EXPECT_TRUE(b && e == BSRC_CUDA_ERR_ARG && strstr(bsrc_cuda_last_error(M), "block rows")) << sh.name << "/ghost rows differ: expected ERR_ARG naming the block rows, got " << status_text(e, M);
    std::vector<double> out(sh.nbrows * sh.bs);
    const bool          again = bsrc_cuda_split_begin(M, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data(), 0.0, nullptr) == BSRC_CUDA_OK && bsrc_cuda_split_end(M, MG, BSRC_CUDA_KERNEL_AUTO, 1.0, x.data() + sh.nloc * sh.bs, out.data()) == BSRC_CUDA_OK;
    EXPECT_TRUE(again && compare(F, 1.0, x, 0.0, {}, out)) << sh.name << "/usable after an error: " << bsrc_cuda_last_error(M);
  }
  bsrc_cuda_destroy(MO);
  ASSERT_TRUE(up);
}

const split_shape split_shapes[] = {{"small", 37, 41, 9, 3, 5}, {"no_ghost_cols", 20, 20, 0, 2, 4}, {"large", 120001, 120001, 3001, 4, 3}, {"bs5", 503, 503, 77, 5, 20}};

INSTANTIATE_TEST_SUITE_P(Shapes, SplitProduct, ::testing::ValuesIn(split_shapes), [](const ::testing::TestParamInfo<split_shape> &info) { return std::string(info.param.name); });

} // namespace
} // namespace cudatest
