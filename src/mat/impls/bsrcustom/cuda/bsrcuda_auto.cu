/*
   The `auto` kernel choice: which of our kernels runs a matrix, from its statistics (mean and
   longest block row, block size, the task partition's longest walk over rows, SLICED's padding).
*/
#include "bsrcuda_kernels.cuh"

namespace bsrc {
namespace {

/* Auto choice: WARP_ROW when block rows are short and even (PDE stencils), else the best task kernel. */
constexpr double   kWarpRowMaxMeanBlocks = 64.0; /* mean blocks per block row */
constexpr double   kWarpRowMaxSkew       = 4.0;  /* longest row <= skew * mean + slack */
constexpr bsrk_idx kWarpRowSkewSlack     = 16;
constexpr bsrk_idx kTaskMaxRows          = 1024; /* a task walking more block rows than this: warp per row */
/* SLICED: the mean block row's values at most this many bytes, and the natural layout's blocks
   (padding and the empty lanes of a last, partial slice included) at most kSlicedMaxPadding x the
   matrix's (bsrcuda_kernels.cuh). Against WARP_ROW, SLICED was faster on even rows of up to about
   840 bytes of values, slower on rows of about 1.7 KB and more, and with scalar blocks or 5x5 and
   8x8 ones. */
constexpr double kSlicedMaxRowBytes = 1024.0;
/* SLICED on uneven rows (its sorted layout, groups of lanes for the longer rows): 2x2 and 4x4 blocks,
   a mean row of at least kSlicedUnevenMinMeanBlocks blocks and at most kSlicedUnevenMaxRowBytes of
   values, where it was faster than HYBRID on power-law rows (with scalar blocks it is slower).
   Mostly empty MPI ghost blocks (mean row under the minimum) keep HYBRID, the kernel they were
   tuned with. */
constexpr double kSlicedUnevenMinMeanBlocks = 4.0;
constexpr double kSlicedUnevenMaxRowBytes   = 2048.0;

} // namespace

bsrc_cuda_kernel auto_choice(bsrk_idx nbrows, bsrk_idx nblocks, bsrk_idx bs, bsrk_idx max_row_blocks, bsrk_idx max_task_rows, int64_t padded_blocks)
{
  if (nbrows <= 0 || nblocks <= 0) return BSRC_CUDA_KERNEL_WARP_ROW;
  const double mean = (double)nblocks / (double)nbrows;
  const bool   even = (double)max_row_blocks <= kWarpRowMaxSkew * mean + (double)kWarpRowSkewSlack;
  /* SLICED where it was faster than WARP_ROW (see sliced_kernel): 2x2 to 4x4 blocks, rows of at
     most kSlicedMaxRowBytes of values, slices with almost no padding */
  const double row_bytes = mean * (double)bs * (double)bs * sizeof(double);
  if (even && row_bytes <= kSlicedMaxRowBytes && bs >= 2 && bs <= 4 && (double)padded_blocks <= kSlicedMaxPadding * (double)nblocks) return BSRC_CUDA_KERNEL_SLICED;
  if (mean <= kWarpRowMaxMeanBlocks && even) return BSRC_CUDA_KERNEL_WARP_ROW;
  /* Uneven rows of 2x2 and 4x4 blocks: SLICED's sorted layout, where it was faster than HYBRID
     (power-law rows, see kSlicedUnevenMinMeanBlocks) */
  if (!even && (bs == 2 || bs == 4) && row_bytes <= kSlicedUnevenMaxRowBytes && mean >= kSlicedUnevenMinMeanBlocks) return BSRC_CUDA_KERNEL_SLICED;
  /* Uneven rows (power-law lengths, an MPI ghost block whose few non-empty rows sit at the band's
     edge): with VECTOR_UNROLLED the many short rows each hold a whole thread block behind two
     barriers (several times slower than a warp per row), while WARP_ROW leaves the longest rows to
     one group of lanes (very slow for a row of hundreds of thousands of blocks). HYBRID uses no
     tasks, so this comes before the task test below: with it after, large power-law matrices (tasks
     of more than kTaskMaxRows rows) went to WARP_ROW. */
  if (!even) return BSRC_CUDA_KERNEL_HYBRID;
  /* Tasks are cut by blocks: a run of empty block rows falls into one task, whose thread block then
     walks thousands of rows one after another (milliseconds instead of microseconds on an MPI
     ghost block). A warp per row has no such serial walk. */
  if (max_task_rows > kTaskMaxRows) return BSRC_CUDA_KERNEL_WARP_ROW;
  return BSRC_CUDA_KERNEL_VECTOR_UNROLLED;
}

} // namespace bsrc
