// bench_spmm_chunks: PETSc-free timing of the block SpMM (bsrk_tasks_spmm) against the task kernel
// (bsrk_tasks_multadd, one MatMult) on the same tasks, with the portable (SSE2) column chunks and
// with the AVX2 + FMA ones, interleaved, for 1 thread and for omp_get_max_threads() threads.
// Prints the SpMM time per column as a fraction of one MatMult (issue 30's CPU target: <= 0.4 for
// k = 8) and checks the two chunk kinds against each other first.
//
//   usage: bench_spmm_chunks [grid_n=48] [band_block_rows=3200] [reps=9] [k=8,32]
//
// Datasets (bench_datasets.h): "stencil", a 27-point stencil on a grid_n^3 grid of block rows, 3x3
// blocks; "thesis", the thesis's block band: 5x5 blocks, 320 a block row (5 % of 6,400 block columns
// when band_block_rows is 6,400; 320 or all of them otherwise) in a band around the diagonal.
// Timing: the minimum of `reps` runs of each after one warm-up (the VMs this runs on are shared:
// the minimum is the least disturbed run), omp_get_wtime.
#include "bench_datasets.h" /* the thesis dataset and the stencils of bench_cuda */
#include "bsrk_products.h"
#include "bsrkernels.h"

#include "bench_min_time.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::vector<int> parse_list(const char *s)
{
  std::vector<int> v;
  for (const char *p = s; *p;) {
    v.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p) ++p;
  }
  return v;
}

} // namespace

int main(int argc, char **argv)
{
  const int              grid = argc > 1 ? std::atoi(argv[1]) : 48, band_rows = argc > 2 ? std::atoi(argv[2]) : 3200, reps = argc > 3 ? std::atoi(argv[3]) : 9;
  const std::vector<int> ks     = parse_list(argc > 4 ? argv[4] : "8,32");
  const bool             avx2   = bsrk_spmm_use_avx2(1) == 1;
  int                    status = 0;
  if (grid < 2 || band_rows < 1 || reps < 1 || ks.empty() || *std::min_element(ks.begin(), ks.end()) < 1) {
    std::fprintf(stderr, "usage: bench_spmm_chunks [grid_n>=2] [band_block_rows>=1] [reps>=1] [k,k,...>=1]\n");
    return 2;
  }
  std::printf("AVX2 + FMA chunks: %s\n", avx2 ? "available" : "not available on this CPU (portable chunks only)");
  for (const dataset &A : {stencil_dataset("stencil", grid, 3, 27), thesis_dataset("thesis", (bsrk_idx)band_rows * 5, std::min(1.0, 320.0 / band_rows))}) {
    const bsrk_matrix M = A.view();
    const int64_t     n = (int64_t)A.nbrows * A.bs;
    std::printf("%s: %d block rows of bs %d, %zu blocks, %.1f MB of values\n", A.name.c_str(), (int)A.nbrows, (int)A.bs, (size_t)A.nblocks(), A.values.size() * 8e-6);
    for (int threads : {1, omp_get_max_threads()}) {
      bsrk_partition p;
      if (bsrk_partition_build(A.nbrows, A.rowptr.data(), 8 * threads, &p) != BSRK_OK) return 1;
      std::vector<double> wm(bsrk_tasks_workspace_bytes(&p, A.bs) / 8 + 1), y(n);
      for (int k : ks) {
        std::vector<double> X((size_t)n * k), Y((size_t)n * k), Y2((size_t)n * k), ws(bsrk_spmm_workspace_bytes(&M, &p, k) / 8 + 1);
        for (size_t q = 0; q < X.size(); ++q) X[q] = std::sin(0.001 * (double)q);
        const auto mult = [&] { bsrk_tasks_multadd(&M, &p, threads, 1, 0, BSRK_SHARED_ROWS_CARRY, 1.0, X.data(), 0.0, nullptr, y.data(), wm.data()); };
        const auto spmm = [&](int mode, std::vector<double> &out) {
          bsrk_spmm_use_avx2(mode);
          return bsrk_tasks_spmm(&M, &p, threads, k, 1.0, X.data(), n, 0.0, nullptr, 0, out.data(), n, ws.data());
        };
        if (spmm(0, Y) != BSRK_OK || spmm(1, Y2) != BSRK_OK) return 1;
        double diff = 0, ref = 0;
        for (size_t q = 0; q < Y.size(); ++q) diff = std::max(diff, std::abs(Y[q] - Y2[q])), ref = std::max(ref, std::abs(Y[q]));
        if (diff > 1e-13 * ref) {
          std::printf("FAIL %s k %d: the AVX2 chunks differ from the portable ones by %g (relative)\n", A.name.c_str(), k, diff / ref);
          status = 1;
        }
        double tm = 1e30, tp = 1e30, ta = 1e30;
        for (int round = 0; round < 3; ++round) { // interleaved: the machine's load moves between them alike
          tm = std::min(tm, time_min(reps, mult));
          tp = std::min(tp, time_min(reps, [&] { spmm(0, Y); }));
          if (avx2) ta = std::min(ta, time_min(reps, [&] { spmm(1, Y2); }));
        }
        std::printf("  %d thread(s), k %2d: MatMult %.3f ms; SpMM per column / MatMult: portable %.3f", threads, k, tm * 1e3, tp / k / tm);
        if (avx2) std::printf(", AVX2 %.3f", ta / k / tm);
        std::printf("\n");
        if (k == 8) {
          const double best = avx2 ? ta / k / tm : tp / k / tm;
          std::printf("TARGET %s %d thread(s) SpMM k 8 per column at most 0.40x a MatMult: %.3fx (%s chunks): %s\n", A.name.c_str(), threads, best, avx2 ? "AVX2" : "portable", best <= 0.4 ? "PASS" : "MISS");
        }
      }
      bsrk_partition_free(&p);
    }
  }
  bsrk_spmm_use_avx2(1);
  return status;
}
