/* The kernel benchmarks' timing: the fastest of reps runs of f after one untimed run (first touch,
   thread start), since the fastest run is the one least disturbed by other work on the machine. */
#ifndef BENCH_MIN_TIME_H
#define BENCH_MIN_TIME_H

#include <omp.h>

#include <algorithm>

template <class F>
double time_min(int reps, const F &f)
{
  f();
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const double t0 = omp_get_wtime();
    f();
    best = std::min(best, omp_get_wtime() - t0);
  }
  return best;
}

#endif
