/*
   How our kernels are launched, shared by their files: the descriptor of a kernel's launch
   (kernel_launch, the table's entries point to one per kernel), the block-size slots of the
   kernels' dispatch tables, the grid and fix-up helpers, and launch_product, which queues a
   product kernel (bsrcuda_launch.cu). Private: not installed.
*/
#ifndef BSRCUDA_LAUNCH_CUH
#define BSRCUDA_LAUNCH_CUH

#include <algorithm>
#include <climits>

#include "bsrcuda_kernels_device.cuh"

namespace bsrc {

constexpr int    kAuxThreads          = 256;               /* fix-up and scale passes: plain element-wise loops */
constexpr double kStreamMaxValueBytes = 400.0 * 1048576.0; /* evict-first value loads up to this size (load_value) */

/* A product kernel's __global__ entry, as the dispatch tables hold it. */
using product_kernel = void (*)(product_args);

/* How one of our kernels is launched; its entry of the descriptor table (bsrcuda_kernel_table.cu)
   points to it. */
struct kernel_launch {
  product_kernel (*select)(bsrk_idx bs, int lanes); /* block-size (and lanes) dispatch */
  int (*default_threads)(bsrk_idx bs, double mean_blocks_per_row);
  size_t (*shared_bytes)(bsrk_idx bs, int threads);
  cudaError_t (*shape)(const matrix_view &A, const tasks_view &T, const device_info &dev, launch_config *cfg);
  /* queues the product (args filled for the whole matrix) and its fix-up pass */
  cudaError_t (*queue)(const kernel_launch &L, const matrix_view &A, const tasks_view &T, const launch_config &cfg, product_args args, cudaStream_t s);
  /* block rows [r0, r1) only (launch_row_range); null: the kernel has no row ranges */
  cudaError_t (*queue_rows)(const kernel_launch &L, const matrix_view &A, const tasks_view &T, const launch_config &cfg, bsrk_idx r0, bsrk_idx r1, product_args args, cudaStream_t s);
};

/* Dispatch tables: [kernel][block-size slot], slot bs-1 for bs <= 8, else generic. */
inline int bs_slot(bsrk_idx bs)
{
  return bs <= kSpecialisedMax ? (int)bs - 1 : kSpecialisedMax;
}

/* Index of a power of two in [1, 32] (log2); WARP_ROW's tables start at 4 lanes. */
inline int lanes_slot(int lanes)
{
  return lanes <= 1 ? 0 : lanes <= 2 ? 1 : lanes <= 4 ? 2 : lanes <= 8 ? 3 : lanes <= 16 ? 4 : 5;
}

/* Dynamic shared memory per thread block: a row vector of bs sums (ROWMAJOR_SHARED, TEAM_SCALAR,
   VECTOR_UNROLLED), one per warp (THREAD_PRIVATE's block reduction, HYBRID's pieces), or none. */
inline size_t shared_row_vector(bsrk_idx bs, int)
{
  return (size_t)bs * sizeof(double);
}
inline size_t shared_row_vector_per_warp(bsrk_idx bs, int threads)
{
  return (size_t)(threads / kWarpSize) * (size_t)(bs <= kSpecialisedMax ? bs : kGenericRows) * sizeof(double);
}
inline size_t shared_none(bsrk_idx, int)
{
  return 0;
}

inline int64_t ceil_div(int64_t a, int64_t b)
{
  return (a + b - 1) / b;
}

/* load_value's run-time switch for this matrix. */
inline bool stream_values(const matrix_view &A)
{
  return (double)A.nblocks * A.bs * A.bs * sizeof(double) <= kStreamMaxValueBytes;
}

/* Grid (and the L2 prefetch distances) of each kernel into cfg, whose threads, lanes,
   blocks_per_sm, shared_bytes and sm90 are set; an error where the launch cannot be made. */
inline int clamp_grid(int64_t grid)
{
  return (int)std::max<int64_t>(1, std::min<int64_t>(grid, INT_MAX));
}
/* A warp per item of a list of n. */
inline cudaError_t shape_warp_items(int64_t n, launch_config *cfg)
{
  const int64_t grid = ceil_div(n, cfg->threads / kWarpSize);
  if (grid > INT_MAX) return cudaErrorInvalidConfiguration;
  cfg->grid = clamp_grid(grid);
  return cudaSuccess;
}

/* A fix-up pass after the product kernel, kAuxThreads a block; `early`: as a programmatic dependent
   launch (release_fixup, wait_for_product), which lets it start while the product's last blocks
   run: slightly faster for HYBRID's pieces and the task kernels' carries; the fix-up is released at
   the start of the product's blocks, as releasing it only as they finish lost most of the gain. */
template <typename... Params, typename... Args>
cudaError_t launch_fixup(void (*kernel)(Params...), int grid, bool early, cudaStream_t s, Args... args)
{
  cudaLaunchAttribute attr                        = {};
  attr.id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t c                            = {};
  c.gridDim                                       = dim3((unsigned)grid);
  c.blockDim                                      = dim3((unsigned)kAuxThreads);
  c.stream                                        = s;
  c.attrs                                         = early ? &attr : nullptr;
  c.numAttrs                                      = early ? 1 : 0;
  return cudaLaunchKernelEx(&c, kernel, args...);
}

/* Queues L's product kernel for bs and lanes with cfg's grid, threads and shared memory (bsrcuda_launch.cu). */
cudaError_t launch_product(const kernel_launch &L, const matrix_view &A, const launch_config &cfg, const product_args &args, cudaStream_t s);

} // namespace bsrc

#endif
