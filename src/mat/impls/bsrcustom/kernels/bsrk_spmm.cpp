/*
   Block SpMM over the fixed-size tasks (see bsrk_products.h): Y = alpha A X + beta In, k columns.

   Each task walks its block range row segment by row segment, as bsrk_tasks_multadd does. For a
   segment, a thread-private accumulator holds the bs x k sums (column j at acc[j*bs .. j*bs+bs));
   each block is loaded once into locals (for bs 1..8 a compile-time size, so the compiler keeps it
   in registers) and applied to the k columns of X in turn, so the matrix is read once for all k
   columns instead of k times. A block's product is summed over its columns first and then added to
   the row's sum, the order of the task kernel, so a column of the result is the same bits as
   bsrk_tasks_multadd with the same partition would give for it (CARRY).

   Rows split between tasks: the owner writes alpha*partial + beta*in, each later task that continues
   the row stores its partial in its carry (bs*k doubles), and after the parallel loop the carries are
   added in task order (deterministic). Every element of Y is written by one task after the only read
   of the matching In element, so In may alias Y.
*/
#include "bsrk_products.h"
#include "bsrk_passive_team.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

struct SCtx {
  const bsrk_idx *rowptr, *colidx;
  const double   *values, *X, *In;
  double         *Y, *carry;
  const bsrk_idx *bb, *rb, *hr;
  double          alpha, beta;
  int64_t         bs, k, ldx, ldin, ldy;
};

/* acc (bs x k) = sum over blocks [k0, k1) of block times X's rows at its column */
template <int BS>
inline void segment(const SCtx &c, int64_t k0, int64_t k1, double *__restrict acc)
{
  const int64_t bs = BS > 0 ? BS : c.bs, bs2 = bs * bs, K = c.k, ldx = c.ldx;
  for (int64_t i = 0; i < bs * K; ++i) acc[i] = 0.0;
  for (int64_t b = k0; b < k1; ++b) {
    const double *__restrict xb = c.X + (int64_t)c.colidx[b] * bs;
    if constexpr (BS > 0) {
      double v[BS * BS];
      for (int i = 0; i < BS * BS; ++i) v[i] = c.values[b * (BS * BS) + i];
      for (int64_t j = 0; j < K; ++j) {
        const double *__restrict xp = xb + j * ldx;
        double t[BS];
#pragma GCC unroll 8
        for (int r = 0; r < BS; ++r) t[r] = v[r] * xp[0];
#pragma GCC unroll 8
        for (int cc = 1; cc < BS; ++cc) {
          const double xc = xp[cc];
#pragma GCC unroll 8
          for (int r = 0; r < BS; ++r) t[r] += v[cc * BS + r] * xc;
        }
        double *__restrict a = acc + j * BS;
#pragma GCC unroll 8
        for (int r = 0; r < BS; ++r) a[r] += t[r];
      }
    } else {
      const double *v = c.values + b * bs2;
      for (int64_t j = 0; j < K; ++j) {
        const double *xp = xb + j * ldx;
        double       *a  = acc + j * bs;
        /* the block's sum first, then into the row's (as above), a row at a time */
        for (int64_t r = 0; r < bs; ++r) {
          double t = v[r] * xp[0];
          for (int64_t cc = 1; cc < bs; ++cc) t += v[cc * bs + r] * xp[cc];
          a[r] += t;
        }
      }
    }
  }
}

inline void emit_owned(const SCtx &c, const double *acc, int64_t row)
{
  const int64_t bs = c.bs;
  for (int64_t j = 0; j < c.k; ++j) {
    double       *y = c.Y + j * c.ldy + row * bs;
    const double *a = acc + j * bs;
    if (c.beta == 0.0) {
      for (int64_t r = 0; r < bs; ++r) y[r] = c.alpha * a[r];
    } else {
      const double *in = c.In + j * c.ldin + row * bs;
      for (int64_t r = 0; r < bs; ++r) y[r] = c.alpha * a[r] + c.beta * in[r];
    }
  }
}

template <int BS>
__attribute__((noinline)) void run_task(const SCtx &c, int64_t t, double *acc)
{
  const int64_t ke = c.bb[t + 1], h = c.hr[t];
  if (h >= 0) {
    segment<BS>(c, c.bb[t], std::min<int64_t>(c.rowptr[h + 1], ke), acc);
    std::copy(acc, acc + c.bs * c.k, c.carry + t * c.bs * c.k);
  }
  for (int64_t row = c.rb[t]; row < c.rb[t + 1]; ++row) {
    segment<BS>(c, c.rowptr[row], std::min<int64_t>(c.rowptr[row + 1], ke), acc);
    emit_owned(c, acc, row);
  }
}

/* a thread's accumulator of bs x k sums, kept between products */
inline double *thread_acc(size_t n)
{
  thread_local std::vector<double> acc;
  if (acc.size() < n) acc.resize(n);
  return acc.data();
}

template <int BS>
void run_task_of(const void *ctx, int64_t t)
{
  const SCtx *c = static_cast<const SCtx *>(ctx);
  run_task<BS>(*c, t, thread_acc((size_t)(c->bs * c->k)));
}

