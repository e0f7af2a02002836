// Random BSR matrices for the kernel tests: a block structure from per-row block counts (sorted
// distinct random columns, as in BAIJ) and random values.
#ifndef TEST_BSR_H
#define TEST_BSR_H

#include "bsrkernels.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace test_bsr {

using Idx = bsrk_idx;

struct Bsr {
  Idx                 nbrows = 0, nbcols = 0, bs = 1;
  std::vector<Idx>    rowptr{0};
  std::vector<Idx>    colidx;
  std::vector<double> values;

  bsrk_matrix view() const { return bsrk_matrix{nbrows, nbcols, bs, rowptr.data(), colidx.data(), values.data()}; }
  Idx         nblocks() const { return rowptr.back(); }
  size_t      nrows() const { return (size_t)nbrows * bs; }
  size_t      ncols() const { return (size_t)nbcols * bs; }
};

inline Bsr make_bsr(const std::vector<Idx> &counts, Idx nbcols, Idx bs, std::mt19937_64 &rng)
{
  Bsr A;
  A.nbrows = (Idx)counts.size();
  A.nbcols = nbcols;
  A.bs     = bs;
  A.rowptr.assign(counts.size() + 1, 0);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<Idx>                       all(nbcols);
  for (Idx j = 0; j < nbcols; ++j) all[j] = j;
  for (size_t r = 0; r < counts.size(); ++r) {
    const Idx n = std::min(counts[r], nbcols);
    // partial Fisher-Yates: n distinct columns, then sorted as in BAIJ
    for (Idx i = 0; i < n; ++i) std::swap(all[i], all[i + (Idx)(rng() % (uint64_t)(nbcols - i))]);
    std::vector<Idx> cols(all.begin(), all.begin() + n);
    std::sort(cols.begin(), cols.end());
    A.colidx.insert(A.colidx.end(), cols.begin(), cols.end());
    A.rowptr[r + 1] = A.rowptr[r] + n;
  }
  A.values.resize((size_t)A.nblocks() * bs * bs);
  for (auto &v : A.values) v = val(rng);
  return A;
}

} // namespace test_bsr

#endif
