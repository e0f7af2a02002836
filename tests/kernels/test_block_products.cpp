// Tests of the block sparse products (bsrk_blockproducts.h): C = A P and C = P^T A P in square and
// rectangular blocks, against a plain reference: the operands expanded to dense scalar matrices and
// multiplied naively in double (values to 1e-12 of the largest entry), and C's block structure
// against the boolean product of the operands' block patterns. Also: empty rows, one-block rows, a
// row with every block column, empty matrices, several random seeds; the same bits on 1, 2 and 4
// threads; a numeric phase repeated after new values equal to a fresh product; rejected input; the
// results' scalar CSR view against the blocks entry by entry.
#include "bsrk_blockproducts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace {

using Idx = bsrk_idx;

const double kRelTol = 1e-12;

// A block matrix with rbs x cbs blocks, each column-major, owning its arrays.
struct Rect {
  Idx                 nbrows = 0, nbcols = 0, rbs = 1, cbs = 1;
  std::vector<Idx>    rowptr{0};
  std::vector<Idx>    colidx;
  std::vector<double> values;

  bsrk_rect_matrix view() const { return bsrk_rect_matrix{nbrows, nbcols, rbs, cbs, rowptr.data(), colidx.data(), values.data()}; }
  Idx              nblocks() const { return rowptr.back(); }
};

// Distinct sorted random block columns, counts[r] of them in row r (at most nbcols), values in [-1, 1].
Rect make_rect(const std::vector<Idx> &counts, Idx nbcols, Idx rbs, Idx cbs, std::mt19937_64 &rng)
{
  Rect M;
  M.nbrows = (Idx)counts.size();
  M.nbcols = nbcols;
  M.rbs    = rbs;
  M.cbs    = cbs;
  M.rowptr.assign(counts.size() + 1, 0);
  std::vector<Idx> all(nbcols);
  for (Idx j = 0; j < nbcols; ++j) all[j] = j;
  for (size_t r = 0; r < counts.size(); ++r) {
    const Idx n = std::min(counts[r], nbcols);
    for (Idx i = 0; i < n; ++i) std::swap(all[i], all[i + (Idx)(rng() % (uint64_t)(nbcols - i))]);
    std::vector<Idx> cols(all.begin(), all.begin() + n);
    std::sort(cols.begin(), cols.end());
    M.colidx.insert(M.colidx.end(), cols.begin(), cols.end());
    M.rowptr[r + 1] = M.rowptr[r] + n;
  }
  M.values.resize((size_t)M.nblocks() * rbs * cbs);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (auto &v : M.values) v = val(rng);
  return M;
}

// Row lengths with the shapes of interest: every seventh row empty, every fifth one block, one row
// with every block column, the others 1..max_len blocks.
std::vector<Idx> shaped_counts(Idx nbrows, Idx nbcols, Idx max_len, std::mt19937_64 &rng)
{
  std::vector<Idx> c(nbrows);
  for (Idx r = 0; r < nbrows; ++r) c[r] = r % 7 == 3 ? 0 : r % 5 == 1 ? 1 : 1 + (Idx)(rng() % (uint64_t)max_len);
  if (nbrows > 2) c[nbrows / 2] = nbcols;
  return c;
}

// A prolongator's rows: one to three blocks (a tentative P has one, a smoothed one a few), some empty.
std::vector<Idx> prolongator_counts(Idx nbrows, std::mt19937_64 &rng)
{
  std::vector<Idx> c(nbrows);
  for (Idx r = 0; r < nbrows; ++r) c[r] = r % 11 == 5 ? 0 : 1 + (Idx)(rng() % 3);
  return c;
}

struct Dense {
  int64_t             rows = 0, cols = 0;
  std::vector<double> a; // row-major
  double             &at(int64_t i, int64_t j) { return a[(size_t)(i * cols + j)]; }
  double              at(int64_t i, int64_t j) const { return a[(size_t)(i * cols + j)]; }
};

Dense dense_of(const bsrk_rect_matrix &M, const double *values)
{
  Dense D{(int64_t)M.nbrows * M.rbs, (int64_t)M.nbcols * M.cbs, {}};
  D.a.assign((size_t)(D.rows * D.cols), 0.0);
  for (Idx br = 0; br < M.nbrows; ++br)
    for (Idx k = M.rowptr[br]; k < M.rowptr[br + 1]; ++k)
      for (int64_t j = 0; j < M.cbs; ++j)
        for (int64_t i = 0; i < M.rbs; ++i) D.at((int64_t)br * M.rbs + i, (int64_t)M.colidx[k] * M.cbs + j) = values[(size_t)k * M.rbs * M.cbs + j * M.rbs + i];
  return D;
}

