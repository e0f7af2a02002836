// Tests of the transposed copy (bsrk_transpose_*) and the block SpMM (bsrk_tasks_spmm):
//  - the copy's product (reference and task kernel) against A^T x computed straight from A's blocks,
//    and after new values through the stored permutation;
//  - SpMM against bsrk_reference_multadd column by column, with leading dimensions larger than the
//    column length, alpha/beta, In aliasing Y, 1-3 threads (2 also on the passive team) and several
//    task counts.
// Block sizes 1-8 and 11; empty rows, empty columns and very long rows.
#include "bsrk_products.h"

#include "test_bsr.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace {

using Idx = bsrk_idx;

const double kTol = 1e-13;

using test_bsr::Bsr;
using test_bsr::make_bsr;

// Row counts with the shapes of interest: mostly short rows, every seventh empty, one very long (all
// block columns). Columns that no row picks give empty rows of A^T.
std::vector<Idx> shape_counts(Idx nbrows, Idx nbcols, std::mt19937_64 &rng)
{
  std::vector<Idx> c(nbrows);
  for (Idx r = 0; r < nbrows; ++r) c[r] = (r % 7 == 3) ? 0 : 1 + (Idx)(rng() % 6);
  if (nbrows > 2) c[nbrows / 2] = nbcols;
  return c;
}

std::vector<double> random_vec(size_t n, std::mt19937_64 &rng)
{
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<double>                    v(n);
  for (auto &x : v) x = val(rng);
  return v;
}

// out = alpha A^T x + beta in, straight from A's blocks (entry (r,c) of block k at k*bs2 + c*bs + r)
std::vector<double> dense_transpose_product(const Bsr &A, double alpha, const std::vector<double> &x, double beta, const std::vector<double> &in)
{
  const int64_t       bs = A.bs;
  std::vector<double> s((size_t)A.nbcols * bs, 0.0), out(s.size());
  for (Idx br = 0; br < A.nbrows; ++br)
    for (Idx k = A.rowptr[br]; k < A.rowptr[br + 1]; ++k)
      for (int64_t r = 0; r < bs; ++r)
        for (int64_t c = 0; c < bs; ++c) s[(size_t)A.colidx[k] * bs + c] += A.values[(size_t)k * bs * bs + c * bs + r] * x[(size_t)br * bs + r];
  for (size_t i = 0; i < s.size(); ++i) out[i] = beta == 0.0 ? alpha * s[i] : alpha * s[i] + beta * in[i];
  return out;
}

void expect_close(const std::vector<double> &got, const std::vector<double> &want, const std::string &what)
{
  ASSERT_EQ(got.size(), want.size()) << what;
  double nrm = 0.0, err = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    nrm = std::max(nrm, std::fabs(want[i]));
    err = std::max(err, std::fabs(got[i] - want[i]));
  }
  EXPECT_LE(err, kTol * std::max(nrm, 1.0)) << what;
}

struct Partition {
  bsrk_partition p{};
  ~Partition() { bsrk_partition_free(&p); }
};

class TransposeCopy : public ::testing::TestWithParam<Idx> { };

TEST_P(TransposeCopy, MatchesDenseTransposeProduct)
{
  const Idx       bs = GetParam();
  std::mt19937_64 rng(1000 + bs);
  for (auto [nbrows, nbcols] : std::vector<std::pair<Idx, Idx>>{{1, 1}, {37, 23}, {23, 61}, {200, 200}}) {
    Bsr            A = make_bsr(shape_counts(nbrows, nbcols, rng), nbcols, bs, rng);
    bsrk_transpose T{};
    bsrk_matrix    Av = A.view();
    ASSERT_EQ(bsrk_transpose_build(&Av, &T), BSRK_OK);
    ASSERT_EQ(T.M.nbrows, nbcols);
    ASSERT_EQ(T.M.nbcols, nbrows);
    ASSERT_EQ(T.nblocks, A.nblocks());
    for (Idx r = 0; r < T.M.nbrows; ++r)
      for (Idx k = T.rowptr[r] + 1; k < T.rowptr[r + 1]; ++k) ASSERT_LT(T.colidx[k - 1], T.colidx[k]);
    const auto x  = random_vec((size_t)nbrows * bs, rng);
    const auto in = random_vec((size_t)nbcols * bs, rng);
    for (int round = 0; round < 2; ++round) {
      if (round == 1) { // new values, same structure: refreshed through the permutation
        for (auto &v : A.values) v = 2.0 * v - 0.25;
        Av = A.view();
        ASSERT_EQ(bsrk_transpose_values(&Av, &T, 2), BSRK_OK);
      }
      for (auto [alpha, beta] : std::vector<std::pair<double, double>>{{1.0, 0.0}, {-0.5, 1.0}, {2.0, -3.0}}) {
        const auto          want = dense_transpose_product(A, alpha, x, beta, in);
        const std::string   what = "bs " + std::to_string(bs) + " " + std::to_string(nbrows) + "x" + std::to_string(nbcols) + " round " + std::to_string(round) + " alpha " + std::to_string(alpha) + " beta " + std::to_string(beta);
        std::vector<double> ref(want.size(), -7.0);
        bsrk_reference_multadd(&T.M, alpha, x.data(), beta, in.data(), ref.data());
        expect_close(ref, want, what + " (reference on the copy)");
        for (int threads : {1, 2, 3})
          for (Idx ntasks : {1, 5, 64}) {
            Partition P;
            ASSERT_EQ(bsrk_partition_build(T.M.nbrows, T.M.rowptr, ntasks, &P.p), BSRK_OK);
            std::vector<double> ws(bsrk_tasks_workspace_bytes(&P.p, bs) / sizeof(double) + 1);
            std::vector<double> out(want.size(), 99.0);
            ASSERT_EQ(bsrk_tasks_multadd(&T.M, &P.p, threads, 1, 0, BSRK_SHARED_ROWS_CARRY, alpha, x.data(), beta, in.data(), out.data(), ws.data()), BSRK_OK);
            expect_close(out, want, what + " tasks " + std::to_string(ntasks) + " threads " + std::to_string(threads));
          }
      }
    }
    bsrk_transpose_free(&T);
  }
}

