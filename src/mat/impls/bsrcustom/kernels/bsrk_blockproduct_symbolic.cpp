/*
   Symbolic phase of the block sparse products (see bsrk_blockproducts.h): the operands' checks,
   C's block structure and the plan of the numeric phase.

   Both products reduce to one structural step, a row of C being the union of chosen rows of another
   matrix: a row of A P is the union of P's rows at the block columns of A's row; a row of P^T (A P)
   is the union of A P's rows at the block rows of P^T's row. Each row is found with a marker array
   over C's block columns (one per thread), counted in a first pass, then written and sorted in a
   second, both in parallel over rows; the row counts are summed in 64 bits, so a product whose blocks
   do not fit in bsrk_idx is refused instead of wrapping.

   P^T A P is computed as A P, then P^T (A P) through P^T's structure (a counting sort of P's blocks
   by block column, with each entry's block of P): every block row of C is then summed by one thread
   from A P's rows, so the result has no races and the same bits for any thread count. The price is
   A P's values, kept in the plan (its blocks times b x c doubles). Summing P^T's contributions row
   by row of A P instead (one pass, no A P kept) scatters into rows of C that other threads own:
   atomics or per-thread copies of C, whose sums depend on the thread count; and on one thread it was
   not faster (docs/design.md, bench/bench_block_products.cpp).
*/
#include "bsrk_blockproduct_plan.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>

