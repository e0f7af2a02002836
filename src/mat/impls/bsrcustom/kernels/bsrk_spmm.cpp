/*
   Block SpMM over the fixed-size tasks (see bsrk_products.h): Y = alpha A X + beta In, k columns.

   X is first copied row-major (k values a row, in the workspace, in parallel), so that a block's
   part of X is bs contiguous rows of k values. Each task then walks its block range row segment by
   row segment, as bsrk_tasks_multadd does. For a segment a thread-private accumulator holds the
   bs x k sums row-major. For bs 1..8 (compile-time sizes, loops unrolled) a row segment is walked once
   per chunk of 4 (or 2) columns whose bs x 4 sums stay in SSE2 registers: each block value times two
   columns of X at once (contiguous in the row-major copy). The first chunk reads the blocks from
   memory, the later ones from L1, so the matrix is read from memory once for all k columns. Sums
   kept in an L1 buffer instead would cost a store and a load of every sum for each block value
   (the alternatives and their figures: docs/design.md, docs/performance.md).
   With SSE2 only (the portable build) those chunks are bound by multiplies and adds, not by memory,
   so where the CPU has AVX2 and FMA (asked at run time: the library stays portable) chunks of 8 (or,
   for bs 7 and 8, 4) columns in 256-bit registers with fused multiply-adds do the same work in about
   a third of the instructions (chunk_avx2). k == 1 is the task kernel itself.

   Rows split between tasks: the owner writes alpha*partial + beta*in, each later task that continues
   the row stores its partial in its carry (bs*k doubles), and after the parallel loop the carries are
   added in task order (deterministic). Every element of Y is written by one task after the only read
   of the matching In element, so In may alias Y.
*/
#include "bsrk_products.h"
#include "bsrk_dispatch.h"
#include "bsrk_passive_team.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

struct SCtx {
  const bsrk_idx *rowptr, *colidx;
  const double   *values, *Xr, *In;
  double         *Y, *carry;
  const bsrk_idx *bb, *rb, *hr;
  double          alpha, beta;
  int64_t         bs, k, ldin, ldy;
  bool            avx2; /* chunks of chunk_avx2 */
};

/* -1: not asked yet; 0: portable chunks; 1: AVX2 + FMA chunks (bsrk_spmm_use_avx2) */
int use_avx2 = -1;

