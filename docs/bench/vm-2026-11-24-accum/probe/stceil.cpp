// Probe: in the same windows, a STREAM triad, the task kernel (2 streams, prefetch 8192) and a
// prefetched plain read of the same values+colidx, each timed right after an untimed call of its kind.
#include "bsrkernels.h"
#include <omp.h>
#include <sys/mman.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
static double *hp_alloc(size_t n, bool huge)
{
  size_t bytes = (n * 8 + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
  void  *p     = aligned_alloc(2u << 20, bytes);
  if (huge) madvise(p, bytes, MADV_HUGEPAGE);
  return (double *)p;
}
#include <immintrin.h>
__attribute__((target("avx2"))) void avx_rows(int T, bsrk_idx nb, const bsrk_idx *rowptr, const bsrk_idx *colidx, const double *val, const double *x, double *y, int64_t pfd, int npf)
{
#pragma omp parallel num_threads(T)
  {
    int t = omp_get_thread_num();
    bsrk_idx r0 = (bsrk_idx)((int64_t)nb * t / T), r1 = (bsrk_idx)((int64_t)nb * (t + 1) / T);
    for (bsrk_idx i = r0; i < r1; ++i) {
      __m256d acc = _mm256_setzero_pd();
      for (int64_t k = rowptr[i]; k < rowptr[i + 1]; ++k) {
        const double *v = val + k * 9, *xp = x + (int64_t)colidx[k] * 3;
        if (npf == 2) { _mm_prefetch((const char *)(v + pfd), _MM_HINT_T0); _mm_prefetch((const char *)(v + pfd + 8), _MM_HINT_T0); }
        else _mm_prefetch((const char *)(v + pfd + 8), _MM_HINT_T0);
        __m256d tt = _mm256_mul_pd(_mm256_loadu_pd(v), _mm256_broadcast_sd(xp));
        tt = _mm256_add_pd(tt, _mm256_mul_pd(_mm256_loadu_pd(v + 3), _mm256_broadcast_sd(xp + 1)));
        tt = _mm256_add_pd(tt, _mm256_mul_pd(_mm256_loadu_pd(v + 6), _mm256_broadcast_sd(xp + 2)));
        acc = _mm256_add_pd(acc, tt);
      }
      double o[4]; _mm256_storeu_pd(o, acc);
      y[i * 3] = o[0]; y[i * 3 + 1] = o[1]; y[i * 3 + 2] = o[2];
    }
  }
}
int main(int argc, char **argv)
{
  int g = argc > 1 ? atoi(argv[1]) : 48, R = argc > 2 ? atoi(argv[2]) : 100, T = argc > 3 ? atoi(argv[3]) : 2, huge = argc > 4 ? atoi(argv[4]) : 1;
  int S = argc > 5 ? atoi(argv[5]) : 2, PF = argc > 6 ? atoi(argv[6]) : 8192, bs = 3;
  bsrk_idx nb = g * g * g;
  std::vector<bsrk_idx> rowptr(nb + 1, 0);
  auto cnt = [g](int c) { return (c > 0) + 1 + (c < g - 1); };
  for (bsrk_idx i = 0; i < nb; ++i) rowptr[i + 1] = rowptr[i] + cnt(i % g) * cnt((i / g) % g) * cnt(i / (g * g));
  int64_t nbk = rowptr[nb];
  bsrk_idx *colidx = (bsrk_idx *)hp_alloc(nbk / 2 + 1, huge);
  double   *val    = hp_alloc(nbk * 9 + 8, huge), *x = hp_alloc(nb * 3, huge), *y = hp_alloc(nb * 3, huge);
#pragma omp parallel for num_threads(T) schedule(static)
  for (bsrk_idx i = 0; i < nb; ++i) {
    int xx0 = i % g, yy0 = (i / g) % g, zz0 = i / (g * g);
    int64_t k = rowptr[i];
    for (int dz = -1; dz <= 1; ++dz) for (int dy = -1; dy <= 1; ++dy) for (int dx = -1; dx <= 1; ++dx) {
      int xx = xx0 + dx, yy = yy0 + dy, zz = zz0 + dz;
      if (xx < 0 || yy < 0 || zz < 0 || xx >= g || yy >= g || zz >= g) continue;
      colidx[k] = (zz * g + yy) * g + xx;
      for (int e = 0; e < 9; ++e) val[k * 9 + e] = 1e-3 * ((k + e) & 63);
      ++k;
    }
    for (int e = 0; e < 3; ++e) { x[i * 3 + e] = 1.0; y[i * 3 + e] = 0; }
  }
  bsrk_matrix M{nb, nb, bs, rowptr.data(), colidx, val};
  bsrk_partition p{0, nullptr, nullptr, nullptr};
  bsrk_partition_build(nb, rowptr.data(), T * (getenv("CH") ? atoi(getenv("CH")) : 8), &p);
  std::vector<double> ws(bsrk_tasks_workspace_bytes(&p, bs) / 8 + 1);
  double bytes = nbk * 76.0 + (nb + 1) * 4.0 + 2 * nb * 24.0;
  long n = 400000000 / 24;
  double *a = hp_alloc(n, huge), *b = hp_alloc(n, huge), *c = hp_alloc(n, huge);
#pragma omp parallel for num_threads(T) schedule(static)
  for (long i = 0; i < n; i++) { a[i] = 0; b[i] = 1; c[i] = 2; }
  volatile double sink = 0;
  auto triad = [&] {
#pragma omp parallel for num_threads(T) schedule(static)
    for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
  };
  auto kern = [&] { bsrk_tasks_multadd(&M, &p, T, S, PF, BSRK_SHARED_ROWS_CARRY, 1.0, x, 0.0, nullptr, y, ws.data()); };
  auto rowsplit = [&](int t) { return (bsrk_idx)((int64_t)nb * t / T); };
  const int64_t pfd = PF / 8;
  auto kA = [&] { // SSE2 compiler code as the library's, one stream, prefetch 2 lines per block
#pragma omp parallel num_threads(T)
    {
      int t = omp_get_thread_num();
      for (bsrk_idx i = rowsplit(t); i < rowsplit(t + 1); ++i) {
        double a0 = 0, a1 = 0, a2 = 0;
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; ++k) {
          const double *v = val + k * 9, *xp = x + (int64_t)colidx[k] * 3;
          __builtin_prefetch(v + pfd, 0, 3); __builtin_prefetch(v + pfd + 8, 0, 3);
          double t0 = v[0] * xp[0], t1 = v[1] * xp[0], t2 = v[2] * xp[0];
          t0 += v[3] * xp[1]; t1 += v[4] * xp[1]; t2 += v[5] * xp[1];
          t0 += v[6] * xp[2]; t1 += v[7] * xp[2]; t2 += v[8] * xp[2];
          a0 += t0; a1 += t1; a2 += t2;
        }
        y[i * 3] = a0; y[i * 3 + 1] = a1; y[i * 3 + 2] = a2;
      }
    }
  };
  const int NCH = T * (getenv("CH") ? atoi(getenv("CH")) : 8);
  auto kA2 = [&] { // kA's rows, in NCH row chunks handed out dynamically as the library's tasks
#pragma omp parallel for num_threads(T) schedule(dynamic, 1)
    for (int ch = 0; ch < NCH; ++ch) {
      for (bsrk_idx i = (bsrk_idx)((int64_t)nb * ch / NCH); i < (bsrk_idx)((int64_t)nb * (ch + 1) / NCH); ++i) {
        double a0 = 0, a1 = 0, a2 = 0;
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; ++k) {
          const double *v = val + k * 9, *xp = x + (int64_t)colidx[k] * 3;
          __builtin_prefetch(v + pfd, 0, 3); __builtin_prefetch(v + pfd + 8, 0, 3);
          double t0 = v[0] * xp[0], t1 = v[1] * xp[0], t2 = v[2] * xp[0];
          t0 += v[3] * xp[1]; t1 += v[4] * xp[1]; t2 += v[5] * xp[1];
          t0 += v[6] * xp[2]; t1 += v[7] * xp[2]; t2 += v[8] * xp[2];
          a0 += t0; a1 += t1; a2 += t2;
        }
        y[i * 3] = a0; y[i * 3 + 1] = a1; y[i * 3 + 2] = a2;
      }
    }
  };
  auto kB = [&] { avx_rows(T, nb, rowptr.data(), colidx, val, x, y, pfd, 2); };
  auto kC = [&] { avx_rows(T, nb, rowptr.data(), colidx, val, x, y, pfd, 1); };
  auto rd = [&] {
    double tot = 0;
#pragma omp parallel num_threads(T) reduction(+ : tot)
    {
      int t = omp_get_thread_num();
      int64_t v0 = nbk * 9 * t / T, v1 = nbk * 9 * (t + 1) / T, i0 = nbk * t / T, i1 = nbk * (t + 1) / T;
      double s[8] = {0};
      for (int64_t i = v0; i < v1; i += 8) {
        __builtin_prefetch(val + i + 1024, 0, 3);
        for (int j = 0; j < 8; ++j) s[j] += val[i + j];
      }
      int64_t si = 0;
      for (int64_t i = i0; i < i1; ++i) si += colidx[i];
      tot += s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7] + (double)si;
    }
    sink = sink + tot;
  };
  auto tm = [](auto &&f) { f(); double t0 = omp_get_wtime(); f(); return omp_get_wtime() - t0; };
  const char *cfgs = getenv("CFGS") ? getenv("CFGS") : "2:8192";
  std::vector<std::pair<int,int>> cf;
  for (const char *q = cfgs; *q;) { int a1 = atoi(q); while (*q != ':') ++q; ++q; int b1 = atoi(q); cf.push_back({a1, b1}); while (*q && *q != ',') ++q; if (*q) ++q; }
  std::vector<double> tt, tr; std::vector<std::vector<double>> tks(cf.size());
  for (int r = 0; r < R; ++r) {
    tt.push_back(24.0 * n / tm(triad) / 1e9);
    for (size_t q = 0; q < cf.size(); ++q) { S = cf[q].first; PF = cf[q].second; double tq = S == 100 ? tm(kA) : S == 103 ? tm(kA2) : S == 101 ? tm(kB) : S == 102 ? tm(kC) : tm(kern); tks[q].push_back(bytes / tq / 1e9); }
    tr.push_back((nbk * 76.0) / tm(rd) / 1e9);
  }
  // group by triad: below 55, 55-70, 70-78, >= 78
  double lim[5] = {0, 55, 70, 78, 1e9};
  for (int gI = 0; gI < 4; ++gI) for (size_t q = 0; q < cf.size(); ++q) {
    std::vector<double> k, rr, t3; auto &tk = tks[q];
    for (int r = 0; r < R; ++r) if (tt[r] >= lim[gI] && tt[r] < lim[gI + 1]) { k.push_back(tk[r] / tt[r]); rr.push_back(tr[r] / tt[r]); t3.push_back(tt[r]); }
    if (k.empty()) continue;
    auto med = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
    printf("triad %4.0f-%4.0f S%d PF%5d: %3zu rounds, triad med %.1f GB/s, kernel/triad med %.1f %%, read/triad med %.1f %%, kernel/read %.1f %%\n", lim[gI], std::min(lim[gI + 1], 999.0), cf[q].first, cf[q].second, k.size(), med(t3), 100 * med(k), 100 * med(rr), 100 * med(k) / med(rr));
  }
  return (int)(sink == 12345.0);
}
