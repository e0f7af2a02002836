// Tests of bsrk_partition_build: every property is checked against a brute-force
// recomputation from the definitions in bsrkernels.h, never against hard-coded results.
#include "bsrkernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using Idx = bsrk_idx;

// RAII holder so that a failing ASSERT never leaks the partition.
struct Part {
  bsrk_partition p{};
  Part() { p = bsrk_partition{0, nullptr, nullptr, nullptr}; }
  ~Part() { bsrk_partition_free(&p); }
  Part(const Part &)            = delete;
  Part &operator=(const Part &) = delete;
};

std::vector<Idx> rowptr_from_counts(const std::vector<Idx> &counts)
{
  std::vector<Idx> rp(counts.size() + 1, 0);
  for (size_t r = 0; r < counts.size(); ++r) rp[r + 1] = rp[r] + counts[r];
  return rp;
}

// Builds the partition and checks every documented property. check_blocks = false skips
// the per-block coverage array (for huge fake block counts).
void check_partition(const std::vector<Idx> &rowptr, Idx ntasks_wanted, bool check_blocks = true)
{
  const Idx nbrows  = (Idx)rowptr.size() - 1;
  const Idx nblocks = rowptr[nbrows];
  Part      P;
  ASSERT_EQ(bsrk_partition_build(nbrows, rowptr.data(), ntasks_wanted, &P.p), BSRK_OK);
  const bsrk_partition &p = P.p;

  // task count: clamp(ntasks_wanted, 1, max(1, nblocks))
  const int64_t expect_ntasks = std::min<int64_t>(ntasks_wanted, std::max<int64_t>(1, nblocks));
  ASSERT_EQ((int64_t)p.ntasks, expect_ntasks);
  ASSERT_NE(p.block_begin, nullptr);
  ASSERT_NE(p.row_begin, nullptr);
  ASSERT_NE(p.head_row, nullptr);
  const Idx T = p.ntasks;

  // block ranges: contiguous from 0 to nblocks, sizes differ by at most one
  ASSERT_EQ(p.block_begin[0], 0);
  ASSERT_EQ(p.block_begin[T], nblocks);
  int64_t smin = std::numeric_limits<int64_t>::max(), smax = -1;
  for (Idx t = 0; t < T; ++t) {
    const int64_t s = (int64_t)p.block_begin[t + 1] - p.block_begin[t];
    ASSERT_GE(s, 0) << "task " << t;
    if (nblocks > 0) {
      ASSERT_GE(s, 1) << "empty task " << t << " although nblocks >= ntasks";
    }
    smin = std::min(smin, s);
    smax = std::max(smax, s);
  }
  EXPECT_LE(smax - smin, 1);

  // owned rows: row_begin non-decreasing from 0 to nbrows (so rows are covered once, in order)
  ASSERT_EQ(p.row_begin[0], 0);
  ASSERT_EQ(p.row_begin[T], nbrows);
  for (Idx t = 0; t < T; ++t) ASSERT_LE(p.row_begin[t], p.row_begin[t + 1]) << "task " << t;

  // brute-force owner of each row: the task holding block position rowptr[r]
  // (the last task when rowptr[r] == nblocks)
  std::vector<Idx> owner_seen(nbrows, -1);
  for (Idx t = 0; t < T; ++t)
    for (Idx r = p.row_begin[t]; r < p.row_begin[t + 1]; ++r) {
      ASSERT_EQ(owner_seen[r], -1) << "row " << r << " owned twice";
      owner_seen[r] = t;
    }
  for (Idx r = 0; r < nbrows; ++r) {
    Idx expect = -1;
    if (rowptr[r] == nblocks) expect = T - 1;
    else
      for (Idx t = 0; t < T; ++t)
        if (p.block_begin[t] <= rowptr[r] && rowptr[r] < p.block_begin[t + 1]) expect = t;
    ASSERT_NE(expect, -1);
    ASSERT_EQ(owner_seen[r], expect) << "owner of row " << r;
  }

  // head row: the row r with rowptr[r] < block_begin[t] < rowptr[r+1], else -1
  for (Idx t = 0; t < T; ++t) {
    Idx expect = -1;
    for (Idx r = 0; r < nbrows; ++r)
      if (rowptr[r] < p.block_begin[t] && p.block_begin[t] < rowptr[r + 1]) expect = r;
    ASSERT_EQ(p.head_row[t], expect) << "head row of task " << t;
  }

  if (!check_blocks) return;
  // Walk every task as the kernel does (head row part, then owned rows clipped to the task)
  // and check that every block is visited exactly once and attributed to its own row.
  std::vector<int> visits(nblocks, 0);
  std::vector<Idx> row_of(nblocks);
  for (Idx r = 0; r < nbrows; ++r)
    for (Idx k = rowptr[r]; k < rowptr[r + 1]; ++k) row_of[k] = r;
  for (Idx t = 0; t < T; ++t) {
    const Idx kb = p.block_begin[t], ke = p.block_begin[t + 1];
    Idx       next = kb; // blocks must be visited contiguously
    if (p.head_row[t] >= 0) {
      const Idx h = p.head_row[t];
      for (Idx k = kb; k < std::min(rowptr[h + 1], ke); ++k) {
        ASSERT_EQ(row_of[k], h);
        ++visits[k];
        ++next;
      }
    }
    for (Idx r = p.row_begin[t]; r < p.row_begin[t + 1]; ++r) {
      ASSERT_EQ(rowptr[r], next) << "task " << t << " row " << r << " does not follow on";
      for (Idx k = rowptr[r]; k < std::min(rowptr[r + 1], ke); ++k) {
        ASSERT_EQ(row_of[k], r);
        ++visits[k];
        ++next;
      }
    }
    ASSERT_EQ(next, ke) << "task " << t << " does not reach its end";
  }
  for (Idx k = 0; k < nblocks; ++k) ASSERT_EQ(visits[k], 1) << "block " << k;
}

