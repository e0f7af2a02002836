/*
   The generated matrices of bench_cuda, from fixed seeds: the thesis's dataset, 3D stencils,
   power-law rows and their regular twins, as BAIJ arrays (column-major blocks).
*/
#ifndef BENCH_DATASETS_H
#define BENCH_DATASETS_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "bsrkernels.h" /* bsrk_idx, bsrk_matrix */

/* splitmix64: fast, reproducible random numbers for large datasets */
struct rng64 {
  uint64_t s;
  uint64_t next()
  {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z          = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z          = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return (double)(next() >> 11) * (1.0 / 9007199254740992.0); } /* [0, 1) */
};

struct dataset {
  std::string           name;
  bsrk_idx              nbrows = 0, nbcols = 0, bs = 1;
  std::vector<bsrk_idx> rowptr, colidx;
  std::vector<double>   values;
  bsrk_idx              nblocks() const { return rowptr.back(); }
  bsrk_matrix           view() const { return bsrk_matrix{nbrows, nbcols, bs, rowptr.data(), colidx.data(), values.data()}; }
};

/* The thesis construction with `rows` scalar rows, 5x5 blocks, `density` of the entries nonzero. */
inline dataset thesis_dataset(const std::string &name, bsrk_idx rows, double density)
{
  dataset D;
  D.name   = name;
  D.bs     = 5;
  D.nbrows = D.nbcols    = rows / 5;
  const bsrk_idx per_row = std::max<bsrk_idx>(1, (bsrk_idx)std::llround(density * (double)D.nbcols));
  D.rowptr.resize(D.nbrows + 1);
  D.colidx.resize((size_t)D.nbrows * per_row);
  D.values.resize((size_t)D.nbrows * per_row * 25);
  rng64 rng{12345};
  for (bsrk_idx i = 0; i < D.nbrows; ++i) {
    D.rowptr[i]          = i * per_row;
    const bsrk_idx start = std::min(std::max<bsrk_idx>(0, i - per_row / 2), D.nbcols - per_row);
    for (bsrk_idx j = 0; j < per_row; ++j) D.colidx[(size_t)i * per_row + j] = start + j;
    double *blocks = D.values.data() + (size_t)i * per_row * 25;
    for (int r = 0; r < 5; ++r) { /* scalar row r of this block row: entries blocks[k*25 + c*5 + r] */
      double sum = 0.0;
      for (bsrk_idx k = 0; k < per_row; ++k)
        for (int c = 0; c < 5; ++c) sum += (blocks[k * 25 + c * 5 + r] = 1e-3 + rng.uniform());
      for (bsrk_idx k = 0; k < per_row; ++k)
        for (int c = 0; c < 5; ++c) blocks[k * 25 + c * 5 + r] /= sum;
    }
  }
  D.rowptr[D.nbrows] = D.nbrows * per_row;
  return D;
}

/* 3D stencil on an n^3 grid: 27 points (the cube) or 7 (the axes), bs x bs random blocks. */
inline dataset stencil_dataset(const std::string &name, int n, int bs, int points)
{
  dataset D;
  D.name   = name;
  D.bs     = bs;
  D.nbrows = D.nbcols = (bsrk_idx)n * n * n;
  D.rowptr.reserve(D.nbrows + 1);
  D.rowptr.push_back(0);
  D.colidx.reserve((size_t)D.nbrows * points);
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        for (int dk = -1; dk <= 1; ++dk)
          for (int dj = -1; dj <= 1; ++dj)
            for (int di = -1; di <= 1; ++di) {
              if (points == 7 && std::abs(di) + std::abs(dj) + std::abs(dk) > 1) continue;
              const int ii = i + di, jj = j + dj, kk = k + dk;
              if (ii < 0 || jj < 0 || kk < 0 || ii >= n || jj >= n || kk >= n) continue;
              D.colidx.push_back((bsrk_idx)(((int64_t)kk * n + jj) * n + ii));
            }
        D.rowptr.push_back((bsrk_idx)D.colidx.size());
      }
  D.values.resize((size_t)D.nblocks() * bs * bs);
  rng64 rng{777u + (uint64_t)bs};
  for (double &v : D.values) v = 2.0 * rng.uniform() - 1.0;
  return D;
}

/* Smallest grid whose stencil matrix has at least `bytes` of values. */
inline int stencil_n_for(double bytes, int bs, int points)
{
  for (int n = 3;; ++n) {
    const double m = 3.0 * n - 2.0, blocks = points == 27 ? m * m * m : 7.0 * n * n * n - 6.0 * n * n;
    if (blocks * bs * bs * 8.0 >= bytes) return n;
  }
}

/* Block rows of power-law lengths (Pareto with exponent 2.2 and mean about `mean`, capped at an
   eighth of the columns), or, with regular_blocks > 0, every row regular_blocks / nbrows long (the
   twin with the same rows and blocks). Each row's columns are distinct, drawn from a window of twice
   its length around its diagonal position, so the two matrices read x alike. */
inline dataset powerlaw_dataset(const std::string &name, bsrk_idx nbrows, int bs, double mean, int64_t regular_blocks)
{
  dataset D;
  D.name   = name;
  D.bs     = bs;
  D.nbrows = D.nbcols = nbrows;
  rng64                 rng{4242u + (uint64_t)bs};
  const double          a = 2.2, lmin = mean * (a - 2.0) / (a - 1.0);
  const bsrk_idx        lmax = std::max<bsrk_idx>(1, nbrows / 8);
  std::vector<bsrk_idx> len(nbrows);
  for (bsrk_idx i = 0; i < nbrows; ++i) {
    if (regular_blocks > 0) len[i] = (bsrk_idx)(regular_blocks / nbrows + (i < regular_blocks % nbrows ? 1 : 0));
    else len[i] = std::min<bsrk_idx>(lmax, std::max<bsrk_idx>(1, (bsrk_idx)(lmin * std::pow(1.0 - rng.uniform(), -1.0 / (a - 1.0)))));
  }
  D.rowptr.resize(nbrows + 1);
  D.rowptr[0] = 0;
  for (bsrk_idx i = 0; i < nbrows; ++i) D.rowptr[i + 1] = D.rowptr[i] + len[i];
  D.colidx.resize(D.rowptr[nbrows]);
  std::vector<char> used;
  for (bsrk_idx i = 0; i < nbrows; ++i) {
    const bsrk_idx L = len[i], w = std::min<bsrk_idx>(nbrows, 2 * L);
    const bsrk_idx c0 = std::min(std::max<bsrk_idx>(0, i - w / 2), nbrows - w);
    used.assign(w, 0);
    for (bsrk_idx t = w - L; t < w; ++t) { /* Floyd's sampling of L of w */
      const bsrk_idx j      = (bsrk_idx)(rng.next() % (uint64_t)(t + 1));
      used[used[j] ? t : j] = 1;
    }
    bsrk_idx *out = D.colidx.data() + D.rowptr[i];
    for (bsrk_idx j = 0; j < w; ++j)
      if (used[j]) *out++ = c0 + j;
  }
  D.values.resize((size_t)D.nblocks() * bs * bs);
  for (double &v : D.values) v = 2.0 * rng.uniform() - 1.0;
  return D;
}

#endif
