/*
   Numeric phase of the block sparse products (see bsrk_blockproducts.h): C's values from the
   operands' current values, on the structure and plan of the symbolic phase.

   Each block row of C is summed by one thread (OpenMP, dynamic over rows) in a sparse accumulator:
   the thread's marker array over C's block columns maps a column to its block in C's row (set from
   C's structure at the row's start, so it is never cleared), and the dense block values are C's own,
   zeroed first. A row's products are added in the operands' order, so C is the same bits for any
   thread count; the row functions are not inlined, so the code that sums does not depend on it
   either. A marker is believed only when it points into the current row at the same column: a
   pattern whose product leaves C's structure is reported, never written elsewhere.

   Block multiplies are templates on the block sizes (the compiler unrolls them): square b x b blocks
   times b x c ones for b, c in 1..kMaxFixed (elasticity: 3 x 3 times 3 x 6, then 6 x 6), through a
   table built once; other sizes run the same loops with run-time sizes.
*/
#include "bsrk_blockproduct_plan.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <new>
#include <utility>

namespace {

constexpr int kMaxFixed = 6;

/* c (R x N) += a (R x M) b (M x N), all column-major; a size of 0 is the run-time one */
template <int R, int M, int N>
inline void block_multadd(const double *__restrict a, const double *__restrict b, double *__restrict c, int64_t r_, int64_t m_, int64_t n_)
{
  const int64_t nr = R > 0 ? R : r_, nm = M > 0 ? M : m_, nn = N > 0 ? N : n_;
  for (int64_t n = 0; n < nn; ++n)
    for (int64_t m = 0; m < nm; ++m) {
      const double bv = b[n * nm + m];
      for (int64_t r = 0; r < nr; ++r) c[n * nr + r] += a[m * nr + r] * bv;
    }
}

/* c (R x N) += p^T b for a block p of M x R and b of M x N, all column-major: dot products of p's and
   b's columns, both contiguous */
template <int R, int M, int N>
inline void block_transposed_multadd(const double *__restrict p, const double *__restrict b, double *__restrict c, int64_t r_, int64_t m_, int64_t n_)
{
  const int64_t nr = R > 0 ? R : r_, nm = M > 0 ? M : m_, nn = N > 0 ? N : n_;
  for (int64_t n = 0; n < nn; ++n)
    for (int64_t r = 0; r < nr; ++r) {
      double s = 0.0;
      for (int64_t m = 0; m < nm; ++m) s += p[r * nm + m] * b[n * nm + m];
      c[n * nr + r] += s;
    }
}

/* C = A B row by row (A P; or A P inside P^T A P): C's structure is the plan's. */
struct ProductRows {
  const bsrk_idx          *Arowptr, *Acolidx;
  const double            *Avalues;
  const bsrk_block_source *Asource; /* A's blocks through it where set (then Avalues is not read) */
  const bsrk_idx          *Browptr, *Bcolidx;
  const double            *Bvalues;
  bsrk_idx                 Bnbrows, Bnbcols;
  const bsrk_idx          *Crowptr, *Ccolidx;
  double                  *Cvalues;
  int64_t                  r, m, n; /* A's rbs x cbs, B's cbs */
};

/* C = P^T D (D = A P) row by row of C through P^T's structure. */
struct TransposedRows {
  const bsrk_idx *PTrowptr, *PTrow, *PTblock;
  const bsrk_idx *Prowptr, *Pcolidx;
  const double   *Pvalues;
  const bsrk_idx *Drowptr, *Dcolidx;
  const double   *Dvalues;
  const bsrk_idx *Crowptr, *Ccolidx;
  double         *Cvalues;
  bsrk_idx        Cnbcols;
  int64_t         r, m, n; /* P's cbs, P's rbs, D's cbs */
};

/* block k of bsize doubles as s names it */
inline const double *source_block(const bsrk_block_source *s, int64_t k, int64_t bsize)
{
  const bsrk_idx f = s->from[k];
  return f >= 0 ? s->first + (int64_t)f * bsize : s->second + (int64_t)(-1 - f) * bsize;
}

/* A's block k of bsize doubles */
inline const double *a_block(const ProductRows &x, int64_t k, int64_t bsize)
{
  return x.Asource ? source_block(x.Asource, k, bsize) : x.Avalues + k * bsize;
}

/* Zeroes C's row and points the markers of its columns at its blocks. */
inline void open_row(const bsrk_idx *Crowptr, const bsrk_idx *Ccolidx, double *Cvalues, int64_t bsize, int64_t i, bsrk_idx *mark)
{
  std::fill(Cvalues + (int64_t)Crowptr[i] * bsize, Cvalues + (int64_t)Crowptr[i + 1] * bsize, 0.0);
  for (bsrk_idx q = Crowptr[i]; q < Crowptr[i + 1]; ++q) mark[Ccolidx[q]] = q;
}

/* The block of C's row i at block column j, or -1 when C's structure has none there. */
inline int64_t block_in_row(const bsrk_idx *Crowptr, const bsrk_idx *Ccolidx, bsrk_idx ncols, int64_t i, bsrk_idx j, const bsrk_idx *mark)
{
  if (j < 0 || j >= ncols) return -1;
  const bsrk_idx q = mark[j];
  return q >= Crowptr[i] && q < Crowptr[i + 1] && Ccolidx[q] == j ? q : -1;
}

template <int R, int M, int N>
__attribute__((noinline)) bool product_row(const ProductRows &x, int64_t i, bsrk_idx *mark)
{
  const int64_t r = R > 0 ? R : x.r, m = M > 0 ? M : x.m, n = N > 0 ? N : x.n;
  open_row(x.Crowptr, x.Ccolidx, x.Cvalues, r * n, i, mark);
  for (int64_t k = x.Arowptr[i]; k < x.Arowptr[i + 1]; ++k) {
    const bsrk_idx b = x.Acolidx[k];
    if (b < 0 || b >= x.Bnbrows) return false;
    const double *a = a_block(x, k, r * m);
    for (int64_t p = x.Browptr[b]; p < x.Browptr[b + 1]; ++p) {
      const int64_t q = block_in_row(x.Crowptr, x.Ccolidx, x.Bnbcols, i, x.Bcolidx[p], mark);
      if (q < 0) return false;
      block_multadd<R, M, N>(a, x.Bvalues + p * m * n, x.Cvalues + q * r * n, r, m, n);
    }
  }
  return true;
}

template <int R, int M, int N>
__attribute__((noinline)) bool transposed_row(const TransposedRows &x, int64_t i, bsrk_idx *mark)
{
  const int64_t r = R > 0 ? R : x.r, m = M > 0 ? M : x.m, n = N > 0 ? N : x.n;
  open_row(x.Crowptr, x.Ccolidx, x.Cvalues, r * n, i, mark);
  for (int64_t e = x.PTrowptr[i]; e < x.PTrowptr[i + 1]; ++e) {
    const bsrk_idx k = x.PTrow[e], p = x.PTblock[e];
    /* P's block p must still be block (k, i): P's pattern is the symbolic phase's */
    if (p < x.Prowptr[k] || p >= x.Prowptr[k + 1] || x.Pcolidx[p] != (bsrk_idx)i) return false;
    const double *pv = x.Pvalues + (int64_t)p * m * r;
    for (int64_t d = x.Drowptr[k]; d < x.Drowptr[k + 1]; ++d) {
      const int64_t q = block_in_row(x.Crowptr, x.Ccolidx, x.Cnbcols, i, x.Dcolidx[d], mark);
      if (q < 0) return false;
      block_transposed_multadd<R, M, N>(pv, x.Dvalues + d * m * n, x.Cvalues + q * r * n, r, m, n);
    }
  }
  return true;
}

template <class Rows>
using RowFn = bool (*)(const Rows &, int64_t, bsrk_idx *);

/* The row functions for square b x b blocks times b x c ones (A P: <b, b, c>; P^T D: <c, b, c>),
   b and c in 1..kMaxFixed; entry (b-1)*kMaxFixed + c-1. */
template <std::size_t... I>
constexpr std::array<RowFn<ProductRows>, sizeof...(I)> product_table(std::index_sequence<I...>)
{
  return {{&product_row<(int)(I / kMaxFixed) + 1, (int)(I / kMaxFixed) + 1, (int)(I % kMaxFixed) + 1>...}};
}
template <std::size_t... I>
constexpr std::array<RowFn<TransposedRows>, sizeof...(I)> transposed_table(std::index_sequence<I...>)
{
  return {{&transposed_row<(int)(I % kMaxFixed) + 1, (int)(I / kMaxFixed) + 1, (int)(I % kMaxFixed) + 1>...}};
}
constexpr auto kProductRows    = product_table(std::make_index_sequence<kMaxFixed * kMaxFixed>{});
constexpr auto kTransposedRows = transposed_table(std::make_index_sequence<kMaxFixed * kMaxFixed>{});

inline bool fixed_sizes(int64_t b, int64_t c)
{
  return b >= 1 && b <= kMaxFixed && c >= 1 && c <= kMaxFixed;
}

RowFn<ProductRows> product_row_for(int64_t r, int64_t m, int64_t n)
{
  return r == m && fixed_sizes(m, n) ? kProductRows[(m - 1) * kMaxFixed + n - 1] : &product_row<0, 0, 0>;
}

RowFn<TransposedRows> transposed_row_for(int64_t r, int64_t m, int64_t n)
{
  return r == n && fixed_sizes(m, n) ? kTransposedRows[(m - 1) * kMaxFixed + n - 1] : &transposed_row<0, 0, 0>;
}

/* Rows [0, nrows) of C on nthreads threads, each with its marker array over C's ncols block columns;
   false when a row reported a block outside C's structure. */
template <class Rows>
bool all_rows(RowFn<Rows> row, const Rows &x, int64_t nrows, bsrk_idx ncols, int nthreads, bsrk_idx *markers)
{
  int bad = 0;
#pragma omp parallel num_threads(nthreads) reduction(| : bad)
  {
    bsrk_idx *mark = markers + (size_t)omp_get_thread_num() * (size_t)ncols;
    std::fill(mark, mark + ncols, (bsrk_idx)-1);
#pragma omp for schedule(dynamic, 16)
    for (int64_t i = 0; i < nrows; ++i)
      if (!row(x, i, mark)) bad = 1;
  }
  return bad == 0;
}

bool same_shape(const bsrk_rect_matrix *M, const bsrk_blockproduct::Shape &s)
{
  return M && M->nbrows == s.nbrows && M->nbcols == s.nbcols && M->rbs == s.rbs && M->cbs == s.cbs;
}

/* What the numeric phase needs of an operand to stay inside its arrays: its shape, a rowptr
   non-decreasing from 0 to the symbolic phase's block count, and its arrays (values read elsewhere
   where values_elsewhere). Column ranges are checked as the rows are walked. */
bool valid_operand(const bsrk_rect_matrix *M, const bsrk_blockproduct::Shape &s, bool values_elsewhere = false)
{
  if (!same_shape(M, s) || !M->rowptr || M->rowptr[0] != 0 || (int64_t)M->rowptr[M->nbrows] != s.nblocks) return false;
  for (bsrk_idx r = 0; r < M->nbrows; ++r)
    if (M->rowptr[r + 1] < M->rowptr[r]) return false;
  return s.nblocks == 0 || (M->colidx && (values_elsewhere || M->values));
}

/* Every block of A's names a block inside its array. */
bool valid_source(const bsrk_block_source *s, int64_t nblocks)
{
  if (!s) return true;
  if (nblocks > 0 && !s->from) return false;
  for (int64_t k = 0; k < nblocks; ++k) {
    const bsrk_idx f = s->from[k];
    if (f >= 0 ? f >= s->nfirst || !s->first : -1 - (int64_t)f >= (int64_t)s->nsecond || !s->second) return false;
  }
  return true;
}

/* A B into Cvalues on the structure C (A's blocks through Asource where given). */
bool product_values(const bsrk_rect_matrix *A, const bsrk_block_source *Asource, const bsrk_rect_matrix *B, const bsrk_blockproduct::Structure &C, double *Cvalues, int nthreads, bsrk_idx *markers)
{
  const ProductRows x{A->rowptr, A->colidx, A->values, Asource, B->rowptr, B->colidx, B->values, B->nbrows, B->nbcols, C.rowptr.data(), C.colidx.data(), Cvalues, A->rbs, A->cbs, B->cbs};
  return all_rows(product_row_for(A->rbs, A->cbs, B->cbs), x, C.nbrows, C.nbcols, nthreads, markers);
}

/* P^T D into Cvalues, D = A P in the plan. */
bool transposed_product_values(const bsrk_block_product *plan, const bsrk_rect_matrix *P, double *Cvalues, int nthreads, bsrk_idx *markers)
{
  const TransposedRows
    x{plan->pt_rowptr.data(), plan->pt_row.data(), plan->pt_block.data(), P->rowptr, P->colidx, P->values, plan->ap.rowptr.data(), plan->ap.colidx.data(), plan->ap_values.get(), plan->c.rowptr.data(), plan->c.colidx.data(), Cvalues, plan->c.nbcols, P->cbs, P->rbs, P->cbs};
  return all_rows(transposed_row_for(P->cbs, P->rbs, P->cbs), x, plan->c.nbrows, plan->c.nbcols, nthreads, markers);
}

} // namespace

