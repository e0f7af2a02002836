/*
   sliced-even-probe: the sliced, lane-per-row layout on matrices whose block rows are about equally
   long (the stencils at the 95 % line, a 2D Jacobian-like matrix, the regular bs 2 twin).
   Standalone (no PETSc, no project library).

   Slices are 32 consecutive block rows (no sorting), one lane a row; slice s has as many steps as
   its longest row; step j of a slice stores its 32 rows' j-th block, component k (column-major inside
   the block) of lane l at ((j * bs * bs) + k) * 32 + l, and their column indices at j * 32 + l.
   A lane past its own row's end reads nothing (PRED) or the zero padding (no PRED).
   Every product is checked against a host product before it is timed (CUDA events around each
   call, calls back to back, median of 30 after 5 warm-up calls, as bench_cuda times them).
   Bytes = values + column indices + row pointers + x + y (bench_cuda's count, not the padding).

   It also writes the 2D matrix as a PETSc binary file (jac2d.bin), so that bench_cuda can time our
   kernels and cuSPARSE on the same matrix with --jacobian jac2d.bin:4.

   Build (from this folder): nvcc -std=c++17 -O3 -arch=sm_90 -I../../../bench
            -I../../../src/mat/impls/bsrcustom/kernels -o sliced-even-probe sliced-even-probe.cu
   (call 4 ran a build from a copy with the generators, the timing and the copy reference written out
   in the file; its regular bs 2 twin had bench_cuda's shape but its own column and value draw. The
   stencils and the twin now come from bench/bench_datasets.h, bench_cuda's own generators)
*/
#include <cmath>
#include <cstring>
#include <string>

#include "probe-common.cuh"

using bsr = dataset;

/* A 2D five-point star on an n x n grid with bs x bs blocks: the structure of snes ex19's Jacobian
   (DMDA, star stencil of width 1, 4 fields) on a 640^2 grid. */
bsr star2d(int n, int bs)
{
  bsr D;
  D.name = "jac2d_bs" + std::to_string(bs), D.bs = bs, D.nbrows = D.nbcols = n * n;
  D.rowptr.push_back(0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      if (j > 0) D.colidx.push_back((j - 1) * n + i);
      if (i > 0) D.colidx.push_back(j * n + i - 1);
      D.colidx.push_back(j * n + i);
      if (i < n - 1) D.colidx.push_back(j * n + i + 1);
      if (j < n - 1) D.colidx.push_back((j + 1) * n + i);
      D.rowptr.push_back((int)D.colidx.size());
    }
  D.values.resize(D.colidx.size() * bs * bs);
  rng64 rng{4711u};
  for (double &v : D.values) v = 2.0 * rng.uniform() - 1.0;
  return D;
}

void write_petsc_binary(const bsr &A, const char *path)
{
  auto be = [](uint32_t v) { return __builtin_bswap32(v); };
  FILE *f = fopen(path, "wb");
  if (!f) return;
  const int        bs = A.bs, M = A.nbrows * bs;
  const int64_t    nnz = (int64_t)A.colidx.size() * bs * bs;
  const uint32_t   hdr[4] = {be(1211216), be(M), be(M), be((uint32_t)nnz)};
  fwrite(hdr, 4, 4, f);
  std::vector<uint32_t> buf;
  for (int r = 0; r < A.nbrows; ++r)
    for (int i = 0; i < bs; ++i) buf.push_back(be((A.rowptr[r + 1] - A.rowptr[r]) * bs));
  fwrite(buf.data(), 4, buf.size(), f);
  buf.clear();
  for (int r = 0; r < A.nbrows; ++r)
    for (int i = 0; i < bs; ++i)
      for (int b = A.rowptr[r]; b < A.rowptr[r + 1]; ++b)
        for (int j = 0; j < bs; ++j) buf.push_back(be(A.colidx[b] * bs + j));
  fwrite(buf.data(), 4, buf.size(), f);
  std::vector<uint64_t> vb;
  for (int r = 0; r < A.nbrows; ++r)
    for (int i = 0; i < bs; ++i)
      for (int b = A.rowptr[r]; b < A.rowptr[r + 1]; ++b)
        for (int j = 0; j < bs; ++j) {
          uint64_t u;
          memcpy(&u, &A.values[(size_t)b * bs * bs + j * bs + i], 8);
          vb.push_back(__builtin_bswap64(u));
        }
  fwrite(vb.data(), 8, vb.size(), f);
  fclose(f);
}

