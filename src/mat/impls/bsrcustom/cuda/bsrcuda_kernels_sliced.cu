/*
   Our CUDA BSR products: out = alpha*A*x + beta*in, A in PETSc's BAIJ layout (column-major blocks).

   SLICED: a lane per block row, on a copy of the matrix in slices of 32 consecutive rows stored step
   by step (slices_view), built on the device from the BAIJ arrays at the first product and after
   each change of values. Every load of a warp is contiguous and no lane waits for another's row,
   so short, even rows of 2x2-4x4 blocks stream faster than with WARP_ROW's groups of lanes; the
   price is a second copy of the matrix in device memory. Where consecutive rows are of uneven length
   (the natural layout would hold more than kSlicedMaxPadding of padding) the copy takes the sorted
   layout instead: rows sorted by length, one lane each up to sliced_lane_blocks blocks, a longer row
   shared out over an aligned group of 2-32 lanes that add their sums by a butterfly, a row too long
   for 32 lanes in whole slices whose sums the warp of its last slice adds (see slices_view). On
   uneven rows of 2x2 and 4x4 blocks that layout is faster than HYBRID, so AUTO picks it there; with
   scalar blocks it is slower. The sorted layout puts rows far apart side by side, so a warp's x loads
   miss the L1 and come from the L2; the column indices are loaded two iterations ahead so that x's
   L2 latency overlaps the values' DRAM latency.
*/
#include "bsrcuda_launch.cuh"

namespace bsrc {
namespace {

/* ---------------------------------------------------------------------------------------------
   SLICED: a lane per block row on the slices of slices_view. A warp's loads of one step are
   contiguous (column indices 128 B, each value component 256 B) whatever the row length, every lane
   is busy while the slice's rows are equally long, and no reduction is needed: the lane holds its
   row's bs sums. A lane keeps sliced_depth steps' loads in flight, with the column indices of the
   next two groups of steps. Against WARP_ROW it is faster on short even rows of 2x2-4x4 blocks and
   slower on 27-point rows of bs 3 and 4, where WARP_ROW's 16-32 lanes a row already stream.
   --------------------------------------------------------------------------------------------- */
template <int BS>
__host__ __device__ constexpr int sliced_depth()
{
  return BS <= 3 ? 4 : BS == 4 ? 2 : 1;
}

/* Final value of entry i of out from a lane's sum (store_result with SLICED's arguments). */
template <int BS>
__device__ __forceinline__ void sliced_store(const product_args &a, int64_t row, const double (&acc)[BS])
{
#pragma unroll
  for (int i = 0; i < BS; ++i) store_result(a, row * BS + i, acc[i]);
}

/* Sorted layout: the lanes of one group (aligned, sharing lane_out o; bsrcuda_kernels.cuh) add their
   n sums by a butterfly, each lane ending with its group's total in the same order (deterministic).
   Returns whether this lane stores the total (its group's first lane). A slice without groups (no
   two neighbouring lanes share o) skips the shuffles. The whole warp calls it. */
template <int N>
__device__ __forceinline__ bool sliced_group_sum(double (&acc)[N], bsrk_idx o, int lane)
{
  const bsrk_idx pair = __shfl_xor_sync(0xffffffffu, o, 1);
  if (!__any_sync(0xffffffffu, o != -1 && pair == o)) return true;
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2) {
    const bool same = __shfl_xor_sync(0xffffffffu, o, d) == o;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const double t = __shfl_xor_sync(0xffffffffu, acc[i], d);
      if (same) acc[i] += t;
    }
  }
  const bsrk_idx before = __shfl_up_sync(0xffffffffu, o, 1); /* every lane, before any test (lane 0 gets its own) */
  return lane == 0 || before != o;
}

/* Sorted layout, a slice that is one part of a row too long for a slice (every lane's lane_out is
   o < -1): its group's first lane has put the part's bs sums in slot -2 - o. The warp counts the
   part in the row's arrivals once those sums are visible device-wide; the warp of the row's last part
   to finish adds all its slots, in slot order (lanes striding, then a fixed butterfly: the same order
   whichever part finished last), stores the row and puts its count back to 0 for the next product.
   This replaces a fix-up launch after the product, which was slower. */
__device__ void sliced_long_row_end(const product_args &a, bsrk_idx o, int lane, int bs)
{
  const bsrk_idx q  = -2 - o;
  const bsrk_idx j  = a.slices.slot_long[q];
  const bsrk_idx q0 = a.slices.long_begin[j], q1 = a.slices.long_begin[j + 1];
  unsigned       last = 0;
  if (lane == 0) {
    __threadfence(); /* this part's slot before its count */
    last = atomicAdd(a.slices.long_arrivals + j, 1u) == (unsigned)(q1 - q0 - 1);
  }
  if (!__shfl_sync(0xffffffffu, last, 0)) return;
  __threadfence(); /* the other parts' slots after their counts */
  const int64_t row = a.slices.long_row[j];
  for (int r = 0; r < bs; ++r) {
    const double sum = slots_sum(a.slices.slot_sum, q0, q1, bs, r, lane);
    if (lane == 0) store_result(a, row * bs + r, sum);
  }
  if (lane == 0) a.slices.long_arrivals[j] = 0;
}

