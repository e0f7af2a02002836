/*
   sliced-probe: does a sliced, lane-per-row layout of the short 2x2 block rows stream where
   HYBRID's groups of lanes do not?  Standalone (no PETSc, no project library).

   It builds bench_cuda's powerlaw_bs2 matrix and its regular twin (bench/bench_datasets.h),
   and times y = A x three ways, each checked against a host product first:
     - a read of the matrix's bytes (values + column indices), the reference;
     - SLICED: block rows of at most T blocks are sorted by length (longest first) within windows of
       sigma rows and cut into slices of 32 rows, one lane a row; a slice's blocks are stored step by
       step, so that a warp's loads of one step are contiguous (column indices: 128 B, values: two
       512 B halves); longer rows are cut into pieces of P blocks, a warp each, read in place from the
       BSR arrays, their sums added by a second kernel;
     - the same, slices only and pieces only (their products are partial: timed, not checked);
     - with T == 0 (build_virtual): every row in slices, one lane each, rows longer than P blocks cut
       into virtual rows of P blocks whose sums a second kernel adds per row.
   Bytes = values + column indices + row pointers + x + y, as bench_cuda counts them; "% copy" against
   a 1 GiB device-to-device copy of the same run.

   Build (from this folder): nvcc -std=c++17 -O3 -arch=sm_90 [-DMINB=8] -I../../../bench
            -I../../../src/mat/impls/bsrcustom/kernels -o sliced-probe sliced-probe.cu
   (the runs of calls 3, 4, 7 and 8 were built from a copy with the generator, the timing and the
   copy reference written out in the file; the same code, moved since to probe-common.cuh and
   bench/bench_datasets.h)
   Run:   ./sliced-probe [T sigma P] ...   (triples; default: a sweep; T 0: virtual rows of P blocks)
*/
#include <cmath>
#include <string>

#include "probe-common.cuh"

using bsr2 = dataset; /* 2x2 blocks, column-major inside a block (BAIJ's layout) */

/* The sliced layout of the short rows and the pieces of the long ones. */
struct sliced {
  int                  nslices = 0, npieces = 0, nlong = 0;
  std::vector<int>     slice_step; /* [nslices + 1]: first step of each slice */
  std::vector<int>     lane_row;   /* [nslices * 32]: the row a lane takes, -1: none */
  std::vector<int>     scol;       /* [steps * 32] */
  std::vector<double>  sval;       /* [steps * 2 * 32] double2: step, half (block column), lane */
  std::vector<int>     piece_row, piece_b0, piece_b1, piece_out; /* piece_out: partial slot or -1 - row (direct) */
  std::vector<int>     long_row, long_begin;                     /* rows of 2+ pieces: their partial-sum slots */
  std::vector<int>     work;                                     /* >= 0 slice, < 0: piece -1 - q */
  size_t               padded_blocks = 0;
};

