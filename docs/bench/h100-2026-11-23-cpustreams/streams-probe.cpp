/* Does a thread's product run faster when it walks several parts of its rows at once (several
   memory streams), as a plain read does? A thesis-type band (6400 block rows x 320 blocks of 5x5,
   410 MB), each thread a contiguous range of block rows, cut into S parts whose rows are walked in
   lockstep (S = 1: the usual order). Also the STREAM triad and a plain read with S streams, in the
   same process. Build: g++ -O3 -fopenmp -std=c++17 streams-probe.cpp -o streams-probe
   Run: OMP_NUM_THREADS=N ./streams-probe [rounds] */
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int BS = 5, BB = BS * BS;
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct band {
  int64_t nb = 6400, per = 320;
  std::vector<int32_t> col;
  double *val = nullptr;
};

template <int S>
static void product(const band &A, const double *x, double *y)
{
#pragma omp parallel
  {
    const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t r0 = A.nb * t / nt, r1 = A.nb * (t + 1) / nt, part = (r1 - r0 + S - 1) / S;
    for (int64_t i = 0; i < part; ++i) {
      double acc[S][BS] = {};
      const double *v[S];
      const int32_t *c[S];
      bool           on[S];
      for (int s = 0; s < S; ++s) {
        const int64_t r = r0 + s * part + i;
        on[s] = r < std::min(r1, r0 + (s + 1) * part);
        v[s]  = A.val + (on[s] ? r : r0) * A.per * BB;
        c[s]  = A.col.data() + (on[s] ? r : r0) * A.per;
      }
      for (int64_t k = 0; k < A.per; ++k)
        for (int s = 0; s < S; ++s) {
          const double *xv = x + (int64_t)c[s][k] * BS, *b = v[s] + k * BB;
          for (int j = 0; j < BS; ++j)
            for (int q = 0; q < BS; ++q) acc[s][q] += b[j * BS + q] * xv[j];
        }
      for (int s = 0; s < S; ++s)
        if (on[s])
          for (int q = 0; q < BS; ++q) y[(r0 + s * part + i) * BS + q] = acc[s][q];
    }
  }
}

template <int S>
static double read_streams(const double *a, int64_t n)
{
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t i0 = n * t / nt, i1 = n * (t + 1) / nt, part = (i1 - i0) / S;
    double        sum[S] = {};
    for (int64_t i = 0; i < part; ++i)
      for (int s = 0; s < S; ++s) sum[s] += a[i0 + s * part + i];
    for (int s = 0; s < S; ++s) total += sum[s];
  }
  return total;
}

template <class F>
static double best_of(int n, F f)
{
  double best = 1e30;
  for (int i = 0; i < n; ++i) {
    const double t0 = now();
    f();
    best = std::min(best, now() - t0);
  }
  return best;
}

int main(int argc, char **argv)
{
  const int rounds = argc > 1 ? atoi(argv[1]) : 3;
  band      A;
  A.col.resize(A.nb * A.per);
  const int64_t nval = A.nb * A.per * BB;
  A.val = (double *)aligned_alloc(64, nval * sizeof(double));
  std::vector<double> x(A.nb * BS, 1.0), y(A.nb * BS);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < A.nb; ++r) { /* first touch by the thread that reads it */
    const int64_t c0 = std::min(std::max<int64_t>(0, r - A.per), A.nb - 2 * A.per);
    for (int64_t k = 0; k < A.per; ++k) A.col[r * A.per + k] = (int32_t)(c0 + 2 * k);
    for (int64_t q = 0; q < A.per * BB; ++q) A.val[r * A.per * BB + q] = 1e-3 * (double)((r + q) % 7);
  }
  const int64_t n = 50'000'000; /* 400 MB per array */
  double       *a = (double *)aligned_alloc(64, n * 8), *b = (double *)aligned_alloc(64, n * 8), *c = (double *)aligned_alloc(64, n * 8);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) a[i] = b[i] = c[i] = 1.0;
  const double bytes = (double)nval * 8 + A.col.size() * 4.0 + 2.0 * x.size() * 8;
  printf("threads %d, band %.0f MB\n", omp_get_max_threads(), bytes / 1e6);
  for (int r = 0; r < rounds; ++r) {
    const double tt = best_of(5, [&] {
#pragma omp parallel for schedule(static)
      for (int64_t i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
    });
    volatile double sink = 0;
    const double    r1 = best_of(5, [&] { sink = sink + read_streams<1>(a, n); }), r2 = best_of(5, [&] { sink = sink + read_streams<2>(a, n); }), r4 = best_of(5, [&] { sink = sink + read_streams<4>(a, n); });
    const double    p1 = best_of(5, [&] { product<1>(A, x.data(), y.data()); }), p2 = best_of(5, [&] { product<2>(A, x.data(), y.data()); }), p4 = best_of(5, [&] { product<4>(A, x.data(), y.data()); });
    printf("triad %6.1f GB/s | read S=1 %6.1f S=2 %6.1f S=4 %6.1f | product S=1 %6.1f S=2 %6.1f S=4 %6.1f GB/s (%.0f %% / %.0f %% / %.0f %% of triad)\n", 24.0 * n / tt / 1e9, 8.0 * n / r1 / 1e9, 8.0 * n / r2 / 1e9,
           8.0 * n / r4 / 1e9, bytes / p1 / 1e9, bytes / p2 / 1e9, bytes / p4 / 1e9, 100 * bytes / p1 / (24.0 * n / tt), 100 * bytes / p2 / (24.0 * n / tt), 100 * bytes / p4 / (24.0 * n / tt));
  }
  return 0;
}
