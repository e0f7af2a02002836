/*
   The transposed copy of a BSR matrix (see bsrk_products.h).

   Structure: a counting sort of A's blocks by block column. Walking A's rows in order puts the
   blocks of each row of A^T in increasing column order, as BAIJ keeps them. perm[k] records which
   block of A became block k of A^T, so that new values of an unchanged structure are copied (and
   each block transposed) in one parallel pass, without sorting again.
*/
#include "bsrk_products.h"
#include "bsrk_dispatch.h"

#include <omp.h>

#include <cstdint>
#include <cstdlib>

namespace {

void clear(bsrk_transpose *T)
{
  T->rowptr  = nullptr;
  T->colidx  = nullptr;
  T->perm    = nullptr;
  T->values  = nullptr;
  T->nblocks = 0;
  T->M       = bsrk_matrix{0, 0, 1, nullptr, nullptr, nullptr};
}

/* dst = src^T for a bs x bs column-major block */
template <int BS>
inline void transpose_block(const double *__restrict src, double *__restrict dst, int64_t bs_rt)
{
  const int64_t bs = BS > 0 ? BS : bs_rt;
  for (int64_t c = 0; c < bs; ++c)
    for (int64_t r = 0; r < bs; ++r) dst[c * bs + r] = src[r * bs + c];
}

template <int BS>
void copy_values(const bsrk_matrix *A, bsrk_transpose *T, int nthreads)
{
  const int64_t   bs = A->bs, bs2 = bs * bs, n = T->nblocks;
  const bsrk_idx *perm = T->perm;
  const double   *src  = A->values;
  double         *dst  = T->values;
  if (nthreads <= 1 || n < 1024) {
    for (int64_t k = 0; k < n; ++k) transpose_block<BS>(src + (int64_t)perm[k] * bs2, dst + k * bs2, bs);
    return;
  }
#pragma omp parallel for num_threads(nthreads) schedule(static)
  for (int64_t k = 0; k < n; ++k) transpose_block<BS>(src + (int64_t)perm[k] * bs2, dst + k * bs2, bs);
}

} // namespace

extern "C" void bsrk_transpose_free(bsrk_transpose *T)
{
  if (!T) return;
  free(T->rowptr);
  free(T->colidx);
  free(T->perm);
  free(T->values);
  clear(T);
}

extern "C" bsrk_status bsrk_transpose_values(const bsrk_matrix *A, bsrk_transpose *T, int nthreads)
{
  if (!A || !T || nthreads < 1) return BSRK_ERR_ARG;
  if (A->bs != T->M.bs || A->nbrows != T->M.nbcols || A->nbcols != T->M.nbrows) return BSRK_ERR_ARG;
  if (A->rowptr[A->nbrows] != T->nblocks) return BSRK_ERR_ARG;
  if (T->nblocks == 0) return BSRK_OK;
  if (!A->values) return BSRK_ERR_ARG;
  bsrk_dispatch_block_size(A->bs, [&](auto BS) { copy_values<BS.value>(A, T, nthreads); });
  return BSRK_OK;
}

extern "C" bsrk_status bsrk_transpose_build(const bsrk_matrix *A, bsrk_transpose *T)
{
  if (!T) return BSRK_ERR_ARG;
  bsrk_transpose_free(T);
  if (!A || A->nbrows < 0 || A->nbcols < 0 || A->bs < 1 || !A->rowptr) return BSRK_ERR_ARG;
  if (A->rowptr[0] != 0) return BSRK_ERR_ARG;
  for (bsrk_idx r = 0; r < A->nbrows; ++r)
    if (A->rowptr[r + 1] < A->rowptr[r]) return BSRK_ERR_ARG;
  const bsrk_idx nblocks = A->rowptr[A->nbrows];
  if (nblocks > 0 && (!A->colidx || !A->values)) return BSRK_ERR_ARG;
  for (bsrk_idx k = 0; k < nblocks; ++k)
    if (A->colidx[k] < 0 || A->colidx[k] >= A->nbcols) return BSRK_ERR_ARG;

  const size_t bs2 = (size_t)A->bs * (size_t)A->bs;
  T->rowptr        = (bsrk_idx *)malloc(((size_t)A->nbcols + 1) * sizeof(bsrk_idx));
  T->colidx        = (bsrk_idx *)malloc(((size_t)nblocks > 0 ? (size_t)nblocks : 1) * sizeof(bsrk_idx));
  T->perm          = (bsrk_idx *)malloc(((size_t)nblocks > 0 ? (size_t)nblocks : 1) * sizeof(bsrk_idx));
  T->values        = (double *)malloc(((size_t)nblocks > 0 ? (size_t)nblocks * bs2 : 1) * sizeof(double));
  bsrk_idx *next   = (bsrk_idx *)malloc(((size_t)A->nbcols + 1) * sizeof(bsrk_idx));
  if (!T->rowptr || !T->colidx || !T->perm || !T->values || !next) {
    free(next);
    bsrk_transpose_free(T);
    return BSRK_ERR_ALLOC;
  }
  /* counts per block column, then their prefix sums */
  for (bsrk_idx c = 0; c <= A->nbcols; ++c) T->rowptr[c] = 0;
  for (bsrk_idx k = 0; k < nblocks; ++k) T->rowptr[A->colidx[k] + 1]++;
  for (bsrk_idx c = 0; c < A->nbcols; ++c) T->rowptr[c + 1] += T->rowptr[c];
  for (bsrk_idx c = 0; c < A->nbcols; ++c) next[c] = T->rowptr[c];
  for (bsrk_idx r = 0; r < A->nbrows; ++r)
    for (bsrk_idx k = A->rowptr[r]; k < A->rowptr[r + 1]; ++k) {
      const bsrk_idx pos = next[A->colidx[k]]++;
      T->colidx[pos]     = r;
      T->perm[pos]       = k;
    }
  free(next);
  T->nblocks = nblocks;
  T->M       = bsrk_matrix{A->nbcols, A->nbrows, A->bs, T->rowptr, T->colidx, T->values};
  return bsrk_transpose_values(A, T, 1);
}