sliced build_sliced(const bsr2 &A, int T, int sigma, int P)
{
  sliced S;
  S.slice_step.push_back(0);
  std::vector<int> rows;
  int              nslots = 0; /* partial sums: one per piece of a row of two or more */
  for (int w0 = 0; w0 < A.nbrows; w0 += sigma) {
    const int w1 = std::min(A.nbrows, w0 + sigma);
    rows.clear();
    for (int i = w0; i < w1; ++i) {
      const int L = A.rowptr[i + 1] - A.rowptr[i];
      if (L <= T) {
        if (L > 0) rows.push_back(i);
        continue;
      }
      const int npc = (L + P - 1) / P;
      if (npc > 1) {
        S.long_row.push_back(i);
        S.long_begin.push_back(nslots);
      }
      for (int q = 0; q < npc; ++q) {
        S.piece_row.push_back(i);
        S.piece_b0.push_back(A.rowptr[i] + q * P);
        S.piece_b1.push_back(std::min(A.rowptr[i + 1], A.rowptr[i] + (q + 1) * P));
        S.piece_out.push_back(npc > 1 ? nslots++ : -1 - i);
        S.work.push_back(-1 - S.npieces);
        ++S.npieces;
      }
    }
    std::stable_sort(rows.begin(), rows.end(), [&](int a, int b) { return A.rowptr[a + 1] - A.rowptr[a] > A.rowptr[b + 1] - A.rowptr[b]; });
    for (size_t k = 0; k < rows.size(); k += 32) {
      const int nr    = (int)std::min<size_t>(32, rows.size() - k);
      const int steps = A.rowptr[rows[k] + 1] - A.rowptr[rows[k]]; /* the longest of the slice */
      const int st0   = S.slice_step.back();
      S.scol.resize((size_t)(st0 + steps) * 32, 0);
      S.sval.resize((size_t)(st0 + steps) * 64 * 2, 0.0);
      for (int l = 0; l < 32; ++l) {
        const int r = l < nr ? rows[k + l] : -1;
        S.lane_row.push_back(r);
        const int b0 = r >= 0 ? A.rowptr[r] : 0, L = r >= 0 ? A.rowptr[r + 1] - b0 : 0;
        for (int j = 0; j < steps; ++j) {
          const size_t st = (size_t)st0 + j;
          if (j < L) {
            const double *v             = &A.values[(size_t)(b0 + j) * 4];
            S.scol[st * 32 + l]         = A.colidx[b0 + j];
            S.sval[((st * 2 + 0) * 32 + l) * 2 + 0] = v[0];
            S.sval[((st * 2 + 0) * 32 + l) * 2 + 1] = v[1];
            S.sval[((st * 2 + 1) * 32 + l) * 2 + 0] = v[2];
            S.sval[((st * 2 + 1) * 32 + l) * 2 + 1] = v[3];
          } else {
            S.scol[st * 32 + l] = r >= 0 ? A.colidx[b0] : 0; /* padding: a column the lane reads anyway, value 0 */
            ++S.padded_blocks;
          }
        }
      }
      S.slice_step.push_back(st0 + steps);
      S.work.push_back(S.nslices++);
    }
  }
  S.nlong = (int)S.long_row.size();
  S.long_begin.push_back(nslots);
  return S;
}

/* Every row in slices, a lane each: rows of more than P blocks cut into "virtual rows" of at most P
   blocks whose sums go to partial-sum slots (summed per row by fixup_kernel), the virtual rows
   sorted by length (longest first) within windows of sigma rows and cut into slices of 32.
   lane_row: >= 0 the row a lane stores, < -1 the slot -2 - lane_row, -1 none. */
sliced build_virtual(const bsr2 &A, int sigma, int P)
{
  sliced S;
  S.slice_step.push_back(0);
  struct vrow {
    int b0, len, out;
  };
  std::vector<vrow> rows;
  int               nslots = 0;
  for (int w0 = 0; w0 < A.nbrows; w0 += sigma) {
    const int w1 = std::min(A.nbrows, w0 + sigma);
    rows.clear();
    for (int i = w0; i < w1; ++i) {
      const int L = A.rowptr[i + 1] - A.rowptr[i];
      if (L == 0) continue;
      if (L <= P) {
        rows.push_back({A.rowptr[i], L, i});
        continue;
      }
      S.long_row.push_back(i);
      S.long_begin.push_back(nslots);
      for (int b = 0; b < L; b += P) rows.push_back({A.rowptr[i] + b, std::min(P, L - b), -2 - nslots++});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const vrow &a, const vrow &b) { return a.len > b.len; });
    for (size_t k = 0; k < rows.size(); k += 32) {
      const int nr = (int)std::min<size_t>(32, rows.size() - k), steps = rows[k].len, st0 = S.slice_step.back();
      S.scol.resize((size_t)(st0 + steps) * 32, 0);
      S.sval.resize((size_t)(st0 + steps) * 64 * 2, 0.0);
      for (int l = 0; l < 32; ++l) {
        const vrow v = l < nr ? rows[k + l] : vrow{0, 0, -1};
        S.lane_row.push_back(v.out);
        for (int j = 0; j < steps; ++j) {
          const size_t st = (size_t)st0 + j;
          if (j < v.len) {
            const double *a             = &A.values[(size_t)(v.b0 + j) * 4];
            S.scol[st * 32 + l]         = A.colidx[v.b0 + j];
            S.sval[((st * 2 + 0) * 32 + l) * 2 + 0] = a[0];
            S.sval[((st * 2 + 0) * 32 + l) * 2 + 1] = a[1];
            S.sval[((st * 2 + 1) * 32 + l) * 2 + 0] = a[2];
            S.sval[((st * 2 + 1) * 32 + l) * 2 + 1] = a[3];
          } else {
            S.scol[st * 32 + l] = v.len > 0 ? A.colidx[v.b0] : 0;
            ++S.padded_blocks;
          }
        }
      }
      S.slice_step.push_back(st0 + steps);
      S.work.push_back(S.nslices++);
    }
  }
  S.nlong = (int)S.long_row.size();
  S.long_begin.push_back(nslots);
  S.npieces = nslots; /* for the partial-sum buffer's size */
  return S;
}

