/*
   Warp-level pieces the CUDA layer's kernels share (the products of bsrcuda_kernels.cu and the block
   SpMM of bsrcuda_spmm.cu). Private: not installed, not for C callers.
*/
#ifndef BSRCUDA_WARP_CUH
#define BSRCUDA_WARP_CUH

#include <cuda_runtime.h>

namespace bsrc {

/* Smallest power of two >= n (n >= 1), and log2 of a power of two. */
__host__ __device__ constexpr int pow2_ceil(int n)
{
  return n <= 1 ? 1 : 2 * pow2_ceil((n + 1) / 2);
}
__host__ __device__ constexpr int log2_exact(int n)
{
  return n <= 1 ? 0 : 1 + log2_exact(n / 2);
}

/* Sums N accumulators (a power of two) over the W lanes of each aligned group of a warp, leaving
   each sum in one lane: a butterfly that halves the accumulators a lane keeps at every step
   (N - 1 shuffles for the first log2(min(N, W)) steps, then one per remaining step), instead of
   log2(W) shuffles for every accumulator. On return lane `lane` (its index in the group) holds the
   sums of accumulators first..first + kept - 1 in acc[0..kept - 1], where kept = max(1, N / W), and
   the lanes that hold a given sum are those whose low log2(W / min(N, W)) bits differ: only the one
   with those bits zero (stores() true) should write it. All 32 lanes must call it. */
template <int N, int W>
struct reduce_scatter {
  static constexpr int kSteps = log2_exact(N < W ? N : W); /* halving steps */
  static constexpr int kept   = N >> kSteps;
  static constexpr int kRest  = W >> kSteps; /* lanes that still share each sum */
  int                  first  = 0;

  __device__ __forceinline__ reduce_scatter(double (&acc)[N], int lane)
  {
    int offset = W / 2;
#pragma unroll
    for (int step = 0, n = N; step < kSteps; ++step, n /= 2, offset /= 2) {
      const bool upper = (lane & offset) != 0;
#pragma unroll
      for (int i = 0; i < n / 2; ++i) {
        const double send = upper ? acc[i] : acc[i + n / 2];
        const double keep = upper ? acc[i + n / 2] : acc[i];
        acc[i]            = keep + __shfl_xor_sync(0xffffffffu, send, offset, W);
      }
      if (upper) first += n / 2;
    }
#pragma unroll
    for (int o = kRest / 2; o > 0; o /= 2) {
#pragma unroll
      for (int i = 0; i < kept; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o, W);
    }
  }
  __device__ __forceinline__ static bool stores(int lane)
  {
    return (lane & (kRest - 1)) == 0;
  }
};

} // namespace bsrc

#endif
