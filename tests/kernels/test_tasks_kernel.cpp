// Tests of bsrk_reference_multadd (against a dense product built here from the BSR data)
// and of bsrk_tasks_multadd (against bsrk_reference_multadd), for both shared-row modes.
#include "bsrkernels.h"

#include "test_bsr.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace {

using Idx = bsrk_idx;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kTol = 1e-13;

using test_bsr::Bsr;
using test_bsr::make_bsr;

enum class Pattern {
  Random,
  LongRow,
  EmptyEdges,
  AllEmpty,
  SingleBlock
};

const char *pattern_name(Pattern p)
{
  switch (p) {
  case Pattern::Random:
    return "Random";
  case Pattern::LongRow:
    return "LongRow";
  case Pattern::EmptyEdges:
    return "EmptyEdges";
  case Pattern::AllEmpty:
    return "AllEmpty";
  case Pattern::SingleBlock:
    return "SingleBlock";
  }
  return "?";
}

Bsr make_pattern(Pattern pat, Idx bs, uint64_t seed)
{
  std::mt19937_64  rng(seed);
  std::vector<Idx> c;
  Idx              nbcols = 40;
  switch (pat) {
  case Pattern::Random: // short rows, ~30% empty
    c.resize(45);
    for (auto &v : c) v = (rng() % 10 < 3) ? 0 : (Idx)(1 + rng() % 9);
    break;
  case Pattern::LongRow: // one row holds most blocks, with empty rows around it
    nbcols = 300;
    c.assign(30, 0);
    for (size_t r = 0; r < c.size(); ++r) c[r] = (r % 4 == 1) ? 0 : (Idx)(rng() % 3);
    c[11] = 280;
    break;
  case Pattern::EmptyEdges: // empty runs at the start, the middle and the end
    c.assign(40, 0);
    for (size_t r = 6; r < 15; ++r) c[r] = (Idx)(1 + rng() % 12);
    for (size_t r = 27; r < 33; ++r) c[r] = (Idx)(1 + rng() % 25);
    break;
  case Pattern::AllEmpty:
    c.assign(12, 0);
    break;
  case Pattern::SingleBlock:
    c.assign(9, 0);
    c[4] = 1;
    break;
  }
  return make_bsr(c, nbcols, bs, rng);
}

std::vector<double> random_vec(size_t n, std::mt19937_64 &rng)
{
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double>                    v(n);
  for (auto &e : v) e = d(rng);
  return v;
}

// max |a-b| / max |ref| (NaN anywhere makes it NaN, which fails any <= comparison)
double rel_err(const std::vector<double> &a, const std::vector<double> &ref)
{
  double dmax = 0.0, rmax = 0.0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double d = std::fabs(a[i] - ref[i]);
    if (std::isnan(d)) return kNaN;
    dmax = std::max(dmax, d);
    rmax = std::max(rmax, std::fabs(ref[i]));
  }
  if (rmax == 0.0) return dmax == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return dmax / rmax;
}

// Dense product out = alpha*M*x + beta*in built entry by entry from the BSR definition.
std::vector<double> dense_multadd(const Bsr &A, double alpha, const std::vector<double> &x, double beta, const std::vector<double> &in)
{
  const size_t        n = A.nrows(), m = A.ncols(), bs = (size_t)A.bs;
  std::vector<double> M(n * m, 0.0);
  for (Idx br = 0; br < A.nbrows; ++br)
    for (Idx k = A.rowptr[br]; k < A.rowptr[br + 1]; ++k)
      for (size_t c = 0; c < bs; ++c)
        for (size_t r = 0; r < bs; ++r) M[(br * bs + r) * m + (size_t)A.colidx[k] * bs + c] += A.values[(size_t)k * bs * bs + c * bs + r];
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (size_t j = 0; j < m; ++j) s += M[i * m + j] * x[j];
    out[i] = alpha * s + (beta == 0.0 ? 0.0 : beta * in[i]);
  }
  return out;
}

struct Part {
  bsrk_partition p{0, nullptr, nullptr, nullptr};
  Part() = default;
  ~Part() { bsrk_partition_free(&p); }
  Part(const Part &)            = delete;
  Part &operator=(const Part &) = delete;
};