bool cpu_has_avx2()
{
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

/* Two doubles in one SSE2 register (GCC vector extension), as in bsrk_tasks_omp.cpp. */
typedef double                            v2d __attribute__((vector_size(16)));
__attribute__((always_inline)) inline v2d load2(const double *p)
{
  v2d r;
  __builtin_memcpy(&r, p, sizeof r);
  return r;
}

/* Columns [j0, j0 + KC) of a segment's sums, in registers: a[r][p] holds rows r, columns j0+2p, j0+2p+1
   (KC even), or a scalar a1[r] (KC == 1). The blocks are walked once per column chunk; after the
   first chunk they come from L1 (a row of 27 3x3 blocks is 2 KB), so the matrix is read from memory
   once. */
template <int BS, int KC>
inline void chunk(const SCtx &c, int64_t k0, int64_t k1, int64_t j0, double *__restrict acc)
{
  const int64_t K = c.k;
  if constexpr (KC == 1) {
    double a[BS];
    for (int r = 0; r < BS; ++r) a[r] = 0.0;
    for (int64_t b = k0; b < k1; ++b) {
      const double *__restrict v  = c.values + b * (BS * BS);
      const double *__restrict xr = c.Xr + (int64_t)c.colidx[b] * BS * K + j0;
#pragma GCC unroll 8
      for (int cc = 0; cc < BS; ++cc) {
        const double x = xr[cc * K];
#pragma GCC unroll 8
        for (int r = 0; r < BS; ++r) a[r] += v[cc * BS + r] * x;
      }
    }
    for (int r = 0; r < BS; ++r) acc[r * K + j0] = a[r];
  } else {
    constexpr int P = KC / 2;
    v2d           a[BS][P];
#pragma GCC unroll 8
    for (int r = 0; r < BS; ++r)
#pragma GCC unroll 4
      for (int q = 0; q < P; ++q) a[r][q] = v2d{0.0, 0.0};
    for (int64_t b = k0; b < k1; ++b) {
      const double *__restrict v  = c.values + b * (BS * BS);
      const double *__restrict xr = c.Xr + (int64_t)c.colidx[b] * BS * K + j0;
#pragma GCC unroll 8
      for (int cc = 0; cc < BS; ++cc) {
        v2d x[P];
#pragma GCC unroll 4
        for (int q = 0; q < P; ++q) x[q] = load2(xr + cc * K + 2 * q);
#pragma GCC unroll 8
        for (int r = 0; r < BS; ++r) {
          const v2d w = {v[cc * BS + r], v[cc * BS + r]};
#pragma GCC unroll 4
          for (int q = 0; q < P; ++q) a[r][q] += w * x[q];
        }
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < BS; ++r)
#pragma GCC unroll 4
      for (int q = 0; q < P; ++q) __builtin_memcpy(acc + r * K + j0 + 2 * q, &a[r][q], sizeof(v2d));
  }
}

/* chunk's AVX2 + FMA form: columns [j0, j0 + KC) (KC a multiple of 4), a[r][q] holding row r, columns
   j0+4q .. j0+4q+3. Compiled for AVX2 whatever the build's flags; called only where the CPU has it. */
template <int BS, int KC>
__attribute__((target("avx2,fma"))) void chunk_avx2(const SCtx &c, int64_t k0, int64_t k1, int64_t j0, double *__restrict acc)
{
  constexpr int P = KC / 4;
  const int64_t K = c.k;
  __m256d       a[BS][P];
#pragma GCC unroll 8
  for (int r = 0; r < BS; ++r)
#pragma GCC unroll 2
    for (int q = 0; q < P; ++q) a[r][q] = _mm256_setzero_pd();
  for (int64_t b = k0; b < k1; ++b) {
    const double *__restrict v  = c.values + b * (BS * BS);
    const double *__restrict xr = c.Xr + (int64_t)c.colidx[b] * BS * K + j0;
#pragma GCC unroll 8
    for (int cc = 0; cc < BS; ++cc) {
      __m256d x[P];
#pragma GCC unroll 2
      for (int q = 0; q < P; ++q) x[q] = _mm256_loadu_pd(xr + cc * K + 4 * q);
#pragma GCC unroll 8
      for (int r = 0; r < BS; ++r) {
        const __m256d w = _mm256_broadcast_sd(v + cc * BS + r);
#pragma GCC unroll 2
        for (int q = 0; q < P; ++q) a[r][q] = _mm256_fmadd_pd(w, x[q], a[r][q]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < BS; ++r)
#pragma GCC unroll 2
    for (int q = 0; q < P; ++q) _mm256_storeu_pd(acc + r * K + j0 + 4 * q, a[r][q]);
}

/* acc (bs x k, row-major: acc[r*k + j]) = sum over blocks [k0, k1) of block times the rows of X at its
   block column (Xr: X row-major, k values a row). bs 1..8: column chunks of 4 (bs <= 6) or 2 held in
   registers, then a chunk of 2 and one of 1 for what is left; any other bs: a generic loop. */
template <int BS>
inline void segment(const SCtx &c, int64_t k0, int64_t k1, double *__restrict acc)
{
  const int64_t K = c.k;
  if constexpr (BS > 0) {
    constexpr int KC = BS <= 6 ? 4 : 2;
    int64_t       j0 = 0;
    if (c.avx2) { /* 8 columns (4 for bs 7, 8: 16 registers) a pass, then the portable chunks */
      constexpr int KA = BS <= 6 ? 8 : 4;
      for (; j0 + KA <= K; j0 += KA) chunk_avx2<BS, KA>(c, k0, k1, j0, acc);
      if (KA == 8 && j0 + 4 <= K) {
        chunk_avx2<BS, 4>(c, k0, k1, j0, acc);
        j0 += 4;
      }
    }
    for (; j0 + KC <= K; j0 += KC) chunk<BS, KC>(c, k0, k1, j0, acc);
    if (KC == 4 && j0 + 2 <= K) {
      chunk<BS, 2>(c, k0, k1, j0, acc);
      j0 += 2;
    }
    if (j0 < K) chunk<BS, 1>(c, k0, k1, j0, acc);
  } else {
    const int64_t bs = c.bs, bs2 = bs * bs;
    for (int64_t i = 0; i < bs * K; ++i) acc[i] = 0.0;
    for (int64_t b = k0; b < k1; ++b) {
      const double *v  = c.values + b * bs2;
      const double *xr = c.Xr + (int64_t)c.colidx[b] * bs * K;
      for (int64_t r = 0; r < bs; ++r) {
        double *a = acc + r * K;
        for (int64_t cc = 0; cc < bs; ++cc) {
          const double  w  = v[cc * bs + r];
          const double *xc = xr + cc * K;
          for (int64_t j = 0; j < K; ++j) a[j] += w * xc[j];
        }
      }
    }
  }
}

inline void emit_owned(const SCtx &c, const double *acc, int64_t row)
{
  const int64_t bs = c.bs, K = c.k;
  for (int64_t j = 0; j < K; ++j) {
    double *y = c.Y + j * c.ldy + row * bs;
    if (c.beta == 0.0) {
      for (int64_t r = 0; r < bs; ++r) y[r] = c.alpha * acc[r * K + j];
    } else {
      const double *in = c.In + j * c.ldin + row * bs;
      for (int64_t r = 0; r < bs; ++r) y[r] = c.alpha * acc[r * K + j] + c.beta * in[r];
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

/* X (column-major, leading dimension ldx) to Xr (row-major), rows [i0, i1) */
struct Transp {
  const double *X;
  double       *Xr;
  int64_t       n, k, ldx;
};
constexpr int64_t kTranspRows = 4096; /* rows an item of the copy */
inline void       transp_rows(const Transp &T, int64_t item)
{
  const int64_t i0 = item * kTranspRows, i1 = std::min(T.n, i0 + kTranspRows);
  for (int64_t i = i0; i < i1; ++i)
    for (int64_t j = 0; j < T.k; ++j) T.Xr[i * T.k + j] = T.X[j * T.ldx + i];
}
void transp_item(const void *ctx, int64_t item)
{
  transp_rows(*static_cast<const Transp *>(ctx), item);
}

template <int BS>
void run(const SCtx &c, const Transp &T, int64_t ntasks, bsrk_threads kind, int nthreads)
{
  const size_t  n      = (size_t)(c.bs * c.k);
  const int64_t nitems = (T.n + kTranspRows - 1) / kTranspRows;
  if (nthreads == 1) {
    for (int64_t i = 0; i < nitems; ++i) transp_rows(T, i);
    double *acc = thread_acc(n);
    for (int64_t t = 0; t < ntasks; ++t) run_task<BS>(c, t, acc);
  } else if (kind == BSRK_THREADS_PASSIVE) {
    bsrk_passive_run(nthreads, nitems, transp_item, &T);
    bsrk_passive_run(nthreads, ntasks, run_task_of<BS>, &c);
  } else {
#pragma omp parallel num_threads(nthreads)
    {
#pragma omp for schedule(static)
      for (int64_t i = 0; i < nitems; ++i) transp_rows(T, i);
      /* implicit barrier: Xr is complete before any task reads it */
      double *acc = thread_acc(n);
#pragma omp for schedule(dynamic, 1)
      for (int64_t t = 0; t < ntasks; ++t) run_task<BS>(c, t, acc);
    }
  }
  for (int64_t t = 1; t < ntasks; ++t) {
    const int64_t h = c.hr[t];
    if (h < 0) continue;
    const double *w = c.carry + t * c.bs * c.k;
    for (int64_t j = 0; j < c.k; ++j) {
      double *y = c.Y + j * c.ldy + h * c.bs;
      for (int64_t r = 0; r < c.bs; ++r) y[r] += c.alpha * w[r * c.k + j];
    }
  }
}

} // namespace

extern "C" size_t bsrk_spmm_workspace_bytes(const bsrk_matrix *A, const bsrk_partition *p, bsrk_idx k)
{
  if (!A || !p || p->ntasks < 1 || A->bs < 1 || k < 1) return 0;
  return ((size_t)p->ntasks + (size_t)A->nbcols) * (size_t)A->bs * (size_t)k * sizeof(double);
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
  if (!workspace) return BSRK_ERR_ARG;
  if (k == 1) /* one column: the task kernel itself (MatMult's speed and bits) */
    return bsrk_tasks_multadd_on(A, p, kind, nthreads, 1, 0, BSRK_SHARED_ROWS_CARRY, alpha, X, beta, In, Y, workspace);

  SCtx    c;
  double *ws = static_cast<double *>(workspace);
  c.rowptr   = A->rowptr;
  c.colidx   = A->colidx;
  c.values   = A->values;
  c.Xr       = ws + (int64_t)p->ntasks * bs * k;
  c.In       = In;
  c.Y        = Y;
  c.carry    = ws;
  c.bb       = p->block_begin;
  c.rb       = p->row_begin;
  c.hr       = p->head_row;
  c.alpha    = alpha;
  c.beta     = beta;
  c.bs       = bs;
  c.k        = k;
  c.ldin     = ldin;
  c.ldy      = ldy;
  if (use_avx2 < 0) use_avx2 = cpu_has_avx2();
  c.avx2 = use_avx2 == 1;
  const Transp  T{X, const_cast<double *>(c.Xr), A->rowptr[A->nbrows] > 0 ? (int64_t)A->nbcols * bs : 0, (int64_t)k, (int64_t)ldx};
  const int64_t ntasks = p->ntasks;
  bsrk_dispatch_block_size(A->bs, [&](auto BS) { run<BS.value>(c, T, ntasks, kind, nthreads); });
  return BSRK_OK;
}

extern "C" int bsrk_spmm_use_avx2(int mode)
{
  if (mode == 0) use_avx2 = 0;
  else if (mode > 0 || use_avx2 < 0) use_avx2 = cpu_has_avx2();
  return use_avx2;
}