namespace {

using bsrk_blockproduct::Shape;
using bsrk_blockproduct::Structure;

constexpr int64_t kMaxIdx = std::numeric_limits<bsrk_idx>::max();

/* The operand's structure as bsrk_rect_matrix promises it; values are not needed here. */
bool valid_structure(const bsrk_rect_matrix *M)
{
  if (!M || M->nbrows < 0 || M->nbcols < 0 || M->rbs < 1 || M->cbs < 1 || !M->rowptr) return false;
  if (M->rowptr[0] != 0) return false;
  for (bsrk_idx r = 0; r < M->nbrows; ++r)
    if (M->rowptr[r + 1] < M->rowptr[r]) return false;
  const int64_t nblocks = M->rowptr[M->nbrows];
  int64_t       scalars;
  if (__builtin_mul_overflow(nblocks, (int64_t)M->rbs * (int64_t)M->cbs, &scalars)) return false;
  if (nblocks > 0 && !M->colidx) return false;
  for (bsrk_idx r = 0; r < M->nbrows; ++r)
    for (bsrk_idx k = M->rowptr[r]; k < M->rowptr[r + 1]; ++k) {
      const bsrk_idx j = M->colidx[k];
      if (j < 0 || j >= M->nbcols) return false;
      if (k > M->rowptr[r] && j <= M->colidx[k - 1]) return false;
    }
  return true;
}

Shape shape_of(const bsrk_rect_matrix *M)
{
  return Shape{M->nbrows, M->nbcols, M->rbs, M->cbs, (int64_t)M->rowptr[M->nbrows]};
}

/* Row i of C (nrows x ncols blocks) is the union of the rows sel[selptr[i] .. selptr[i+1]) of B. Also
   counts the block products the numeric phase does (the sum of those B rows' lengths). Returns false
   when C's block count does not fit in bsrk_idx. Throws std::bad_alloc. */
bool union_of_rows(bsrk_idx nrows, bsrk_idx ncols, const bsrk_idx *selptr, const bsrk_idx *sel, const bsrk_idx *Browptr, const bsrk_idx *Bcolidx, int nthreads, Structure *C, int64_t *block_products)
{
  C->nbrows = nrows;
  C->nbcols = ncols;
  std::vector<int64_t>  counts((size_t)nrows);
  std::vector<bsrk_idx> markers((size_t)nthreads * (size_t)ncols);
  int64_t               products = 0;
#pragma omp parallel num_threads(nthreads) reduction(+ : products)
  {
    bsrk_idx *mark = markers.data() + (size_t)omp_get_thread_num() * (size_t)ncols;
    std::fill(mark, mark + ncols, (bsrk_idx)-1);
#pragma omp for schedule(dynamic, 64)
    for (int64_t i = 0; i < nrows; ++i) {
      int64_t n = 0;
      for (int64_t s = selptr[i]; s < selptr[i + 1]; ++s) {
        const bsrk_idx b = sel[s];
        products += Browptr[b + 1] - Browptr[b];
        for (int64_t q = Browptr[b]; q < Browptr[b + 1]; ++q) {
          const bsrk_idx j = Bcolidx[q];
          if (mark[j] != (bsrk_idx)i) {
            mark[j] = (bsrk_idx)i;
            ++n;
          }
        }
      }
      counts[i] = n;
    }
  }
  int64_t total = 0;
  for (int64_t i = 0; i < nrows; ++i) {
    total += counts[i];
    if (total > kMaxIdx) return false;
  }
  C->rowptr.resize((size_t)nrows + 1);
  C->colidx.resize((size_t)total);
  C->rowptr[0] = 0;
  for (int64_t i = 0; i < nrows; ++i) C->rowptr[i + 1] = (bsrk_idx)(C->rowptr[i] + counts[i]);
  bsrk_idx *rowptr = C->rowptr.data(), *colidx = C->colidx.data();
#pragma omp parallel num_threads(nthreads)
  {
    bsrk_idx *mark = markers.data() + (size_t)omp_get_thread_num() * (size_t)ncols;
    std::fill(mark, mark + ncols, (bsrk_idx)-1);
#pragma omp for schedule(dynamic, 64)
    for (int64_t i = 0; i < nrows; ++i) {
      bsrk_idx *out = colidx + rowptr[i];
      int64_t   n   = 0;
      for (int64_t s = selptr[i]; s < selptr[i + 1]; ++s) {
        const bsrk_idx b = sel[s];
        for (int64_t q = Browptr[b]; q < Browptr[b + 1]; ++q) {
          const bsrk_idx j = Bcolidx[q];
          if (mark[j] != (bsrk_idx)i) {
            mark[j]  = (bsrk_idx)i;
            out[n++] = j;
          }
        }
      }
      std::sort(out, out + n);
    }
  }
  *block_products = products;
  return true;
}

/* P^T's structure: a counting sort of P's blocks by block column; walking P's rows in order leaves
   each row of P^T in increasing block-row order of P. */
void transposed_structure(const bsrk_rect_matrix *P, bsrk_block_product *plan)
{
  const int64_t nblocks = P->rowptr[P->nbrows];
  plan->pt_rowptr.assign((size_t)P->nbcols + 1, 0);
  plan->pt_row.resize((size_t)nblocks);
  plan->pt_block.resize((size_t)nblocks);
  for (int64_t k = 0; k < nblocks; ++k) plan->pt_rowptr[P->colidx[k] + 1]++;
  for (bsrk_idx c = 0; c < P->nbcols; ++c) plan->pt_rowptr[c + 1] += plan->pt_rowptr[c];
  std::vector<bsrk_idx> next(plan->pt_rowptr.begin(), plan->pt_rowptr.end() - 1);
  for (bsrk_idx r = 0; r < P->nbrows; ++r)
    for (bsrk_idx k = P->rowptr[r]; k < P->rowptr[r + 1]; ++k) {
      const bsrk_idx e  = next[P->colidx[k]]++;
      plan->pt_row[e]   = r;
      plan->pt_block[e] = k;
    }
}

/* Both phases of A P's structure, for either product. */
bool ap_structure(const bsrk_rect_matrix *A, const bsrk_rect_matrix *P, int nthreads, bsrk_block_product *plan)
{
  int64_t products = 0;
  if (!union_of_rows(A->nbrows, P->nbcols, A->rowptr, A->colidx, P->rowptr, P->colidx, nthreads, &plan->ap, &products)) return false;
  plan->flops = 2.0 * (double)products * (double)A->rbs * (double)A->cbs * (double)P->cbs;
  return true;
}

bsrk_status ap_symbolic(const bsrk_rect_matrix *A, const bsrk_rect_matrix *P, int nthreads, bsrk_block_product *plan)
{
  plan->kind = BSRK_PRODUCT_AP;
  return ap_structure(A, P, nthreads, plan) ? BSRK_OK : BSRK_ERR_ARG;
}

bsrk_status ptap_symbolic(const bsrk_rect_matrix *A, const bsrk_rect_matrix *P, int nthreads, bsrk_block_product *plan)
{
  plan->kind = BSRK_PRODUCT_PTAP;
  if (!ap_structure(A, P, nthreads, plan)) return BSRK_ERR_ARG;
  plan->ap_scalars = (size_t)plan->ap.nblocks() * (size_t)A->rbs * (size_t)P->cbs;
  plan->ap_values.reset(new double[plan->ap_scalars]);
  transposed_structure(P, plan);
  int64_t products = 0;
  if (!union_of_rows(P->nbcols, P->nbcols, plan->pt_rowptr.data(), plan->pt_row.data(), plan->ap.rowptr.data(), plan->ap.colidx.data(), nthreads, &plan->c, &products)) return BSRK_ERR_ARG;
  plan->flops += 2.0 * (double)products * (double)P->cbs * (double)P->rbs * (double)P->cbs;
  return BSRK_OK;
}

using Symbolic = bsrk_status (*)(const bsrk_rect_matrix *, const bsrk_rect_matrix *, int, bsrk_block_product *);

/* The plan's allocation and the release on failure, for both products. */
bsrk_status make_plan(const bsrk_rect_matrix *A, const bsrk_rect_matrix *P, int nthreads, Symbolic symbolic, bsrk_block_product **product)
{
  try {
    std::unique_ptr<bsrk_block_product> plan(new bsrk_block_product);
    plan->A              = shape_of(A);
    plan->P              = shape_of(P);
    const bsrk_status st = symbolic(A, P, nthreads, plan.get());
    if (st == BSRK_OK) *product = plan.release();
    return st;
  } catch (const std::bad_alloc &) {
    return BSRK_ERR_ALLOC;
  }
}

} // namespace