template <int BS>
__global__ void __launch_bounds__(kSlicedMaxThreads) sliced_kernel(const product_args a)
{
  constexpr int U    = sliced_depth<BS>();
  constexpr int BB   = BS * BS;
  const int64_t s    = (int64_t)blockIdx.x * (blockDim.x / kWarpSize) + threadIdx.x / kWarpSize;
  const int     lane = threadIdx.x % kWarpSize;
  if (s >= a.slices.nslices) return;
  const int64_t k0 = a.slices.slice_step[s], k1 = a.slices.slice_step[s + 1];
  double        acc[BS];
#pragma unroll
  for (int i = 0; i < BS; ++i) acc[i] = 0.0;
  /* Column indices run two iterations ahead (c for this one, c_next for the next), so an iteration
     issues its values and its x loads together and x's latency hides under the values' instead of
     following it: on uneven rows a slice's lanes read x far apart, from the L2 rather than the L1. */
  bsrk_idx c[U], c_next[U];
  auto     load_cols = [&](bsrk_idx(&into)[U], int64_t k) {
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (k + u < k1) into[u] = __ldcs(a.slices.slice_col + (k + u) * kWarpSize + lane);
  };
  load_cols(c, k0);
  load_cols(c_next, k0 + U);
  for (int64_t k = k0; k < k1; k += U) {
    double v[U][BB], xv[U][BS];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (k + u < k1) {
#pragma unroll
        for (int q = 0; q < BB; ++q) v[u][q] = __ldcs(a.slices.slice_values + ((k + u) * BB + q) * kWarpSize + lane);
#pragma unroll
        for (int j = 0; j < BS; ++j) xv[u][j] = __ldg(a.x + (int64_t)c[u] * BS + j);
      }
#pragma unroll
    for (int u = 0; u < U; ++u) c[u] = c_next[u];
    load_cols(c_next, k + 2 * U);
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (k + u < k1)
#pragma unroll
        for (int j = 0; j < BS; ++j)
#pragma unroll
          for (int i = 0; i < BS; ++i) acc[i] += v[u][j * BS + i] * xv[u][j];
  }
  if (a.slices.lane_out) { /* sorted layout: a block row or a partial sum of a long one, from a group of lanes */
    const bsrk_idx o    = a.slices.lane_out[s * kWarpSize + lane];
    const bool     lead = sliced_group_sum<BS>(acc, o, lane);
    if (o < -1) { /* the whole slice: a part of a long row (o is the same on every lane) */
      if (lead)
#pragma unroll
        for (int i = 0; i < BS; ++i) a.slices.slot_sum[(int64_t)(-2 - o) * BS + i] = acc[i];
      sliced_long_row_end(a, o, lane, BS);
    } else if (lead && o >= 0) sliced_store<BS>(a, o, acc);
    return;
  }
  const int64_t row = s * kWarpSize + lane;
  if (row < a.nbrows) sliced_store<BS>(a, row, acc);
}

/* Any block size (BS == 0 in the tables): the block's rows in passes of kGenericRows sums, each
   pass walking the slice again (its column indices and x from the caches, its values once). */
__global__ void __launch_bounds__(kSlicedMaxThreads) sliced_kernel_generic(const product_args a)
{
  const int     bs   = (int)a.bs;
  const int64_t bb   = (int64_t)bs * bs;
  const int64_t s    = (int64_t)blockIdx.x * (blockDim.x / kWarpSize) + threadIdx.x / kWarpSize;
  const int     lane = threadIdx.x % kWarpSize;
  if (s >= a.slices.nslices) return;
  const int64_t  k0 = a.slices.slice_step[s], k1 = a.slices.slice_step[s + 1];
  const bsrk_idx o   = a.slices.lane_out ? a.slices.lane_out[s * kWarpSize + lane] : -1;
  const int64_t  row = a.slices.lane_out ? (int64_t)o : s * kWarpSize + lane;
  for (int r0 = 0; r0 < bs; r0 += kGenericRows) {
    double acc[kGenericRows];
#pragma unroll
    for (int q = 0; q < kGenericRows; ++q) acc[q] = 0.0;
    for (int64_t k = k0; k < k1; ++k) {
      const bsrk_idx c = __ldg(a.slices.slice_col + k * kWarpSize + lane);
      for (int j = 0; j < bs; ++j) {
        const double  xv   = __ldg(a.x + (int64_t)c * bs + j);
        const double *vcol = a.slices.slice_values + (k * bb + (int64_t)j * bs + r0) * kWarpSize + lane;
#pragma unroll
        for (int q = 0; q < kGenericRows; ++q)
          if (r0 + q < bs) acc[q] += __ldcs(vcol + q * kWarpSize) * xv;
      }
    }
    if (a.slices.lane_out && !sliced_group_sum<kGenericRows>(acc, o, lane)) continue;
    if (row >= 0 && row < a.nbrows) {
#pragma unroll
      for (int q = 0; q < kGenericRows; ++q)
        if (r0 + q < bs) store_result(a, row * bs + r0 + q, acc[q]);
    } else if (a.slices.lane_out && o < -1) {
#pragma unroll
      for (int q = 0; q < kGenericRows; ++q)
        if (r0 + q < bs) a.slices.slot_sum[(int64_t)(-2 - o) * bs + r0 + q] = acc[q];
    }
  }
  if (a.slices.lane_out && o < -1) sliced_long_row_end(a, o, lane, bs); /* o the same on every lane */
}