struct dev_sliced {
  int     nslices, npieces, nlong, nwork;
  int    *slice_step, *lane_row, *scol, *piece_row, *piece_b0, *piece_b1, *piece_out, *long_row, *long_begin, *work;
  double *sval, *partial;
};

#ifndef MINB
#define MINB 1 /* minimum resident thread blocks per SM asked of ptxas (8: 32 registers) */
#endif
template <int U, int MODE, bool STREAM>
__global__ void __launch_bounds__(256, MINB) sliced_kernel(dev_sliced S, const int *colidx, const double *values, const double *x, double *y)
{
  const int w    = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  if (w >= S.nwork) return;
  const int item = S.work[w];
  if (item >= 0) {
    if (MODE == 2) return;
    const int      s0 = S.slice_step[item], s1 = S.slice_step[item + 1];
    const int      r  = S.lane_row[item * 32 + lane];
    const double2 *V  = reinterpret_cast<const double2 *>(S.sval);
    const double2 *X  = reinterpret_cast<const double2 *>(x);
    double         y0 = 0, y1 = 0;
    for (int k = s0; k < s1; k += U) {
      int     c[U];
      double2 a[U], b[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (k + u < s1) {
          const size_t st = (size_t)(k + u);
          c[u]            = STREAM ? __ldcs(&S.scol[st * 32 + lane]) : __ldg(&S.scol[st * 32 + lane]);
          a[u]            = STREAM ? __ldcs(&V[(st * 2 + 0) * 32 + lane]) : __ldg(&V[(st * 2 + 0) * 32 + lane]);
          b[u]            = STREAM ? __ldcs(&V[(st * 2 + 1) * 32 + lane]) : __ldg(&V[(st * 2 + 1) * 32 + lane]);
        }
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (k + u < s1) {
          const double2 xv = __ldg(&X[c[u]]);
          y0 += a[u].x * xv.x + b[u].x * xv.y;
          y1 += a[u].y * xv.x + b[u].y * xv.y;
        }
    }
    if (r >= 0) reinterpret_cast<double2 *>(y)[r] = make_double2(y0, y1);
    else if (r < -1) reinterpret_cast<double2 *>(S.partial)[-2 - r] = make_double2(y0, y1); /* a virtual row's slot */
  } else {
    if (MODE == 1) return;
    const int      q = -1 - item;
    const int      b0 = S.piece_b0[q], b1 = S.piece_b1[q];
    const double2 *V  = reinterpret_cast<const double2 *>(values);
    /* the piece's halves (block columns) as one flat run: lane l takes half t = 2*b0 + l + 32*i */
    double y0 = 0, y1 = 0;
    for (int t0 = 2 * b0; t0 < 2 * b1; t0 += 32 * U) {
      int     c[U];
      double2 a[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int t = t0 + 32 * u + lane;
        if (t < 2 * b1) {
          c[u] = __ldg(&colidx[t >> 1]);
          a[u] = __ldcs(&V[t]);
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int t = t0 + 32 * u + lane;
        if (t < 2 * b1) {
          const double xv = __ldg(&x[2 * c[u] + (t & 1)]);
          y0 += a[u].x * xv;
          y1 += a[u].y * xv;
        }
      }
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      y0 += __shfl_xor_sync(0xffffffffu, y0, o);
      y1 += __shfl_xor_sync(0xffffffffu, y1, o);
    }
    if (lane == 0) {
      const int out = S.piece_out[q];
      if (out >= 0) {
        S.partial[2 * out]     = y0;
        S.partial[2 * out + 1] = y1;
      } else {
        y[2 * (-1 - out)]     = y0;
        y[2 * (-1 - out) + 1] = y1;
      }
    }
  }
}

/* A warp per long row: lanes stride over its partial sums, then a shuffle reduction (a fixed order).
   (Until call 7: one thread per long row, summing up to 2500 slots one after another.) */
__global__ void fixup_kernel(dev_sliced S, double *y)
{
  const int l = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
  if (l >= S.nlong) return;
  double y0 = 0, y1 = 0;
  for (int q = S.long_begin[l] + lane; q < S.long_begin[l + 1]; q += 32) {
    y0 += S.partial[2 * q];
    y1 += S.partial[2 * q + 1];
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    y0 += __shfl_xor_sync(0xffffffffu, y0, o);
    y1 += __shfl_xor_sync(0xffffffffu, y1, o);
  }
  if (lane == 0) {
    y[2 * S.long_row[l]]     = y0;
    y[2 * S.long_row[l] + 1] = y1;
  }
}

__global__ void read_kernel(const double2 *v, size_t n2, const int4 *c, size_t nc4, double *sink)
{
  double acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n2; i += (size_t)gridDim.x * blockDim.x) {
    const double2 a = __ldcs(&v[i]);
    acc += a.x + a.y;
  }
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nc4; i += (size_t)gridDim.x * blockDim.x) {
    const int4 a = __ldcs(&c[i]);
    acc += a.x + a.y + a.z + a.w;
  }
  if (acc == 12345.678) sink[0] = acc;
}

