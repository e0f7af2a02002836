/*
   AIJ-style preallocation of a seqbsrcustom matrix: for programs written for AIJ whose type comes from
   the options (and DMDA, petsc4py, which take the AIJ path for any type offering it). Counts and CSR
   are per scalar row; the blocks are allocated from them, and MAT_NEW_NONZERO_ALLOCATION_ERR keeps
   AIJ's meaning: the first assembly checks each block row against what its rows' counts allow
   (MatBSRCustomAIJAllowance), after it SeqBAIJ's own check (any new block) is AIJ's (any new entry).
*/
#include "seqbsrcustomimpl.h"

/*
   Where block counts were given already (MatXAIJSetPreallocation() passes both), they are the better
   information and this call does nothing, as for SeqBAIJ; where they come after it with a block size
   of their own, they replace it (MatSeqBAIJSetPreallocation_SeqBSRCustom). Otherwise a block row gets
   ceil(max row count / bs) blocks, exact for block-structured counts (a DMDA's, an FEM code's); scalar
   patterns that touch more blocks than that still assemble, with mallocs (PetscInfo says how many).
*/
PETSC_INTERN PetscErrorCode MatSeqAIJSetPreallocation_SeqBSRCustom(Mat A, PetscInt nz, const PetscInt nnz[])
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  PetscInt          bs, mbs, nbs, *bnnz = NULL, bnz = nz;

  PetscFunctionBegin;
  if (b->block_preallocated) PetscFunctionReturn(0);
  PetscCall(PetscLayoutSetUp(A->rmap));
  PetscCall(PetscLayoutSetUp(A->cmap));
  if (A->rmap->bs != A->cmap->bs) {                                   /* rectangular blocks (GAMG's prolongators): BAIJ holds square ones only */
    const char                   *aij     = b->backend->aij_seq_type; /* on the device where the products are */
    const MatBSRCustomBackendOps *backend = b->backend;               /* b goes with the type */

    PetscCall(PetscInfo(A, "Row block size %" PetscInt_FMT " and column block size %" PetscInt_FMT ": made a %s, which holds any blocks\n", A->rmap->bs, A->cmap->bs, aij));
    PetscCall(MatSetType(A, aij));
    PetscCall(MatSeqAIJSetPreallocation(A, nz, nnz));
    PetscCall((*backend->aij_made)(A));
    PetscCall(MatBSRCustomAIJSubsetAXPY_Private(A));
    PetscFunctionReturn(0);
  }
  PetscCall(MatGetBlockSize(A, &bs));
  mbs = A->rmap->n / bs;
  nbs = A->cmap->n / bs;
  if (nnz)
    for (PetscInt i = 0; i < A->rmap->n; i++) PetscCheck(nnz[i] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "nnz cannot be less than 0: local row %" PetscInt_FMT " value %" PetscInt_FMT, i, nnz[i]);
  PetscCall(MatBSRCustomBlockCounts_Private(mbs, bs, nnz, nbs, &bnnz));
  if (nz != PETSC_DEFAULT && nz != PETSC_DECIDE) bnz = PetscMin((nz + bs - 1) / bs, nbs);
  PetscCall(MatBSRCustomAIJAllowanceReset_Private(&b->aij_allowance));
  PetscCall((*b->baij_seqbaijsetpreallocation)(A, bs, bnz, bnnz));
  PetscCall(PetscFree(bnnz));
  b->aij_bs1 = (PetscBool)(bs == 1);
  if (bs > 1) {
    /* SeqBAIJ's own check would refuse a malloc its block counts did not foresee: ours stands in for it
       until the first assembly */
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatBSRCustomAIJAllowanceSet_Private(mbs, bs, nz, nnz, nbs, &b->aij_allowance.allowed, &b->aij_allowance.allowed_all));
    b->aij_allowance.pending = PETSC_TRUE;
    b->aij_allowance.error   = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* MAT_NEW_NONZERO_ALLOCATION_ERR while the allowance stands: the caller's wish is kept for the check
   (*taken), SeqBAIJ's own stays off */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomAIJAllowanceSetOption_Private(Mat A, MatOption op, PetscBool flg, PetscBool *taken)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  *taken = (PetscBool)(op == MAT_NEW_NONZERO_ALLOCATION_ERR && b && b->aij_allowance.pending);
  if (*taken) b->aij_allowance.error = flg;
  PetscFunctionReturn(0);
}