Dense multiply(const Dense &X, const Dense &Y)
{
  Dense Z{X.rows, Y.cols, std::vector<double>((size_t)(X.rows * Y.cols), 0.0)};
  for (int64_t i = 0; i < X.rows; ++i)
    for (int64_t k = 0; k < X.cols; ++k) {
      const double x = X.at(i, k);
      if (x == 0.0) continue;
      for (int64_t j = 0; j < Y.cols; ++j) Z.at(i, j) += x * Y.at(k, j);
    }
  return Z;
}

Dense transpose(const Dense &X)
{
  Dense T{X.cols, X.rows, std::vector<double>(X.a.size())};
  for (int64_t i = 0; i < X.rows; ++i)
    for (int64_t j = 0; j < X.cols; ++j) T.at(j, i) = X.at(i, j);
  return T;
}

using Pattern = std::vector<std::set<Idx>>; // block columns of each block row

Pattern pattern_of(const Rect &M)
{
  Pattern p(M.nbrows);
  for (Idx r = 0; r < M.nbrows; ++r) p[r].insert(M.colidx.begin() + M.rowptr[r], M.colidx.begin() + M.rowptr[r + 1]);
  return p;
}

Pattern pattern_product(const Pattern &X, const Pattern &Y)
{
  Pattern Z(X.size());
  for (size_t i = 0; i < X.size(); ++i)
    for (Idx k : X[i]) Z[i].insert(Y[k].begin(), Y[k].end());
  return Z;
}

Pattern pattern_transpose(const Pattern &X, Idx ncols)
{
  Pattern T(ncols);
  for (size_t i = 0; i < X.size(); ++i)
    for (Idx j : X[i]) T[j].insert((Idx)i);
  return T;
}

// The product's structure and values (computed on `threads` threads), with a plan freed at the end.
struct Computed {
  bsrk_rect_matrix    C{};
  std::vector<Idx>    rowptr, colidx;
  std::vector<double> values;
  double              flops = 0.0;
  size_t              bytes = 0; // what the plan held
};

Computed compute(bool ptap, const Rect &A, const Rect &P, int threads)
{
  Computed            out;
  bsrk_block_product *plan = nullptr;
  const auto          Av = A.view(), Pv = P.view();
  EXPECT_EQ(ptap ? bsrk_ptap_symbolic(&Av, &Pv, threads, &plan) : bsrk_ap_symbolic(&Av, &Pv, threads, &plan), BSRK_OK);
  if (!plan) return out;
  EXPECT_EQ(bsrk_block_product_kind(plan), ptap ? BSRK_PRODUCT_PTAP : BSRK_PRODUCT_AP);
  EXPECT_EQ(bsrk_block_product_result(plan, &out.C), BSRK_OK);
  out.rowptr.assign(out.C.rowptr, out.C.rowptr + out.C.nbrows + 1);
  out.colidx.assign(out.C.colidx, out.C.colidx + out.rowptr.back());
  out.values.assign((size_t)out.rowptr.back() * out.C.rbs * out.C.cbs, -99.0); // every entry must be written
  EXPECT_EQ(bsrk_block_product_numeric(plan, &Av, &Pv, threads, out.values.data()), BSRK_OK);
  out.flops = bsrk_block_product_flops(plan);
  out.bytes = bsrk_block_product_bytes(plan);
  bsrk_block_product_free(plan);
  out.C.rowptr = out.rowptr.data();
  out.C.colidx = out.colidx.data();
  out.C.values = out.values.data();
  return out;
}

// C's shape, structure and values against the reference.
void expect_matches_reference(bool ptap, const Rect &A, const Rect &P, const std::string &what)
{
  const Computed got = compute(ptap, A, P, 2);
  const Dense    Ad = dense_of(A.view(), A.values.data()), Pd = dense_of(P.view(), P.values.data());
  const Dense    want = ptap ? multiply(transpose(Pd), multiply(Ad, Pd)) : multiply(Ad, Pd);
  const Pattern  AP   = pattern_product(pattern_of(A), pattern_of(P));
  const Pattern  pat  = ptap ? pattern_product(pattern_transpose(pattern_of(P), P.nbcols), AP) : AP;

  ASSERT_EQ(got.C.nbrows, ptap ? P.nbcols : A.nbrows) << what;
  ASSERT_EQ(got.C.nbcols, P.nbcols) << what;
  ASSERT_EQ(got.C.rbs, ptap ? P.cbs : A.rbs) << what;
  ASSERT_EQ(got.C.cbs, P.cbs) << what;
  for (Idx r = 0; r < got.C.nbrows; ++r) {
    const std::vector<Idx> cols(got.colidx.begin() + got.rowptr[r], got.colidx.begin() + got.rowptr[r + 1]);
    ASSERT_EQ(cols, std::vector<Idx>(pat[r].begin(), pat[r].end())) << what << ": block row " << r;
  }
  const Dense Cd = dense_of(got.C, got.values.data());
  ASSERT_EQ(Cd.rows, want.rows) << what;
  ASSERT_EQ(Cd.cols, want.cols) << what;
  double nrm = 0.0, err = 0.0;
  for (size_t i = 0; i < want.a.size(); ++i) {
    nrm = std::max(nrm, std::fabs(want.a[i]));
    err = std::max(err, std::fabs(Cd.a[i] - want.a[i]));
  }
  EXPECT_LE(err, kRelTol * nrm) << what;
  EXPECT_GE(got.flops, 0.0) << what;
  size_t ap_blocks = 0;
  for (const auto &row : AP) ap_blocks += row.size();
  if (ptap) {
    EXPECT_GE(got.bytes, ap_blocks * A.rbs * P.cbs * sizeof(double)) << what << ": the plan keeps A P's values";
  }
}

