/*
   OpenMP fixed-size-task BSR product (see bsrkernels.h).

   Each task walks its block range [block_begin[t], block_begin[t+1]) row by row and sums
   every (part of a) block row in a private accumulator: for bs = 1..8 a compile-time sized set of
   SSE2 registers (Acc below; loops fully unrolled), for larger bs a generic
   loop over chunks of at most GCHUNK scalar rows (a fixed stack buffer, nothing allocated).
   Each block's product is summed first, over the block's columns in order, and then added to
   the row's sum; the blocks are added in order. This is the order of PETSc's MatMult_SeqBAIJ_2..5
   (sum1 += v[0]*x1 + v[5]*x2 + ...), and it leaves one dependent add per block and row on the
   accumulator instead of bs of them: summing column by column into the accumulator made the
   product wait on the adder's latency.

   Prefetch: every block asks for the values prefetch_bytes ahead of it (prefetcht0, every cache line
   of a block's size), so that more of the stream is in flight than the hardware prefetchers keep.
   t0, not nta: the non-temporal hint made the stream much slower on some processors.

   Rows entirely inside one task are written directly: out = alpha*sum + beta*in (in is not
   read when beta == 0). A row split between tasks ("shared row") is summed either
     CARRY : the owner writes alpha*partial + beta*in; every later task that continues the row
             (its head row) stores its partial in carry[t*bs .. t*bs+bs); after the parallel
             loop the carries are added, alpha*carry[t], in increasing t (deterministic), or
     ATOMIC: a first pass sets out = beta*in (0 when beta == 0) on the shared rows only, then
             every task adds alpha*partial of each of its shared task-rows with one atomic add
             per element.
   Every out element is written by exactly one task after the only read of the matching in
   element (shared rows: in the owner, respectively in the first pass), so in may alias out.

   Streams (bs 1..8): a thread may walk several tasks at once, block by block in lockstep, tasks
   ntasks/streams apart, so that it reads that many separate stretches of the values, which some
   processors stream faster than one and others do not. Each row part's blocks are still added in
   order, so each task's sums are the same bits as with one stream, and so is the CARRY product
   (ATOMIC adds a shared row's parts in the order the tasks get there, which streams change, as
   thread timing does).
*/
#include "bsrkernels.h"
#include "bsrk_dispatch.h"
#include "bsrk_passive_team.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace {

enum Emit {
  EMIT_OWNED,
  EMIT_CARRY,
  EMIT_ATOMIC
};

constexpr int GCHUNK = 32; /* scalar rows per pass of the generic (bs > 8) path */

struct Ctx {
  const bsrk_idx *rowptr;
  const bsrk_idx *colidx;
  const double   *values;
  const double   *x;
  const double   *in;
  double         *out;
  double         *carry;
  const bsrk_idx *bb; /* block_begin */
  const bsrk_idx *rb; /* row_begin */
  const bsrk_idx *hr; /* head_row */
  double          alpha, beta;
  int64_t         bs;
  int64_t         pf;      /* prefetch distance in doubles; 0: no prefetch */
  bsrk_between    between; /* the calling thread's work between its items; fn NULL: none */
};

/* After an item: the calling thread (thread 0 of an OpenMP team, or the only one) does its work
   between items. */
inline void between_items(const Ctx &c, bool caller)
{
  if (c.between.fn && caller) c.between.fn(c.between.ctx);
}

/* Prefetches nbytes from p on, a cache line at a time (consecutive blocks cover the lines between
   them); with a compile-time nbytes the loop unrolls. Prefetches do not fault, so reading ahead past
   the array's end is harmless. */
__attribute__((always_inline)) inline void prefetch_block(const double *p, int64_t nbytes)
{
  const char *a = (const char *)p;
#pragma GCC unroll 8
  for (int64_t l = 0; l < nbytes; l += 64) __builtin_prefetch(a + l, 0, 3);
}

/* Writes n sums acc[0..n) of scalar rows starting at out index oi (carry index ci).
   N > 0: compile-time n. */