/* Builds the slices from the BAIJ arrays: a warp per slice, a lane per lane row, step by step. */
__global__ void slices_build_kernel(bsrk_idx nbrows, bsrk_idx bs, const bsrk_idx *rowptr, const bsrk_idx *colidx, const double *values, const slices_view S, bsrk_idx *slice_col, double *slice_values)
{
  const int     lane = threadIdx.x % kWarpSize;
  const int64_t bb   = (int64_t)bs * bs;
  for (int64_t s = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize; s < S.nslices; s += (int64_t)gridDim.x * blockDim.x / kWarpSize) {
    const int64_t row = s * kWarpSize + lane;
    int64_t       b0, len;
    if (S.lane_out) {
      b0  = S.lane_b0[row];
      len = S.lane_len[row];
    } else {
      b0  = row < nbrows ? rowptr[row] : 0;
      len = row < nbrows ? rowptr[row + 1] - b0 : 0;
    }
    const int64_t k0 = S.slice_step[s], k1 = S.slice_step[s + 1];
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t j                 = k - k0;
      slice_col[k * kWarpSize + lane] = len > 0 ? colidx[b0 + (j < len ? j : len - 1)] : 0;
      for (int64_t q = 0; q < bb; ++q) slice_values[(k * bb + q) * kWarpSize + lane] = j < len ? values[(b0 + j) * bb + q] : 0.0;
    }
  }
}

/* The dispatch table: [block-size slot]. */
const product_kernel sliced_kernels[kBsSlots] = {sliced_kernel<1>, sliced_kernel<2>, sliced_kernel<3>, sliced_kernel<4>, sliced_kernel<5>, sliced_kernel<6>, sliced_kernel<7>, sliced_kernel<8>, sliced_kernel_generic};

product_kernel select_sliced(bsrk_idx bs, int)
{
  return sliced_kernels[bs_slot(bs)];
}

int threads_sliced(bsrk_idx, double)
{
  return kSlicedMaxThreads; /* 8 slices a thread block */
}

cudaError_t shape_sliced(const matrix_view &, const tasks_view &T, const device_info &, launch_config *cfg)
{
  return shape_warp_items(T.slices.nslices, cfg); /* the sorted layout has more slices than rows / 32 */
}

cudaError_t queue_sliced(const kernel_launch &L, const matrix_view &A, const tasks_view &T, const launch_config &cfg, product_args args, cudaStream_t s)
{
  if (!T.slices.slice_step) return cudaErrorInvalidValue; /* its copy not built (no steps: no columns nor values to hold) */
  return launch_product(L, A, cfg, args, s);
}

/* Block rows [r0, r1) of SLICED (launch_row_range): args hold the range's rows. */
cudaError_t rows_sliced(const kernel_launch &L, const matrix_view &, const tasks_view &T, const launch_config &cfg, bsrk_idx r0, bsrk_idx r1, product_args args, cudaStream_t s)
{
  if (r0 % kWarpSize != 0 || !T.slices.slice_step || T.slices.lane_out) return cudaErrorInvalidValue; /* the sorted layout has no row ranges */
  args.slices            = T.slices;                                                                  /* the range's slices: slice_step holds absolute steps */
  args.slices.slice_step = T.slices.slice_step + r0 / kWarpSize;
  args.slices.nslices    = (bsrk_idx)ceil_div(r1 - r0, kWarpSize);
  const int64_t grid     = ceil_div(args.slices.nslices, cfg.threads / kWarpSize);
  L.select(args.bs, cfg.lanes)<<<(int)std::min<int64_t>(grid, INT_MAX), cfg.threads, 0, s>>>(args);
  return cudaGetLastError();
}

} // namespace

const kernel_launch launch_sliced = {select_sliced, threads_sliced, shared_none, shape_sliced, queue_sliced, rows_sliced};

cudaError_t launch_slices_build(const matrix_view &A, const slices_view &S, bsrk_idx *slice_col, double *slice_values, cudaStream_t s)
{
  if (S.nslices <= 0) return cudaSuccess;
  const int grid = (int)std::min<int64_t>(ceil_div((int64_t)S.nslices * kWarpSize, kAuxThreads), INT_MAX);
  slices_build_kernel<<<grid, kAuxThreads, 0, s>>>(A.nbrows, A.bs, A.rowptr, A.colidx, A.values, S, slice_col, slice_values);
  return cudaGetLastError();
}

} // namespace bsrc
