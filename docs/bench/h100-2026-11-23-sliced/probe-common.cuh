/*
   What the two probes of this folder share: the error check, uploads, timing (CUDA events around
   each call, calls back to back, median of 30 after 5 warm-up calls, as bench_cuda times them) and
   the 1 GiB copy reference. The matrices come from bench/bench_datasets.h, bench_cuda's own
   generators, so that they are bench_cuda's matrices.
*/
#ifndef PROBE_COMMON_CUH
#define PROBE_COMMON_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_datasets.h"

static_assert(sizeof(bsrk_idx) == sizeof(int), "the probes take the default 32-bit bsrk_idx");

#define CK(x)                                                                                \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

template <class Tv>
Tv *upload(const std::vector<Tv> &v)
{
  Tv *p = nullptr;
  CK(cudaMalloc(&p, std::max<size_t>(1, v.size()) * sizeof(Tv)));
  if (!v.empty()) CK(cudaMemcpy(p, v.data(), v.size() * sizeof(Tv), cudaMemcpyHostToDevice));
  return p;
}

template <class F>
double median_ms(F call, int warm = 5, int reps = 30)
{
  for (int i = 0; i < warm; ++i) call();
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto &e : ev) CK(cudaEventCreate(&e));
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(ev[2 * i]));
    call();
    CK(cudaEventRecord(ev[2 * i + 1]));
  }
  CK(cudaDeviceSynchronize());
  std::vector<double> ms(reps);
  for (int i = 0; i < reps; ++i) {
    float f;
    CK(cudaEventElapsedTime(&f, ev[2 * i], ev[2 * i + 1]));
    ms[i] = f;
  }
  for (auto &e : ev) CK(cudaEventDestroy(e));
  std::sort(ms.begin(), ms.end());
  return 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
}

/* A 1 GiB device-to-device copy, bytes counted as read + write (bench_cuda's reference). */
inline double copy_gbs()
{
  const size_t n = (size_t)1 << 30;
  void        *a, *b;
  CK(cudaMalloc(&a, n));
  CK(cudaMalloc(&b, n));
  CK(cudaMemset(a, 1, n));
  const double ms = median_ms([&] { CK(cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice)); });
  CK(cudaFree(a));
  CK(cudaFree(b));
  return 2.0 * n / ms * 1e-6;
}

#endif
