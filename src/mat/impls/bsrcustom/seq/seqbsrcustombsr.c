/*
   The BSR view of a seqbsrcustom matrix (SeqBAIJ's own arrays, no copies) and the bookkeeping its
   products do first: the task partition, rebuilt only when the block rows or the thread and chunk
   settings change, and the structure generation that device copies and transposed copies follow.
*/
#include "seqbsrcustomimpl.h"
#include <../src/mat/impls/bsrcustom/backends/cpu/bsrcustomcpuimpl.h>

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
   Rebuilds the task partition when the block-row structure changed or the thread/chunk settings did.
   The partition depends on the row pointers only. At assembly (compare_rows) they are compared with
   the copy taken at the last build, an O(block rows) check: PETSc 3.18's MatSetValuesBlocked() can
   add blocks without bumping A->nonzerostate. Elsewhere (MatMult) only O(1) state is compared.
*/
PETSC_INTERN PetscErrorCode MatSeqBSRCustomUpdateTasks_Private(Mat A, PetscBool compare_rows)
{
  Mat_SeqBSRCustom *b      = (Mat_SeqBSRCustom *)A->spptr;
  PetscInt          wanted = b->set.nthreads * b->set.chunks_per_thread;
  bsrk_matrix       M;
  size_t            bytes;
  PetscBool         same;

  PetscFunctionBegin;
  if (b->tasks_built && b->tasks_wanted == wanted && b->tasks_nonzerostate == A->nonzerostate && !compare_rows) PetscFunctionReturn(0);
  PetscCall(MatSeqBSRCustomGetBSR(A, &M));
  if (b->tasks_built && b->tasks_wanted == wanted && b->rowptr_len == M.nbrows + 1) {
    PetscCall(PetscArraycmp(b->rowptr_copy, M.rowptr, M.nbrows + 1, &same));
    if (same) {
      /* the tasks still fit the rows; columns may have changed (the device copy must follow) */
      if (b->tasks_nonzerostate != A->nonzerostate) b->structure_generation++;
      b->tasks_nonzerostate = A->nonzerostate;
      PetscFunctionReturn(0);
    }
  }
  PetscCall(PetscLogEventBegin(MATBSRCUSTOM_PartitionBuild, A, 0, 0, 0));
  b->structure_generation++;
  bsrk_partition_free(&b->tasks);
  b->tasks_built = PETSC_FALSE;
  PetscCall(MatSeqBSRCustomKernelCheck_Private(A, bsrk_partition_build(M.nbrows, M.rowptr, wanted, &b->tasks), "the task partition"));
  b->nonzero_block_rows = 0;
  for (PetscInt i = 0; i < M.nbrows; i++) b->nonzero_block_rows += (M.rowptr[i + 1] > M.rowptr[i]);
  bytes = bsrk_tasks_workspace_bytes(&b->tasks, M.bs);
  if (bytes > b->workspace_bytes) {
    PetscCall(PetscFree(b->workspace));
    PetscCall(PetscMalloc(bytes, &b->workspace));
    b->workspace_bytes = bytes;
  }
  if (b->rowptr_len != M.nbrows + 1) {
    PetscCall(PetscFree(b->rowptr_copy));
    PetscCall(PetscMalloc1(M.nbrows + 1, &b->rowptr_copy));
    b->rowptr_len = M.nbrows + 1;
  }
  PetscCall(PetscArraycpy(b->rowptr_copy, M.rowptr, M.nbrows + 1));
  b->huge_granted = PETSC_FALSE;
  PetscCall((*b->backend->partition_built)(A, &M));
  bsrk_team_init(&b->team); /* new tasks, new times */
  b->tasks_built        = PETSC_TRUE;
  b->tasks_nonzerostate = A->nonzerostate;
  b->tasks_wanted       = wanted;
  PetscCall(PetscLogEventEnd(MATBSRCUSTOM_PartitionBuild, A, 0, 0, 0));
  {
    char why[512];

    PetscCall(MatBSRCustomThreadsWhy_Private(&b->set, why, sizeof(why)));
    PetscCall(PetscInfo(A, "Partitioned %" PetscInt_FMT " blocks of %" PetscInt_FMT " block rows (bs %" PetscInt_FMT ") into %" PetscInt_FMT " tasks: %" PetscInt_FMT " threads (%s) x %" PetscInt_FMT " chunks per thread\n", (PetscInt)M.rowptr[M.nbrows],
                        (PetscInt)M.nbrows, (PetscInt)M.bs, (PetscInt)b->tasks.ntasks, b->set.nthreads, why, b->set.chunks_per_thread));
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomPrepare_Private(Mat A, bsrk_matrix *M)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomUpdateTasks_Private(A, PETSC_FALSE));
  PetscCall(MatSeqBSRCustomGetBSR(A, M));
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
