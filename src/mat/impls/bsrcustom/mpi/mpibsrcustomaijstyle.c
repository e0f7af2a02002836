/*
   AIJ-style preallocation of an mpibsrcustom matrix (programs written for MPIAIJ, DMDA's AIJ path,
   petsc4py), as seqbsrcustom's (seq/seqbsrcustomaijstyle.c): counts and CSR per scalar row, the
   diagonal and off-diagonal parts each allocated for what their counts allow.
*/
#include "mpibsrcustomimpl.h"

PETSC_INTERN PetscErrorCode MatMPIAIJSetPreallocation_MPIBSRCustom(Mat A, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[])
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;
  PetscInt          bs, mbs, dcap, ocap, *dbnnz, *obnnz;

  PetscFunctionBegin;
  if (c->block_preallocated) PetscFunctionReturn(0);
  PetscCall(PetscLayoutSetUp(A->rmap));
  PetscCall(PetscLayoutSetUp(A->cmap));
  if (A->rmap->bs != A->cmap->bs) {                                   /* rectangular blocks (GAMG's prolongators): BAIJ holds square ones only */
    const char                   *aij     = c->backend->aij_mpi_type; /* on the device where the products are */
    const MatBSRCustomBackendOps *backend = c->backend;               /* c goes with the type */

    PetscCall(PetscInfo(A, "Row block size %" PetscInt_FMT " and column block size %" PetscInt_FMT ": made a %s, which holds any blocks\n", A->rmap->bs, A->cmap->bs, aij));
    PetscCall(MatSetType(A, aij));
    PetscCall(MatMPIAIJSetPreallocation(A, d_nz, d_nnz, o_nz, o_nnz));
    PetscCall((*backend->aij_made)(A));
    PetscCall(MatBSRCustomAIJSubsetAXPY_Private(A));
    PetscFunctionReturn(0);
  }
  PetscCall(MatGetBlockSize(A, &bs));
  mbs  = A->rmap->n / bs;
  dcap = A->cmap->n / bs;
  ocap = (A->cmap->N - A->cmap->n) / bs;
  for (PetscInt i = 0; d_nnz && i < A->rmap->n; i++) PetscCheck(d_nnz[i] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "d_nnz cannot be less than 0: local row %" PetscInt_FMT " value %" PetscInt_FMT, i, d_nnz[i]);
  for (PetscInt i = 0; o_nnz && i < A->rmap->n; i++) PetscCheck(o_nnz[i] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "o_nnz cannot be less than 0: local row %" PetscInt_FMT " value %" PetscInt_FMT, i, o_nnz[i]);
  PetscCall(MatBSRCustomBlockCounts_Private(mbs, bs, d_nnz, dcap, &dbnnz));
  PetscCall(MatBSRCustomBlockCounts_Private(mbs, bs, o_nnz, ocap, &obnnz));
  PetscCall((*c->baij_mpibaijsetpreallocation)(A, bs, MatBSRCustomBlockCount_Private(d_nz, bs, dcap), dbnnz, MatBSRCustomBlockCount_Private(o_nz, bs, ocap), obnnz));
  PetscCall(PetscFree(dbnnz));
  PetscCall(PetscFree(obnnz));
  c->aij_bs1 = (PetscBool)(bs == 1);
  PetscFunctionReturn(0);
}

/* AIJ's CSR preallocation for the local scalar rows (global columns; v NULL for zeros): exact block
   counts for both parts, the values inserted, the matrix assembled, and no new nonzero locations from
   then on, as on MPIAIJ */
PETSC_INTERN PetscErrorCode MatMPIAIJSetPreallocationCSR_MPIBSRCustom(Mat A, const PetscInt i[], const PetscInt j[], const PetscScalar v[])
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;
  PetscInt          bs, *dnnz, *onnz;

  PetscFunctionBegin;
  PetscCall(PetscLayoutSetUp(A->rmap));
  PetscCall(PetscLayoutSetUp(A->cmap));
  if (A->rmap->bs != A->cmap->bs) { /* rectangular blocks: an AIJ matrix, as for the counts */
    const char                   *aij     = c->backend->aij_mpi_type;
    const MatBSRCustomBackendOps *backend = c->backend;

    PetscCall(MatSetType(A, aij));
    PetscCall(MatMPIAIJSetPreallocationCSR(A, i, j, v));
    PetscCall((*backend->aij_made)(A));
    PetscCall(MatBSRCustomAIJSubsetAXPY_Private(A));
    PetscFunctionReturn(0);
  }
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatBSRCustomCSRBlockCounts_Private(A->rmap->n, bs, i, j, A->cmap->N, A->cmap->rstart / bs, A->cmap->rend / bs, &dnnz, &onnz));
  PetscCall((*c->baij_mpibaijsetpreallocation)(A, bs, 0, dnnz, 0, onnz));
  PetscCall(PetscFree(dnnz));
  PetscCall(PetscFree(onnz));
  c->block_preallocated = PETSC_TRUE; /* exact: a later AIJ-style count changes nothing */
  c->aij_bs1            = PETSC_FALSE;
  for (PetscInt r = 0; r < A->rmap->n; r++) {
    PetscInt row = A->rmap->rstart + r;
    PetscCall(MatSetValues(A, 1, &row, i[r + 1] - i[r], j + i[r], v ? v + i[r] : NULL, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(0);
}