template <Emit E, int N>
inline void emit(const Ctx &c, const double *acc, int n_rt, int64_t oi, int64_t ci)
{
  const int n = N > 0 ? N : n_rt;
  if constexpr (E == EMIT_OWNED) {
    double *o = c.out + oi;
    if (c.beta == 0.0) {
      for (int i = 0; i < n; ++i) o[i] = c.alpha * acc[i];
    } else {
      const double *in = c.in + oi;
      for (int i = 0; i < n; ++i) o[i] = c.alpha * acc[i] + c.beta * in[i];
    }
  } else if constexpr (E == EMIT_CARRY) {
    double *w = c.carry + ci;
    for (int i = 0; i < n; ++i) w[i] = acc[i];
  } else {
    double *o = c.out + oi;
    for (int i = 0; i < n; ++i) {
      const double v = c.alpha * acc[i];
#pragma omp atomic
      o[i] += v;
    }
  }
}

template <int N>
inline void emit_as(Emit e, const Ctx &c, const double *acc, int n_rt, int64_t oi, int64_t ci)
{
  if (e == EMIT_OWNED) emit<EMIT_OWNED, N>(c, acc, n_rt, oi, ci);
  else if (e == EMIT_CARRY) emit<EMIT_CARRY, N>(c, acc, n_rt, oi, ci);
  else emit<EMIT_ATOMIC, N>(c, acc, n_rt, oi, ci);
}

/* Two doubles in one SSE2 register (GCC vector extension; the x86-64 baseline has SSE2). */
typedef double                            v2d __attribute__((vector_size(16)));
__attribute__((always_inline)) inline v2d load2(const double *p)
{
  v2d r;
  __builtin_memcpy(&r, p, sizeof r); /* unaligned load */
  return r;
}

/* A block row's sums for bs 1..8 in registers: rows 0..bs-2 in pairs (p), the last row of an odd bs
   alone (s). Each lane does its row's scalar operations in the scalar order (no fused multiply-add:
   the x86-64 baseline has none). Spelled out because GCC vectorised the same scalar code in some
   walks and not in others (the lockstep loop partly, the inlined one-stream row loop not at all). */
template <int BS>
struct Acc {
  static constexpr int                P = BS / 2;
  v2d                                 p[P > 0 ? P : 1];
  double                              s;
  __attribute__((always_inline)) void zero()
  {
#pragma GCC unroll 4
    for (int i = 0; i < P; ++i) p[i] = v2d{0.0, 0.0};
    s = 0.0;
  }
  __attribute__((always_inline)) void store(double *a) const
  {
#pragma GCC unroll 4
    for (int i = 0; i < P; ++i) __builtin_memcpy(a + 2 * i, &p[i], sizeof p[i]);
    if (BS % 2) a[BS - 1] = s;
  }
};

/* Block sizes 1..8: the whole block row in a register accumulator. */
template <int BS>
struct FixedRow {
  static constexpr int kBS = BS;
  template <Emit E>
  static inline void row(const Ctx &c, int64_t k0, int64_t k1, int64_t br, int64_t t)
  {
    Acc<BS> acc;
    acc.zero();
    for (int64_t k = k0; k < k1; ++k) add_block(c, acc, k);
    double sums[BS];
    acc.store(sums);
    emit<E, BS>(c, sums, BS, br * BS, t * BS);
  }

  /* Rows [r0, r1) of a task whose blocks end at ke, every one written directly (EMIT_OWNED; the last
     may be cut at ke: CARRY's owner part): the task's interior in one tight loop, without the walk's
     bookkeeping between rows. */
  static void owned_rows(const Ctx &c, int64_t r0, int64_t r1, int64_t ke)
  {
    const Ctx l = c; /* a local copy: the stores to out cannot alias it */
    for (int64_t br = r0; br < r1; ++br) FixedRow::row<EMIT_OWNED>(l, l.rowptr[br], std::min<int64_t>(l.rowptr[br + 1], ke), br, 0);
  }

  /* acc += block k times its part of x (row() and the lockstep walk's tail; the lockstep main loop
     calls block_product on local copies of its accumulators, which the compiler keeps in registers;
     through this function they went through memory). */
  __attribute__((always_inline)) static inline void add_block(const Ctx &c, Acc<BS> &acc, int64_t k)
  {
    const double *v = c.values + k * (BS * BS);
    if (c.pf > 0) prefetch_block(v + c.pf, BS * BS * 8);
    block_product(v, c.x + (int64_t)c.colidx[k] * BS, acc);
  }