struct AB {
  double alpha, beta;
};
const AB               kAlphaBeta[] = {{1.0, 0.0}, {1.0, 1.0}, {2.5, -0.5}, {0.0, 1.0}, {-1.0, 0.0}};
const int              kChunks[]    = {1, 2, 8, 64, 2048};
const bsrk_shared_rows kModes[]     = {BSRK_SHARED_ROWS_CARRY, BSRK_SHARED_ROWS_ATOMIC};

const char *mode_name(bsrk_shared_rows m)
{
  return m == BSRK_SHARED_ROWS_CARRY ? "CARRY" : "ATOMIC";
}

// Runs the task product for one configuration and returns its result.
// alias: in and out are the same buffer (pre-filled with `in`, or NaN when beta == 0);
// otherwise out is pre-filled with NaN and in is nullptr when beta == 0.
std::vector<double> run_tasks(const Bsr &A, const bsrk_partition &p, int nthreads, bsrk_shared_rows mode, double alpha, const std::vector<double> &x, double beta, const std::vector<double> &in, bool alias, int streams = 1, int prefetch = 0, bsrk_threads kind = BSRK_THREADS_OPENMP)
{
  const bsrk_matrix   M = A.view();
  std::vector<double> ws(bsrk_tasks_workspace_bytes(&p, A.bs) / sizeof(double) + 1, kNaN);
  std::vector<double> out(A.nrows(), kNaN);
  bsrk_status         st;
  if (alias) {
    if (beta != 0.0) out = in;
    st = bsrk_tasks_multadd_on(&M, &p, kind, nthreads, streams, prefetch, mode, alpha, x.data(), beta, out.data(), out.data(), ws.data());
  } else {
    st = bsrk_tasks_multadd_on(&M, &p, kind, nthreads, streams, prefetch, mode, alpha, x.data(), beta, beta == 0.0 ? nullptr : in.data(), out.data(), ws.data());
  }
  EXPECT_EQ(st, BSRK_OK);
  return out;
}

bool all_finite(const std::vector<double> &v)
{
  return std::all_of(v.begin(), v.end(), [](double e) { return std::isfinite(e); });
}

} // namespace

// ---------------------------------------------------------------------------------------
// Reference vs dense product

TEST(Reference, MatchesDenseProduct)
{
  std::mt19937_64 rng(2024);
  for (Idx bs : {1, 2, 3, 5, 8, 11}) {
    for (int it = 0; it < 4; ++it) {
      std::vector<Idx> c(1 + rng() % 14);
      for (auto &v : c) v = (rng() % 4 == 0) ? 0 : (Idx)(rng() % 7);
      const Idx         nbcols = (Idx)(1 + rng() % 9);
      const Bsr         A      = make_bsr(c, nbcols, bs, rng);
      const auto        x      = random_vec(A.ncols(), rng);
      const auto        in     = random_vec(A.nrows(), rng);
      const bsrk_matrix M      = A.view();
      for (const AB &ab : kAlphaBeta) {
        SCOPED_TRACE(testing::Message() << "bs=" << bs << " it=" << it << " alpha=" << ab.alpha << " beta=" << ab.beta);
        const auto dense = dense_multadd(A, ab.alpha, x, ab.beta, in);

        std::vector<double> out(A.nrows(), kNaN);
        bsrk_reference_multadd(&M, ab.alpha, x.data(), ab.beta, ab.beta == 0.0 ? nullptr : in.data(), out.data());
        EXPECT_LE(rel_err(out, dense), kTol);

        std::vector<double> io = in; // in aliases out
        if (ab.beta == 0.0) std::fill(io.begin(), io.end(), kNaN);
        bsrk_reference_multadd(&M, ab.alpha, x.data(), ab.beta, io.data(), io.data());
        EXPECT_LE(rel_err(io, dense), kTol);
      }
    }
  }
}

TEST(Reference, EmptyRowsGetBetaIn)
{
  std::mt19937_64     rng(7);
  const Bsr           A  = make_bsr({0, 3, 0, 0, 2, 0}, 5, 2, rng);
  const auto          x  = random_vec(A.ncols(), rng);
  const auto          in = random_vec(A.nrows(), rng);
  const bsrk_matrix   M  = A.view();
  std::vector<double> out(A.nrows(), kNaN);
  bsrk_reference_multadd(&M, 3.0, x.data(), -2.0, in.data(), out.data());
  for (Idx br : {0, 2, 3, 5})
    for (Idx r = 0; r < A.bs; ++r) EXPECT_EQ(out[br * A.bs + r], -2.0 * in[br * A.bs + r]);
  std::fill(out.begin(), out.end(), kNaN);
  bsrk_reference_multadd(&M, 3.0, x.data(), 0.0, nullptr, out.data());
  for (Idx br : {0, 2, 3, 5})
    for (Idx r = 0; r < A.bs; ++r) EXPECT_EQ(out[br * A.bs + r], 0.0);
}

