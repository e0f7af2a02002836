/*
   The kernel descriptors (bsrcuda_kernel_table.cuh) and the kernels' names of the C interface.
   The table is checked at compile time against bsrcuda_kernel_list.h: same order, same names, ours
   with a launch and the cuSPARSE ones without.
*/
#include "bsrcuda_kernel_table.cuh"
#include "bsrcuda_plan.cuh"

#define BSRC_CUDA_KERNEL_NAME(id, name, what) name,
extern "C" const char *const bsrc_cuda_kernel_names[BSRC_CUDA_KERNEL_COUNT] = {"auto", BSRC_CUDA_OWN_KERNELS(BSRC_CUDA_KERNEL_NAME) BSRC_CUDA_CUSPARSE_KERNELS(BSRC_CUDA_KERNEL_NAME)};

namespace bsrc {

namespace {
constexpr int kAnyThreads = 1024;
} // namespace

/* Task kernels: the task partition is built for every matrix (the auto choice reads it), so they
   have no plan of their own. WARP_ROW needs none; HYBRID's is built for its lanes. */
constexpr kernel_desc kernel_table[BSRC_CUDA_KERNEL_COUNT] = {
  /* id                                 name                 launch                   cusparse         plan               plan_on_use         prepare        tasks  min_lanes max_threads        row_unit */
  {BSRC_CUDA_KERNEL_AUTO, "auto", nullptr, CUSP_BSRMV_COL, nullptr, nullptr, nullptr, false, 0, 0, 0},
  {BSRC_CUDA_KERNEL_ROWMAJOR_SHARED, "rowmajor_shared", &launch_rowmajor_shared, CUSP_BSRMV_COL, nullptr, nullptr, nullptr, true, 0, kAnyThreads, 0},
  {BSRC_CUDA_KERNEL_THREAD_PRIVATE, "thread_private", &launch_thread_private, CUSP_BSRMV_COL, nullptr, nullptr, nullptr, true, 0, kAnyThreads, 0},
  {BSRC_CUDA_KERNEL_TEAM_SCALAR, "team_scalar", &launch_team_scalar, CUSP_BSRMV_COL, nullptr, nullptr, nullptr, true, 0, kAnyThreads, 0},
  {BSRC_CUDA_KERNEL_VECTOR_UNROLLED, "vector_unrolled", &launch_vector_unrolled, CUSP_BSRMV_COL, nullptr, nullptr, nullptr, true, 0, kAnyThreads, 0},
  {BSRC_CUDA_KERNEL_WARP_ROW, "warp_row", &launch_warp_row, CUSP_BSRMV_COL, nullptr, nullptr, nullptr, false, 4, kAnyThreads, 1},
  {BSRC_CUDA_KERNEL_HYBRID, "hybrid", &launch_hybrid, CUSP_BSRMV_COL, build_hybrid_work, nullptr, nullptr, false, 1, kAnyThreads, 0},
  {BSRC_CUDA_KERNEL_SEGMENTED, "segmented", &launch_segmented, CUSP_BSRMV_COL, build_strips, nullptr, nullptr, false, 0, kAnyThreads, 0},
  {BSRC_CUDA_KERNEL_SLICED, "sliced", &launch_sliced, CUSP_BSRMV_COL, plan_slices, plan_sorted_slices, ensure_slices, false, 0, kSlicedMaxThreads, kWarpSize},
  {BSRC_CUDA_KERNEL_CUSPARSE_BSRMV, "cusparse_bsrmv", nullptr, CUSP_BSRMV_COL, nullptr, nullptr, nullptr, false, 0, 0, 0},
  {BSRC_CUDA_KERNEL_CUSPARSE_SPMV_BSR, "cusparse_spmv_bsr", nullptr, CUSP_SPMV_BSR, nullptr, nullptr, nullptr, false, 0, 0, 0},
};

namespace {

constexpr bool same_name(const char *a, const char *b)
{
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

#define BSRC_CUDA_KERNEL_NAME_AT(id, name, what) name,
constexpr const char *list_names[BSRC_CUDA_KERNEL_COUNT] = {"auto", BSRC_CUDA_OWN_KERNELS(BSRC_CUDA_KERNEL_NAME_AT) BSRC_CUDA_CUSPARSE_KERNELS(BSRC_CUDA_KERNEL_NAME_AT)};
#undef BSRC_CUDA_KERNEL_NAME_AT

constexpr bool table_matches_list()
{
  for (int k = 0; k < BSRC_CUDA_KERNEL_COUNT; ++k) {
    const kernel_desc &d = kernel_table[k];
    if ((int)d.id != k || !same_name(d.name, list_names[k])) return false;
    const bool own = k >= 1 && k <= BSRC_CUDA_OWN_KERNEL_COUNT;
    if (own != (d.launch != nullptr)) return false;
    if (own && (d.max_threads < kWarpSize || d.max_threads > kAnyThreads)) return false;
  }
  return true;
}
static_assert(table_matches_list(), "kernel_table and bsrcuda_kernel_list.h disagree (order, names, or which kernels are ours)");

} // namespace

} // namespace bsrc