  /* acc += v xp, the block's own sum first (see the top): every walk's one definition of a block's
     arithmetic. Always inlined: where GCC left it a call, the lockstep loop's accumulators went
     through memory. */
  __attribute__((always_inline)) static inline void block_product(const double *__restrict v, const double *__restrict xp, Acc<BS> &acc)
  {
    constexpr int P = Acc<BS>::P;
    v2d           t[P > 0 ? P : 1];
    double        ts = 0.0;
    const v2d     x0 = {xp[0], xp[0]};
#pragma GCC unroll 4
    for (int i = 0; i < P; ++i) t[i] = load2(v + 2 * i) * x0;
    if (BS % 2) ts = v[BS - 1] * xp[0];
#pragma GCC unroll 8
    for (int cc = 1; cc < BS; ++cc) {
      const v2d xc = {xp[cc], xp[cc]};
#pragma GCC unroll 4
      for (int i = 0; i < P; ++i) t[i] += load2(v + cc * BS + 2 * i) * xc;
      if (BS % 2) ts += v[cc * BS + BS - 1] * xp[cc];
    }
#pragma GCC unroll 4
    for (int i = 0; i < P; ++i) acc.p[i] += t[i];
    if (BS % 2) acc.s += ts;
  }
};

/* Any block size: chunks of at most GCHUNK scalar rows, each summed over the row's blocks. */
struct GenericRow {
  static constexpr int kBS = 0; /* no streams: one task at a time */
  template <Emit E>
  static inline void row(const Ctx &c, int64_t k0, int64_t k1, int64_t br, int64_t t)
  {
    const int64_t bs = c.bs, bs2 = bs * bs;
    for (int64_t r0 = 0; r0 < bs; r0 += GCHUNK) {
      const int n = (int)std::min<int64_t>(GCHUNK, bs - r0);
      double    acc[GCHUNK];
      for (int i = 0; i < n; ++i) acc[i] = 0.0;
      for (int64_t k = k0; k < k1; ++k) {
        const double *v  = c.values + k * bs2 + r0;
        const double *xp = c.x + (int64_t)c.colidx[k] * bs;
        double        t[GCHUNK];
        if (r0 == 0 && c.pf > 0) prefetch_block(v + c.pf, bs2 * 8);
        for (int i = 0; i < n; ++i) t[i] = v[i] * xp[0];
        for (int64_t cc = 1; cc < bs; ++cc) {
          const double  xc = xp[cc];
          const double *vc = v + cc * bs;
          for (int i = 0; i < n; ++i) t[i] += vc[i] * xc;
        }
        for (int i = 0; i < n; ++i) acc[i] += t[i];
      }
      emit<E, 0>(c, acc, n, br * bs + r0, t * bs + r0);
    }
  }
};

/* A task's walk, one row segment at a time: the continuation of its head row, then its rows (the
   last may continue into later tasks), each with the way its sum is written. run_task and the
   lockstep walk both follow it. */
template <bool ATOMIC>
struct TaskWalk {
  int64_t t, k, end, ke, r, r1, row;
  Emit    how;
  bool    done;

  void start(const Ctx &c, int64_t task)
  {
    t               = task;
    k               = c.bb[t];
    ke              = c.bb[t + 1];
    r               = c.rb[t];
    r1              = c.rb[t + 1];
    const int64_t h = c.hr[t];
    if (h < 0) return next(c);
    row  = h;
    end  = std::min<int64_t>(c.rowptr[h + 1], ke);
    how  = ATOMIC ? EMIT_ATOMIC : EMIT_CARRY;
    done = false;
  }
  void next(const Ctx &c)
  {
    done = r >= r1;
    if (done) return;
    row              = r++;
    const int64_t k1 = c.rowptr[row + 1];
    k                = c.rowptr[row];
    end              = std::min(k1, ke);
    how              = ATOMIC && k1 > ke ? EMIT_ATOMIC : EMIT_OWNED;
  }
};

/* One task, segment by segment (TaskWalk). Not inlined: the serial loop and the OpenMP loop then
   run the same machine code, so CARRY results are bitwise the same for any thread count (the
   compiler could otherwise contract multiply-adds differently in the two copies). */