extern "C" bsrk_status bsrk_ap_symbolic(const bsrk_rect_matrix *A, const bsrk_rect_matrix *P, int nthreads, bsrk_block_product **product)
{
  if (!product) return BSRK_ERR_ARG;
  *product = nullptr;
  if (nthreads < 1 || !valid_structure(A) || !valid_structure(P)) return BSRK_ERR_ARG;
  if (A->cbs != P->rbs || A->nbcols != P->nbrows) return BSRK_ERR_ARG;
  return make_plan(A, P, nthreads, ap_symbolic, product);
}

extern "C" bsrk_status bsrk_ptap_symbolic(const bsrk_rect_matrix *A, const bsrk_rect_matrix *P, int nthreads, bsrk_block_product **product)
{
  if (!product) return BSRK_ERR_ARG;
  *product = nullptr;
  if (nthreads < 1 || !valid_structure(A) || !valid_structure(P)) return BSRK_ERR_ARG;
  if (A->rbs != A->cbs || A->nbrows != A->nbcols || A->cbs != P->rbs || A->nbcols != P->nbrows) return BSRK_ERR_ARG;
  return make_plan(A, P, nthreads, ptap_symbolic, product);
}

extern "C" bsrk_status bsrk_block_product_result(const bsrk_block_product *product, bsrk_rect_matrix *C)
{
  if (!product || !C) return BSRK_ERR_ARG;
  const Structure &s = product->result();
  *C                 = bsrk_rect_matrix{s.nbrows, s.nbcols, product->result_rbs(), product->P.cbs, s.rowptr.data(), s.colidx.data(), nullptr};
  return BSRK_OK;
}

extern "C" bsrk_product_kind bsrk_block_product_kind(const bsrk_block_product *product)
{
  return product ? product->kind : BSRK_PRODUCT_AP;
}

extern "C" double bsrk_block_product_flops(const bsrk_block_product *product)
{
  return product ? product->flops : 0.0;
}

extern "C" size_t bsrk_block_product_bytes(const bsrk_block_product *product)
{
  return product ? product->bytes() : 0;
}

extern "C" bsrk_status bsrk_block_product_get_layout(const bsrk_block_product *product, bsrk_block_product_layout *L)
{
  if (!product || !L) return BSRK_ERR_ARG;
  const auto shape = [](const Shape &s) { return bsrk_rect_matrix{s.nbrows, s.nbcols, s.rbs, s.cbs, nullptr, nullptr, nullptr}; };
  const auto view  = [](const Structure &s, bsrk_idx rbs, bsrk_idx cbs) { return bsrk_rect_matrix{s.nbrows, s.nbcols, rbs, cbs, s.rowptr.data(), s.colidx.data(), nullptr}; };
  const bool ptap  = product->kind == BSRK_PRODUCT_PTAP;
  L->kind          = product->kind;
  L->A             = shape(product->A);
  L->P             = shape(product->P);
  L->A_nblocks     = product->A.nblocks;
  L->P_nblocks     = product->P.nblocks;
  L->ap            = view(product->ap, product->A.rbs, product->P.cbs);
  L->pt_rowptr     = ptap ? product->pt_rowptr.data() : nullptr;
  L->pt_row        = ptap ? product->pt_row.data() : nullptr;
  L->pt_block      = ptap ? product->pt_block.data() : nullptr;
  L->c             = view(product->result(), product->result_rbs(), product->P.cbs);
  return BSRK_OK;
}

extern "C" bsrk_status bsrk_block_product_attach(bsrk_block_product *product, void *data, void (*release)(void *))
{
  if (!product) return BSRK_ERR_ARG;
  if (product->release) product->release(product->attached);
  product->attached = data;
  product->release  = release;
  return BSRK_OK;
}

extern "C" void *bsrk_block_product_attached(const bsrk_block_product *product)
{
  return product ? product->attached : nullptr;
}

extern "C" void bsrk_block_product_free(bsrk_block_product *product)
{
  delete product; /* its destructor gives back what is attached */
}