/* at the first final assembly after AIJ-style counts: a block row beyond them is the error AIJ gives
   for a new nonzero the counts did not foresee; from then on SeqBAIJ checks, as the caller wished */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomAIJAllowanceCheck_Private(Mat A)
{
  Mat_SeqBSRCustom         *b = (Mat_SeqBSRCustom *)A->spptr;
  MatBSRCustomAIJAllowance *w = &b->aij_allowance;
  PetscInt                  n, bs, row = -1, have = 0, allowed = 0;
  const PetscInt           *ia, *ja;
  PetscBool                 error = w->error;

  PetscFunctionBegin;
  if (!w->pending) PetscFunctionReturn(0);
  PetscCall(MatGetBlockSize(A, &bs));
  if (error) {
    PetscCall(MatBSRCustomGetStructure_Private(A, PETSC_TRUE, &n, &ia, &ja));
    row = MatBSRCustomAIJAllowanceFirstExcess_Private(n, ia, w->allowed, w->allowed_all);
    if (row >= 0) {
      have    = ia[row + 1] - ia[row];
      allowed = w->allowed ? w->allowed[row] : w->allowed_all;
    }
  }
  PetscCall(MatBSRCustomAIJAllowanceReset_Private(w));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, error));
  PetscCheck(row < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "New nonzeros beyond the preallocation: rows %" PetscInt_FMT "-%" PetscInt_FMT " (block row %" PetscInt_FMT ") hold %" PetscInt_FMT " blocks of %" PetscInt_FMT "x%" PetscInt_FMT ", more than the %" PetscInt_FMT " nonzeros their AIJ-style counts allow; correct the counts, or MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE) to allow it", row * bs, row * bs + bs - 1, row, have, bs, bs, allowed);
  PetscFunctionReturn(0);
}

/* AIJ's CSR preallocation for scalar rows (columns sorted or not, v NULL for zeros): exact block counts,
   the values inserted, the matrix assembled, and no new nonzero locations from then on, as on AIJ */
PETSC_INTERN PetscErrorCode MatSeqAIJSetPreallocationCSR_SeqBSRCustom(Mat A, const PetscInt i[], const PetscInt j[], const PetscScalar v[])
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  PetscInt          bs, *bnnz;

  PetscFunctionBegin;
  PetscCall(PetscLayoutSetUp(A->rmap));
  PetscCall(PetscLayoutSetUp(A->cmap));
  if (A->rmap->bs != A->cmap->bs) { /* rectangular blocks: an AIJ matrix, as for the counts */
    const char                   *aij     = b->backend->aij_seq_type;
    const MatBSRCustomBackendOps *backend = b->backend;

    PetscCall(MatSetType(A, aij));
    PetscCall(MatSeqAIJSetPreallocationCSR(A, i, j, v));
    PetscCall((*backend->aij_made)(A));
    PetscCall(MatBSRCustomAIJSubsetAXPY_Private(A));
    PetscFunctionReturn(0);
  }
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatBSRCustomCSRBlockCounts_Private(A->rmap->n, bs, i, j, A->cmap->n, 0, A->cmap->n / bs, &bnnz, NULL));
  PetscCall(MatBSRCustomAIJAllowanceReset_Private(&b->aij_allowance));
  PetscCall((*b->baij_seqbaijsetpreallocation)(A, bs, 0, bnnz));
  PetscCall(PetscFree(bnnz));
  b->block_preallocated = PETSC_TRUE; /* exact: a later AIJ-style count changes nothing */
  b->aij_bs1            = PETSC_FALSE;
  for (PetscInt r = 0; r < A->rmap->n; r++) PetscCall(MatSetValues(A, 1, &r, i[r + 1] - i[r], j + i[r], v ? v + i[r] : NULL, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(0);
}