template <class K, bool ATOMIC>
__attribute__((noinline)) void run_task(const Ctx &c, int64_t t)
{
  TaskWalk<ATOMIC> w;
  for (w.start(c, t); !w.done; w.next(c)) {
    if (w.how == EMIT_OWNED) {
      if constexpr (K::kBS > 0) {
        /* this row and the ones after it that are written directly: all up to the task's last row,
           which ATOMIC leaves to the walk when it continues into the next task. last > w.row: this
           row is written directly, so under ATOMIC it ends inside the task. */
        const int64_t last = ATOMIC && c.rowptr[w.r1] > w.ke ? w.r1 - 1 : w.r1;
        K::owned_rows(c, w.row, last, w.ke);
        w.r = last;
      } else K::template row<EMIT_OWNED>(c, w.k, w.end, w.row, t);
    } else if (w.how == EMIT_CARRY) K::template row<EMIT_CARRY>(c, w.k, w.end, w.row, t);
    else K::template row<EMIT_ATOMIC>(c, w.k, w.end, w.row, t);
  }
}

/* S tasks walked by one thread in lockstep, block by block (the streams of the comment at the top);
   a task that ends first leaves the others to finish alone. Not inlined, as run_task. */
template <int BS, bool ATOMIC, int S>
__attribute__((noinline)) void run_tasks_lockstep(const Ctx &c, const int64_t (&task)[S])
{
  TaskWalk<ATOMIC> w[S];
  Acc<BS>          acc[S];
  const auto       finish_segment = [&](int s) {
    double sums[BS];
    acc[s].store(sums);
    emit_as<BS>(w[s].how, c, sums, BS, w[s].row * BS, w[s].t * BS);
    acc[s].zero();
    w[s].next(c);
  };
  for (int s = 0; s < S; ++s) {
    w[s].start(c, task[s]);
    acc[s].zero();
  }
  for (;;) {
    int64_t m   = INT64_MAX;
    bool    all = true;
    for (int s = 0; s < S; ++s) {
      while (!w[s].done && w[s].k >= w[s].end) finish_segment(s); /* empty rows too: beta * in */
      if (w[s].done) all = false;
      else m = std::min(m, w[s].end - w[s].k);
    }
    if (!all) break;
    /* the next m blocks of every task, from local copies the compiler keeps in registers */
    Acc<BS>         a[S];
    const double   *v[S];
    const bsrk_idx *ci[S];
#pragma GCC unroll 4
    for (int s = 0; s < S; ++s) {
      v[s]  = c.values + w[s].k * (BS * BS);
      ci[s] = c.colidx + w[s].k;
      a[s]  = acc[s];
    }
    for (int64_t i = 0; i < m; ++i)
#pragma GCC unroll 4
      for (int s = 0; s < S; ++s) {
        const double *b = v[s] + i * (BS * BS);
        if (c.pf > 0) prefetch_block(b + c.pf, BS * BS * 8);
        FixedRow<BS>::block_product(b, c.x + (int64_t)ci[s][i] * BS, a[s]);
      }
#pragma GCC unroll 4
    for (int s = 0; s < S; ++s) {
      w[s].k += m;
      acc[s] = a[s];
    }
  }
  for (int s = 0; s < S; ++s)
    while (!w[s].done) {
      for (; w[s].k < w[s].end; ++w[s].k) FixedRow<BS>::add_block(c, acc[s], w[s].k);
      finish_segment(s);
    }
}

/* Tasks of group g for S streams: g, g + G, g + 2G, .. below ntasks, G = ceil(ntasks / S). */
template <int BS, bool ATOMIC, int S>
void run_group(const Ctx &c, int64_t ntasks, int64_t g)
{
  const int64_t G = (ntasks + S - 1) / S;
  int64_t       task[S];
  int           n = 0;
  for (int s = 0; s < S; ++s)
    if (g + s * G < ntasks) task[n++] = g + s * G;
  if (n == S) return run_tasks_lockstep<BS, ATOMIC, S>(c, task);
  for (int s = 0; s < n; ++s) run_task<FixedRow<BS>, ATOMIC>(c, task[s]);
}

/* The parallel loops' items: a task, or for bs 1..8 with streams > 1 a group of that many tasks. */
inline int64_t item_count(const Ctx &c, int64_t ntasks, int streams)
{
  const int s = bsrk_streams_used((bsrk_idx)c.bs, streams);
  return (ntasks + s - 1) / s;
}