TEST(TransposeCopyEdge, EmptyAndRejected)
{
  Bsr            A; // 0 x 0
  bsrk_transpose T{};
  bsrk_matrix    v = A.view();
  EXPECT_EQ(bsrk_transpose_build(&v, &T), BSRK_OK);
  EXPECT_EQ(T.M.nbrows, 0);
  bsrk_transpose_free(&T);
  std::mt19937_64 rng(5);
  Bsr             B = make_bsr({0, 0, 0}, 4, 3, rng); // rows without blocks: A^T is 4 empty rows
  v                 = B.view();
  ASSERT_EQ(bsrk_transpose_build(&v, &T), BSRK_OK);
  EXPECT_EQ(T.M.nbrows, 4);
  EXPECT_EQ(T.nblocks, 0);
  for (Idx r = 0; r <= 4; ++r) EXPECT_EQ(T.rowptr[r], 0);
  bsrk_transpose_free(&T);
  Bsr C       = make_bsr({2, 1}, 3, 2, rng);
  C.colidx[0] = 5; // out of range
  v           = C.view();
  EXPECT_EQ(bsrk_transpose_build(&v, &T), BSRK_ERR_ARG);
  EXPECT_EQ(T.rowptr, nullptr);
}

INSTANTIATE_TEST_SUITE_P(BlockSizes, TransposeCopy, ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 11));

// the third parameter: the portable column chunks (0) or the AVX2 + FMA ones (1)
class SpMM : public ::testing::TestWithParam<std::tuple<Idx, Idx, int>> {
protected:
  void TearDown() override { bsrk_spmm_use_avx2(1); } // back to the default choice
};

