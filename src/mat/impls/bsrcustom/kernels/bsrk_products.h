/*
   PETSc-free products beyond y = A x (issue 30), on the same BSR storage and task partitions as
   bsrkernels.h:

   - the transposed copy: A^T as a plain bsrk_matrix (block structure of A^T, each block transposed,
     column-major like A's), so that y = A^T x is bsrk_tasks_multadd on the copy with its own task
     partition, at MatMult speed; a block permutation refreshes its values when only A's values
     changed (bsrk_transpose.cpp). Being a plain bsrk_matrix, a GPU backend can upload it as a second
     device matrix;
   - the block SpMM: Y = alpha A X + beta In for k dense columns at once (column-major, each with its
     own leading dimension), reading the matrix from memory once: X is copied row-major, and each row
     segment is walked once per chunk of 4 columns held in registers, the later chunks finding the
     blocks in L1; the same fixed-size tasks, with carries for rows split between tasks
     (bsrk_spmm.cpp).
*/
#ifndef BSRK_PRODUCTS_H
#define BSRK_PRODUCTS_H

#include "bsrkernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  bsrk_matrix M;      /* A^T: nbrows = A's nbcols, nbcols = A's nbrows, bs = A's; points into the arrays below */
  bsrk_idx   *rowptr; /* [M.nbrows + 1] */
  bsrk_idx   *colidx; /* [nblocks], increasing within each row */
  bsrk_idx   *perm;   /* [nblocks]: block k of A^T is block perm[k] of A, transposed */
  double     *values; /* [nblocks * bs * bs] */
  bsrk_idx    nblocks;
} bsrk_transpose;

/* Builds T (structure, permutation and values) from A; T's old arrays are freed first (T must be
   zero-initialised or built before). On failure T is left empty. O(nblocks * bs^2 + nbcols). */
bsrk_status bsrk_transpose_build(const bsrk_matrix *A, bsrk_transpose *T);
/* Copies A's values into T through the stored permutation (A's structure must be the one T was
   built from), on nthreads OpenMP threads. */
bsrk_status bsrk_transpose_values(const bsrk_matrix *A, bsrk_transpose *T, int nthreads);
void        bsrk_transpose_free(bsrk_transpose *T);

/* Workspace of bsrk_tasks_spmm for k columns: carries (ntasks * bs * k doubles) and X copied
   row-major (nbcols * bs * k doubles). */
size_t bsrk_spmm_workspace_bytes(const bsrk_matrix *A, const bsrk_partition *p, bsrk_idx k);
/* Y = alpha A X + beta In for k columns: column j of X is X[j*ldx .. j*ldx + A->nbcols*bs), of In
   and Y likewise with ldin and ldy (each ld at least the column's length). beta == 0: In is not read
   (may be NULL). In may alias Y (then ldin == ldy). Rows split between tasks: per-task carries added
   after the parallel loop in task order (deterministic; the result does not depend on nthreads). The sums run in another order than
   bsrk_tasks_multadd's (block values times rows of X), so they agree with it to rounding.
   Block sizes 1..8 are compile-time specialisations. k == 0 does nothing; k == 1 runs
   bsrk_tasks_multadd (the same bits as MatMult). workspace: bsrk_spmm_workspace_bytes(A, p, k). */
bsrk_status bsrk_tasks_spmm(const bsrk_matrix *A, const bsrk_partition *p, int nthreads, bsrk_idx k, double alpha, const double *X, bsrk_idx ldx, double beta, const double *In, bsrk_idx ldin, double *Y, bsrk_idx ldy, void *workspace);
/* the same on the chosen threads (bsrk_tasks_spmm: the OpenMP team); the result does not depend on it */
bsrk_status bsrk_tasks_spmm_on(const bsrk_matrix *A, const bsrk_partition *p, bsrk_threads kind, int nthreads, bsrk_idx k, double alpha, const double *X, bsrk_idx ldx, double beta, const double *In, bsrk_idx ldin, double *Y, bsrk_idx ldy, void *workspace);
/* The SpMM's column chunks: mode 0 the portable (SSE2) ones, 1 (or -1 before any choice) the AVX2 +
   FMA ones where the CPU has both, -1 only asks. Returns 1 when the AVX2 chunks are in use. The
   default is the AVX2 chunks where the CPU has them; both give the same sums to rounding. */
int bsrk_spmm_use_avx2(int mode);

#ifdef __cplusplus
}
#endif
#endif
