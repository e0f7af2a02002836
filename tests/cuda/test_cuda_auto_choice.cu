/*
   The `auto` rule of the CUDA layer (bsrc_cuda_auto_kernel): which kernel, and how many lanes, it
   picks for matrices of known shapes, and that its choice computes right.
*/
#include <cstdio>

#include "cuda_test_support.h"

namespace cudatest {
namespace {

struct auto_case {
  host_matrix      A;
  bsrc_cuda_kernel expect;
  int              expect_lanes; /* 0: any */
};

/* A band of `width` even rows over nb block rows (columns i .. i + width - 1, wrapped). */
host_matrix even_band(const char *name, bsrk_idx nb, bsrk_idx nbcols, bsrk_idx width, bsrk_idx bs, rng_t &rng, bool with_values)
{
  rows_t rows(nb);
  for (bsrk_idx i = 0; i < nb; ++i)
    for (bsrk_idx c = 0; c < width; ++c) rows[i].push_back((i + c) % nbcols);
  sort_unique(rows);
  return from_rows(name, nbcols, bs, rows, rng, with_values);
}

/* The cases on the default task partition. */
std::vector<auto_case> default_task_cases(rng_t &rng)
{
  std::vector<auto_case> cases;
  cases.push_back({stencil_matrix("stencil27", 12, 3, true, rng, false), BSRC_CUDA_KERNEL_WARP_ROW, 32});
  cases.push_back({stencil_matrix("stencil7", 12, 1, false, rng, false), BSRC_CUDA_KERNEL_WARP_ROW, 4});
  if (!quick_mode()) cases.push_back({thesis_structure(rng), BSRC_CUDA_KERNEL_VECTOR_UNROLLED, 0});
  /* rows of 6 blocks, no padding in the slices: SLICED for 2x2 to 4x4 blocks (rows of at most 1 KiB
     of values, where SLICED's coalesced loads pay for its copy), WARP_ROW for bs 1 and 5; a 12^3
     7-point stencil of 3x3 blocks holds 7.7 % padding in its slices (its faces' rows are
     shorter): WARP_ROW */
  for (bsrk_idx bs : {1, 2, 4, 5}) cases.push_back({from_rows("even6", 1024, bs, cycled_rows(1024, {6}, 1, 1024), rng, false), bs >= 2 && bs <= 4 ? BSRC_CUDA_KERNEL_SLICED : BSRC_CUDA_KERNEL_WARP_ROW, 0});
  /* rows of 6 blocks in 1000 rows: the last slice has 8 rows and 24 empty lanes, 2.4 % of the
     slices' blocks: WARP_ROW; rows of 40 2x2 blocks (1280 B): WARP_ROW; of 30 (960 B): SLICED */
  cases.push_back({from_rows("even6", 1000, 2, cycled_rows(1000, {6}, 1, 1000), rng, false), BSRC_CUDA_KERNEL_WARP_ROW, 0});
  cases.push_back({from_rows("even40", 1024, 2, cycled_rows(1024, {40}, 1, 1024), rng, false), BSRC_CUDA_KERNEL_WARP_ROW, 0});
  cases.push_back({from_rows("even30", 1024, 2, cycled_rows(1024, {30}, 1, 1024), rng, false), BSRC_CUDA_KERNEL_SLICED, 0});
  cases.push_back({stencil_matrix("stencil7", 12, 3, false, rng, false), BSRC_CUDA_KERNEL_WARP_ROW, 0});
  /* short rows of 0-2 3x3 blocks (76 bytes a block): one lane each (hybrid_row_lanes) */
  cases.push_back({heavy_row_matrix("heavy_row", 200, 1000, 3, rng), BSRC_CUDA_KERNEL_HYBRID, 1});
  /* power-law rows: SLICED's sorted layout for 2x2 and 4x4 blocks, HYBRID for 3x3 (the rule keeps
     SLICED to the block sizes it was compared on) and for uneven rows of more than 2 KiB on average */
  cases.push_back({powerlaw_matrix("powerlaw", 3000, 6000, 2, rng), BSRC_CUDA_KERNEL_SLICED, 0});
  cases.push_back({powerlaw_matrix("powerlaw", 3000, 6000, 4, rng), BSRC_CUDA_KERNEL_SLICED, 0});
  cases.push_back({powerlaw_matrix("powerlaw", 3000, 6000, 3, rng), BSRC_CUDA_KERNEL_HYBRID, 0});
  cases.push_back({from_rows("uneven_long_bs2", 3000, 2, cycled_rows(2000, {10, 60, 400, 5, 1, 60, 30, 40}, 7, 3000), rng, false), BSRC_CUDA_KERNEL_HYBRID, 0});
  /* a band of even long rows (the thesis type): the task kernel as the thesis has it */
  cases.push_back({even_band("band100", 400, 500, 100, 5, rng, false), BSRC_CUDA_KERNEL_VECTOR_UNROLLED, 0});
  /* an MPI ghost block of a band: only the last 160 of 16000 block rows have blocks (up to 160):
     skewed rows, which HYBRID takes (no task walks the ~16000 empty rows; the long rows in pieces);
     with 2x2 blocks too (mean row under kSlicedUnevenMinMeanBlocks) */
  rows_t ghost(16000);
  for (bsrk_idx i = 0; i < 160; ++i)
    for (bsrk_idx c = 0; c <= i; ++c) ghost[16000 - 160 + i].push_back(c);
  cases.push_back({from_rows("ghost_band", 160, 5, ghost, rng, false), BSRC_CUDA_KERNEL_HYBRID, 0});
  cases.push_back({from_rows("ghost_band", 160, 2, ghost, rng, false), BSRC_CUDA_KERNEL_HYBRID, 0});
  return cases;
}

/* The cases cut into 4 tasks. Power-law rows, so that each task walks more than 1024 rows (as the
   default tasks do on large power-law bs 1 matrices): still HYBRID, which uses no tasks, not
   WARP_ROW; an even band in 4 tasks of 2000 rows each, mean 80 blocks: a warp per row (no task walks
   2000 rows). */
std::vector<auto_case> four_task_cases(rng_t &rng)
{
  std::vector<auto_case> cases;
  cases.push_back({powerlaw_matrix("powerlaw_4tasks", 12000, 12000, 1, rng), BSRC_CUDA_KERNEL_HYBRID, 0});
  cases.push_back({even_band("band80_4tasks", 8000, 8000, 80, 1, rng, true), BSRC_CUDA_KERNEL_WARP_ROW, 0});
  return cases;
}

/* set_structure of c.A on `tasks` tasks (0: the default), then the choice and its lanes. */
void expect_choice(bsrc_cuda_matrix *M, const auto_case &c, bsrk_idx tasks)
{
  ASSERT_EQ(bsrc_cuda_set_task_count(M, tasks), BSRC_CUDA_OK) << "set_task_count: " << bsrc_cuda_last_error(M);
  ASSERT_EQ(bsrc_cuda_set_structure(M, c.A.nbrows, c.A.nbcols, c.A.bs, c.A.rowptr.data(), c.A.colidx.data()), BSRC_CUDA_OK) << "set_structure: " << bsrc_cuda_last_error(M);
  const bsrc_cuda_kernel k       = bsrc_cuda_auto_kernel(M);
  int                    threads = 0, grid = 0, per_sm = 0, lanes = 0;
  (void)bsrc_cuda_launch_info(M, BSRC_CUDA_KERNEL_AUTO, &threads, &grid, &per_sm, &lanes);
  printf("  auto choice for %s: %s (threads %d, grid %d, %d blocks/SM, lanes %d, %lld tasks)\n", case_name(c.A).c_str(), bsrc_cuda_kernel_names[k], threads, grid, per_sm, lanes, (long long)bsrc_cuda_task_count(M));
  EXPECT_EQ(k, c.expect) << "auto chose " << bsrc_cuda_kernel_names[k] << ", expected " << bsrc_cuda_kernel_names[c.expect];
  if (k == c.expect && c.expect_lanes) EXPECT_EQ(lanes, c.expect_lanes) << bsrc_cuda_kernel_names[k] << "'s lanes";
}

using AutoChoice = CudaTest;

TEST_F(AutoChoice, DefaultTasks)
{
  for (const auto_case &c : default_task_cases(rng)) {
    SCOPED_TRACE("auto/" + case_name(c.A));
    expect_choice(M, c, 0);
  }
}

/* The choice on 4 tasks, and that it computes right. */
TEST_F(AutoChoice, FourTasksComputeRight)
{
  for (const auto_case &c : four_task_cases(rng)) {
    const std::string name = "auto/" + case_name(c.A);
    SCOPED_TRACE(name);
    expect_choice(M, c, 4);
    if (HasFatalFailure()) return;
    const bsrc_cuda_status s = bsrc_cuda_set_values(M, c.A.values.data());
    EXPECT_EQ(s, BSRC_CUDA_OK) << "set_values: " << bsrc_cuda_last_error(M);
    if (s == BSRC_CUDA_OK) expect_all_products(M, c.A, name, rng);
  }
  EXPECT_EQ(bsrc_cuda_set_task_count(M, 0), BSRC_CUDA_OK) << "auto/reset tasks: " << bsrc_cuda_last_error(M);
}

} // namespace
} // namespace cudatest