// ---------------------------------------------------------------------------------------
// Task product vs reference: block size x pattern, looping over everything else

class TasksVsReference : public testing::TestWithParam<std::tuple<int, Pattern>> { };

TEST_P(TasksVsReference, AllConfigurations)
{
  const Idx         bs  = std::get<0>(GetParam());
  const Pattern     pat = std::get<1>(GetParam());
  const Bsr         A   = make_pattern(pat, bs, 1000 + 17 * (uint64_t)bs + (uint64_t)pat);
  std::mt19937_64   rng(99 + (uint64_t)bs);
  const auto        x  = random_vec(A.ncols(), rng);
  const auto        in = random_vec(A.nrows(), rng);
  const bsrk_matrix M  = A.view();

  std::vector<std::vector<double>> ref;
  for (const AB &ab : kAlphaBeta) {
    std::vector<double> r(A.nrows(), kNaN);
    bsrk_reference_multadd(&M, ab.alpha, x.data(), ab.beta, ab.beta == 0.0 ? nullptr : in.data(), r.data());
    ref.push_back(r);
  }

  for (int nthreads = 1; nthreads <= 4; ++nthreads) {
    for (int chunks : kChunks) {
      Part P;
      ASSERT_EQ(bsrk_partition_build(A.nbrows, A.rowptr.data(), nthreads * chunks, &P.p), BSRK_OK);
      for (bsrk_shared_rows mode : kModes) {
        for (size_t iab = 0; iab < std::size(kAlphaBeta); ++iab) {
          const AB &ab = kAlphaBeta[iab];
          for (bool alias : {false, true}) {
            SCOPED_TRACE(testing::Message() << "threads=" << nthreads << " chunks=" << chunks << " ntasks=" << P.p.ntasks << " mode=" << mode_name(mode) << " alpha=" << ab.alpha << " beta=" << ab.beta << " alias=" << alias);
            const auto out = run_tasks(A, P.p, nthreads, mode, ab.alpha, x, ab.beta, in, alias);
            ASSERT_LE(rel_err(out, ref[iab]), kTol);
            if (ab.beta == 0.0) {
              ASSERT_TRUE(all_finite(out)) << "NaN pre-fill of out leaked through";
            }
            // tasks walked 2 or 4 at once: each row's blocks are still added in order, so the same bits
            // in CARRY mode; ATOMIC adds a shared row's parts in whatever order the tasks finish
            // and prefetching (a distance far past these small arrays' ends too) changes no bit
            for (int streams : {1, 2, 4})
              for (int prefetch : {0, 64, 8192, BSRK_MAX_PREFETCH_BYTES}) {
                if (streams == 1 && prefetch == 0) continue;
                const auto outs = run_tasks(A, P.p, nthreads, mode, ab.alpha, x, ab.beta, in, alias, streams, prefetch);
                ASSERT_LE(rel_err(outs, ref[iab]), kTol) << "streams=" << streams << " prefetch=" << prefetch;
                if (mode == BSRK_SHARED_ROWS_CARRY) ASSERT_EQ(0, std::memcmp(outs.data(), out.data(), out.size() * sizeof(double))) << "streams=" << streams << " prefetch=" << prefetch;
              }
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, TasksVsReference, testing::Combine(testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 11, 16, 37), testing::Values(Pattern::Random, Pattern::LongRow, Pattern::EmptyEdges, Pattern::AllEmpty, Pattern::SingleBlock)),
                         [](const testing::TestParamInfo<std::tuple<int, Pattern>> &pinfo) { return "bs" + std::to_string(std::get<0>(pinfo.param)) + "_" + pattern_name(std::get<1>(pinfo.param)); });

// ---------------------------------------------------------------------------------------
// NaN / beta == 0 contract

TEST(TasksNaN, BetaZeroOverwritesNaNOut)
{
  for (Idx bs : {1, 3, 5, 8, 11}) {
    const Bsr           A = make_pattern(Pattern::LongRow, bs, 555 + (uint64_t)bs);
    std::mt19937_64     rng(3);
    const auto          x = random_vec(A.ncols(), rng);
    const bsrk_matrix   M = A.view();
    std::vector<double> ref(A.nrows(), kNaN);
    bsrk_reference_multadd(&M, 1.0, x.data(), 0.0, nullptr, ref.data());
    ASSERT_TRUE(all_finite(ref));
    for (int nthreads : {1, 2, 4})
      for (int chunks : {1, 64})
        for (bsrk_shared_rows mode : kModes) {
          SCOPED_TRACE(testing::Message() << "bs=" << bs << " threads=" << nthreads << " chunks=" << chunks << " mode=" << mode_name(mode));
          Part P;
          ASSERT_EQ(bsrk_partition_build(A.nbrows, A.rowptr.data(), nthreads * chunks, &P.p), BSRK_OK);
          for (bool alias : {false, true}) {
            const auto out = run_tasks(A, P.p, nthreads, mode, 1.0, x, 0.0, {}, alias);
            ASSERT_TRUE(all_finite(out));
            ASSERT_LE(rel_err(out, ref), kTol);
          }
        }
  }
}

TEST(TasksNaN, NaNInXPropagatesToTouchingRowsOnly)
{
  for (Idx bs : {1, 2, 4, 6, 11}) {
    for (Pattern pat : {Pattern::Random, Pattern::LongRow}) {
      const Bsr         A = make_pattern(pat, bs, 77 + (uint64_t)bs);
      std::mt19937_64   rng(11);
      auto              x  = random_vec(A.ncols(), rng);
      const auto        in = random_vec(A.nrows(), rng);
      const bsrk_matrix M  = A.view();
      // poison one scalar column inside a block column that several rows use
      std::vector<int> uses(A.nbcols, 0);
      for (Idx k = 0; k < A.nblocks(); ++k) ++uses[A.colidx[k]];
      const Idx bcol = (Idx)(std::max_element(uses.begin(), uses.end()) - uses.begin());
      ASSERT_GT(uses[bcol], 0);
      x[(size_t)bcol * bs + (size_t)(bs - 1) / 2] = kNaN;
      // expected: every scalar row of every block row holding a block in column bcol
      std::vector<bool> expect_nan(A.nrows(), false);
      for (Idx br = 0; br < A.nbrows; ++br)
        for (Idx k = A.rowptr[br]; k < A.rowptr[br + 1]; ++k)
          if (A.colidx[k] == bcol)
            for (Idx r = 0; r < bs; ++r) expect_nan[(size_t)br * bs + r] = true;

      for (const AB &ab : {AB{1.0, 1.0}, AB{0.0, 1.0}, AB{-1.0, 0.0}}) {
        std::vector<double> ref(A.nrows(), kNaN);
        bsrk_reference_multadd(&M, ab.alpha, x.data(), ab.beta, ab.beta == 0.0 ? nullptr : in.data(), ref.data());
        for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ((bool)std::isnan(ref[i]), (bool)expect_nan[i]) << "reference row " << i;
        for (int nthreads : {1, 2, 3})
          for (int chunks : {1, 8, 2048})
            for (bsrk_shared_rows mode : kModes) {
              SCOPED_TRACE(testing::Message() << "bs=" << bs << " pattern=" << pattern_name(pat) << " alpha=" << ab.alpha << " beta=" << ab.beta << " threads=" << nthreads << " chunks=" << chunks << " mode=" << mode_name(mode));
              Part P;
              ASSERT_EQ(bsrk_partition_build(A.nbrows, A.rowptr.data(), nthreads * chunks, &P.p), BSRK_OK);
              const auto out  = run_tasks(A, P.p, nthreads, mode, ab.alpha, x, ab.beta, in, false);
              double     dmax = 0.0, rmax = 0.0;
              for (size_t i = 0; i < out.size(); ++i) {
                ASSERT_EQ((bool)std::isnan(out[i]), (bool)expect_nan[i]) << "row " << i;
                if (expect_nan[i]) continue;
                dmax = std::max(dmax, std::fabs(out[i] - ref[i]));
                rmax = std::max(rmax, std::fabs(ref[i]));
              }
              ASSERT_LE(dmax, kTol * rmax);
            }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Shared rows under contention, determinism of CARRY

TEST(TasksShared, ManyTasksOnOneRowStress)
{
  // Most blocks sit in one row, cut into thousands of tasks: heavy atomic / carry traffic.
  std::mt19937_64  rng(31337);
  std::vector<Idx> c(64, 1);
  c[3]                   = 0;
  c[40]                  = 6000;
  const Bsr           A  = make_bsr(c, 6000, 3, rng);
  const auto          x  = random_vec(A.ncols(), rng);
  const auto          in = random_vec(A.nrows(), rng);
  const bsrk_matrix   M  = A.view();
  std::vector<double> ref(A.nrows());
  bsrk_reference_multadd(&M, 2.5, x.data(), -0.5, in.data(), ref.data());
  Part P;
  ASSERT_EQ(bsrk_partition_build(A.nbrows, A.rowptr.data(), 4 * 2048, &P.p), BSRK_OK);
  for (int rep = 0; rep < 10; ++rep)
    for (bsrk_shared_rows mode : kModes)
      for (int nthreads : {2, 4}) {
        SCOPED_TRACE(testing::Message() << "rep=" << rep << " mode=" << mode_name(mode) << " threads=" << nthreads);
        for (bool alias : {false, true}) {
          const auto out = run_tasks(A, P.p, nthreads, mode, 2.5, x, -0.5, in, alias);
          ASSERT_LE(rel_err(out, ref), kTol);
        }
      }
}

TEST(TasksShared, CarryIsDeterministicAcrossThreadCounts)
{
  const Bsr       A = make_pattern(Pattern::LongRow, 5, 4242);
  std::mt19937_64 rng(5);
  const auto      x  = random_vec(A.ncols(), rng);
  const auto      in = random_vec(A.nrows(), rng);
  Part            P;
  ASSERT_EQ(bsrk_partition_build(A.nbrows, A.rowptr.data(), 97, &P.p), BSRK_OK);
  const auto first = run_tasks(A, P.p, 1, BSRK_SHARED_ROWS_CARRY, 2.5, x, -0.5, in, false);
  for (int rep = 0; rep < 5; ++rep)
    for (int nthreads : {2, 3, 4})
      for (bool alias : {false, true}) {
        const auto out = run_tasks(A, P.p, nthreads, BSRK_SHARED_ROWS_CARRY, 2.5, x, -0.5, in, alias);
        for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], first[i]) << "threads=" << nthreads << " row " << i; // bitwise equal
      }
}

// ---------------------------------------------------------------------------------------
// Argument checking

TEST(TasksArgs, RejectsBadArguments)
{
  const Bsr           A = make_pattern(Pattern::LongRow, 2, 1);
  std::mt19937_64     rng(1);
  const auto          x = random_vec(A.ncols(), rng);
  std::vector<double> out(A.nrows(), 0.0);
  const bsrk_matrix   M = A.view();
  Part                P;
  ASSERT_EQ(bsrk_partition_build(A.nbrows, A.rowptr.data(), 16, &P.p), BSRK_OK);
  std::vector<double> ws(bsrk_tasks_workspace_bytes(&P.p, A.bs) / sizeof(double));
  ASSERT_GE(ws.size(), (size_t)P.p.ntasks * A.bs);

  EXPECT_EQ(bsrk_tasks_multadd(&M, &P.p, 0, 1, 0, BSRK_SHARED_ROWS_CARRY, 1.0, x.data(), 0.0, nullptr, out.data(), ws.data()), BSRK_ERR_ARG);
  EXPECT_EQ(bsrk_tasks_multadd(&M, &P.p, -3, 1, 0, BSRK_SHARED_ROWS_ATOMIC, 1.0, x.data(), 0.0, nullptr, out.data(), nullptr), BSRK_ERR_ARG);
  for (int streams : {0, 3, 5, -1}) EXPECT_EQ(bsrk_tasks_multadd(&M, &P.p, 2, streams, 0, BSRK_SHARED_ROWS_CARRY, 1.0, x.data(), 0.0, nullptr, out.data(), ws.data()), BSRK_ERR_ARG) << "streams=" << streams;
  for (int prefetch : {-1, -64, BSRK_MAX_PREFETCH_BYTES + 1}) EXPECT_EQ(bsrk_tasks_multadd(&M, &P.p, 2, 1, prefetch, BSRK_SHARED_ROWS_CARRY, 1.0, x.data(), 0.0, nullptr, out.data(), ws.data()), BSRK_ERR_ARG) << "prefetch=" << prefetch;
  EXPECT_EQ(bsrk_tasks_multadd(&M, &P.p, 2, 2, BSRK_MAX_PREFETCH_BYTES, BSRK_SHARED_ROWS_CARRY, 1.0, x.data(), 0.0, nullptr, out.data(), ws.data()), BSRK_OK);

  // the LongRow pattern cut in 16 tasks has continued rows: CARRY needs the workspace
  bool has_head = false;
  for (Idx t = 0; t < P.p.ntasks; ++t) has_head = has_head || P.p.head_row[t] >= 0;
  ASSERT_TRUE(has_head);
  EXPECT_EQ(bsrk_tasks_multadd(&M, &P.p, 2, 1, 0, BSRK_SHARED_ROWS_CARRY, 1.0, x.data(), 0.0, nullptr, out.data(), nullptr), BSRK_ERR_ARG);
  EXPECT_EQ(bsrk_tasks_multadd(&M, &P.p, 2, 1, 0, BSRK_SHARED_ROWS_ATOMIC, 1.0, x.data(), 0.0, nullptr, out.data(), nullptr), BSRK_OK);

  // partition of another structure
  const Bsr B = make_pattern(Pattern::Random, 2, 2);
  Part      Q;
  ASSERT_EQ(bsrk_partition_build(B.nbrows, B.rowptr.data(), 16, &Q.p), BSRK_OK);
  ASSERT_NE(Q.p.block_begin[Q.p.ntasks], A.rowptr[A.nbrows]);
  std::vector<double> wq(bsrk_tasks_workspace_bytes(&Q.p, A.bs) / sizeof(double));
  EXPECT_EQ(bsrk_tasks_multadd(&M, &Q.p, 2, 1, 0, BSRK_SHARED_ROWS_CARRY, 1.0, x.data(), 0.0, nullptr, out.data(), wq.data()), BSRK_ERR_ARG);
  EXPECT_EQ(bsrk_tasks_multadd(&M, &Q.p, 2, 1, 0, BSRK_SHARED_ROWS_ATOMIC, 1.0, x.data(), 0.0, nullptr, out.data(), nullptr), BSRK_ERR_ARG);

  // a single task never needs a workspace
  Part S;
  ASSERT_EQ(bsrk_partition_build(A.nbrows, A.rowptr.data(), 1, &S.p), BSRK_OK);
  EXPECT_EQ(bsrk_tasks_multadd(&M, &S.p, 1, 1, 0, BSRK_SHARED_ROWS_CARRY, 1.0, x.data(), 0.0, nullptr, out.data(), nullptr), BSRK_OK);
}

TEST(TasksArgs, WorkspaceSizeCoversCarries)
{
  const Bsr A = make_pattern(Pattern::Random, 7, 9);
  for (Idx nt : {1, 5, 300}) {
    Part P;
    ASSERT_EQ(bsrk_partition_build(A.nbrows, A.rowptr.data(), nt, &P.p), BSRK_OK);
    EXPECT_GE(bsrk_tasks_workspace_bytes(&P.p, A.bs), (size_t)P.p.ntasks * A.bs * sizeof(double));
  }
}

// ---------------------------------------------------------------------------------------
// The passive team (threads that sleep between products) gives the OpenMP team's products

TEST(PassiveTeam, SameProductsAsTheOpenMPTeam)
{
  std::mt19937_64 rng(77);
  for (Idx bs : {1, 2, 3, 5, 8, 11})
    for (Pattern pat : {Pattern::Random, Pattern::LongRow, Pattern::EmptyEdges})
      for (int nthreads : {2, 3, 4})
        for (int streams : {1, 2})
          for (bsrk_shared_rows mode : kModes) {
            const Bsr  A  = make_pattern(pat, bs, 1000 + (uint64_t)bs);
            const auto x  = random_vec(A.ncols(), rng);
            const auto in = random_vec(A.nrows(), rng);
            Part       P;
            ASSERT_EQ(bsrk_partition_build(A.nbrows, A.rowptr.data(), nthreads * 8, &P.p), BSRK_OK);
            const std::string name = std::string(pattern_name(pat)) + " bs " + std::to_string(bs) + " threads " + std::to_string(nthreads) + " streams " + std::to_string(streams) + " " + mode_name(mode);
            for (bool alias : {false, true}) {
              const auto          omp = run_tasks(A, P.p, nthreads, mode, 2.5, x, -0.5, in, alias, streams, 0, BSRK_THREADS_OPENMP);
              const auto          pas = run_tasks(A, P.p, nthreads, mode, 2.5, x, -0.5, in, alias, streams, 0, BSRK_THREADS_PASSIVE);
              std::vector<double> ref(A.nrows());
              const bsrk_matrix   M = A.view();
              bsrk_reference_multadd(&M, 2.5, x.data(), -0.5, in.data(), ref.data());
              EXPECT_LE(rel_err(pas, ref), kTol) << name;
              if (mode == BSRK_SHARED_ROWS_CARRY) EXPECT_EQ(0, std::memcmp(omp.data(), pas.data(), omp.size() * sizeof(double))) << name << ": not the same bits";
            }
          }
}

TEST(PassiveTeam, ManyProductsInARowAndFromSeveralCallers)
{
  // products back to back, so helpers that wake late meet later products; and two calling threads
  const Bsr       A = make_pattern(Pattern::LongRow, 3, 31);
  std::mt19937_64 rng(3);
  const auto      x = random_vec(A.ncols(), rng);
  Part            P;
  ASSERT_EQ(bsrk_partition_build(A.nbrows, A.rowptr.data(), 64, &P.p), BSRK_OK);
  const auto first = run_tasks(A, P.p, 1, BSRK_SHARED_ROWS_CARRY, 1.0, x, 0.0, {}, false);
  auto       work  = [&](int nthreads, int *bad) {
    for (int rep = 0; rep < 300; ++rep) {
      const auto out = run_tasks(A, P.p, nthreads, BSRK_SHARED_ROWS_CARRY, 1.0, x, 0.0, {}, false, 1, 0, BSRK_THREADS_PASSIVE);
      if (std::memcmp(out.data(), first.data(), out.size() * sizeof(double))) ++*bad;
    }
  };
  int bad1 = 0, bad2 = 0;
#pragma omp parallel sections num_threads(2)
  {
#pragma omp section
    work(3, &bad1);
#pragma omp section
    work(2, &bad2);
  }
  EXPECT_EQ(bad1, 0);
  EXPECT_EQ(bad2, 0);
}

TEST(PassiveTeam, RejectsAnUnknownKind)
{
  const Bsr         A = make_pattern(Pattern::Random, 2, 1);
  const bsrk_matrix M = A.view();
  Part              P;
  ASSERT_EQ(bsrk_partition_build(A.nbrows, A.rowptr.data(), 4, &P.p), BSRK_OK);
  std::vector<double> x(A.ncols(), 1.0), out(A.nrows()), ws(bsrk_tasks_workspace_bytes(&P.p, A.bs) / sizeof(double) + 1);
  EXPECT_EQ(bsrk_tasks_multadd_on(&M, &P.p, (bsrk_threads)7, 2, 1, 0, BSRK_SHARED_ROWS_CARRY, 1.0, x.data(), 0.0, nullptr, out.data(), ws.data()), BSRK_ERR_ARG);
}

// ---------------------------------------------------------------------------------------
// Work between items (MPI progress during mpibsrcustom's local product): only the calling thread
// runs it, after each item it ran, and the product does not change

namespace {
struct BetweenCount {
  std::atomic<long> calls{0};
  std::atomic<bool> other_thread{false};
  std::thread::id   caller;
};
void count_between(void *ctx)
{
  BetweenCount *b = static_cast<BetweenCount *>(ctx);
  b->calls++;
  if (std::this_thread::get_id() != b->caller) b->other_thread = true;
}
} // namespace

TEST(TasksKernel, WorkBetweenItemsRunsOnTheCallerAndLeavesTheProduct)
{
  const Bsr         A = make_pattern(Pattern::Random, 3, 23);
  std::mt19937_64   rng(11);
  const auto        x = random_vec(A.ncols(), rng), in = random_vec(A.nrows(), rng);
  const bsrk_matrix M = A.view();
  for (const int chunks : {1, 8, 64})
    for (const bsrk_threads kind : {BSRK_THREADS_OPENMP, BSRK_THREADS_PASSIVE})
      for (const int nthreads : {1, 3})
        for (const bsrk_shared_rows mode : kModes)
          for (const int streams : {1, 2}) {
            Part P;
            ASSERT_EQ(bsrk_partition_build(A.nbrows, A.rowptr.data(), nthreads * chunks, &P.p), BSRK_OK);
            const auto          want = run_tasks(A, P.p, nthreads, mode, 2.0, x, 0.5, in, false, streams, 0, kind);
            std::vector<double> ws(bsrk_tasks_workspace_bytes(&P.p, A.bs) / sizeof(double) + 1), out(A.nrows(), kNaN);
            BetweenCount        count;
            count.caller               = std::this_thread::get_id();
            const bsrk_between between = {count_between, &count};
            ASSERT_EQ(bsrk_tasks_multadd_between(&M, &P.p, kind, nthreads, streams, 0, mode, 2.0, x.data(), 0.5, in.data(), out.data(), ws.data(), &between), BSRK_OK);
            const std::string what = std::string(kind == BSRK_THREADS_OPENMP ? "openmp" : "passive") + " threads=" + std::to_string(nthreads) + " chunks=" + std::to_string(chunks) + " " + mode_name(mode) + " streams=" + std::to_string(streams);
            if (mode == BSRK_SHARED_ROWS_CARRY) EXPECT_EQ(std::memcmp(out.data(), want.data(), out.size() * sizeof(double)), 0) << what;
            else
              for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], want[i], 1e-12 * (1.0 + std::fabs(want[i]))) << what << " i=" << i;
            EXPECT_FALSE(count.other_thread) << what;
            const long items = (P.p.ntasks + bsrk_streams_used(A.bs, streams) - 1) / bsrk_streams_used(A.bs, streams);
            if (nthreads == 1) EXPECT_EQ(count.calls, items) << what;
            else EXPECT_LE(count.calls, items) << what; /* the caller's share of the items */
          }
}

// ---------------------------------------------------------------------------------------
// The choice between the two teams, on a clock of our own: products take what each team
// "costs" at the time, and the choice must follow

namespace {

struct Simulated {
  bsrk_team t;
  double    now   = 100.0;
  long      on[2] = {0, 0};
  Simulated() { bsrk_team_init(&t); }
  // runs products for `seconds` of simulated time, each costing cost[kind] seconds
  void run_for(double seconds, double openmp_cost, double passive_cost)
  {
    const double end = now + seconds;
    while (now < end) {
      const bsrk_threads k = bsrk_team_begin(&t, now);
      now += k == BSRK_THREADS_OPENMP ? openmp_cost : passive_cost;
      bsrk_team_end(&t, now);
      on[k]++;
    }
  }
};

} // namespace

TEST(TeamChoice, IdleMachineStaysOnTheOpenMPTeam)
{
  Simulated s;
  s.run_for(60.0, 1e-3, 1.6e-3);
  EXPECT_EQ(s.t.mode, BSRK_THREADS_OPENMP);
  EXPECT_EQ(s.on[BSRK_THREADS_PASSIVE], 2) << "only the opening's two products on the passive team";
  EXPECT_EQ(s.t.switches, 0);
}

TEST(TeamChoice, BusyCoresMoveToThePassiveTeamAndTryTheOpenMPTeamRarely)
{
  Simulated s;
  s.run_for(0.05, 8e-3, 3e-3);
  EXPECT_EQ(s.t.mode, BSRK_THREADS_PASSIVE);
  EXPECT_EQ(s.on[BSRK_THREADS_OPENMP], 2) << "the opening ends after its first pair";
  s.run_for(60.0, 8e-3, 3e-3);
  EXPECT_EQ(s.t.mode, BSRK_THREADS_PASSIVE);
  // one OpenMP product per try, the gap doubling from 0.25 s to 2 s: about 33 tries in a minute
  EXPECT_LE(s.on[BSRK_THREADS_OPENMP], 2 + 40);
  EXPECT_GE(s.on[BSRK_THREADS_OPENMP], 2 + 25);
}

TEST(TeamChoice, FollowsLoadThatComesAndGoes)
{
  Simulated s;
  s.run_for(5.0, 1e-3, 1.6e-3);
  ASSERT_EQ(s.t.mode, BSRK_THREADS_OPENMP);
  s.run_for(0.1, 8e-3, 3e-3); // load arrives: within a tenth of a second
  EXPECT_EQ(s.t.mode, BSRK_THREADS_PASSIVE);
  s.run_for(30.0, 8e-3, 3e-3);
  s.run_for(2.5, 1e-3, 1.6e-3); // load goes: back within the longest gap
  EXPECT_EQ(s.t.mode, BSRK_THREADS_OPENMP);
  EXPECT_GE(s.t.switches, 2);
}