std::string label(const char *product, Idx b, Idx c, uint64_t seed)
{
  return std::string(product) + " blocks " + std::to_string(b) + "x" + std::to_string(c) + " seed " + std::to_string(seed);
}

// A: a square operator in b x b blocks with the shaped rows; P: its prolongator in b x c blocks.
void check_both_products(Idx b, Idx c, Idx nfine, Idx ncoarse, uint64_t seed)
{
  std::mt19937_64 rng(seed);
  const Rect      A = make_rect(shaped_counts(nfine, nfine, 9, rng), nfine, b, b, rng);
  const Rect      P = make_rect(prolongator_counts(nfine, rng), ncoarse, b, c, rng);
  expect_matches_reference(false, A, P, label("A P", b, c, seed));
  expect_matches_reference(true, A, P, label("P^T A P", b, c, seed));
}

class BlockProductSquareBlocks : public ::testing::TestWithParam<Idx> { };

TEST_P(BlockProductSquareBlocks, APAndPtAPMatchScalarReference)
{
  const Idx bs = GetParam();
  for (uint64_t seed : {1u, 2u, 3u}) check_both_products(bs, bs, 48, 13, 100 * bs + seed);
}

INSTANTIATE_TEST_SUITE_P(BlockSizes1To6, BlockProductSquareBlocks, ::testing::Values(1, 2, 3, 4, 5, 6));

TEST(BlockProductRectangularBlocks, ElasticityAPAndPtAPMatchScalarReference)
{
  for (uint64_t seed : {11u, 12u, 13u}) {
    check_both_products(3, 6, 60, 10, seed); // fine level: 3x3 A, 3x6 P (6 rigid-body modes)
    check_both_products(6, 6, 30, 7, seed);  // coarse level: 6x6 A and P
  }
}

TEST(BlockProductRectangularBlocks, SizesBeyondTheCompiledOnesMatchScalarReference)
{
  check_both_products(7, 2, 25, 9, 21); // b > 6: the run-time-size loops
  check_both_products(2, 8, 25, 9, 22);
  std::mt19937_64 rng(23); // A P with non-square blocks of A: 2x3 times 3x4
  const Rect      A = make_rect(shaped_counts(20, 30, 6, rng), 30, 2, 3, rng);
  const Rect      P = make_rect(shaped_counts(30, 17, 4, rng), 17, 3, 4, rng);
  expect_matches_reference(false, A, P, "A P, 2x3 times 3x4 blocks");
}

TEST(BlockProductRectangularBlocks, NonSquareBlockGridsMatchScalarReference)
{
  std::mt19937_64 rng(31); // A with more block columns than rows, and a long row
  const Rect      A = make_rect(shaped_counts(20, 45, 8, rng), 45, 3, 3, rng);
  const Rect      P = make_rect(prolongator_counts(45, rng), 12, 3, 6, rng);
  expect_matches_reference(false, A, P, "A P, 20x45 blocks of A");
}

TEST(BlockProductEdgeCases, EmptyMatricesAndRowsWithoutBlocks)
{
  std::mt19937_64 rng(41);
  const Rect      A0 = make_rect({}, 0, 3, 3, rng), P0 = make_rect({}, 0, 3, 6, rng); // 0 x 0 blocks
  expect_matches_reference(false, A0, P0, "empty A P");
  expect_matches_reference(true, A0, P0, "empty P^T A P");
  const Rect A = make_rect({0, 0, 0, 0}, 4, 3, 3, rng); // rows without blocks
  const Rect P = make_rect({1, 2, 1, 1}, 3, 3, 6, rng);
  expect_matches_reference(false, A, P, "A without blocks");
  expect_matches_reference(true, A, P, "P^T A P, A without blocks");
  const Rect Pz = make_rect({0, 0, 0, 0}, 0, 3, 6, rng); // P with no block columns: C is 4 x 0, 0 x 0
  const Rect A2 = make_rect({2, 1, 4, 0}, 4, 3, 3, rng);
  expect_matches_reference(false, A2, Pz, "P without columns");
  expect_matches_reference(true, A2, Pz, "P^T A P, P without columns");
  const Rect P1 = make_rect({1, 1, 1, 1}, 1, 3, 6, rng); // every row of P in one aggregate
  expect_matches_reference(true, A2, P1, "one coarse block row");
}