template <int BS, int U, bool STREAM, bool PRED>
__global__ void __launch_bounds__(256) sliced_kernel(int nbrows, int nslices, const int *slice_step, const int *rowptr, const int *scol, const double *sval, const double *x, double *y)
{
  const int s    = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  if (s >= nslices) return;
  const int r  = s * 32 + lane;
  const int s0 = slice_step[s], s1 = slice_step[s + 1];
  const int e  = PRED ? (r < nbrows ? s0 + rowptr[r + 1] - rowptr[r] : s0) : s1; /* this lane's end */
  double    acc[BS];
#pragma unroll
  for (int i = 0; i < BS; ++i) acc[i] = 0;
  for (int k = s0; k < s1; k += U) {
    int    c[U];
    double v[U][BS * BS];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (k + u < e) {
        const size_t st = (size_t)(k + u);
        c[u]            = STREAM ? __ldcs(&scol[st * 32 + lane]) : __ldg(&scol[st * 32 + lane]);
#pragma unroll
        for (int q = 0; q < BS * BS; ++q) v[u][q] = STREAM ? __ldcs(&sval[(st * BS * BS + q) * 32 + lane]) : __ldg(&sval[(st * BS * BS + q) * 32 + lane]);
      }
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (k + u < e) {
        double xv[BS];
#pragma unroll
        for (int j = 0; j < BS; ++j) xv[j] = __ldg(&x[(size_t)c[u] * BS + j]);
#pragma unroll
        for (int j = 0; j < BS; ++j)
#pragma unroll
          for (int i = 0; i < BS; ++i) acc[i] += v[u][j * BS + i] * xv[j];
      }
  }
  if (r < nbrows)
#pragma unroll
    for (int i = 0; i < BS; ++i) y[(size_t)r * BS + i] = acc[i];
}

