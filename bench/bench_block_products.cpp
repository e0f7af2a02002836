// bench_block_products: PETSc-free timing of the block sparse products (bsrk_blockproducts.h) on
// GAMG's fine level of 3D elasticity: A a 27-point stencil on a grid_n^3 grid of nodes in 3x3 blocks,
// P0 the tentative prolongator (one 3x6 block a row: aggregates of 3x3x3 nodes, 6 rigid-body modes),
// P a smoothed prolongator (the pattern of A P0). Times A P0 and P^T A P (symbolic, numeric) on 1
// thread and on omp_get_max_threads() threads, and, for the choice of the P^T A P algorithm, a
// one-thread P^T A P that scatters each row of A P into C's rows at once instead of keeping A P
// (the other way named in bsrk_blockproduct_symbolic.cpp), on the same C structure.
//
//   usage: bench_block_products [grid_n=30] [reps=5]
//
// Timing: the minimum of `reps` runs after one warm-up, omp_get_wtime.
#include "bsrk_blockproducts.h"

#include "bench_min_time.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

using Idx = bsrk_idx;

struct Rect {
  Idx                 nbrows = 0, nbcols = 0, rbs = 1, cbs = 1;
  std::vector<Idx>    rowptr{0}, colidx;
  std::vector<double> values;
  bsrk_rect_matrix    view() const { return bsrk_rect_matrix{nbrows, nbcols, rbs, cbs, rowptr.data(), colidx.data(), values.data()}; }
};

void random_values(Rect &M, std::mt19937_64 &rng)
{
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  M.values.resize((size_t)M.rowptr.back() * M.rbs * M.cbs);
  for (auto &v : M.values) v = val(rng);
}

Rect stencil27(int n, std::mt19937_64 &rng)
{
  Rect A;
  A.nbrows = A.nbcols = n * n * n;
  A.rbs = A.cbs = 3;
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int xx = x + dx, yy = y + dy, zz = z + dz;
              if (xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= n) continue;
              A.colidx.push_back((zz * n + yy) * n + xx);
            }
        A.rowptr.push_back((Idx)A.colidx.size());
      }
  random_values(A, rng);
  return A;
}

Rect tentative(int n, std::mt19937_64 &rng)
{
  const int na = (n + 2) / 3;
  Rect      P;
  P.nbrows = n * n * n;
  P.nbcols = na * na * na;
  P.rbs    = 3;
  P.cbs    = 6;
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        P.colidx.push_back(((z / 3) * na + y / 3) * na + x / 3);
        P.rowptr.push_back((Idx)P.colidx.size());
      }
  random_values(P, rng);
  return P;
}

/* P^T A P by rows of A P, each scattered into C's rows at once (C's block found by binary search in
   its row), 3x3 A and 3x6 P: one thread, A P never stored. */
void ptap_scatter(const Rect &A, const Rect &P, const bsrk_rect_matrix &AP, const bsrk_rect_matrix &C, double *Cv)
{
  constexpr int B = 3, K = 6;
  std::fill(Cv, Cv + (size_t)C.rowptr[C.nbrows] * K * K, 0.0);
  std::vector<Idx>    mark(P.nbcols, -1);
  std::vector<double> acc;
  for (Idx i = 0; i < A.nbrows; ++i) {
    const Idx a0 = AP.rowptr[i], a1 = AP.rowptr[i + 1];
    acc.assign((size_t)(a1 - a0) * B * K, 0.0);
    for (Idx s = a0; s < a1; ++s) mark[AP.colidx[s]] = s - a0;
    for (Idx k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
      const double *a = A.values.data() + (size_t)k * B * B;
      const Idx     r = A.colidx[k];
      for (Idx p = P.rowptr[r]; p < P.rowptr[r + 1]; ++p) {
        const double *b = P.values.data() + (size_t)p * B * K;
        double       *c = acc.data() + (size_t)mark[P.colidx[p]] * B * K;
        for (int nn = 0; nn < K; ++nn)
          for (int m = 0; m < B; ++m)
            for (int rr = 0; rr < B; ++rr) c[nn * B + rr] += a[m * B + rr] * b[nn * B + m];
      }
    }
    for (Idx p = P.rowptr[i]; p < P.rowptr[i + 1]; ++p) {
      const Idx     I  = P.colidx[p];
      const double *pv = P.values.data() + (size_t)p * B * K;
      for (Idx s = a0; s < a1; ++s) {
        const Idx    *row = C.colidx + C.rowptr[I], *end = C.colidx + C.rowptr[I + 1];
        const Idx     q = (Idx)(std::lower_bound(row, end, AP.colidx[s]) - C.colidx);
        const double *d = acc.data() + (size_t)(s - a0) * B * K;
        double       *c = Cv + (size_t)q * K * K;
        for (int nn = 0; nn < K; ++nn)
          for (int rr = 0; rr < K; ++rr) {
            double sum = 0.0;
            for (int m = 0; m < B; ++m) sum += pv[rr * B + m] * d[nn * B + m];
            c[nn * K + rr] += sum;
          }
      }
    }
  }
}

} // namespace