TEST(BlockProductEdgeCases, NumericOnAnEmptyResultAcceptsNoValues)
{
  std::mt19937_64     rng(42);
  const Rect          A = make_rect({0, 0}, 2, 2, 2, rng), P = make_rect({1, 1}, 2, 2, 2, rng);
  const auto          Av = A.view(), Pv = P.view();
  bsrk_block_product *plan = nullptr;
  ASSERT_EQ(bsrk_ptap_symbolic(&Av, &Pv, 1, &plan), BSRK_OK);
  bsrk_rect_matrix C;
  ASSERT_EQ(bsrk_block_product_result(plan, &C), BSRK_OK);
  EXPECT_EQ(C.rowptr[C.nbrows], 0);
  EXPECT_EQ(bsrk_block_product_numeric(plan, &Av, &Pv, 1, nullptr), BSRK_OK);
  EXPECT_EQ(bsrk_block_product_flops(plan), 0.0);
  bsrk_block_product_free(plan);
}

TEST(BlockProductThreads, OneTwoAndFourThreadsGiveTheSameBits)
{
  for (auto [b, c] : std::vector<std::pair<Idx, Idx>>{{3, 6}, {6, 6}, {2, 2}, {7, 3}}) {
    std::mt19937_64 rng(50 + b * 10 + c);
    const Rect      A = make_rect(shaped_counts(300, 300, 27, rng), 300, b, b, rng);
    const Rect      P = make_rect(prolongator_counts(300, rng), 40, b, c, rng);
    for (bool ptap : {false, true}) {
      const Computed one = compute(ptap, A, P, 1);
      for (int threads : {2, 4}) {
        const Computed    many = compute(ptap, A, P, threads);
        const std::string what = label(ptap ? "P^T A P" : "A P", b, c, 0) + " threads " + std::to_string(threads);
        ASSERT_EQ(many.rowptr, one.rowptr) << what;
        ASSERT_EQ(many.colidx, one.colidx) << what;
        ASSERT_EQ(many.values.size(), one.values.size()) << what;
        EXPECT_EQ(std::memcmp(many.values.data(), one.values.data(), one.values.size() * sizeof(double)), 0) << what;
      }
    }
  }
}

TEST(BlockProductReuse, NumericAfterNewValuesEqualsAFreshProduct)
{
  for (bool ptap : {false, true}) {
    std::mt19937_64     rng(60 + ptap);
    Rect                A    = make_rect(shaped_counts(80, 80, 12, rng), 80, 3, 3, rng);
    Rect                P    = make_rect(prolongator_counts(80, rng), 14, 3, 6, rng);
    bsrk_block_product *plan = nullptr;
    auto                Av = A.view(), Pv = P.view();
    ASSERT_EQ(ptap ? bsrk_ptap_symbolic(&Av, &Pv, 2, &plan) : bsrk_ap_symbolic(&Av, &Pv, 2, &plan), BSRK_OK);
    bsrk_rect_matrix C;
    ASSERT_EQ(bsrk_block_product_result(plan, &C), BSRK_OK);
    std::vector<double> values((size_t)C.rowptr[C.nbrows] * C.rbs * C.cbs);
    ASSERT_EQ(bsrk_block_product_numeric(plan, &Av, &Pv, 2, values.data()), BSRK_OK);
    for (int round = 0; round < 2; ++round) { // new values, the same patterns, twice
      for (auto &v : A.values) v = 1.5 * v - 0.125 * (round + 1);
      for (auto &v : P.values) v = -0.75 * v + 0.0625;
      Av = A.view();
      Pv = P.view();
      ASSERT_EQ(bsrk_block_product_numeric(plan, &Av, &Pv, 4, values.data()), BSRK_OK);
      const Computed    fresh = compute(ptap, A, P, 1);
      const std::string what  = std::string(ptap ? "P^T A P" : "A P") + " round " + std::to_string(round);
      ASSERT_EQ(fresh.values.size(), values.size()) << what;
      EXPECT_EQ(std::memcmp(fresh.values.data(), values.data(), values.size() * sizeof(double)), 0) << what;
      expect_matches_reference(ptap, A, P, what);
    }
    bsrk_block_product_free(plan);
  }
}