template <class K, bool ATOMIC>
inline void run_item(const Ctx &c, int64_t ntasks, int streams, int64_t i)
{
  if constexpr (K::kBS > 0) {
    if (streams == 2) return run_group<K::kBS, ATOMIC, 2>(c, ntasks, i);
    if (streams == 4) return run_group<K::kBS, ATOMIC, 4>(c, ntasks, i);
  }
  run_task<K, ATOMIC>(c, i);
}

/* ATOMIC mode, first pass for task t: initialise the head row (once, on its first
   continuing task) to beta*in or 0. */
inline void init_shared_row(const Ctx &c, int64_t t)
{
  const int64_t h = c.hr[t];
  if (h < 0 || (t > 0 && c.hr[t - 1] == h)) return;
  double *o = c.out + h * c.bs;
  if (c.beta == 0.0) {
    for (int64_t i = 0; i < c.bs; ++i) o[i] = 0.0;
  } else {
    const double *in = c.in + h * c.bs;
    for (int64_t i = 0; i < c.bs; ++i) o[i] = c.beta * in[i];
  }
}

/* the items of a product, for the passive team's work function */
struct Items {
  const Ctx *c;
  int64_t    ntasks;
  int        streams;
};

template <class K, bool ATOMIC>
void run_item_of(const void *items, int64_t i)
{
  const Items *it = static_cast<const Items *>(items);
  run_item<K, ATOMIC>(*it->c, it->ntasks, it->streams, i);
}

template <class K>
void run_carry(const Ctx &c, int64_t ntasks, bsrk_threads kind, int nthreads, int streams)
{
  const int64_t nitems = item_count(c, ntasks, streams);
  if (nthreads == 1) {
    for (int64_t i = 0; i < nitems; ++i) {
      run_item<K, false>(c, ntasks, streams, i);
      between_items(c, true);
    }
  } else if (kind == BSRK_THREADS_PASSIVE) {
    const Items items{&c, ntasks, streams};
    bsrk_passive_run_between(nthreads, nitems, run_item_of<K, false>, &items, c.between.fn, c.between.ctx);
  } else {
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1)
    for (int64_t i = 0; i < nitems; ++i) {
      run_item<K, false>(c, ntasks, streams, i);
      between_items(c, omp_get_thread_num() == 0);
    }
  }
  for (int64_t t = 1; t < ntasks; ++t) {
    const int64_t h = c.hr[t];
    if (h < 0) continue;
    double       *o = c.out + h * c.bs;
    const double *w = c.carry + t * c.bs;
    for (int64_t i = 0; i < c.bs; ++i) o[i] += c.alpha * w[i];
  }
}

template <class K>
void run_atomic(const Ctx &c, int64_t ntasks, bsrk_threads kind, int nthreads, int streams)
{
  const int64_t nitems = item_count(c, ntasks, streams);
  if (nthreads == 1 || kind == BSRK_THREADS_PASSIVE) {
    for (int64_t t = 1; t < ntasks; ++t) init_shared_row(c, t); /* before any task adds to a shared row */
    if (nthreads == 1) {
      for (int64_t i = 0; i < nitems; ++i) {
        run_item<K, true>(c, ntasks, streams, i);
        between_items(c, true);
      }
    } else {
      const Items items{&c, ntasks, streams};
      bsrk_passive_run_between(nthreads, nitems, run_item_of<K, true>, &items, c.between.fn, c.between.ctx);
    }
  } else {
#pragma omp parallel num_threads(nthreads)
    {
#pragma omp for schedule(static)
      for (int64_t t = 1; t < ntasks; ++t) init_shared_row(c, t);
        /* implicit barrier: every shared row is initialised before any task adds to it */
#pragma omp for schedule(dynamic, 1) nowait
      for (int64_t i = 0; i < nitems; ++i) {
        run_item<K, true>(c, ntasks, streams, i);
        between_items(c, omp_get_thread_num() == 0);
      }
    }
  }
}

template <class K>
void run(const Ctx &c, int64_t ntasks, bsrk_threads kind, int nthreads, int streams, bsrk_shared_rows mode)
{
  if (mode == BSRK_SHARED_ROWS_CARRY) run_carry<K>(c, ntasks, kind, nthreads, streams);
  else run_atomic<K>(c, ntasks, kind, nthreads, streams);
}

} // namespace