extern "C" bsrk_status bsrk_block_product_numeric_from(bsrk_block_product *product, const bsrk_rect_matrix *A, const bsrk_block_source *A_blocks, const bsrk_rect_matrix *P, int nthreads, double *C_values)
{
  if (!product || nthreads < 1) return BSRK_ERR_ARG;
  if (!valid_operand(A, product->A, A_blocks != nullptr) || !valid_operand(P, product->P)) return BSRK_ERR_ARG;
  if (!valid_source(A_blocks, product->A.nblocks)) return BSRK_ERR_ARG;
  const bsrk_blockproduct::Structure &C = product->result();
  if (C.nblocks() > 0 && !C_values) return BSRK_ERR_ARG;
  try {
    product->markers.resize((size_t)nthreads * (size_t)C.nbcols);
  } catch (const std::bad_alloc &) {
    return BSRK_ERR_ALLOC;
  }
  bsrk_idx *markers = product->markers.data();
  if (product->kind == BSRK_PRODUCT_AP) return product_values(A, A_blocks, P, C, C_values, nthreads, markers) ? BSRK_OK : BSRK_ERR_ARG;
  if (!product_values(A, A_blocks, P, product->ap, product->ap_values.get(), nthreads, markers)) return BSRK_ERR_ARG;
  return transposed_product_values(product, P, C_values, nthreads, markers) ? BSRK_OK : BSRK_ERR_ARG;
}

extern "C" bsrk_status bsrk_block_source_gather(const bsrk_block_source *A_blocks, int64_t nblocks, int64_t bsize, double *out)
{
  if (!A_blocks || nblocks < 0 || bsize < 1 || (nblocks > 0 && !out) || !valid_source(A_blocks, nblocks)) return BSRK_ERR_ARG;
  for (int64_t k = 0; k < nblocks; ++k) std::copy_n(source_block(A_blocks, k, bsize), bsize, out + k * bsize);
  return BSRK_OK;
}

extern "C" bsrk_status bsrk_block_product_numeric(bsrk_block_product *product, const bsrk_rect_matrix *A, const bsrk_rect_matrix *P, int nthreads, double *C_values)
{
  return bsrk_block_product_numeric_from(product, A, nullptr, P, nthreads, C_values);
}
