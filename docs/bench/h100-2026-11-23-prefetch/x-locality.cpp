/* How far apart sliced's lanes read x: for bench_cuda's power-law matrices in the sorted layout
   (the rule of plan_sorted_slices in src/mat/impls/bsrcustom/cuda/bsrcuda_matrix.cu, written out
   again here on the host, with an optional sort inside windows of `sigma` rows) and for their
   regular twins in the natural layout (32 consecutive rows a slice). For each it counts the distinct
   32-byte sectors of x that a warp's 32 lanes touch at one step (the L1 requests of one x load) and
   over a whole slice (what a slice must bring in if the L1 kept everything it touched).
   Build and run from the repository root:
     g++ -O2 -std=c++17 -Ibench -Isrc/mat/impls/bsrcustom/kernels \
       docs/bench/h100-2026-11-23-prefetch/x-locality.cpp -o /tmp/xloc && /tmp/xloc
   Output at 5ce81ca: x-locality.txt. */
#include "bench_datasets.h"
#include <algorithm>
#include <cstdio>
#include <unordered_set>

struct unit { int64_t b0, len; int lanes; int64_t longest; bsrk_idx row; };
static void sim(const dataset &D, int bs, int64_t sigma, int mode) {
  const bsrk_idx *rp = D.rowptr.data(); bsrk_idx nbrows = D.nbrows;
  const int64_t lane_blocks = bs == 2 ? 64 : 32;
  std::vector<unit> units;
  for (bsrk_idx r = 0; r < nbrows; ++r) {
    const int64_t len = rp[r + 1] - rp[r];
    if (len <= 32 * lane_blocks) { int g = 1; while ((len + g - 1) / g > lane_blocks) g *= 2; units.push_back({rp[r], len, g, (len + g - 1) / g, r}); continue; }
    const int64_t parts = (len + 32 * lane_blocks - 1) / (32 * lane_blocks); int64_t b0 = rp[r];
    for (int64_t q = 0; q < parts; ++q) { const int64_t part = len / parts + (q < len % parts ? 1 : 0); units.push_back({b0, part, 32, (part + 31) / 32, r}); b0 += part; }
  }
  if (mode == 0) std::stable_sort(units.begin(), units.end(), [&](const unit &a, const unit &b) { return a.lanes != b.lanes ? a.lanes > b.lanes : a.longest > b.longest; });
  else std::stable_sort(units.begin(), units.end(), [&](const unit &a, const unit &b) { if (a.lanes != b.lanes) return a.lanes > b.lanes; int64_t wa = a.row / sigma, wb = b.row / sigma; if (wa != wb) return wa < wb; return a.longest > b.longest; });
  int64_t lanes = 0; for (auto &u : units) lanes += u.lanes;
  int64_t nslices = (lanes + 31) / 32;
  std::vector<int64_t> lb0(nslices * 32, 0), llen(nslices * 32, 0);
  int64_t lane = 0;
  for (auto &u : units) { int64_t b0 = u.b0; for (int i = 0; i < u.lanes; ++i, ++lane) { int64_t n = u.len / u.lanes + (i < u.len % u.lanes ? 1 : 0); lb0[lane] = b0; llen[lane] = n; b0 += n; } }
  int64_t steps = 0, step_sectors = 0, slice_sectors = 0;
  std::unordered_set<int64_t> sl, st;
  for (int64_t s = 0; s < nslices; ++s) {
    int64_t m = 0; for (int l = 0; l < 32; ++l) m = std::max(m, llen[s * 32 + l]);
    steps += m; sl.clear();
    for (int64_t k = 0; k < m; ++k) { st.clear();
      for (int l = 0; l < 32; ++l) { int64_t L = s * 32 + l; int64_t c = llen[L] ? D.colidx[lb0[L] + std::min(k, llen[L] - 1)] : 0;
        int64_t byte0 = c * bs * 8, byte1 = byte0 + bs * 8 - 1; for (int64_t b = byte0 / 32; b <= byte1 / 32; ++b) { st.insert(b); sl.insert(b); } }
      step_sectors += st.size(); }
    slice_sectors += sl.size();
  }
  double block = bs * bs * 8.0;
  printf("bs%d sigma %lld: padded %.4fx, matrix bytes %.1f MB, x sectors/step-warp %.2f -> %.1f MB, per-slice distinct %.1f MB\n", bs, (long long)(mode ? sigma : 0), steps * 32.0 / D.nblocks(), steps * 32.0 * (block + 4) / 1e6, (double)step_sectors / steps, step_sectors * 32.0 / 1e6, slice_sectors * 32.0 / 1e6);
}
static void natural(const dataset &D, int bs) {
  int64_t nb = D.nbrows, nsl = (nb + 31) / 32, steps = 0, step_sectors = 0, slice_sectors = 0;
  std::unordered_set<int64_t> sl, st;
  for (int64_t s = 0; s < nsl; ++s) { int64_t m = 0; for (int64_t r = s * 32; r < std::min(nb, s * 32 + 32); ++r) m = std::max<int64_t>(m, D.rowptr[r + 1] - D.rowptr[r]);
    steps += m; sl.clear();
    for (int64_t k = 0; k < m; ++k) { st.clear(); for (int64_t r = s * 32; r < std::min(nb, s * 32 + 32); ++r) { int64_t len = D.rowptr[r + 1] - D.rowptr[r]; int64_t c = len ? D.colidx[D.rowptr[r] + std::min(k, len - 1)] : 0;
        int64_t byte0 = c * bs * 8, byte1 = byte0 + bs * 8 - 1; for (int64_t b = byte0 / 32; b <= byte1 / 32; ++b) { st.insert(b); sl.insert(b); } }
      step_sectors += st.size(); }
    slice_sectors += sl.size(); }
  printf("bs%d natural: padded %.4fx, x sectors/step-warp %.2f -> %.1f MB, per-slice distinct %.1f MB\n", bs, steps * 32.0 / D.nblocks(), (double)step_sectors / steps, step_sectors * 32.0 / 1e6, slice_sectors * 32.0 / 1e6);
}
int main(int argc, char **argv) {
  for (int bs : {2, 4}) {
    bsrk_idx nb = bs == 2 ? 644531 : 161132;
    dataset P = powerlaw_dataset("p", nb, bs, 16.0, 0);
    dataset R = powerlaw_dataset("r", nb, bs, 16.0, P.nblocks());
    natural(R, bs);
    sim(P, bs, 0, 0);
    for (int64_t sg : {256, 1024, 4096, 16384, 65536}) sim(P, bs, sg, 1);
  }
}