extern "C" size_t bsrk_tasks_workspace_bytes(const bsrk_partition *p, bsrk_idx bs)
{
  if (!p || p->ntasks < 1 || bs < 1) return 0;
  return (size_t)p->ntasks * (size_t)bs * sizeof(double);
}

extern "C" bsrk_status bsrk_tasks_multadd(const bsrk_matrix *A, const bsrk_partition *p, int nthreads, int streams, int prefetch_bytes, bsrk_shared_rows mode, double alpha, const double *x, double beta, const double *in, double *out, void *workspace)
{
  return bsrk_tasks_multadd_on(A, p, BSRK_THREADS_OPENMP, nthreads, streams, prefetch_bytes, mode, alpha, x, beta, in, out, workspace);
}

extern "C" bsrk_status bsrk_tasks_multadd_on(const bsrk_matrix *A, const bsrk_partition *p, bsrk_threads kind, int nthreads, int streams, int prefetch_bytes, bsrk_shared_rows mode, double alpha, const double *x, double beta, const double *in, double *out, void *workspace)
{
  return bsrk_tasks_multadd_between(A, p, kind, nthreads, streams, prefetch_bytes, mode, alpha, x, beta, in, out, workspace, nullptr);
}

extern "C" bsrk_status bsrk_tasks_multadd_between(const bsrk_matrix *A, const bsrk_partition *p, bsrk_threads kind, int nthreads, int streams, int prefetch_bytes, bsrk_shared_rows mode, double alpha, const double *x, double beta, const double *in, double *out, void *workspace, const bsrk_between *between)
{
  if (!A || !p || nthreads < 1) return BSRK_ERR_ARG;
  if (kind != BSRK_THREADS_OPENMP && kind != BSRK_THREADS_PASSIVE) return BSRK_ERR_ARG;
  if (streams != 1 && streams != 2 && streams != 4) return BSRK_ERR_ARG;
  if (prefetch_bytes < 0 || prefetch_bytes > BSRK_MAX_PREFETCH_BYTES) return BSRK_ERR_ARG;
  if (mode != BSRK_SHARED_ROWS_CARRY && mode != BSRK_SHARED_ROWS_ATOMIC) return BSRK_ERR_ARG;
  if (A->nbrows < 0 || A->bs < 1 || !A->rowptr) return BSRK_ERR_ARG;
  if (p->ntasks < 1 || !p->block_begin || !p->row_begin || !p->head_row) return BSRK_ERR_ARG;
  if (p->block_begin[p->ntasks] != A->rowptr[A->nbrows] || p->row_begin[p->ntasks] != A->nbrows) return BSRK_ERR_ARG;
  if (A->nbrows == 0) return BSRK_OK;
  if (!out || (beta != 0.0 && !in)) return BSRK_ERR_ARG;
  if (A->rowptr[A->nbrows] > 0 && (!A->colidx || !A->values || !x)) return BSRK_ERR_ARG;

  const int64_t ntasks = p->ntasks;
  if (mode == BSRK_SHARED_ROWS_CARRY && !workspace) {
    for (int64_t t = 1; t < ntasks; ++t)
      if (p->head_row[t] >= 0) return BSRK_ERR_ARG; /* carries needed but nowhere to put them */
  }

  Ctx c;
  c.rowptr  = A->rowptr;
  c.colidx  = A->colidx;
  c.values  = A->values;
  c.x       = x;
  c.in      = in;
  c.out     = out;
  c.carry   = static_cast<double *>(workspace);
  c.bb      = p->block_begin;
  c.rb      = p->row_begin;
  c.hr      = p->head_row;
  c.alpha   = alpha;
  c.beta    = beta;
  c.bs      = A->bs;
  c.pf      = prefetch_bytes / (int)sizeof(double);
  c.between = between ? *between : bsrk_between{nullptr, nullptr};

  bsrk_dispatch_block_size(A->bs, [&](auto BS) {
    using Row = std::conditional_t<BS.value == 0, GenericRow, FixedRow<BS.value>>;
    run<Row>(c, ntasks, kind, nthreads, streams, mode);
  });
  return BSRK_OK;
}