template <int BS>
void run(const SCtx &c, int64_t ntasks, bsrk_threads kind, int nthreads)
{
  const size_t n = (size_t)(c.bs * c.k);
  if (nthreads == 1) {
    double *acc = thread_acc(n);
    for (int64_t t = 0; t < ntasks; ++t) run_task<BS>(c, t, acc);
  } else if (kind == BSRK_THREADS_PASSIVE) {
    bsrk_passive_run(nthreads, ntasks, run_task_of<BS>, &c);
  } else {
#pragma omp parallel num_threads(nthreads)
    {
      double *acc = thread_acc(n);
#pragma omp for schedule(dynamic, 1)
      for (int64_t t = 0; t < ntasks; ++t) run_task<BS>(c, t, acc);
    }
  }
  for (int64_t t = 1; t < ntasks; ++t) {
    const int64_t h = c.hr[t];
    if (h < 0) continue;
    for (int64_t j = 0; j < c.k; ++j) {
      double       *y = c.Y + j * c.ldy + h * c.bs;
      const double *w = c.carry + (t * c.k + j) * c.bs;
      for (int64_t r = 0; r < c.bs; ++r) y[r] += c.alpha * w[r];
    }
  }
}

} // namespace

extern "C" size_t bsrk_spmm_workspace_bytes(const bsrk_partition *p, bsrk_idx bs, bsrk_idx k)
{
  if (!p || p->ntasks < 1 || bs < 1 || k < 1) return 0;
  return (size_t)p->ntasks * (size_t)bs * (size_t)k * sizeof(double);
}

extern "C" bsrk_status bsrk_tasks_spmm(const bsrk_matrix *A, const bsrk_partition *p, int nthreads, bsrk_idx k, double alpha, const double *X, bsrk_idx ldx, double beta, const double *In, bsrk_idx ldin, double *Y, bsrk_idx ldy, void *workspace)
{
  return bsrk_tasks_spmm_on(A, p, BSRK_THREADS_OPENMP, nthreads, k, alpha, X, ldx, beta, In, ldin, Y, ldy, workspace);
}

extern "C" bsrk_status bsrk_tasks_spmm_on(const bsrk_matrix *A, const bsrk_partition *p, bsrk_threads kind, int nthreads, bsrk_idx k, double alpha, const double *X, bsrk_idx ldx, double beta, const double *In, bsrk_idx ldin, double *Y, bsrk_idx ldy, void *workspace)
{
  if (!A || !p || nthreads < 1 || k < 0) return BSRK_ERR_ARG;
  if (kind != BSRK_THREADS_OPENMP && kind != BSRK_THREADS_PASSIVE) return BSRK_ERR_ARG;
  if (A->nbrows < 0 || A->nbcols < 0 || A->bs < 1 || !A->rowptr) return BSRK_ERR_ARG;
  if (p->ntasks < 1 || !p->block_begin || !p->row_begin || !p->head_row) return BSRK_ERR_ARG;
  if (p->block_begin[p->ntasks] != A->rowptr[A->nbrows] || p->row_begin[p->ntasks] != A->nbrows) return BSRK_ERR_ARG;
  if (k == 0 || A->nbrows == 0) return BSRK_OK;
  const int64_t bs = A->bs;
  if (!Y || ldy < A->nbrows * bs) return BSRK_ERR_ARG;
  if (beta != 0.0 && (!In || ldin < A->nbrows * bs)) return BSRK_ERR_ARG;
  if (A->rowptr[A->nbrows] > 0 && (!A->colidx || !A->values || !X || ldx < A->nbcols * bs)) return BSRK_ERR_ARG;
  if (!workspace)
    for (int64_t t = 1; t < p->ntasks; ++t)
      if (p->head_row[t] >= 0) return BSRK_ERR_ARG; /* carries needed but nowhere to put them */

  SCtx c;
  c.rowptr = A->rowptr;
  c.colidx = A->colidx;
  c.values = A->values;
  c.X      = X;
  c.In     = In;
  c.Y      = Y;
  c.carry  = static_cast<double *>(workspace);
  c.bb     = p->block_begin;
  c.rb     = p->row_begin;
  c.hr     = p->head_row;
  c.alpha  = alpha;
  c.beta   = beta;
  c.bs     = bs;
  c.k      = k;
  c.ldx    = ldx;
  c.ldin   = ldin;
  c.ldy    = ldy;
  const int64_t ntasks = p->ntasks;
  switch (A->bs) {
  case 1: run<1>(c, ntasks, kind, nthreads); break;
  case 2: run<2>(c, ntasks, kind, nthreads); break;
  case 3: run<3>(c, ntasks, kind, nthreads); break;
  case 4: run<4>(c, ntasks, kind, nthreads); break;
  case 5: run<5>(c, ntasks, kind, nthreads); break;
  case 6: run<6>(c, ntasks, kind, nthreads); break;
  case 7: run<7>(c, ntasks, kind, nthreads); break;
  case 8: run<8>(c, ntasks, kind, nthreads); break;
  default: run<0>(c, ntasks, kind, nthreads); break;
  }
  return BSRK_OK;
}
