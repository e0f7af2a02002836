/*
   Our CUDA BSR products: out = alpha*A*x + beta*in, A in PETSc's BAIJ layout (column-major blocks).

   Task kernels (thesis ch. 8.3): the nonzero blocks are cut into fixed-size tasks on the host
   (bsrk_partition_build, uploaded at set_structure); a thread block runs one task at a time, a
   grid-stride loop over the tasks (8.3.1, Listing 12). A task is a run of row segments: the tail of
   a row it continues (its head row), then the rows it owns (see bsrkernels.h). They differ in the
   access pattern and the reduction (8.3.2):
     ROWMAJOR_SHARED  every thread takes entries in storage order, atomicAdd into a shared row
                      vector (Listing 14);
     THREAD_PRIVATE   same order, each thread keeps its own row vector, then a block reduction
                      (Listings 15-16). The thesis's vector went to local memory (run-time index);
                      ours is selected through a compile-time unrolled loop and stays in registers;
     TEAM_SCALAR      teams of bs*bs threads, one scalar accumulator per block entry, one shared
                      atomic per thread and segment (Listing 17);
     VECTOR_UNROLLED  each thread takes a whole block column (bs contiguous values) and keeps bs
                      accumulators in registers (loops unrolled over bs), warp shuffle reduction,
                      one shared atomic per warp and row (Listing 18). With column-major blocks a
                      column is contiguous, so a warp reads one contiguous range per step; the
                      values of matrices up to 400 MiB are loaded evict-first (load_value).
   Differences from the thesis: instead of scaling y first and adding every row with global atomics
   (Listing 13), the task owning a row stores alpha*sum + beta*in (so beta == 0 never reads in and
   in may alias out), a task continuing a row writes its partial sum to a per-task carry, and a
   fix-up pass adds the carries in task order: no global atomics, deterministic.
*/
#include "bsrcuda_launch.cuh"