// A's blocks read where they are (bsrk_block_source: two arrays in a shuffled order, as an MPI
// product's local and ghost blocks) give the same bits as A's own values array; a block named outside
// its array is refused before anything is written.
TEST(BlockProductSource, BlocksInTwoArraysGiveTheSameBitsAsOneArray)
{
  for (bool ptap : {false, true}) {
    std::mt19937_64     rng(90 + ptap);
    const Rect          A  = make_rect(shaped_counts(70, 70, 10, rng), 70, 3, 3, rng);
    const Rect          P  = make_rect(prolongator_counts(70, rng), 12, 3, 6, rng);
    const auto          Av = A.view(), Pv = P.view();
    bsrk_block_product *plan = nullptr;
    ASSERT_EQ(ptap ? bsrk_ptap_symbolic(&Av, &Pv, 2, &plan) : bsrk_ap_symbolic(&Av, &Pv, 2, &plan), BSRK_OK);
    bsrk_rect_matrix C;
    ASSERT_EQ(bsrk_block_product_result(plan, &C), BSRK_OK);
    const size_t        nvalues = (size_t)C.rowptr[C.nbrows] * C.rbs * C.cbs;
    std::vector<double> one(nvalues), two(nvalues, -7.0);
    ASSERT_EQ(bsrk_block_product_numeric(plan, &Av, &Pv, 2, one.data()), BSRK_OK);
    // even blocks into `first` in reverse order, odd blocks into `second` in order
    const Idx           nb = A.nblocks(), nfirst = (nb + 1) / 2, nsecond = nb / 2, bsize = 9;
    std::vector<double> first((size_t)nfirst * bsize), second((size_t)nsecond * bsize + 1);
    std::vector<Idx>    from(nb);
    for (Idx k = 0; k < nb; ++k) {
      const Idx slot = k % 2 == 0 ? nfirst - 1 - k / 2 : k / 2;
      double   *to   = (k % 2 == 0 ? first.data() : second.data()) + (size_t)slot * bsize;
      std::copy(A.values.begin() + (size_t)k * bsize, A.values.begin() + (size_t)(k + 1) * bsize, to);
      from[k] = k % 2 == 0 ? slot : -1 - slot;
    }
    bsrk_rect_matrix  An = Av;
    bsrk_block_source src{first.data(), second.data(), nfirst, nsecond, from.data()};
    An.values = nullptr;
    for (int threads : {1, 3}) {
      ASSERT_EQ(bsrk_block_product_numeric_from(plan, &An, &src, &Pv, threads, two.data()), BSRK_OK);
      EXPECT_EQ(std::memcmp(one.data(), two.data(), nvalues * sizeof(double)), 0) << (ptap ? "P^T A P" : "A P") << " threads " << threads;
    }
    std::vector<double> gathered(A.values.size(), -7.0);
    ASSERT_EQ(bsrk_block_source_gather(&src, nb, bsize, gathered.data()), BSRK_OK);
    EXPECT_EQ(gathered, A.values); // the blocks back in A's order
    const std::vector<double> before = two;
    from[nb / 2]                     = nfirst; // one past first's end
    EXPECT_EQ(bsrk_block_source_gather(&src, nb, bsize, gathered.data()), BSRK_ERR_ARG);
    EXPECT_EQ(gathered, A.values); // refused before anything is written
    EXPECT_EQ(bsrk_block_product_numeric_from(plan, &An, &src, &Pv, 2, two.data()), BSRK_ERR_ARG);
    from[nb / 2] = -1 - nsecond; // one past second's end
    EXPECT_EQ(bsrk_block_product_numeric_from(plan, &An, &src, &Pv, 2, two.data()), BSRK_ERR_ARG);
    EXPECT_EQ(two, before);
    EXPECT_EQ(bsrk_block_product_numeric(plan, &An, &Pv, 2, two.data()), BSRK_ERR_ARG); // no values anywhere
    bsrk_block_product_free(plan);
  }
}

