/*
   SeqBAIJ's inverted diagonal blocks (MatInvertBlockDiagonal: PCPBJACOBI's setup; MatSOR's
   relaxation) made again when the values changed.

   SeqBAIJ keeps its inverses until an assembly ends, and PETSc 3.25's assembly end skips even that
   when the nonzero structure did not change: after MatScale, MatCopy, MatRetrieveValues, values
   written through MatSeqBAIJGetArray (and on 3.25 a new assembly of the same pattern), a PC set up
   again and SOR get the old inverses. Ours key them on the object state, which every value route
   increases (seqbsrcustomvalues.c): where it changed since the last inversion, SeqBAIJ's assembly end
   runs once more (no value moves in an assembled matrix; it drops the inverses) and SeqBAIJ inverts
   again, with its own kernels.
*/
#include "seqbsrcustomimpl.h"

/* SeqBAIJ's inverses, current with A's values */
static PetscErrorCode MatSeqBSRCustomRefreshInverses(Mat A, const PetscScalar **values)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;
  PetscObjectState  state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (b->idiag_made && b->idiag_state == state && !values) PetscFunctionReturn(0);
  if (b->idiag_made && b->idiag_state != state) {
    const PetscBool was_assembled = A->was_assembled;

    A->was_assembled = PETSC_FALSE; /* else 3.25 returns at once, the inverses kept */
    PetscCall((*b->baij_assemblyend)(A, MAT_FINAL_ASSEMBLY));
    A->was_assembled = was_assembled;
  }
  PetscCall((*b->baij_invertblockdiagonal)(A, values));
  b->idiag_made  = PETSC_TRUE;
  b->idiag_state = state;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatInvertBlockDiagonal_SeqBSRCustom(Mat A, const PetscScalar **values)
{
  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomRefreshInverses(A, values));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSOR_SeqBSRCustom(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  PetscFunctionBegin;
  if (((Mat_SeqBSRCustom *)A->spptr)->idiag_made) PetscCall(MatSeqBSRCustomRefreshInverses(A, NULL)); /* SeqBAIJ inverts at its first SOR itself */
  PetscCall((*((Mat_SeqBSRCustom *)A->spptr)->baij_sor)(A, bb, omega, flag, fshift, its, lits, xx));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomInstallInvertBlockDiagonal_Private(Mat A, PetscBool install)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  if (install) {
    if (A->ops->invertblockdiagonal != MatInvertBlockDiagonal_SeqBSRCustom) b->baij_invertblockdiagonal = A->ops->invertblockdiagonal;
    if (A->ops->sor != MatSOR_SeqBSRCustom) b->baij_sor = A->ops->sor;
    if (b->baij_invertblockdiagonal) A->ops->invertblockdiagonal = MatInvertBlockDiagonal_SeqBSRCustom;
    if (b->baij_sor && b->baij_invertblockdiagonal) A->ops->sor = MatSOR_SeqBSRCustom;
  } else {
    A->ops->invertblockdiagonal = b->baij_invertblockdiagonal;
    A->ops->sor                 = b->baij_sor;
  }
  PetscFunctionReturn(0);
}
