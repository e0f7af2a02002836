/* The bytes sliced's sorted layout moves on bench_cuda's power-law matrices, from the layout's plan
   (the same rule as plan_sorted_slices in src/mat/impls/bsrcustom/cuda/bsrcuda_matrix.cu at bd308cc,
   written out again here on the host), against the bytes bench_cuda counts (values, column indices,
   row pointers, x and y). Build and run from the repository root:
     g++ -O2 -std=c++17 -Ibench -Isrc/mat/impls/bsrcustom/kernels \
       docs/bench/h100-2026-11-23-lanegroups/sorted-layout-bytes.cpp -o /tmp/slb && /tmp/slb
   Output at bd308cc: sorted-layout-bytes.txt. */
#include "bench_datasets.h"

#include <algorithm>
#include <cstdio>

static void count(int bs, bsrk_idx nbrows)
{
  const dataset   D  = powerlaw_dataset("powerlaw_bs" + std::to_string(bs), nbrows, bs, 16.0, 0); /* bench_cuda's call */
  const bsrk_idx *rp = D.rowptr.data();
  const int64_t   lane_blocks = bs == 2 ? 64 : 32; /* sliced_lane_blocks */
  struct unit {
    int64_t len;
    int     lanes;
    int64_t longest;
  };
  std::vector<unit> units;
  int64_t           nlong = 0, nslots = 0;
  for (bsrk_idx r = 0; r < nbrows; ++r) {
    const int64_t len = rp[r + 1] - rp[r];
    if (len <= 32 * lane_blocks) {
      int g = 1;
      while ((len + g - 1) / g > lane_blocks) g *= 2;
      units.push_back({len, g, (len + g - 1) / g});
      continue;
    }
    const int64_t parts = (len + 32 * lane_blocks - 1) / (32 * lane_blocks);
    ++nlong;
    for (int64_t q = 0; q < parts; ++q, ++nslots) {
      const int64_t part = len / parts + (q < len % parts ? 1 : 0);
      units.push_back({part, 32, (part + 31) / 32});
    }
  }
  std::stable_sort(units.begin(), units.end(), [](const unit &a, const unit &b) { return a.lanes != b.lanes ? a.lanes > b.lanes : a.longest > b.longest; });
  int64_t lanes = 0;
  for (const unit &u : units) lanes += u.lanes;
  const int64_t        nslices = (lanes + 31) / 32;
  std::vector<int64_t> longest((size_t)nslices, 0);
  int64_t              lane = 0;
  for (const unit &u : units)
    for (int i = 0; i < u.lanes; ++i, ++lane) longest[lane / 32] = std::max(longest[lane / 32], u.len / u.lanes + (i < u.len % u.lanes ? 1 : 0));
  int64_t steps = 0;
  for (int64_t m : longest) steps += m;
  const double block = bs * bs * 8.0, xy = 2.0 * nbrows * bs * 8.0;
  const double counted = (double)D.nblocks() * (block + 4) + (nbrows + 1) * 4.0 + xy;
  const double sliced  = steps * 32.0 * (block + 4) + nslices * 8.0 + lanes * 4.0 + xy; /* padded blocks, slice starts, lane_out */
  printf("powerlaw_bs%d: %lld block rows, %lld blocks; %lld lanes in %lld slices, %lld steps = %lld padded blocks (%.4fx); %lld rows of more than a slice, %lld slots\n", bs,
         (long long)nbrows, (long long)D.nblocks(), (long long)lanes, (long long)nslices, (long long)steps, (long long)(steps * 32), steps * 32.0 / (double)D.nblocks(), (long long)nlong,
         (long long)nslots);
  printf("  bytes counted by bench_cuda %.1f MB; moved by sliced (padding, slice starts, lane_out included) %.1f MB (%.4fx)\n", counted / 1e6, sliced / 1e6, sliced / counted);
}

int main()
{
  count(2, 644531); /* bench_cuda's block rows: 330e6 / (8 bs^2) / 16 */
  count(4, 161132);
  return 0;
}