// Each symbolic call on a broken copy of a valid pair must give BSRK_ERR_ARG and no plan.
TEST(BlockProductErrors, SymbolicRejectsInvalidOperands)
{
  std::mt19937_64 rng(70);
  const Rect      A = make_rect({2, 1, 3, 2}, 4, 3, 3, rng), P = make_rect({1, 2, 1, 1}, 3, 3, 6, rng);
  auto            expect_rejected = [&](const Rect &a, const Rect &p, const char *what) {
    for (bool ptap : {false, true}) {
      bsrk_block_product *plan = reinterpret_cast<bsrk_block_product *>(&rng); // must be reset to NULL
      const auto          av = a.view(), pv = p.view();
      EXPECT_EQ(ptap ? bsrk_ptap_symbolic(&av, &pv, 1, &plan) : bsrk_ap_symbolic(&av, &pv, 1, &plan), BSRK_ERR_ARG) << what << (ptap ? " (PtAP)" : " (AP)");
      EXPECT_EQ(plan, nullptr) << what;
    }
  };
  {
    Rect a   = A;
    a.nbrows = -1;
    expect_rejected(a, P, "negative block rows");
  }
  {
    Rect a = A;
    a.rbs = a.cbs = 0;
    expect_rejected(a, P, "block size 0");
  }
  {
    Rect p = P;
    p.rbs  = 2;
    expect_rejected(A, p, "inner block sizes 3 and 2");
  }
  {
    Rect p = make_rect({1, 1, 1}, 3, 3, 6, rng);
    expect_rejected(A, p, "inner dimensions 4 and 3 blocks");
  }
  {
    Rect a = A;
    std::swap(a.colidx[0], a.colidx[1]);
    expect_rejected(a, P, "unsorted block columns");
  }
  {
    Rect a      = A;
    a.colidx[1] = a.colidx[0];
    expect_rejected(a, P, "repeated block column");
  }
  {
    Rect p      = P;
    p.colidx[0] = 3;
    expect_rejected(A, p, "block column past the end");
  }
  {
    Rect p      = P;
    p.colidx[0] = -1;
    expect_rejected(A, p, "negative block column");
  }
  {
    Rect a      = A;
    a.rowptr[0] = 1;
    expect_rejected(a, P, "rowptr not starting at 0");
  }
  {
    Rect a      = A;
    a.rowptr[2] = a.rowptr[1] - 1;
    expect_rejected(a, P, "decreasing rowptr");
  }
  bsrk_block_product *plan = nullptr;
  auto                Av = A.view(), Pv = P.view();
  EXPECT_EQ(bsrk_ap_symbolic(nullptr, &Pv, 1, &plan), BSRK_ERR_ARG);
  EXPECT_EQ(bsrk_ap_symbolic(&Av, nullptr, 1, &plan), BSRK_ERR_ARG);
  EXPECT_EQ(bsrk_ap_symbolic(&Av, &Pv, 1, nullptr), BSRK_ERR_ARG);
  EXPECT_EQ(bsrk_ptap_symbolic(&Av, &Pv, 0, &plan), BSRK_ERR_ARG);
  Av.rowptr = nullptr;
  EXPECT_EQ(bsrk_ap_symbolic(&Av, &Pv, 1, &plan), BSRK_ERR_ARG);
  Av        = A.view();
  Av.colidx = nullptr;
  EXPECT_EQ(bsrk_ptap_symbolic(&Av, &Pv, 1, &plan), BSRK_ERR_ARG);
  EXPECT_EQ(plan, nullptr);
  // P^T A P needs a square A in square blocks
  const Rect Ar = make_rect({2, 1, 3, 2}, 5, 3, 3, rng);
  Av            = Ar.view();
  Pv            = P.view();
  EXPECT_EQ(bsrk_ptap_symbolic(&Av, &Pv, 1, &plan), BSRK_ERR_ARG) << "A with 4 x 5 blocks";
  const Rect Ab = make_rect({2, 1, 3, 2}, 4, 2, 3, rng);
  Av            = Ab.view();
  Pv            = P.view();
  EXPECT_EQ(bsrk_ap_symbolic(&Av, &Pv, 1, &plan), BSRK_OK) << "A P with 2x3 blocks of A";
  bsrk_block_product_free(plan);
  EXPECT_EQ(bsrk_ptap_symbolic(&Av, &Pv, 1, &plan), BSRK_ERR_ARG) << "P^T A P with 2x3 blocks of A";
  EXPECT_EQ(bsrk_block_product_result(nullptr, nullptr), BSRK_ERR_ARG);
  bsrk_block_product_free(nullptr); // as free(NULL)
}

