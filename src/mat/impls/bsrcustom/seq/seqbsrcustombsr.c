/*
   The BSR view of a seqbsrcustom matrix (SeqBAIJ's own arrays, no copies) and the bookkeeping its
   products do first: the row and structure generations that the backends' partitions, device copies
   and transposed copies follow, then the backend's own preparation.
*/
#include "seqbsrcustomimpl.h"

/* The BSR view of A: SeqBAIJ's block-row pointers, block columns and values, no copies. */
static PetscErrorCode MatSeqBSRCustomGetBSR(Mat A, bsrk_matrix *M)
{
  PetscInt        nbrows, bs;
  const PetscInt *ia, *ja;
  PetscScalar    *aa;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &nbrows, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SeqBAIJ did not give its block structure");
  M->nbrows = nbrows;
  M->nbcols = A->cmap->n / bs;
  M->bs     = bs;
  M->rowptr = ia;
  M->colidx = ja;
  /* SeqBAIJ's own methods: ours (seqbsrcustomvalues.c) would count a read as a change of values */
  PetscCall((*((Mat_SeqBSRCustom *)A->spptr)->baij_getarray)(A, &aa));
  M->values = aa;
  /* SeqBAIJ hands out its own arrays (no copies): they stay valid after the restores below
     until the nonzero structure changes, which needs a new assembly */
  PetscCall((*((Mat_SeqBSRCustom *)A->spptr)->baij_restorearray)(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_TRUE, &nbrows, &ia, &ja, &done));
  PetscFunctionReturn(0);
}

/*
   Follows A's block rows: the row generation moves on when the row pointers changed, the structure
   generation when they or the columns did (A->nonzerostate). At assembly (compare_rows) the row
   pointers are compared with the copy taken when they last changed, an O(block rows) check: PETSc
   3.18's MatSetValuesBlocked() can add blocks without bumping A->nonzerostate. Elsewhere (MatMult)
   only O(1) state is compared. Then A's backend makes what it needs ahead of the product (its ready).
*/
PETSC_INTERN PetscErrorCode MatSeqBSRCustomUpdate_Private(Mat A, PetscBool compare_rows, bsrk_matrix *M)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  PetscBool         same;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomGetBSR(A, M));
  if (b->rows_followed && b->rows_nonzerostate == A->nonzerostate && !compare_rows) {
    PetscCall((*b->backend->ready)(A, M));
    PetscFunctionReturn(0);
  }
  same = PETSC_FALSE;
  if (b->rows_followed && b->rowptr_len == M->nbrows + 1) PetscCall(PetscArraycmp(b->rowptr_copy, M->rowptr, M->nbrows + 1, &same));
  if (same) { /* the same rows; columns may have changed (device and transposed copies must follow) */
    if (b->rows_nonzerostate != A->nonzerostate) b->structure_generation++;
  } else {
    b->structure_generation++;
    b->row_generation++;
    b->nonzero_block_rows = 0;
    for (PetscInt i = 0; i < M->nbrows; i++) b->nonzero_block_rows += (M->rowptr[i + 1] > M->rowptr[i]);
    if (b->rowptr_len != M->nbrows + 1) {
      PetscCall(PetscFree(b->rowptr_copy));
      PetscCall(PetscMalloc1(M->nbrows + 1, &b->rowptr_copy));
      b->rowptr_len = M->nbrows + 1;
    }
    PetscCall(PetscArraycpy(b->rowptr_copy, M->rowptr, M->nbrows + 1));
  }
  b->rows_followed     = PETSC_TRUE;
  b->rows_nonzerostate = A->nonzerostate;
  PetscCall((*b->backend->ready)(A, M));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomPrepare_Private(Mat A, bsrk_matrix *M)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomUpdate_Private(A, PETSC_FALSE, M));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomFollowStructure_Private(Mat A)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  PetscInt          n;
  const PetscInt   *ia, *ja;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetStructure_Private(A, PETSC_TRUE, &n, &ia, &ja));
  if (b->structure_recorded && ia[n] != b->recorded_blocks && A->nonzerostate == b->recorded_nonzerostate) {
    A->nonzerostate++;
    PetscCall(PetscInfo(A, "%" PetscInt_FMT " blocks where the last assembly left %" PetscInt_FMT ": a new nonzero structure\n", ia[n], b->recorded_blocks));
  }
  b->structure_recorded    = PETSC_TRUE;
  b->recorded_blocks       = ia[n];
  b->recorded_nonzerostate = A->nonzerostate;
  PetscFunctionReturn(0);
}
