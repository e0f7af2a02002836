/*
   The kernels that cut rows into parts of their own (HYBRID's lanes, tiers and pieces, SEGMENTED's
   strips, SLICED's copy of the matrix) at the edges of those parts; the fixed order of the sums of a
   row's pieces; the L2 prefetches. Every product against the host reference.
*/
#include <cstring>

#include "cuda_test_support.h"

namespace cudatest {
namespace {

using Hybrid = CudaTest;

/* Every lane count on uneven rows (the long-row threshold moves with the lanes, so the pieces are
   rebuilt); beta = 0 and 1 (check_product runs both); lane counts HYBRID or WARP_ROW do not take. */
TEST_F(Hybrid, LanesOnPowerLawRows)
{
  const host_matrix P = powerlaw_matrix("powerlaw", 2000, 4000, 2, rng);
  ASSERT_TRUE(upload(M, P));
  for (int l : {4, 8, 16, 32}) {
    SCOPED_TRACE(case_name(P) + "/hybrid and warp_row/lanes=" + std::to_string(l));
    const bool set = bsrc_cuda_set_lanes(M, BSRC_CUDA_KERNEL_HYBRID, l) == BSRC_CUDA_OK && bsrc_cuda_set_lanes(M, BSRC_CUDA_KERNEL_WARP_ROW, l) == BSRC_CUDA_OK;
    EXPECT_TRUE(set) << "set_lanes: " << bsrc_cuda_last_error(M);
    if (!set) continue;
    int got = 0;
    (void)bsrc_cuda_launch_info(M, BSRC_CUDA_KERNEL_HYBRID, nullptr, nullptr, nullptr, &got);
    EXPECT_EQ(got, l) << "launch_info's lanes";
    EXPECT_TRUE(check_product(M, P, BSRC_CUDA_KERNEL_HYBRID, rng));
    EXPECT_TRUE(check_product(M, P, BSRC_CUDA_KERNEL_WARP_ROW, rng));
  }
  (void)bsrc_cuda_set_lanes(M, BSRC_CUDA_KERNEL_HYBRID, 0);
  (void)bsrc_cuda_set_lanes(M, BSRC_CUDA_KERNEL_WARP_ROW, 0);
  expect_settings(M, P, BSRC_CUDA_KERNEL_HYBRID, bsrc_cuda_set_lanes, "lanes", {1, 2}, rng); /* HYBRID only */
  EXPECT_EQ(bsrc_cuda_set_lanes(M, BSRC_CUDA_KERNEL_HYBRID, 12), BSRC_CUDA_ERR_ARG) << "set_lanes/12 refused: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_set_lanes(M, BSRC_CUDA_KERNEL_WARP_ROW, 2), BSRC_CUDA_ERR_ARG) << "set_lanes/warp_row 2 refused: " << bsrc_cuda_last_error(M);
  EXPECT_EQ(bsrc_cuda_set_lanes(M, BSRC_CUDA_KERNEL_VECTOR_UNROLLED, 8), BSRC_CUDA_ERR_ARG) << "set_lanes/vector_unrolled refused: " << bsrc_cuda_last_error(M);
}

/* bs 1: with 4 lanes a row goes to the pieces from 65 blocks (1 lane: 17, 32 lanes: 513), pieces of
   512 blocks; rows of one piece store directly, longer ones go through the fix-up. The long-row
   threshold and the work list move with the lanes. */
TEST_F(Hybrid, PieceEdges)
{
  const host_matrix E = from_rows("piece_edges", 6000, 1, cycled_rows(40, {64, 65, 0, 3, 511, 512, 513, 1024, 1025, 5000}, 37, 6000), rng);
  ASSERT_TRUE(upload(M, E));
  expect_settings(M, E, BSRC_CUDA_KERNEL_HYBRID, bsrc_cuda_set_lanes, "lanes", {1, 2, 4, 32}, rng);
}

/* 16 rows of 100 blocks, then 3 short ones: with 4 lanes every row of the first two warps' groups is
   long (no group in the work list, only pieces), with 32 lanes none is. */
TEST_F(Hybrid, LongGroups)
{
  rows_t longs(19);
  for (size_t i = 0; i < longs.size(); ++i)
    for (bsrk_idx j = 0; j < (i < 16 ? 100 : 5); ++j) longs[i].push_back((bsrk_idx)(i * 3 + j * 2));
  const host_matrix G = from_rows("long_groups", 400, 1, longs, rng);
  ASSERT_TRUE(upload(M, G));
  expect_settings(M, G, BSRC_CUDA_KERNEL_HYBRID, bsrc_cuda_set_lanes, "lanes", {1, 2, 4, 32}, rng);
}

/* bs 2 at every lane count: rows at the long-row threshold of each (16 blocks up to 4 lanes, then 32,
   64, 128), long rows next to short ones in a warp's rows, two long rows in a row, empty rows, and
   203 rows, so that the last warp's rows run past the end. */
TEST_F(Hybrid, ThresholdsBs2)
{
  const host_matrix R2 = from_rows("edges_bs2", 700, 2, cycled_rows(203, {0, 1, 16, 17, 32, 33, 3, 64, 65, 129, 300, 300, 5, 0, 128}, 7, 700), rng);
  ASSERT_TRUE(upload(M, R2));
  expect_settings(M, R2, BSRC_CUDA_KERNEL_HYBRID, bsrc_cuda_set_lanes, "lanes", {1, 2, 4, 8, 16, 32, 0}, rng);
}

/* bs 1 with one lane: the middle tier (rows of 25-128 blocks, 8 lanes each, 4 a warp) at its edges
   (24 | 25 and 128 | 129 blocks), between short rows, empty rows and pieces; rows 32-63 all in the
   tier (that group of 32 has no item of its own); 65 tier rows, so the last tier warp has one. */
TEST_F(Hybrid, MiddleTier)
{
  rows_t         tiers(106);
  const bsrk_idx tier_lengths[] = {24, 25, 0, 128, 129, 1, 26, 127, 513};
  for (size_t i = 0; i < tiers.size(); ++i) {
    const bsrk_idx n = i >= 32 && i < 64 ? 60 : tier_lengths[i % 9];
    for (bsrk_idx j = 0; j < n; ++j) tiers[i].push_back((bsrk_idx)((i * 11 + j * 3) % 2000));
  }
  sort_unique(tiers);
  const host_matrix T = from_rows("middle_tier", 2000, 1, tiers, rng);
  ASSERT_TRUE(upload(M, T));
  expect_settings(M, T, BSRC_CUDA_KERNEL_HYBRID, bsrc_cuda_set_lanes, "lanes", {1, 2, 0}, rng);
}

using Segmented = CudaTest;

/* For bs 1, 2 (a block per item) and 3 (a column per item: the long threshold is 170 blocks there),
   rows at and past the long threshold (512 items) between short ones, runs of more than 32 short rows
   (a strip holds 32), empty rows alone, in runs and at the ends, a row of many pieces, rows ending
   exactly at a step's end; beta 0 and 1 (check_product runs both), and 1024 threads per block. */
TEST_F(Segmented, StripEdges)
{
  const bsrk_idx lengths[] = {0, 1, 2, 31, 32, 33, 170, 171, 511, 512, 513, 0, 0, 1024, 1025, 5000, 3, 0};
  for (bsrk_idx bs : {1, 2, 3}) {
    rows_t rows;
    for (int rep = 0; rep < 3; ++rep) {
      for (bsrk_idx n : lengths) {
        rows.emplace_back();
        for (bsrk_idx j = 0; j < n; ++j) rows.back().push_back((bsrk_idx)((rows.size() * 37 + j * 7) % 6000));
      }
      for (int i = 0; i < 70; ++i) rows.push_back({(bsrk_idx)(i * 11 % 6000), (bsrk_idx)(i * 11 % 6000 + 1)}); /* 70 short rows: three strips */
    }
    sort_unique(rows);
    const host_matrix E = from_rows("strip_edges", 6000, bs, rows, rng);
    ASSERT_TRUE(upload(M, E));
    expect_settings(M, E, BSRC_CUDA_KERNEL_SEGMENTED, bsrc_cuda_set_threads, "threads", {0, 1024}, rng);
  }
}

/* Only empty rows. */
TEST_F(Segmented, AllEmpty)
{
  const host_matrix Z = from_rows("all_empty", 50, 2, rows_t(40), rng);
  ASSERT_TRUE(upload(M, Z));
  EXPECT_TRUE(check_product(M, Z, BSRC_CUDA_KERNEL_SEGMENTED, rng)) << case_name(Z) << "/segmented";
}

using Sliced = CudaTest;

/* SLICED's copy of the matrix, both layouts, at every specialised block size and two generic ones
   (9: one pass of 8 sums and one of 1; 17), thread blocks of 32 and 256 threads. Natural (1024 rows
   of 7 blocks: no padding): lane l of slice s is row 32 s + l. Sorted: every group size at its edges
   (rows of 32 | 33, 64 | 65, .., 512 | 513 and 1024 blocks: 1-32 lanes, one lane of a 32-lane group
   17 blocks long) next to rows of more than a slice (1025, 2048, 2049 and 3000 blocks: whole slices,
   added up by the warp of the last to finish), so that slices hold groups of several sizes; and rows
   of 0, 1, 2, 7 blocks, of 33 and 100 (groups of 2 and 4 lanes), 32 empty rows in a run, 203 rows,
   then new values (the copy is rebuilt). check_product runs beta 0 and 1. */
TEST_F(Sliced, Layouts)
{
  for (bsrk_idx bs : {1, 2, 3, 4, 5, 6, 7, 8, 9, 17}) {
    const host_matrix N = from_rows("slice_natural", 1100, bs, cycled_rows(1024, {7}, 1, 1100), rng);
    ASSERT_TRUE(upload(M, N));
    expect_settings(M, N, BSRC_CUDA_KERNEL_SLICED, bsrc_cuda_set_threads, "threads", {32, 0}, rng);
    const host_matrix G = from_rows("slice_groups", 4000, bs, cycled_rows(90, {32, 33, 64, 65, 0, 128, 129, 256, 257, 3000, 512, 513, 1, 1024, 1025, 2048, 2049, 7}, 13, 4000), rng);
    if (bs <= 9) {
      ASSERT_TRUE(upload(M, G));
      expect_settings(M, G, BSRC_CUDA_KERNEL_SLICED, bsrc_cuda_set_threads, "threads", {32, 0}, rng);
    }
    rows_t rows = cycled_rows(203, {0, 1, 7, 33, 0, 2, 100, 7}, 13, 300);
    for (int i = 64; i < 96; ++i) rows[i].clear(); /* a run of empty rows */
    const host_matrix A = from_rows("slice_edges", 300, bs, rows, rng);
    ASSERT_TRUE(upload(M, A));
    expect_settings(M, A, BSRC_CUDA_KERNEL_SLICED, bsrc_cuda_set_threads, "threads", {32, 256, 0}, rng);
    if (bs > 4) continue;
    host_matrix B = A;
    fill_values(B, rng);
    const bsrc_cuda_status s = bsrc_cuda_set_values(M, B.values.data());
    EXPECT_EQ(s, BSRC_CUDA_OK) << case_name(B) << "/sliced/new values: set_values: " << bsrc_cuda_last_error(M);
    if (s == BSRC_CUDA_OK) EXPECT_TRUE(check_product(M, B, BSRC_CUDA_KERNEL_SLICED, rng)) << case_name(B) << "/sliced/new values";
  }
}

/* 512 threads a block are refused (compiled for at most 256); only empty rows. */
TEST_F(Sliced, RefusedThreadsAndEmptyRows)
{
  EXPECT_EQ(bsrc_cuda_set_threads(M, BSRC_CUDA_KERNEL_SLICED, 512), BSRC_CUDA_ERR_ARG) << "sliced/threads 512 refused: " << bsrc_cuda_last_error(M);
  const host_matrix Z = from_rows("all_empty", 50, 3, rows_t(70), rng);
  ASSERT_TRUE(upload(M, Z));
  EXPECT_TRUE(check_product(M, Z, BSRC_CUDA_KERNEL_SLICED, rng)) << case_name(Z) << "/sliced";
}

/* Twenty products of kernel k into the NaN-poisoned dy: the first against the reference, every one
   bitwise equal to the first. */
::testing::AssertionResult twenty_products(bsrc_cuda_matrix *M, const host_matrix &A, bsrc_cuda_kernel k, double beta, const std::vector<double> &x, const std::vector<double> &in, const device_array &dx, const device_array &din, const device_array &dy)
{
  const size_t        ny = in.size();
  std::vector<double> first(ny), out(ny);
  for (int rep = 0; rep < 20; ++rep) {
    CUDA_OR_FAIL(cudaMemset(dy.ptr, 0xff, ny * sizeof(double))); /* NaN poison */
    CUDA_OR_FAIL(cudaDeviceSynchronize());
    const bsrc_cuda_status s = run_device(M, k, 1.5, dx.ptr, beta, beta != 0.0 ? din.ptr : nullptr, dy.ptr);
    CUDA_OR_FAIL(cudaStreamSynchronize((cudaStream_t)bsrc_cuda_stream(M)));
    CUDA_OR_FAIL(cudaMemcpy(out.data(), dy.ptr, ny * sizeof(double), cudaMemcpyDeviceToHost));
    if (s != BSRC_CUDA_OK) return ::testing::AssertionFailure() << status_text(s, M);
    if (rep == 0) {
      const ::testing::AssertionResult same = compare(A, 1.5, x, beta, in, out);
      if (!same) return same;
      first = out;
    } else if (memcmp(out.data(), first.data(), ny * sizeof(double)) != 0) {
      size_t i = 0;
      while (i < ny && memcmp(&out[i], &first[i], sizeof(double)) == 0) ++i;
      return ::testing::AssertionFailure() << "product " << rep + 1 << " differs from the first at entry " << i << ": " << out[i] << " vs " << first[i];
    }
  }
  return ::testing::AssertionSuccess();
}

using Pieces = CudaTest;

/* Long rows of many pieces (HYBRID and SEGMENTED, their fix-up pass; SLICED's sorted layout: rows of
   more than a slice, one partial sum a slice, added by the warp of the row's last slice to finish):
   each piece leaves its row sums in a slot and the row's slots are added in a fixed order. Twenty
   products in a row of each kernel (SLICED: its arrival counts must be back at 0 after each), beta 0
   and 1, bs 1, 2 and 5, rows of about 40 pieces (4-20 slices) between short ones: the first checked
   against the reference, every one bitwise equal to the first (the order of the sum must not depend
   on which piece finished first; out is NaN-poisoned before each product, so a row left unwritten
   shows). */
TEST_F(Pieces, FixedSumOrder)
{
  for (bsrk_idx bs : {1, 2, 5}) {
    const bsrk_idx nbcols = 30000;
    rows_t         rows(64);
    for (size_t i = 0; i < rows.size(); ++i) {
      const bsrk_idx n = i % 8 == 3 ? (bsrk_idx)(20000 / bs + i * 37) : (bsrk_idx)(3 + i % 8);
      for (bsrk_idx j = 0; j < n; ++j) rows[i].push_back((bsrk_idx)((i * 101 + (size_t)j) % nbcols));
    }
    sort_unique(rows);
    const host_matrix A = from_rows("many_pieces", nbcols, bs, rows, rng);
    ASSERT_TRUE(upload(M, A));
    const size_t        nx = (size_t)A.nbcols * bs, ny = (size_t)A.nbrows * bs;
    std::vector<double> x(nx), in(ny);
    for (double &v : x) v = uniform(rng, -1, 1);
    for (double &v : in) v = uniform(rng, -1, 1);
    device_array dx(nx), din(ny), dy(ny);
    CUDA_ASSERT(dx.status);
    CUDA_ASSERT(din.status);
    CUDA_ASSERT(dy.status);
    CUDA_ASSERT(cudaMemcpy(dx.ptr, x.data(), nx * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_ASSERT(cudaMemcpy(din.ptr, in.data(), ny * sizeof(double), cudaMemcpyHostToDevice));
    for (bsrc_cuda_kernel k : {BSRC_CUDA_KERNEL_HYBRID, BSRC_CUDA_KERNEL_SEGMENTED, BSRC_CUDA_KERNEL_SLICED})
      for (double beta : {0.0, 1.0}) EXPECT_TRUE(twenty_products(M, A, k, beta, x, in, dx, din, dy)) << case_name(A) << "/" << bsrc_cuda_kernel_names[k] << "/beta=" << (int)beta << "/20 products";
  }
}

using Prefetch = CudaTest;

/* The L2 prefetches of WARP_ROW and HYBRID (compute capability 9.0+, block sizes 1-3): they reach
   2 MiB (WARP_ROW) and 1 MiB (HYBRID) ahead of each thread block, so these matrices hold 12-24 MB of
   values, every lane count and thread-block size moving where a block's prefetched range starts and
   ends, the last ones at the matrix's end, with empty rows and rows of uneven length. Some rows are
   long enough for HYBRID's pieces (and, with bs 1 and one lane, its middle tier), so that its work
   list mixes every kind of item. Prefetching changes no result, and its ranges must stay inside the
   arrays (compute-sanitizer, on the GPU host). */
TEST_F(Prefetch, L2RangesAtEveryLaneAndThreadCount)
{
  for (bsrk_idx bs : {1, 2, 3}) {
    const bsrk_idx nbrows = bs == 1 ? 150000 : bs == 2 ? 60000 : 25000, nbcols = nbrows;
    rows_t         rows(nbrows);
    for (bsrk_idx i = 0; i < nbrows; ++i) {
      /* 0-20 blocks, mean about 10; every 50th row 40-100 blocks, every 1000th 1500 */
      const int len = i % 97 == 0 ? 0 : i % 1000 == 500 ? 1500 : i % 50 == 7 ? 40 + (int)(rng() % 61) : (int)(rng() % 21);
      for (int j = 0; j < len; ++j) rows[i].push_back((bsrk_idx)(((int64_t)i + (int64_t)j * 131) % nbcols));
    }
    sort_unique(rows);
    const host_matrix A = from_rows("l2_prefetch", nbcols, bs, rows, rng);
    ASSERT_TRUE(upload(M, A));
    expect_settings(M, A, BSRC_CUDA_KERNEL_WARP_ROW, bsrc_cuda_set_lanes, "lanes", {4, 8, 16, 32, 0}, rng);
    expect_settings(M, A, BSRC_CUDA_KERNEL_WARP_ROW, bsrc_cuda_set_threads, "threads", {32, 1024}, rng);
    expect_settings(M, A, BSRC_CUDA_KERNEL_HYBRID, bsrc_cuda_set_lanes, "lanes", {1, 2, 4, 8, 16, 32, 0}, rng);
    expect_settings(M, A, BSRC_CUDA_KERNEL_HYBRID, bsrc_cuda_set_threads, "threads", {32, 1024}, rng);
  }
}

} // namespace
} // namespace cudatest