int main(int argc, char **argv)
{
  const int       n = argc > 1 ? std::atoi(argv[1]) : 30, reps = argc > 2 ? std::atoi(argv[2]) : 5;
  const int       nmax = omp_get_max_threads();
  std::mt19937_64 rng(1);
  const Rect      A = stencil27(n, rng), P0 = tentative(n, rng);
  const auto      Av = A.view(), P0v = P0.view();

  /* the smoothed prolongator's pattern is A P0's */
  bsrk_block_product *ap0 = nullptr;
  if (bsrk_ap_symbolic(&Av, &P0v, 1, &ap0) != BSRK_OK) return 1;
  bsrk_rect_matrix AP0;
  bsrk_block_product_result(ap0, &AP0);
  Rect P;
  P.nbrows = AP0.nbrows;
  P.nbcols = AP0.nbcols;
  P.rbs    = 3;
  P.cbs    = 6;
  P.rowptr.assign(AP0.rowptr, AP0.rowptr + AP0.nbrows + 1);
  P.colidx.assign(AP0.colidx, AP0.colidx + P.rowptr.back());
  random_values(P, rng);
  const auto Pv = P.view();
  std::printf("grid %d^3 nodes: A %d block rows, %d 3x3 blocks; P0 %d x %d blocks; P %d 3x6 blocks; %d threads at most\n", n, (int)A.nbrows, (int)A.rowptr.back(), (int)P0.nbrows, (int)P0.nbcols, (int)P.rowptr.back(), nmax);

  std::vector<double> ap0_values((size_t)AP0.rowptr[AP0.nbrows] * 3 * 6);
  bsrk_block_product *ptap = nullptr;
  if (bsrk_ptap_symbolic(&Av, &Pv, 1, &ptap) != BSRK_OK) return 1;
  bsrk_rect_matrix C;
  bsrk_block_product_result(ptap, &C);
  std::vector<double> c_values((size_t)C.rowptr[C.nbrows] * 6 * 6), c_scatter(c_values.size());
  std::printf("C = P^T A P: %d x %d blocks, %d 6x6 blocks; its plan holds %.1f MB (A P kept); flops of a numeric phase: A P0 %.3g, P^T A P %.3g\n", (int)C.nbrows, (int)C.nbcols, (int)C.rowptr[C.nbrows], bsrk_block_product_bytes(ptap) / 1e6, bsrk_block_product_flops(ap0), bsrk_block_product_flops(ptap));

  std::vector<int> threads{1};
  if (nmax > 1) threads.push_back(nmax);
  for (int t : threads) {
    const double ts_ap = time_min(reps, [&] {
      bsrk_block_product *p = nullptr;
      bsrk_ap_symbolic(&Av, &P0v, t, &p);
      bsrk_block_product_free(p);
    });
    const double tn_ap = time_min(reps, [&] { bsrk_block_product_numeric(ap0, &Av, &P0v, t, ap0_values.data()); });
    const double ts_pt = time_min(reps, [&] {
      bsrk_block_product *p = nullptr;
      bsrk_ptap_symbolic(&Av, &Pv, t, &p);
      bsrk_block_product_free(p);
    });
    const double tn_pt = time_min(reps, [&] { bsrk_block_product_numeric(ptap, &Av, &Pv, t, c_values.data()); });
    std::printf("%d thread(s): A P0 symbolic %.4f s, numeric %.4f s (%.2f GFlop/s); P^T A P symbolic %.4f s, numeric %.4f s (%.2f GFlop/s)\n", t, ts_ap, tn_ap, bsrk_block_product_flops(ap0) / tn_ap * 1e-9, ts_pt, tn_pt, bsrk_block_product_flops(ptap) / tn_pt * 1e-9);
  }
  bsrk_block_product_numeric(ptap, &Av, &Pv, 1, c_values.data());
  const double        tn_1 = time_min(reps, [&] { bsrk_block_product_numeric(ptap, &Av, &Pv, 1, c_values.data()); });
  bsrk_rect_matrix    APs;
  bsrk_block_product *aps = nullptr;
  bsrk_ap_symbolic(&Av, &Pv, 1, &aps);
  bsrk_block_product_result(aps, &APs);
  const double tn_sc = time_min(reps, [&] { ptap_scatter(A, P, APs, C, c_scatter.data()); });
  double       err = 0.0, nrm = 0.0;
  for (size_t i = 0; i < c_values.size(); ++i) {
    err = std::max(err, std::fabs(c_values[i] - c_scatter[i]));
    nrm = std::max(nrm, std::fabs(c_values[i]));
  }
  std::printf("P^T A P numeric on 1 thread: A P kept, then P^T (A P) %.4f s; rows of A P scattered into C %.4f s (ratio %.2f; max difference %.1e of max entry)\n", tn_1, tn_sc, tn_sc / tn_1, err / nrm);
  bsrk_block_product_free(aps);
  bsrk_block_product_free(ap0);
  bsrk_block_product_free(ptap);
  return err <= 1e-12 * nrm ? 0 : 1;
}