void check_all_task_counts(const std::vector<Idx> &rowptr)
{
  const Idx nblocks = rowptr.back();
  for (Idx nt : {1, 2, 3, 4, 5, 7, 8, 16, 64, 1000}) {
    SCOPED_TRACE(testing::Message() << "ntasks_wanted=" << nt);
    check_partition(rowptr, nt);
  }
  for (Idx nt : {nblocks - 1, nblocks, nblocks + 1, 2 * nblocks + 3}) {
    if (nt < 1) continue;
    SCOPED_TRACE(testing::Message() << "ntasks_wanted=" << nt);
    check_partition(rowptr, nt);
  }
}

} // namespace

TEST(Partition, UniformRows)
{
  check_all_task_counts(rowptr_from_counts(std::vector<Idx>(50, 7)));
}

TEST(Partition, EmptyRowsAtStartMiddleEnd)
{
  std::vector<Idx> c = {0, 0, 0, 0, 3, 1, 0, 0, 0, 0, 0, 5, 0, 2, 0, 0, 9, 0, 0, 0, 0, 0};
  check_all_task_counts(rowptr_from_counts(c));
}

TEST(Partition, ManyEmptyRows)
{
  std::vector<Idx> c(500, 0);
  c[0]   = 2;
  c[137] = 4;
  c[138] = 1;
  c[250] = 11;
  c[499] = 3;
  check_all_task_counts(rowptr_from_counts(c));
}

TEST(Partition, SingleRowHoldsAllBlocks)
{
  check_all_task_counts(rowptr_from_counts({97}));
  std::vector<Idx> c(40, 0);
  c[17] = 200; // one long row between empty rows
  check_all_task_counts(rowptr_from_counts(c));
}

TEST(Partition, LongRowAmongShortRows)
{
  std::vector<Idx> c(60, 1);
  c[5]  = 0;
  c[30] = 400;
  c[31] = 0;
  check_all_task_counts(rowptr_from_counts(c));
}

TEST(Partition, ZeroBlocks)
{
  for (Idx n : {1, 2, 10}) {
    SCOPED_TRACE(testing::Message() << "nbrows=" << n);
    check_all_task_counts(rowptr_from_counts(std::vector<Idx>(n, 0)));
  }
}

TEST(Partition, ZeroRows)
{
  std::vector<Idx> rp = {0};
  check_all_task_counts(rp);
}