struct dev_bsr {
  int    *rowptr, *colidx;
  double *values, *x, *y;
};

template <int U, int MODE, bool STREAM>
void launch(const dev_sliced &S, const dev_bsr &D)
{
  sliced_kernel<U, MODE, STREAM><<<(S.nwork + 7) / 8, 256>>>(S, D.colidx, D.values, D.x, D.y);
  if (MODE != 1 && S.nlong > 0) fixup_kernel<<<(S.nlong + 7) / 8, 256>>>(S, D.y);
}

int main(int argc, char **argv)
{
  const int nbrows = 644531; /* bench_cuda's powerlaw_bs2: 330e6 / (8 * 2 * 2) / 16 block rows */
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s\n", prop.name);
  const double copy = copy_gbs();
  printf("1 GiB device copy: %.1f GB/s\n", copy);

  const bsr2 P = powerlaw_dataset("powerlaw_bs2", nbrows, 2, 16.0, 0);
  const bsr2 R = powerlaw_dataset("regular_bs2", nbrows, 2, 16.0, P.nblocks());
  std::vector<std::vector<int>> configs; /* T, sigma, P */
  for (int i = 1; i + 2 < argc; i += 3) configs.push_back({atoi(argv[i]), atoi(argv[i + 1]), atoi(argv[i + 2])});
  if (configs.empty()) configs = {{16, 1 << 30, 256}, {16, 65536, 256}, {16, 4096, 256}, {64, 65536, 256}, {256, 65536, 256}, {256, 1 << 30, 256}, {64, 65536, 128}};
  /* T == 0: every row in slices, rows longer than P as virtual rows of P blocks (build_virtual) */

  for (const bsr2 *A : {&P, &R}) {
    const char  *name = A == &P ? "powerlaw_bs2" : "regular_bs2";
    const size_t nb = (size_t)A->rowptr[A->nbrows];
    const double bytes = nb * 32.0 + nb * 4.0 + (A->nbrows + 1) * 4.0 + 2.0 * A->nbrows * 16.0;
    printf("\n%s: %d block rows, %zu blocks, bytes %.1f MB\n", name, A->nbrows, nb, bytes * 1e-6);
    dev_bsr D;
    D.rowptr = upload(A->rowptr);
    D.colidx = upload(A->colidx);
    D.values = upload(A->values);
    std::vector<double> x(2 * A->nbrows);
    rng64               rx{99};
    for (double &v : x) v = 2.0 * rx.uniform() - 1.0;
    D.x = upload(x);
    CK(cudaMalloc(&D.y, x.size() * sizeof(double)));
    std::vector<double> yref(2 * A->nbrows, 0.0);
    for (int i = 0; i < A->nbrows; ++i)
      for (int j = A->rowptr[i]; j < A->rowptr[i + 1]; ++j) {
        const double *v = &A->values[(size_t)j * 4];
        const int     c = A->colidx[j];
        yref[2 * i] += v[0] * x[2 * c] + v[2] * x[2 * c + 1];
        yref[2 * i + 1] += v[1] * x[2 * c] + v[3] * x[2 * c + 1];
      }
    double *sink;
    CK(cudaMalloc(&sink, 8));
    const double rd = median_ms([&] { read_kernel<<<prop.multiProcessorCount * 16, 256>>>((const double2 *)D.values, nb * 2, (const int4 *)D.colidx, nb / 4, sink); });
    printf("read of values + column indices (%.1f MB): %.4f ms, %.1f GB/s, %.1f %% copy\n", nb * 36e-6, rd, nb * 36.0 / rd * 1e-6, nb * 36.0 / rd * 1e-6 / copy * 100);
    for (const auto &cf : configs) {
      const sliced H = cf[0] == 0 ? build_virtual(*A, cf[1], cf[2]) : build_sliced(*A, cf[0], cf[1], cf[2]);
      dev_sliced   S;
      S.nslices = H.nslices, S.npieces = H.npieces, S.nlong = H.nlong, S.nwork = (int)H.work.size();
      S.slice_step = upload(H.slice_step), S.lane_row = upload(H.lane_row), S.scol = upload(H.scol);
      S.piece_row = upload(H.piece_row), S.piece_b0 = upload(H.piece_b0), S.piece_b1 = upload(H.piece_b1), S.piece_out = upload(H.piece_out);
      S.long_row = upload(H.long_row), S.long_begin = upload(H.long_begin), S.work = upload(H.work), S.sval = upload(H.sval);
      CK(cudaMalloc(&S.partial, std::max(1, 2 * H.npieces) * sizeof(double)));
      size_t sblocks = H.scol.size() / 32 * 32 - H.padded_blocks;
      printf("T %d sigma %d P %d: %d slices (%zu blocks, %.2f %% padding), %d pieces, %d long rows\n", cf[0], cf[1], cf[2], H.nslices, sblocks,
             100.0 * H.padded_blocks / std::max<size_t>(1, sblocks), H.npieces, H.nlong);
      auto check = [&](const char *what) {
        std::vector<double> y(2 * A->nbrows);
        CK(cudaMemcpy(y.data(), D.y, y.size() * 8, cudaMemcpyDeviceToHost));
        double e = 0;
        for (size_t i = 0; i < y.size(); ++i) e = std::max(e, std::fabs(y[i] - yref[i]) / (1.0 + std::fabs(yref[i])));
        if (e > 1e-12) {
          printf("  %s: WRONG (max rel err %.3g)\n", what, e);
          return false;
        }
        return true;
      };
      auto row = [&](const char *what, double ms) { printf("  %-28s %.4f ms  %7.1f GB/s  %5.1f %% copy\n", what, ms, bytes / ms * 1e-6, bytes / ms * 1e-6 / copy * 100); };
#define CASE(U, MODE, ST, label)                                  \
  {                                                               \
    CK(cudaMemset(D.y, 0, x.size() * 8));                         \
    launch<U, MODE, ST>(S, D);                                    \
    CK(cudaDeviceSynchronize());                                  \
    if (MODE != 0 || check(label)) row(label, median_ms([&] { launch<U, MODE, ST>(S, D); })); \
  }
      CASE(1, 0, true, "all, U1, streamed");
      CASE(2, 0, true, "all, U2, streamed");
      CASE(4, 0, true, "all, U4, streamed");
      CASE(2, 0, false, "all, U2, ldg");
      CASE(4, 0, false, "all, U4, ldg");
      CASE(2, 1, true, "slices only, U2 (bytes: all)");
      CASE(2, 2, true, "pieces only, U2 (bytes: all)");
#undef CASE
      for (void *p : {(void *)S.slice_step, (void *)S.lane_row, (void *)S.scol, (void *)S.piece_row, (void *)S.piece_b0, (void *)S.piece_b1, (void *)S.piece_out,
                      (void *)S.long_row, (void *)S.long_begin, (void *)S.work, (void *)S.sval, (void *)S.partial})
        CK(cudaFree(p));
    }
    for (void *p : {(void *)D.rowptr, (void *)D.colidx, (void *)D.values, (void *)D.x, (void *)D.y, (void *)sink}) CK(cudaFree(p));
  }
  return 0;
}