TEST_P(SpMM, MatchesColumnByColumnReference)
{
  const auto [bs, k, avx2] = GetParam();
  if (bsrk_spmm_use_avx2(avx2) != avx2) GTEST_SKIP() << "this CPU lacks AVX2 or FMA";
  std::mt19937_64 rng(77 * bs + k);
  for (auto [nbrows, nbcols] : std::vector<std::pair<Idx, Idx>>{{1, 1}, {41, 29}, {120, 120}}) {
    const Bsr     A = make_bsr(shape_counts(nbrows, nbcols, rng), nbcols, bs, rng);
    const int64_t m = (int64_t)nbrows * bs, n = (int64_t)nbcols * bs;
    const int64_t ldx = n + 3, ldin = m + 5, ldy = m + 2; // leading dimensions beyond the column length
    const auto    X    = random_vec((size_t)(ldx * k), rng);
    const auto    In   = random_vec((size_t)(ldin * k), rng);
    const auto    Yin  = random_vec((size_t)(ldy * k), rng);
    const auto    view = A.view();
    for (auto [alpha, beta] : std::vector<std::pair<double, double>>{{1.0, 0.0}, {-0.5, 1.0}, {2.0, -3.0}}) {
      // the reference, column by column
      std::vector<double> want(ldy * k, 0.0);
      for (Idx j = 0; j < k; ++j) bsrk_reference_multadd(&view, alpha, X.data() + j * ldx, beta, In.data() + j * ldin, want.data() + j * ldy);
      std::vector<double> want_alias(ldy * k, 0.0);
      for (Idx j = 0; j < k; ++j) bsrk_reference_multadd(&view, alpha, X.data() + j * ldx, beta, Yin.data() + j * ldy, want_alias.data() + j * ldy);
      for (int threads : {1, 2, 3})
        for (Idx ntasks : {1, 7, 64}) {
          Partition P;
          ASSERT_EQ(bsrk_partition_build(A.nbrows, A.rowptr.data(), ntasks, &P.p), BSRK_OK);
          std::vector<double> ws(bsrk_spmm_workspace_bytes(&view, &P.p, k) / sizeof(double) + 1);
          const std::string   what = std::string(avx2 ? "avx2 " : "portable ") + "bs " + std::to_string(bs) + " k " + std::to_string(k) + " " + std::to_string(nbrows) + "x" + std::to_string(nbcols) + " alpha " + std::to_string(alpha) + " beta " + std::to_string(beta) + " tasks " + std::to_string(ntasks) + " threads " + std::to_string(threads);
          std::vector<double> Y(ldy * k, 1234.5); // the padding beyond each column must stay
          ASSERT_EQ(bsrk_tasks_spmm(&view, &P.p, threads, k, alpha, X.data(), ldx, beta, In.data(), ldin, Y.data(), ldy, ws.data()), BSRK_OK);
          for (Idx j = 0; j < k; ++j) {
            std::vector<double> got(Y.begin() + j * ldy, Y.begin() + j * ldy + m), exp(want.begin() + j * ldy, want.begin() + j * ldy + m);
            expect_close(got, exp, what + " column " + std::to_string(j));
            for (int64_t i = m; i < ldy; ++i) ASSERT_EQ(Y[j * ldy + i], 1234.5) << what << ": wrote past the column";
          }
          std::vector<double> Ya = Yin; // In aliasing Y; two threads: on the passive team too
          ASSERT_EQ(bsrk_tasks_spmm_on(&view, &P.p, threads == 2 ? BSRK_THREADS_PASSIVE : BSRK_THREADS_OPENMP, threads, k, alpha, X.data(), ldx, beta, Ya.data(), ldy, Ya.data(), ldy, ws.data()), BSRK_OK);
          for (Idx j = 0; j < k; ++j) {
            std::vector<double> got(Ya.begin() + j * ldy, Ya.begin() + j * ldy + m), exp(want_alias.begin() + j * ldy, want_alias.begin() + j * ldy + m);
            expect_close(got, exp, what + " aliased, column " + std::to_string(j));
          }
          if (k == 1 && beta == 0.0) { // one column: the same bits as the task kernel on the same tasks
            std::vector<double> y1(m), wsm(bsrk_tasks_workspace_bytes(&P.p, bs) / sizeof(double) + 1);
            ASSERT_EQ(bsrk_tasks_multadd(&view, &P.p, threads, 1, 0, BSRK_SHARED_ROWS_CARRY, alpha, X.data(), 0.0, nullptr, y1.data(), wsm.data()), BSRK_OK);
            for (int64_t i = 0; i < m; ++i) EXPECT_EQ(Y[i], y1[i]) << what << " row " << i;
          }
        }
    }
  }
}

// k 6, 12, 17: the chunks of 8, 4, 2 and 1 columns after one another
INSTANTIATE_TEST_SUITE_P(BlockSizesAndColumns, SpMM, ::testing::Combine(::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 11), ::testing::Values(1, 2, 3, 6, 8, 12, 17), ::testing::Values(0, 1)));

TEST(SpMMEdge, EmptyMatrixAndZeroColumnsAndBadArguments)
{
  std::mt19937_64 rng(9);
  const Bsr       A = make_bsr({0, 0, 0, 0}, 3, 2, rng); // no blocks: Y = beta In
  Partition       P;
  ASSERT_EQ(bsrk_partition_build(A.nbrows, A.rowptr.data(), 4, &P.p), BSRK_OK);
  std::vector<double> X(6 * 2, 1.0), In(8 * 2, 2.0), Y(8 * 2, 5.0);
  const auto          view = A.view();
  std::vector<double> ws(bsrk_spmm_workspace_bytes(&view, &P.p, 2) / sizeof(double) + 1);
  double             *w = ws.data();
  ASSERT_EQ(bsrk_tasks_spmm(&view, &P.p, 2, 2, 1.0, X.data(), 6, 0.5, In.data(), 8, Y.data(), 8, w), BSRK_OK);
  for (double y : Y) EXPECT_EQ(y, 1.0);
  ASSERT_EQ(bsrk_tasks_spmm(&view, &P.p, 2, 2, 1.0, X.data(), 6, 0.0, nullptr, 0, Y.data(), 8, w), BSRK_OK);
  for (double y : Y) EXPECT_EQ(y, 0.0);
  std::vector<double> Z(8, 3.0);
  ASSERT_EQ(bsrk_tasks_spmm(&view, &P.p, 1, 0, 1.0, X.data(), 6, 0.0, nullptr, 0, Z.data(), 8, nullptr), BSRK_OK); // k = 0: nothing, no workspace needed
  for (double z : Z) EXPECT_EQ(z, 3.0);
  EXPECT_EQ(bsrk_tasks_spmm(&view, &P.p, 1, 2, 1.0, X.data(), 6, 0.0, nullptr, 0, Y.data(), 7, w), BSRK_ERR_ARG);       // ldy too small
  EXPECT_EQ(bsrk_tasks_spmm(&view, &P.p, 0, 2, 1.0, X.data(), 6, 0.0, nullptr, 0, Y.data(), 8, w), BSRK_ERR_ARG);       // no threads
  EXPECT_EQ(bsrk_tasks_spmm(&view, &P.p, 1, 2, 1.0, X.data(), 6, 0.0, nullptr, 0, Y.data(), 8, nullptr), BSRK_ERR_ARG); // no workspace
}

} // namespace
