#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdint.h>
/* Two 400 MB arrays, one left on 4 KiB pages, one collapsed to 2 MiB pages; their read bandwidth
   with T threads measured alternately 25 times (interleaved, so host noise hits both alike). */
static double once(const double *a, size_t n, int T) {
  double t0 = omp_get_wtime(), acc = 0;
#pragma omp parallel for reduction(+:acc) num_threads(T) schedule(static)
  for (size_t i = 0; i < n; i++) acc += a[i];
  double dt = omp_get_wtime() - t0;
  if (acc == 1.2345) printf("x");
  return n * 8.0 / dt / 1e9;
}
static int cmp(const void *x, const void *y) { double a = *(double *)x, b = *(double *)y; return a < b ? -1 : a > b; }
int main(int argc, char **argv) {
  size_t n = 400000000 / 8;
  int T = argc > 1 ? atoi(argv[1]) : 16, R = 25;
  double *a[2], r[2][64];
  for (int m = 0; m < 2; m++) {
    a[m] = malloc(n * 8 + (4 << 20));
    memset(a[m], 0, n * 8);
    for (size_t i = 0; i < n; i++) a[m][i] = 1.0 / (i + 1);
    if (m == 1) {
      uintptr_t b = ((uintptr_t)a[m] + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1), e = ((uintptr_t)(a[m] + n)) & ~(uintptr_t)((2u << 20) - 1);
      printf("collapse rc %d\n", madvise((void *)b, e - b, 25));
    }
  }
  for (int k = 0; k < R; k++) for (int m = 0; m < 2; m++) r[m][k] = once(a[m], n, T);
  for (int m = 0; m < 2; m++) {
    qsort(r[m], R, sizeof(double), cmp);
    printf("%s: median %.1f GB/s, best %.1f, worst %.1f (%d threads, %d interleaved runs)\n", m ? "2 MiB pages (MADV_COLLAPSE)" : "4 KiB pages", r[m][R / 2], r[m][R - 1], r[m][0], T, R);
  }
  return 0;
}