namespace bsrc {
namespace {

constexpr int kOversubscription = 8;  /* task kernels: grid = resident thread blocks x this (thesis 8.2.2, Tables 7-12) */
constexpr int kTasksPerSM       = 64; /* default partition: at least this many tasks per multiprocessor ... */
/* kMaxTaskValues: ... and at most this many values per task (512 blocks of 5x5: the thesis's tasks).
   Counted in values, not blocks, so that small blocks still give a task enough work to amortise
   its barriers (HYBRID on scalar power-law rows: 512-block tasks left most groups idle) */
constexpr int64_t kMaxTaskValues = 512 * 25;

/* ---------------------------------------------------------------------------------------------
   Thesis kernel 1: row-major access order, shared-memory atomics (Listing 14).
   Dynamic shared memory: bs doubles.
   --------------------------------------------------------------------------------------------- */
template <int BS>
__global__ void rowmajor_shared_kernel(const product_args a)
{
  release_fixup();
  extern __shared__ double shared_rows[];
  const int                bs  = block_size<BS>(a);
  const int                bs2 = bs * bs;
  clear_shared(shared_rows, bs);
  __syncthreads();
  for_each_task_segment(a, [&](bsrk_idx s, bsrk_idx e, row_target tg) {
    for_each_item(s, e, bs2, threadIdx.x, blockDim.x, [&](bsrk_idx k, int u) {
      const int    c = u / bs;
      const double v = __ldg(a.values + (int64_t)k * bs2 + u) * x_entry(a, bs, k, c);
      atomicAdd(&shared_rows[u - c * bs], v);
    });
    __syncthreads();
    emit_and_clear(a, bs, tg, shared_rows);
    __syncthreads();
  });
}

/* ---------------------------------------------------------------------------------------------
   Thesis kernel 2: row-major access order, thread-private accumulation, block reduction
   (Listings 15-16: shuffles inside each warp, one partial per warp in shared memory).
   Dynamic shared memory: warps * accumulators doubles.
   --------------------------------------------------------------------------------------------- */
template <int BS>
__global__ void thread_private_kernel(const product_args a)
{
  release_fixup();
  constexpr int            kAcc = accumulators<BS>();
  extern __shared__ double warp_partials[];
  const int                bs     = block_size<BS>(a);
  const int                bs2    = bs * bs;
  const int                lane   = threadIdx.x % kWarpSize;
  const int                warp   = threadIdx.x / kWarpSize;
  const int                nwarps = blockDim.x / kWarpSize;
  for_each_task_segment(a, [&](bsrk_idx s, bsrk_idx e, row_target tg) {
    for (int r0 = 0; r0 < bs; r0 += kAcc) {
      const int nr = rows_in_pass<BS>(bs, r0);
      double    acc[kAcc];
#pragma unroll
      for (int q = 0; q < kAcc; ++q) acc[q] = 0.0;
      /* items of a pass: (block k, u = c*nr + rr) -> entry (r0 + rr, c), storage order */
      for_each_item(s, e, bs * nr, threadIdx.x, blockDim.x, [&](bsrk_idx k, int u) {
        const int c  = u / nr;
        const int rr = u - c * nr;
        add_to_slot(acc, rr, __ldg(a.values + (int64_t)k * bs2 + c * bs + r0 + rr) * x_entry(a, bs, k, c));
      });
#pragma unroll
      for (int q = 0; q < kAcc; ++q) {
        const double w = warp_reduce_sum<kWarpSize>(acc[q]);
        if (lane == 0) warp_partials[warp * kAcc + q] = w;
      }
      __syncthreads();
      if ((int)threadIdx.x < nr) {
        double sum = 0.0;
        for (int w = 0; w < nwarps; ++w) sum += warp_partials[w * kAcc + threadIdx.x];
        emit(a, bs, tg, r0 + threadIdx.x, sum);
      }
      __syncthreads();
    }
  });
}

/* ---------------------------------------------------------------------------------------------
   Thesis kernel 3: team-based scalar accumulation (Listing 17). A team of bs*bs threads covers one
   block (thread w of a team: entry w in storage order, i.e. row w % bs, column w / bs); the
   blockDim / (bs*bs) teams stride over the segment's blocks; one shared atomic per thread and
   segment. Thread blocks smaller than bs*bs fall back to one team with several entries per thread.
   Dynamic shared memory: bs doubles.
   --------------------------------------------------------------------------------------------- */
template <int BS>
__global__ void team_scalar_kernel(const product_args a)
{
  release_fixup();
  extern __shared__ double shared_rows[];
  const int                bs  = block_size<BS>(a);
  const int                bs2 = bs * bs;
  clear_shared(shared_rows, bs);
  __syncthreads();
  const bool full_teams = bs2 <= (int)blockDim.x;
  const int  teams      = full_teams ? (int)blockDim.x / bs2 : 1;
  const int  team       = threadIdx.x / bs2;
  const int  w0         = threadIdx.x % bs2;
  for_each_task_segment(a, [&](bsrk_idx s, bsrk_idx e, row_target tg) {
    if (full_teams) {
      if (team < teams) { /* threads past the last full team stay idle (thesis: "workers") */
        const int c   = w0 / bs;
        double    acc = 0.0;
        for (bsrk_idx k = s + team; k < e; k += teams) acc += __ldg(a.values + (int64_t)k * bs2 + w0) * x_entry(a, bs, k, c);
        atomicAdd(&shared_rows[w0 - c * bs], acc);
      }
    } else {
      for (int w = threadIdx.x; w < bs2; w += blockDim.x) {
        const int c   = w / bs;
        double    acc = 0.0;
        for (bsrk_idx k = s; k < e; ++k) acc += __ldg(a.values + (int64_t)k * bs2 + w) * x_entry(a, bs, k, c);
        atomicAdd(&shared_rows[w - c * bs], acc);
      }
    }
    __syncthreads();
    emit_and_clear(a, bs, tg, shared_rows);
    __syncthreads();
  });
}

/* ---------------------------------------------------------------------------------------------
   Thesis kernel 4: vector accumulation with unrolled loops (Listing 18). A thread takes whole block
   columns; accumulators in registers; per pass a warp shuffle reduction and one shared atomic per
   warp and row. Dynamic shared memory: bs doubles.
   --------------------------------------------------------------------------------------------- */
template <int BS>
__global__ void vector_unrolled_kernel(const product_args a)
{
  release_fixup();
  constexpr int            kAcc = accumulators<BS>();
  extern __shared__ double shared_rows[];
  const int                bs   = block_size<BS>(a);
  const int                lane = threadIdx.x % kWarpSize;
  clear_shared(shared_rows, bs);
  __syncthreads();
  for_each_task_segment(a, [&](bsrk_idx s, bsrk_idx e, row_target tg) {
    for (int r0 = 0; r0 < bs; r0 += kAcc) {
      const int nr = rows_in_pass<BS>(bs, r0);
      double    acc[kAcc];
#pragma unroll
      for (int q = 0; q < kAcc; ++q) acc[q] = 0.0;
      for_each_item(s, e, bs, threadIdx.x, blockDim.x, [&](bsrk_idx k, int c) { accumulate_column<BS, kAcc, streams<BS, kWarpSize>()>(acc, a.values + ((int64_t)k * bs + c) * bs + r0, nr, x_entry(a, bs, k, c), a.stream_values); });
#pragma unroll
      for (int q = 0; q < kAcc; ++q) {
        if (BS == 0 && q >= nr) break; /* nr is the same in the whole block */
        const double w = warp_reduce_sum<kWarpSize>(acc[q]);
        if (lane == 0) atomicAdd(&shared_rows[r0 + q], w);
      }
    }
    __syncthreads();
    emit_and_clear(a, bs, tg, shared_rows);
    __syncthreads();
  });
}

/* Adds the carries of tasks continuing a row, in task order: the first task of each run of tasks
   with the same head row sums the run, so no two threads touch one entry of out. */
__global__ void carry_fixup_kernel(bsrk_idx ntasks, int bs, const bsrk_idx *head_row, const double *carry, double alpha, double *out)
{
  wait_for_product();
  const int64_t total = (int64_t)ntasks * bs;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
    const bsrk_idx t = (bsrk_idx)(i / bs);
    const int      r = (int)(i - (int64_t)t * bs);
    const bsrk_idx h = head_row[t];
    if (h < 0 || (t > 0 && head_row[t - 1] == h)) continue;
    double sum = 0.0;
    for (bsrk_idx u = t; u < ntasks && head_row[u] == h; ++u) sum += carry[(int64_t)u * bs + r];
    out[(int64_t)h * bs + r] += alpha * sum;
  }
}

/* The dispatch table, written once: [kernel][block-size slot]. */
#define BSRC_BS_TABLE(kernel) \
  { \
    kernel<1>, kernel<2>, kernel<3>, kernel<4>, kernel<5>, kernel<6>, kernel<7>, kernel<8>, kernel<0> \
  }
/* Order: BSRC_CUDA_KERNEL_ROWMAJOR_SHARED .. BSRC_CUDA_KERNEL_VECTOR_UNROLLED. */
const product_kernel task_kernels[4][kBsSlots] = {BSRC_BS_TABLE(rowmajor_shared_kernel), BSRC_BS_TABLE(thread_private_kernel), BSRC_BS_TABLE(team_scalar_kernel), BSRC_BS_TABLE(vector_unrolled_kernel)};
#undef BSRC_BS_TABLE

/* Block-size (and lanes) dispatch of each kernel: its __global__ product for bs (and lanes). */
template <int TASK_KERNEL> /* row of task_kernels */
product_kernel select_task(bsrk_idx bs, int)
{
  return task_kernels[TASK_KERNEL][bs_slot(bs)];
}

int round_up_pow2(int64_t v)
{
  int p = 1;
  while (p < v && p < (1 << 30)) p *= 2;
  return p;
}

/* Default threads per thread block of each kernel. The thesis found one warp best for the
   atomics-bound kernels 1 and 2, about four teams for kernel 3 and 128 threads for kernel 4; sweeps
   of bench/bench_cuda moved these to: kernels 1 and 2 two warps, kernel 3 about three teams, kernel 4
   about one thread per block column of an average block row (at most 256), the warp-based kernels
   128 (flat over a wide range), SLICED the bound its kernels are compiled for. */
int threads_two_warps(bsrk_idx, double)
{
  return 2 * kWarpSize;
}
int threads_team_scalar(bsrk_idx bs, double)
{
  return std::min(1024, std::max(kWarpSize, round_up_pow2(3 * (int64_t)bs * bs)));
}
int threads_vector_unrolled(bsrk_idx bs, double mean_blocks_per_row)
{
  const double columns = mean_blocks_per_row * (double)bs;
  int          threads = kWarpSize;
  while (threads < 256 && 2.0 * threads <= columns) threads *= 2;
  return threads;
}

cudaError_t shape_tasks(const matrix_view &, const tasks_view &T, const device_info &dev, launch_config *cfg)
{
  cfg->grid = clamp_grid(std::min<int64_t>(T.ntasks, (int64_t)cfg->blocks_per_sm * dev.sm_count * kOversubscription));
  return cudaSuccess;
}

/* The product, then the carries of tasks that continue a row added in task order. */
cudaError_t queue_tasks(const kernel_launch &L, const matrix_view &A, const tasks_view &T, const launch_config &cfg, product_args args, cudaStream_t s)
{
  BSRC_CUDA_CHECK_OR(launch_product(L, A, cfg, args, s), bsrc_err);
  if (!T.has_carries) return cudaSuccess;
  const int64_t n    = (int64_t)T.ntasks * A.bs;
  const int     grid = (int)std::min<int64_t>(ceil_div(n, kAuxThreads), INT_MAX);
  return launch_fixup(carry_fixup_kernel, grid, cfg.sm90, s, T.ntasks, (int)A.bs, T.head_row, T.carry, args.alpha, args.out);
}

} // namespace

const kernel_launch launch_rowmajor_shared = {select_task<0>, threads_two_warps, shared_row_vector, shape_tasks, queue_tasks, nullptr};
const kernel_launch launch_thread_private  = {select_task<1>, threads_two_warps, shared_row_vector_per_warp, shape_tasks, queue_tasks, nullptr};
const kernel_launch launch_team_scalar     = {select_task<2>, threads_team_scalar, shared_row_vector, shape_tasks, queue_tasks, nullptr};
const kernel_launch launch_vector_unrolled = {select_task<3>, threads_vector_unrolled, shared_row_vector, shape_tasks, queue_tasks, nullptr};

/* Enough tasks for every multiprocessor to hold several (balance through oversubscription), none
   with more than kMaxTaskValues values, never more tasks than blocks. */
bsrk_idx default_task_count(bsrk_idx nblocks, bsrk_idx bs, const device_info &dev)
{
  if (nblocks <= 0) return 1;
  const int64_t want = std::max<int64_t>((int64_t)dev.sm_count * kTasksPerSM, ceil_div((int64_t)nblocks * bs * bs, kMaxTaskValues));
  return (bsrk_idx)std::min<int64_t>(want, nblocks);
}

} // namespace bsrc