TEST(Partition, OneBlock)
{
  check_all_task_counts(rowptr_from_counts({1}));
  check_all_task_counts(rowptr_from_counts({0, 0, 1, 0}));
}

TEST(Partition, MoreTasksThanBlocks)
{
  const std::vector<Idx> rp = rowptr_from_counts({2, 0, 3, 1});
  for (Idx nt : {7, 100, 1 << 20}) check_partition(rp, nt);
}

TEST(Partition, RandomPatterns)
{
  std::mt19937_64 rng(12345);
  for (int it = 0; it < 60; ++it) {
    const Idx        nbrows = (Idx)(rng() % 80);
    std::vector<Idx> c(nbrows);
    for (auto &v : c) {
      const unsigned u = (unsigned)(rng() % 10);
      v                = u < 4 ? 0 : (u < 9 ? (Idx)(rng() % 6) : (Idx)(rng() % 120));
    }
    const Idx nt = (Idx)(1 + rng() % 70);
    SCOPED_TRACE(testing::Message() << "iteration " << it);
    check_partition(rowptr_from_counts(c), nt);
  }
}

TEST(Partition, LargeBlockCountDoesNotOverflow)
{
  // nblocks near the top of the index range: t*nblocks would overflow, the split must not
  const Idx        big = std::numeric_limits<Idx>::max() - 5;
  std::vector<Idx> rp  = {0, 3, big / 3, big / 3, big - 1, big};
  for (Idx nt : {2, 3, 1000, 65536}) check_partition(rp, nt, /*check_blocks=*/false);
}

TEST(Partition, BadInputReturnsArgError)
{
  const std::vector<Idx> good = rowptr_from_counts({1, 2, 3});
  Part                   P;
  EXPECT_EQ(bsrk_partition_build(-1, good.data(), 2, &P.p), BSRK_ERR_ARG);
  EXPECT_EQ(P.p.ntasks, 0);
  EXPECT_EQ(bsrk_partition_build(3, good.data(), 0, &P.p), BSRK_ERR_ARG);
  EXPECT_EQ(bsrk_partition_build(3, good.data(), -4, &P.p), BSRK_ERR_ARG);
  EXPECT_EQ(bsrk_partition_build(3, nullptr, 2, &P.p), BSRK_ERR_ARG);
  EXPECT_EQ(bsrk_partition_build(3, good.data(), 2, nullptr), BSRK_ERR_ARG);

  const std::vector<Idx> nonzero_start = {1, 2, 3};
  EXPECT_EQ(bsrk_partition_build(2, nonzero_start.data(), 2, &P.p), BSRK_ERR_ARG);
  const std::vector<Idx> decreasing = {0, 4, 3, 5};
  EXPECT_EQ(bsrk_partition_build(3, decreasing.data(), 2, &P.p), BSRK_ERR_ARG);
  const std::vector<Idx> decreasing_end = {0, 4, 5, 2};
  EXPECT_EQ(bsrk_partition_build(3, decreasing_end.data(), 1, &P.p), BSRK_ERR_ARG);
  // a failed build leaves p empty
  EXPECT_EQ(P.p.ntasks, 0);
  EXPECT_EQ(P.p.block_begin, nullptr);
  EXPECT_EQ(P.p.row_begin, nullptr);
  EXPECT_EQ(P.p.head_row, nullptr);
}

TEST(Partition, RebuildAfterFreeAndDoubleFree)
{
  const std::vector<Idx> rp = rowptr_from_counts({4, 0, 4});
  bsrk_partition         p{0, nullptr, nullptr, nullptr};
  ASSERT_EQ(bsrk_partition_build(3, rp.data(), 3, &p), BSRK_OK);
  bsrk_partition_free(&p);
  EXPECT_EQ(p.ntasks, 0);
  EXPECT_EQ(p.block_begin, nullptr);
  bsrk_partition_free(&p); // freeing an empty partition is harmless
  bsrk_partition_free(nullptr);
  ASSERT_EQ(bsrk_partition_build(3, rp.data(), 2, &p), BSRK_OK);
  EXPECT_EQ(p.ntasks, 2);
  bsrk_partition_free(&p);
}
