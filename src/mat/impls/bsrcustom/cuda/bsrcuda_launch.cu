/*
   Launch configuration and the launches of our kernels, whatever the kernel: configure (threads,
   shared memory and occupancy from the device's properties, then the kernel's own grid), launch
   (the product on the whole matrix), its task and row ranges, and the product of an empty matrix.
   Each kernel's own part (its block-size dispatch, grid, fix-up passes) is in its family's file
   (bsrcuda_kernels_tasks.cu, bsrcuda_kernels_warp.cu, bsrcuda_kernels_sliced.cu), reached through
   its kernel_launch in the descriptor table.
*/
#include "bsrcuda_kernel_table.cuh"
#include "bsrcuda_launch.cuh"

namespace bsrc {
namespace {

__global__ void scale_kernel(int64_t n, double alpha, double beta, const double *in, double *out)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) out[i] = beta == 0.0 ? alpha * 0.0 : alpha * 0.0 + beta * in[i];
}

/* Whether the product's values are loaded evict-first (load_value's run-time switch): the matrix is
   small enough (stream_values), unless WARP_ROW prefetches 2x2 blocks instead (prefetch_rows). */
bool values_streamed(const matrix_view &A, const launch_config &cfg)
{
  return stream_values(A) && !(cfg.prefetch_rows > 0 && A.bs == 2);
}

} // namespace

cudaError_t launch_product(const kernel_launch &L, const matrix_view &A, const launch_config &cfg, const product_args &args, cudaStream_t s)
{
  L.select(A.bs, cfg.lanes)<<<cfg.grid, cfg.threads, cfg.shared_bytes, s>>>(args);
  return cudaGetLastError();
}

cudaError_t configure(bsrc_cuda_kernel k, const matrix_view &A, const tasks_view &T, int lanes, const device_info &dev, int threads_override, launch_config *cfg)
{
  const kernel_launch *L = is_own_kernel(k) ? kernel_info(k).launch : nullptr;
  if (!L || A.bs < 1) return cudaErrorInvalidValue;
  const product_kernel fn      = L->select(A.bs, lanes);
  const double         mean    = A.nbrows > 0 ? (double)A.nblocks / (double)A.nbrows : 0.0;
  const int            threads = threads_override > 0 ? threads_override : L->default_threads(A.bs, mean);
  if (threads % kWarpSize != 0 || threads > 1024) return cudaErrorInvalidConfiguration;
  const size_t shared = L->shared_bytes(A.bs, threads);
  if (shared > dev.shared_per_block_optin) return cudaErrorInvalidConfiguration;
  if (shared > dev.shared_per_block) BSRC_CUDA_CHECK_OR(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared), bsrc_err);
  int per_sm = 0;
  BSRC_CUDA_CHECK_OR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, shared), bsrc_err);
  if (per_sm < 1) return cudaErrorInvalidConfiguration;

  launch_config c = {};
  c.threads       = threads;
  c.blocks_per_sm = per_sm;
  c.lanes         = has_lanes(k) ? lanes : 0;
  c.shared_bytes  = shared;
  c.sm90          = dev.cc_major >= 9;
  BSRC_CUDA_CHECK_OR(L->shape(A, T, dev, &c), bsrc_err);
  *cfg = c;
  return cudaSuccess;
}

cudaError_t launch(bsrc_cuda_kernel k, const matrix_view &A, const tasks_view &T, const launch_config &cfg, double alpha, const double *x, double beta, const double *in, double *out, cudaStream_t s)
{
  if (A.nbrows <= 0) return cudaSuccess;
  const kernel_launch *L = is_own_kernel(k) ? kernel_info(k).launch : nullptr;
  if (!L) return cudaErrorInvalidValue;
  const product_args args = {A.nbrows,
                             A.bs,
                             A.rowptr,
                             A.colidx,
                             A.values,
                             T.ntasks,
                             T.block_begin,
                             T.row_begin,
                             T.head_row,
                             T.carry,
                             T.hybrid.npieces,
                             T.hybrid.piece_blocks,
                             T.hybrid.piece_row,
                             T.hybrid.piece_start,
                             T.hybrid.piece_sum,
                             T.hybrid_nwork,
                             T.hybrid_work,
                             nullptr,
                             T.hybrid_short_blocks,
                             T.hybrid_medium,
                             values_streamed(A, cfg),
                             cfg.prefetch_rows,
                             cfg.prefetch_blocks,
                             alpha,
                             beta,
                             x,
                             in,
                             out,
                             T.slices};
  return L->queue(*L, A, T, cfg, args, s);
}

cudaError_t launch_task_range(bsrc_cuda_kernel k, const matrix_view &A, const tasks_view &T, const launch_config &cfg, bsrk_idx t0, bsrk_idx t1, double alpha, const double *x, double beta, const double *in, double *out, cudaStream_t s)
{
  if (!is_task_kernel(k) || t0 < 0 || t1 > T.ntasks) return cudaErrorInvalidValue;
  if (t1 <= t0 || A.nbrows <= 0) return cudaSuccess;
  /* the task arrays hold absolute block and row indices: the range's view is a shift of the pointers */
  tasks_view R    = T;
  R.ntasks        = t1 - t0;
  R.block_begin   = T.block_begin + t0;
  R.row_begin     = T.row_begin + t0;
  R.head_row      = T.head_row + t0;
  R.carry         = T.carry + (int64_t)t0 * A.bs;
  launch_config c = cfg;
  c.grid          = (int)std::min<int64_t>(cfg.grid, R.ntasks);
  return launch(k, A, R, c, alpha, x, beta, in, out, s);
}

cudaError_t launch_row_range(bsrc_cuda_kernel k, const matrix_view &A, const tasks_view &T, const launch_config &cfg, bsrk_idx r0, bsrk_idx r1, double alpha, const double *x, double beta, const double *in, double *out, cudaStream_t s)
{
  if (r1 <= r0) return cudaSuccess;
  const kernel_launch *L = is_own_kernel(k) ? kernel_info(k).launch : nullptr;
  if (!L || !L->queue_rows) return cudaErrorInvalidValue;
  const int64_t off  = (int64_t)r0 * A.bs;
  product_args  args = {};
  args.nbrows        = r1 - r0;
  args.bs            = A.bs;
  args.rowptr        = A.rowptr + r0; /* row pointers hold absolute block indices: the view needs no other shift */
  args.colidx        = A.colidx;
  args.values        = A.values;
  args.stream_values = values_streamed(A, cfg);
  args.prefetch_rows = cfg.prefetch_rows;
  args.alpha         = alpha;
  args.beta          = beta;
  args.x             = x;
  args.in            = beta != 0.0 ? in + off : nullptr;
  args.out           = out + off;
  return L->queue_rows(*L, A, T, cfg, r0, r1, args, s);
}

cudaError_t launch_scale(int64_t n, double alpha, double beta, const double *in, double *out, cudaStream_t s)
{
  if (n <= 0) return cudaSuccess;
  const int grid = (int)std::min<int64_t>(ceil_div(n, kAuxThreads), INT_MAX);
  scale_kernel<<<grid, kAuxThreads, 0, s>>>(n, alpha, beta, in, out);
  return cudaGetLastError();
}

} // namespace bsrc
