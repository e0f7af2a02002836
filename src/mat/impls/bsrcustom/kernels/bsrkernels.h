/*
   PETSc-free BSR kernel layer: the task partition, a plain reference product and the
   OpenMP fixed-size-task product. The PETSc layer (seq/, mpi/) calls these; tests compare
   every kernel against bsrk_reference_multadd on the same inputs.

   Storage is PETSc's BAIJ layout, used in place (no copy of the values):
     rowptr[nbrows+1]  block-row pointers, colidx[nblocks] block columns,
     values[nblocks*bs*bs] with each bs x bs block stored column-major:
       entry (r, c) of block k is values[k*bs*bs + c*bs + r].
*/
#ifndef BSRKERNELS_H
#define BSRKERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Index width follows PETSc's PetscInt (CMake defines BSRK_INDEX64 for --with-64-bit-indices). */
#if defined(BSRK_INDEX64)
typedef int64_t bsrk_idx;
#else
typedef int32_t bsrk_idx;
#endif

typedef struct {
  bsrk_idx        nbrows; /* block rows */
  bsrk_idx        nbcols; /* block columns (x has nbcols*bs entries) */
  bsrk_idx        bs;     /* block size, >= 1 */
  const bsrk_idx *rowptr;
  const bsrk_idx *colidx;
  const double   *values;
} bsrk_matrix;

/* Fixed-size tasks (thesis ch. 6, "preprocessed fixed-size tasks"): the nonzero blocks
   [0, nblocks) are cut into ntasks contiguous ranges whose sizes differ by at most one
   block. A range may begin and end inside a block row. */
typedef struct {
  bsrk_idx  ntasks;
  bsrk_idx *block_begin; /* [ntasks+1]: task t covers blocks [block_begin[t], block_begin[t+1]) */
  bsrk_idx *row_begin;   /* [ntasks+1]: task t writes (owns) block rows [row_begin[t], row_begin[t+1]);
                            a row is owned by the task holding its first block; an empty row by the
                            task holding the position where it would start (the last task at the end) */
  bsrk_idx *head_row;    /* [ntasks]: the row whose blocks the task continues from an earlier task
                            (its partial sum is a carry), or -1 when the task starts on a row start */
} bsrk_partition;

typedef enum {
  BSRK_OK        = 0,
  BSRK_ERR_ALLOC = 1,
  BSRK_ERR_ARG   = 2
} bsrk_status;

/* How rows split between tasks are summed. */
typedef enum {
  BSRK_SHARED_ROWS_CARRY  = 0, /* per-task carry buffer, summed after the parallel loop (deterministic) */
  BSRK_SHARED_ROWS_ATOMIC = 1  /* one atomic add per element of each shared task-row */
} bsrk_shared_rows;

/* Builds the partition for ntasks_wanted tasks (clamped to [1, max(1, nblocks)]).
   Returns BSRK_ERR_ARG for nbrows < 0, ntasks_wanted < 1 or a rowptr that is not
   non-decreasing from 0. On failure p is left empty (safe to free). */
bsrk_status bsrk_partition_build(bsrk_idx nbrows, const bsrk_idx *rowptr, bsrk_idx ntasks_wanted, bsrk_partition *p);
void        bsrk_partition_free(bsrk_partition *p);

/* Plain sequential reference: out = alpha*A*x + beta*in. With beta == 0, `in` is not read
   (it may be NULL) and out is fully overwritten. in may alias out. */
void bsrk_reference_multadd(const bsrk_matrix *A, double alpha, const double *x, double beta, const double *in, double *out);

/* Workspace that the task product needs (carries); size depends on ntasks and bs only. */
size_t bsrk_tasks_workspace_bytes(const bsrk_partition *p, bsrk_idx bs);

/* OpenMP fixed-size-task product: out = alpha*A*x + beta*in, same contract as the reference.
   nthreads >= 1 threads run the tasks (1 runs them in this thread without a parallel region).
   workspace holds at least bsrk_tasks_workspace_bytes(p, A->bs) bytes (may be NULL for the
   atomic mode). Block sizes 1..8 run compile-time specialisations; larger ones a generic loop.
   streams (1, 2 or 4): tasks a thread walks at once, in lockstep (bs 1..8; larger bs: 1); the
   CARRY result does not depend on it, bit for bit. prefetch_bytes (0..BSRK_MAX_PREFETCH_BYTES):
   how far ahead of each block its values are prefetched, 0 for none; the result does not depend
   on it. */