TEST(BlockProductErrors, NumericRejectsOtherShapesAndPatterns)
{
  for (bool ptap : {false, true}) {
    const std::string   what = ptap ? "P^T A P" : "A P";
    std::mt19937_64     rng(80);
    const Rect          A = make_rect({2, 1, 0, 2, 1}, 5, 3, 3, rng), P = make_rect({1, 1, 1, 1, 1}, 6, 3, 6, rng); // 6 coarse columns, 5 blocks: one unused
    bsrk_block_product *plan = nullptr;
    const auto          Av = A.view(), Pv = P.view();
    ASSERT_EQ(ptap ? bsrk_ptap_symbolic(&Av, &Pv, 1, &plan) : bsrk_ap_symbolic(&Av, &Pv, 1, &plan), BSRK_OK);
    bsrk_rect_matrix C;
    ASSERT_EQ(bsrk_block_product_result(plan, &C), BSRK_OK);
    std::vector<double> values((size_t)C.rowptr[C.nbrows] * C.rbs * C.cbs);
    EXPECT_EQ(bsrk_block_product_numeric(plan, &Av, &Pv, 1, values.data()), BSRK_OK) << what;
    EXPECT_EQ(bsrk_block_product_numeric(plan, &Av, &Pv, 1, nullptr), BSRK_ERR_ARG) << what << ": no C values";
    EXPECT_EQ(bsrk_block_product_numeric(plan, &Av, &Pv, 0, values.data()), BSRK_ERR_ARG) << what << ": 0 threads";
    EXPECT_EQ(bsrk_block_product_numeric(nullptr, &Av, &Pv, 1, values.data()), BSRK_ERR_ARG) << what;
    EXPECT_EQ(bsrk_block_product_numeric(plan, &Pv, &Av, 1, values.data()), BSRK_ERR_ARG) << what << ": operands swapped";
    auto noval   = Av;
    noval.values = nullptr;
    EXPECT_EQ(bsrk_block_product_numeric(plan, &noval, &Pv, 1, values.data()), BSRK_ERR_ARG) << what << ": no A values";
    const Rect Amore = make_rect({2, 2, 0, 2, 1}, 5, 3, 3, rng); // another block count
    const auto Amv   = Amore.view();
    EXPECT_EQ(bsrk_block_product_numeric(plan, &Amv, &Pv, 1, values.data()), BSRK_ERR_ARG) << what << ": other block count";
    // the same block count, one block of P moved to a coarse column its rows never reached
    Rect      moved  = P;
    const Idx unused = [&] {
      std::set<Idx> used(P.colidx.begin(), P.colidx.end());
      for (Idx j = 0; j < P.nbcols; ++j)
        if (!used.count(j)) return j;
      return (Idx)-1;
    }();
    ASSERT_GE(unused, 0);
    moved.colidx[0] = unused;
    const auto Mv   = moved.view();
    EXPECT_EQ(bsrk_block_product_numeric(plan, &Av, &Mv, 1, values.data()), BSRK_ERR_ARG) << what << ": P's pattern changed";
    Rect shifted      = A; // a column out of range
    shifted.colidx[0] = 7;
    const auto Sv     = shifted.view();
    EXPECT_EQ(bsrk_block_product_numeric(plan, &Sv, &Pv, 1, values.data()), BSRK_ERR_ARG) << what << ": column out of range";
    EXPECT_EQ(bsrk_block_product_numeric(plan, &Av, &Pv, 1, values.data()), BSRK_OK) << what << ": still usable";
    bsrk_block_product_free(plan);
  }
}

} // namespace

