/*
   The diagonal blocks of a bsrcustom matrix as a matrix of their own (MATOP_GET_BLOCK_DIAGONAL), so
   that PCPBJACOBI applies its inverse blocks on the GPU. Whether it gets them, and the matrix they
   become, are the GPU backend's (backends/gpu/bsrcustomgpublockdiag.c); here they are found in the
   local block. Where it gets none, PBJacobi runs BAIJ's host path.
*/
#include "seqbsrcustomimpl.h"

#if defined(BSRCUSTOM_HAVE_MATOP_GETBLOCKDIAGONAL)
/* where[r]: the position of the local block's block row r's diagonal block; *complete: every rank's
   rows have theirs (the same answer on every rank: the matrix made from them is collective) */
static PetscErrorCode DiagonalBlockPositions(Mat A, Mat Ad, PetscInt *nbrows, PetscInt **where, PetscBool *complete)
{
  const PetscInt *ia, *ja;
  PetscBool       done;
  PetscInt        n;

  PetscFunctionBegin;
  *complete = PETSC_TRUE;
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_TRUE, nbrows, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The local block did not give its block structure");
  PetscCall(PetscMalloc1(*nbrows, where));
  for (PetscInt r = 0; r < *nbrows; r++) {
    PetscInt lo = ia[r], hi = ia[r + 1]; /* columns sorted within a row */
    (*where)[r] = -1;
    while (lo < hi) {
      const PetscInt mid = lo + (hi - lo) / 2;
      if (ja[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    if (lo < ia[r + 1] && ja[lo] == r) (*where)[r] = lo;
    else *complete = PETSC_FALSE;
  }
  n = *nbrows; /* MatRestoreRowIJ() may clear the count it is handed */
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &done));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, complete, 1, BSRC_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(0);
}
#endif

/* The caller owns a reference to what it gets (PCPBJACOBI destroys it after its setup and keeps a
   pointer into its inverted blocks): the matrix stays kept on A, made again only after A's values
   change. */
PETSC_INTERN PetscErrorCode MatGetBlockDiagonal_BSRCustom(Mat A, Mat *diag)
{
#if defined(BSRCUSTOM_HAVE_MATOP_GETBLOCKDIAGONAL)
  Mat                Ad;
  PetscInt           nbrows, *where;
  PetscBool          want, complete;
  const PetscScalar *aa;
#endif

  PetscFunctionBegin;
  *diag = NULL;
#if defined(BSRCUSTOM_HAVE_MATOP_GETBLOCKDIAGONAL)
  PetscCall(MatBSRCustomGPUBlockDiagonalWanted_Private(A, &want, diag));
  if (!want) PetscFunctionReturn(0);
  PetscCall(MatGetDiagonalBlock(A, &Ad));
  PetscCall(DiagonalBlockPositions(A, Ad, &nbrows, &where, &complete));
  if (complete) {
    PetscCall(MatSeqBSRCustomGetArrayRead_Private(Ad, &aa));
    PetscCall(MatBSRCustomGPUBlockDiagonalMake_Private(A, nbrows, where, aa, diag));
    PetscCall(MatSeqBSRCustomRestoreArrayRead_Private(Ad, &aa));
  } else PetscCall(PetscInfo(A, "A block row has no diagonal block: PCPBJACOBI gets no device block diagonal\n"));
  PetscCall(PetscFree(where));
#endif
  (void)A;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomInstallBlockDiagonal_Private(Mat A, PetscBool install)
{
  PetscFunctionBegin;
#if defined(BSRCUSTOM_HAVE_MATOP_GETBLOCKDIAGONAL)
  A->ops->getblockdiagonal = install ? MatGetBlockDiagonal_BSRCustom : NULL;
#endif
  (void)A, (void)install;
  PetscFunctionReturn(0);
}
