/* Read ceiling probe, per pair: a STREAM triad, a plain read (sum, 8 accumulators), a read with
   prefetcht0 8 KiB ahead, then the next triad. Writes the times to stderr, a line per pair: index,
   triad s, plain read s, prefetched read s (the triad after pair r is on line r + 1), so that the
   pairs can be grouped afterwards by the VM's bandwidth regime (triad GB/s = 24 B x 400e6/24 over
   the mean of the two triads around a pair; reads: 400 MB over their time). */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
int main(int argc, char **argv)
{
  int R = argc > 1 ? atoi(argv[1]) : 200, T = argc > 2 ? atoi(argv[2]) : 2;
  long n = 400000000 / 24, m = 400000000 / 8;
  double *a = malloc(n * 8), *b = malloc(n * 8), *c = malloc(n * 8), *v = malloc(m * 8), sink = 0;
#pragma omp parallel for num_threads(T)
  for (long i = 0; i < n; i++) { a[i] = 0; b[i] = 1; c[i] = 2; }
#pragma omp parallel for num_threads(T)
  for (long i = 0; i < m; i++) v[i] = 1e-9 * (double)(i & 1023);
  for (int r = 0; r <= R; r++) {
    double t0 = omp_get_wtime();
#pragma omp parallel for num_threads(T) schedule(static)
    for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    double tt = omp_get_wtime() - t0;
    if (r == R) {
      fprintf(stderr, "%d %.4f\n", r, tt); /* the triad after the last pair */
      break;
    }
    double s = 0, t1 = omp_get_wtime();
#pragma omp parallel num_threads(T) reduction(+ : s)
    {
      double acc[8] = {0};
#pragma omp for schedule(static)
      for (long i = 0; i < m; i += 8)
        for (int k = 0; k < 8; k++) acc[k] += v[i + k];
      for (int k = 0; k < 8; k++) s += acc[k];
    }
    double t2 = omp_get_wtime();
#pragma omp parallel num_threads(T) reduction(+ : s)
    {
      double acc[8] = {0};
#pragma omp for schedule(static)
      for (long i = 0; i < m; i += 8) {
        __builtin_prefetch(v + i + 1024, 0, 3);
        for (int k = 0; k < 8; k++) acc[k] += v[i + k];
      }
      for (int k = 0; k < 8; k++) s += acc[k];
    }
    double t3 = omp_get_wtime();
    sink += s;
    fprintf(stderr, "%d %.4f %.4f %.4f\n", r, tt, t2 - t1, t3 - t2);
  }
  printf("%g\n", sink > 0 ? 1.0 : 0.0);
  return 0;
}