template <int BS>
void run(const bsr &A, double copy)
{
  const size_t nb = A.colidx.size();
  const double bytes = nb * (8.0 * BS * BS + 4.0) + (A.nbrows + 1) * 4.0 + 2.0 * A.nbrows * BS * 8.0;
  const int    nslices = (A.nbrows + 31) / 32;
  std::vector<int> step(nslices + 1, 0);
  for (int s = 0; s < nslices; ++s) {
    int L = 0;
    for (int r = s * 32; r < std::min(A.nbrows, s * 32 + 32); ++r) L = std::max(L, A.rowptr[r + 1] - A.rowptr[r]);
    step[s + 1] = step[s] + L;
  }
  const size_t        steps = step[nslices];
  std::vector<int>    scol(steps * 32, 0);
  std::vector<double> sval(steps * 32 * BS * BS, 0.0);
  for (int s = 0; s < nslices; ++s)
    for (int l = 0; l < 32 && s * 32 + l < A.nbrows; ++l) {
      const int r = s * 32 + l, L = A.rowptr[r + 1] - A.rowptr[r];
      for (int j = 0; j < step[s + 1] - step[s]; ++j) {
        const size_t st = (size_t)step[s] + j;
        const int    b  = A.rowptr[r] + std::min(j, L - 1);
        scol[st * 32 + l] = A.colidx[b];
        if (j < L)
          for (int q = 0; q < BS * BS; ++q) sval[(st * BS * BS + q) * 32 + l] = A.values[(size_t)b * BS * BS + q];
      }
    }
  printf("\n%s: %d block rows, bs %d, %zu blocks, bytes %.1f MB, %d slices, padding %.2f %% of the blocks\n", A.name.c_str(), A.nbrows, BS, nb, bytes * 1e-6, nslices,
         100.0 * (steps * 32.0 - nb) / nb);
  int    *d_step = upload(step), *d_rowptr = upload(A.rowptr), *d_scol = upload(scol);
  double *d_sval = upload(sval);
  std::vector<double> x((size_t)A.nbrows * BS);
  rng64               rx{99};
  for (double &v : x) v = 2.0 * rx.uniform() - 1.0;
  double *d_x = upload(x), *d_y;
  CK(cudaMalloc(&d_y, x.size() * 8));
  std::vector<double> yref(x.size(), 0.0);
  for (int r = 0; r < A.nbrows; ++r)
    for (int b = A.rowptr[r]; b < A.rowptr[r + 1]; ++b)
      for (int j = 0; j < BS; ++j)
        for (int i = 0; i < BS; ++i) yref[(size_t)r * BS + i] += A.values[(size_t)b * BS * BS + j * BS + i] * x[(size_t)A.colidx[b] * BS + j];
  auto one = [&](auto kern, const char *label) {
    auto call = [&] { kern<<<(nslices + 7) / 8, 256>>>(A.nbrows, nslices, d_step, d_rowptr, d_scol, d_sval, d_x, d_y); };
    CK(cudaMemset(d_y, 0, x.size() * 8));
    call();
    CK(cudaDeviceSynchronize());
    std::vector<double> y(x.size());
    CK(cudaMemcpy(y.data(), d_y, y.size() * 8, cudaMemcpyDeviceToHost));
    double e = 0;
    for (size_t i = 0; i < y.size(); ++i) e = std::max(e, std::fabs(y[i] - yref[i]) / (1.0 + std::fabs(yref[i])));
    if (e > 1e-12) {
      printf("  %-26s WRONG (max rel err %.3g)\n", label, e);
      return;
    }
    const double ms = median_ms(call);
    printf("  %-26s %.4f ms  %7.1f GB/s  %5.1f %% copy\n", label, ms, bytes / ms * 1e-6, bytes / ms * 1e-6 / copy * 100);
  };
  one(sliced_kernel<BS, 1, true, true>, "U1 streamed pred");
  one(sliced_kernel<BS, 2, true, true>, "U2 streamed pred");
  one(sliced_kernel<BS, 4, true, true>, "U4 streamed pred");
  one(sliced_kernel<BS, 2, true, false>, "U2 streamed padded");
  one(sliced_kernel<BS, 4, true, false>, "U4 streamed padded");
  one(sliced_kernel<BS, 2, false, true>, "U2 ldg pred");
  one(sliced_kernel<BS, 4, false, true>, "U4 ldg pred");
  for (void *p : {(void *)d_step, (void *)d_rowptr, (void *)d_scol, (void *)d_sval, (void *)d_x, (void *)d_y}) CK(cudaFree(p));
}

int main()
{
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s\n", prop.name);
  const double copy = copy_gbs();
  printf("1 GiB device copy: %.1f GB/s\n", copy);
  {
    const bsr J = star2d(640, 4);
    write_petsc_binary(J, "jac2d.bin");
    run<4>(J, copy);
  }
  run<3>(stencil_dataset("stencil7_bs3", stencil_n_for(256e6, 3, 7), 3, 7), copy);
  run<2>(stencil_dataset("stencil27_bs2", stencil_n_for(256e6, 2, 27), 2, 27), copy);
  {
    const int     nbrows = 644531; /* bench_cuda's regular_bs2: the twin of powerlaw_bs2 */
    const dataset P      = powerlaw_dataset("powerlaw_bs2", nbrows, 2, 16.0, 0);
    run<2>(powerlaw_dataset("regular_bs2", nbrows, 2, 16.0, P.nblocks()), copy);
  }
  run<3>(stencil_dataset("stencil27_bs3", stencil_n_for(256e6, 3, 27), 3, 27), copy);
  run<4>(stencil_dataset("stencil27_bs4", stencil_n_for(256e6, 4, 27), 4, 27), copy);
  return 0;
}