// The plan as arrays (for a numeric phase elsewhere): the operands' shapes, A P's structure, P^T's
// structure listing P's blocks column by column, C's structure the result's; and what a caller
// attaches is given back once, at a new attachment or with the plan.
TEST(BlockProductLayout, ArraysOfThePlanAndItsAttachment)
{
  std::mt19937_64 rng(77);
  const Rect      A = make_rect({3, 0, 1, 4, 2, 2, 5}, 7, 3, 3, rng), P = make_rect({1, 2, 0, 1, 2, 1, 1}, 4, 3, 6, rng);
  const auto      Av = A.view(), Pv = P.view();
  for (bool ptap : {false, true}) {
    bsrk_block_product *plan = nullptr;
    ASSERT_EQ(ptap ? bsrk_ptap_symbolic(&Av, &Pv, 2, &plan) : bsrk_ap_symbolic(&Av, &Pv, 2, &plan), BSRK_OK);
    bsrk_block_product_layout L;
    bsrk_rect_matrix          C;
    ASSERT_EQ(bsrk_block_product_get_layout(plan, &L), BSRK_OK);
    ASSERT_EQ(bsrk_block_product_result(plan, &C), BSRK_OK);
    EXPECT_EQ(L.kind, ptap ? BSRK_PRODUCT_PTAP : BSRK_PRODUCT_AP);
    EXPECT_EQ(L.A.nbrows, A.nbrows);
    EXPECT_EQ(L.A.rbs, 3);
    EXPECT_EQ(L.P.nbcols, P.nbcols);
    EXPECT_EQ(L.P.cbs, 6);
    EXPECT_EQ(L.A_nblocks, (int64_t)A.nblocks());
    EXPECT_EQ(L.P_nblocks, (int64_t)P.nblocks());
    EXPECT_EQ(L.ap.nbrows, A.nbrows);
    EXPECT_EQ(L.ap.nbcols, P.nbcols);
    EXPECT_EQ(L.c.rowptr, C.rowptr);
    EXPECT_EQ(L.c.colidx, C.colidx);
    EXPECT_EQ(L.c.rbs, C.rbs);
    if (!ptap) {
      EXPECT_EQ(L.ap.rowptr, C.rowptr);
      EXPECT_EQ(L.pt_rowptr, nullptr);
    } else {
      ASSERT_NE(L.pt_rowptr, nullptr);
      Idx e = 0;
      for (Idx j = 0; j < P.nbcols; ++j) {
        ASSERT_EQ(L.pt_rowptr[j], e);
        for (Idx r = 0; r < P.nbrows; ++r)
          for (Idx k = P.rowptr[r]; k < P.rowptr[r + 1]; ++k)
            if (P.colidx[k] == j) {
              EXPECT_EQ(L.pt_row[e], r);
              EXPECT_EQ(L.pt_block[e], k);
              ++e;
            }
      }
      EXPECT_EQ(L.pt_rowptr[P.nbcols], e);
    }
    static int released[2];
    released[0] = released[1] = 0;
    const auto release        = [](void *d) { ++*(int *)d; };
    EXPECT_EQ(bsrk_block_product_attached(plan), nullptr);
    ASSERT_EQ(bsrk_block_product_attach(plan, &released[0], release), BSRK_OK);
    EXPECT_EQ(bsrk_block_product_attached(plan), &released[0]);
    ASSERT_EQ(bsrk_block_product_attach(plan, &released[1], release), BSRK_OK);
    EXPECT_EQ(released[0], 1);
    EXPECT_EQ(released[1], 0);
    bsrk_block_product_free(plan);
    EXPECT_EQ(released[0], 1);
    EXPECT_EQ(released[1], 1);
  }
  EXPECT_EQ(bsrk_block_product_get_layout(nullptr, nullptr), BSRK_ERR_ARG);
  EXPECT_EQ(bsrk_block_product_attach(nullptr, nullptr, nullptr), BSRK_ERR_ARG);
}

// The scalar CSR view (bsrk_rect_csr_*): every stored entry of M at its (row, column) in the expanded
// rows, each row's columns increasing, zeros without values; the same on 1 and 3 threads.
TEST(BlockProductScalarView, ExpandsEveryBlockToItsRowsAndColumns)
{
  std::mt19937_64 rng(31);
  for (auto [rbs, cbs] : {std::pair<Idx, Idx>{3, 6}, {2, 1}, {1, 4}, {5, 5}}) {
    const Rect             M   = make_rect(shaped_counts(23, 9, 4, rng), 9, rbs, cbs, rng);
    const bsrk_rect_matrix V   = M.view();
    const size_t           nnz = (size_t)M.nblocks() * rbs * cbs;
    for (int nthreads : {1, 3}) {
      std::vector<Idx>    start(M.nbrows * rbs + 1, -1), cols(nnz, -1);
      std::vector<double> vals(nnz, -7.0), zeros(nnz, -7.0);
      ASSERT_EQ(bsrk_rect_csr_structure(&V, nthreads, start.data(), cols.data()), BSRK_OK);
      ASSERT_EQ(bsrk_rect_csr_values(&V, nthreads, vals.data()), BSRK_OK);
      bsrk_rect_matrix Z = V;
      Z.values           = nullptr;
      ASSERT_EQ(bsrk_rect_csr_values(&Z, nthreads, zeros.data()), BSRK_OK);
      EXPECT_EQ(start[0], 0);
      EXPECT_EQ((size_t)start.back(), nnz);
      for (Idx br = 0; br < M.nbrows; ++br)
        for (Idx r = 0; r < rbs; ++r) {
          const Idx row = br * rbs + r;
          ASSERT_EQ(start[row + 1] - start[row], (M.rowptr[br + 1] - M.rowptr[br]) * cbs);
          Idx e = start[row];
          for (Idx k = M.rowptr[br]; k < M.rowptr[br + 1]; ++k)
            for (Idx s = 0; s < cbs; ++s, ++e) {
              EXPECT_EQ(cols[e], M.colidx[k] * cbs + s);
              EXPECT_EQ(vals[e], M.values[(size_t)k * rbs * cbs + s * rbs + r]);
              EXPECT_EQ(zeros[e], 0.0);
            }
        }
    }
  }
  Rect             bad = make_rect({1, 2}, 3, 3, 6, rng);
  bsrk_rect_matrix V   = bad.view();
  std::vector<Idx> start(7);
  EXPECT_EQ(bsrk_rect_csr_structure(&V, 0, start.data(), nullptr), BSRK_ERR_ARG);
  EXPECT_EQ(bsrk_rect_csr_values(nullptr, 1, nullptr), BSRK_ERR_ARG);
}