#define BSRK_MAX_PREFETCH_BYTES (1 << 20)

/* Block sizes 1..BSRK_MAX_FIXED_BS run compile-time specialisations, and only they walk several
   tasks at once: the tasks a thread of bsrk_tasks_multadd walks at once for block size bs. */
#define BSRK_MAX_FIXED_BS 8
static inline int bsrk_streams_used(bsrk_idx bs, int streams)
{
  return bs <= BSRK_MAX_FIXED_BS ? streams : 1;
}
bsrk_status bsrk_tasks_multadd(const bsrk_matrix *A, const bsrk_partition *p, int nthreads, int streams, int prefetch_bytes, bsrk_shared_rows mode, double alpha, const double *x, double beta, const double *in, double *out, void *workspace);

/* Which threads run a product of several: an OpenMP team (idle threads spin between products: the
   fastest on an idle machine), or a team of our own whose threads sleep between products and whose
   caller never waits for a thread that took no task (the faster on cores busy with other work;
   bsrk_passive_team.cpp). */
typedef enum {
  BSRK_THREADS_OPENMP  = 0,
  BSRK_THREADS_PASSIVE = 1
} bsrk_threads;
/* bsrk_tasks_multadd on the chosen threads (bsrk_tasks_multadd itself: OpenMP). */
bsrk_status bsrk_tasks_multadd_on(const bsrk_matrix *A, const bsrk_partition *p, bsrk_threads kind, int nthreads, int streams, int prefetch_bytes, bsrk_shared_rows mode, double alpha, const double *x, double beta, const double *in, double *out, void *workspace);

/* Work that the calling thread does between the items it runs: fn(ctx) after each of them (mpibsrcustom
   passes MPI progress, so that a halo exchange begun before the local product moves while it runs).
   Only the thread that called the product runs it (thread 0 of an OpenMP team, the caller of the
   passive team), so an MPI of thread level FUNNELED suffices. */
typedef struct {
  void (*fn)(void *ctx);
  void *ctx;
} bsrk_between;
/* bsrk_tasks_multadd_on with work between items (between may be NULL: none); the product is the same. */
bsrk_status bsrk_tasks_multadd_between(const bsrk_matrix *A, const bsrk_partition *p, bsrk_threads kind, int nthreads, int streams, int prefetch_bytes, bsrk_shared_rows mode, double alpha, const double *x, double beta, const double *in, double *out, void *workspace, const bsrk_between *between);

/* The threads of a matrix's products (bsrk_team.cpp): the OpenMP team, or the passive team while
   that is measured to be faster (cores busy with other work). One per matrix; its state is what the
   products measured. A caller wraps each product on several threads:
     kind = bsrk_team_begin(&t, bsrk_team_clock());
     bsrk_tasks_multadd_on(..., kind, nthreads, ...);
     bsrk_team_end(&t, bsrk_team_clock());
   The product is the same on either (CARRY: bit for bit). */
typedef struct {
  int    mode;      /* the bsrk_threads kind products run on */
  double mean[2];   /* running mean seconds of a product on each kind; < 0: not measured yet */
  double fastest;   /* the OpenMP team's fastest product */
  int    opening;   /* products of the opening sequence run so far */
  int    trying;    /* products of the other kind still to run in the current try */
  double burst_sum; /* measured seconds of the current try, and its products */
  int    burst_n;
  double gap; /* seconds between tries */
  double last_try, started;
  int    running;  /* the kind of the product under way */
  long   switches; /* changes of kind so far */
} bsrk_team;
void bsrk_team_init(bsrk_team *t);
/* Seconds on the clock that begin and end take (monotonic; omp_get_wtime). */
double bsrk_team_clock(void);
/* The kind of threads for the product that starts now. */
bsrk_threads bsrk_team_begin(bsrk_team *t, double now);
/* The end of that product: its time is noted and the kind chosen for the next ones. */
void bsrk_team_end(bsrk_team *t, double now);

#ifdef __cplusplus
}
#endif
#endif
