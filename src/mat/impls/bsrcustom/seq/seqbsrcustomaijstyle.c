/*
   AIJ-style preallocation of a seqbsrcustom matrix: for programs written for AIJ whose type comes from
   the options (and DMDA, petsc4py, which take the AIJ path for any type offering it). Counts and CSR
   are per scalar row; the blocks allocated allow what the counts allow (MatBSRCustomBlockCounts_Private),
   so SeqBAIJ's own MAT_NEW_NONZERO_ALLOCATION_ERR keeps AIJ's meaning: a block row beyond them is
   "a new nonzero caused a malloc", at the MatSetValues that makes it.
*/
#include "seqbsrcustomimpl.h"

/*
   Where block counts were given already (MatXAIJSetPreallocation() passes both), they are the better
   information and this call does nothing, as for SeqBAIJ; where they come after it with a block size
   of their own, they replace it (MatSeqBAIJSetPreallocation_SeqBSRCustom).
*/
PETSC_INTERN PetscErrorCode MatSeqAIJSetPreallocation_SeqBSRCustom(Mat A, PetscInt nz, const PetscInt nnz[])
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  PetscInt          bs, mbs, nbs, *bnnz = NULL;

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
  PetscCall((*b->baij_seqbaijsetpreallocation)(A, bs, MatBSRCustomBlockCount_Private(nz, bs, nbs), bnnz));
  PetscCall(PetscFree(bnnz));
  b->aij_bs1 = (PetscBool)(bs == 1);
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
