/* Read ceiling probe: alternates a STREAM triad and a pure read (sum with 8 independent
   accumulators, vectorizable) over 400 MB, with T threads; prints per-pair medians. */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static double med(double *v, int n) { qsort(v, n, sizeof(double), cmp); return v[n / 2]; }
int main(int argc, char **argv)
{
  int R = argc > 1 ? atoi(argv[1]) : 60, T = argc > 2 ? atoi(argv[2]) : 2;
  long n = 400000000 / 24, m = 400000000 / 8;
  double *a = malloc(n * 8), *b = malloc(n * 8), *c = malloc(n * 8), *v = malloc(m * 8), sink = 0;
#pragma omp parallel for num_threads(T)
  for (long i = 0; i < n; i++) { a[i] = 0; b[i] = 1; c[i] = 2; }
#pragma omp parallel for num_threads(T)
  for (long i = 0; i < m; i++) v[i] = 1e-9 * (double)(i & 1023);
  double *tg = malloc(R * 8), *rg = malloc(R * 8), *ratio = malloc(R * 8);
  for (int r = 0; r < R; r++) {
    double t0 = omp_get_wtime();
#pragma omp parallel for num_threads(T) schedule(static)
    for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    double t1 = omp_get_wtime(), s = 0;
#pragma omp parallel num_threads(T) reduction(+ : s)
    {
      double acc[8] = {0};
#pragma omp for schedule(static)
      for (long i = 0; i < m; i += 8)
        for (int k = 0; k < 8; k++) acc[k] += v[i + k];
      for (int k = 0; k < 8; k++) s += acc[k];
    }
    double t2 = omp_get_wtime();
    sink += s;
    tg[r] = 24.0 * n / (t1 - t0) / 1e9;
    rg[r] = 8.0 * m / (t2 - t1) / 1e9;
    ratio[r] = 100 * rg[r] / tg[r];
  }
  printf("threads %d: triad med %.1f GB/s, read-only sum med %.1f GB/s, read/triad per pair med %.1f %% (%g)\n", T, med(tg, R), med(rg, R), med(ratio, R), sink > 0 ? 1.0 : 0.0);
  return 0;
}
