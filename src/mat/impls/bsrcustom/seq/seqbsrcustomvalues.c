/*
   The routes by which PETSc changes a SeqBAIJ matrix's values without increasing its object state:
   MatRetrieveValues() copies the stored values back, and MatSeqBAIJRestoreArray() hands back an array
   the caller may have written. Every copy derived from the values (the transposed copy, the AIJ copy,
   the device copies, PCPBJACOBI's diagonal blocks, a PC set up on the matrix) is refreshed when the
   state changes, so ours wrap both and increase the state after them, as AIJ's restore does.

   Our own products read the values through SeqBAIJ's methods directly
   (MatSeqBSRCustomGetArrayRead_Private), which must not look like a change.
*/
#include "seqbsrcustomimpl.h"

typedef void (*BAIJMethod)(void);

/* SeqBAIJ's implementation of a composed method. A duplicate of ours inherits our composed methods
   (PETSc copies the function list), so where B has ours the one seen on a plain SeqBAIJ is used:
   these are PETSc's functions, the same for every SeqBAIJ. */
static PetscErrorCode MatSeqBSRCustomBAIJMethod(Mat B, const char *name, BAIJMethod ours, BAIJMethod *seen, BAIJMethod *f)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)B, name, f));
  if (*f == ours) *f = *seen;
  else if (*f) *seen = *f;
  PetscCheck(*f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SeqBAIJ's %s is missing", name);
  PetscFunctionReturn(0);
}

static PetscErrorCode MatRetrieveValues_SeqBSRCustom(Mat A)
{
  PetscFunctionBegin;
  PetscCall((*((Mat_SeqBSRCustom *)A->spptr)->baij_retrievevalues)(A));
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqBAIJRestoreArray_SeqBSRCustom(Mat A, PetscScalar **array)
{
  PetscFunctionBegin;
  PetscCall((*((Mat_SeqBSRCustom *)A->spptr)->baij_restorearray)(A, array));
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(0);
}

static BAIJMethod seen_retrievevalues, seen_getarray, seen_restorearray, seen_preallocation;

PETSC_INTERN PetscErrorCode MatSeqBSRCustomSaveBAIJMethods_Private(Mat B, BAIJMethod ours_preallocation)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)B->spptr;
  BAIJMethod        f;

  PetscFunctionBegin;
  PetscCall(MatSeqBSRCustomBAIJMethod(B, "MatRetrieveValues_C", (BAIJMethod)MatRetrieveValues_SeqBSRCustom, &seen_retrievevalues, &f));
  b->baij_retrievevalues = (PetscErrorCode(*)(Mat))f;
  PetscCall(MatSeqBSRCustomBAIJMethod(B, "MatSeqBAIJGetArray_C", NULL, &seen_getarray, &f));
  b->baij_getarray = (PetscErrorCode(*)(Mat, PetscScalar **))f;
  PetscCall(MatSeqBSRCustomBAIJMethod(B, "MatSeqBAIJRestoreArray_C", (BAIJMethod)MatSeqBAIJRestoreArray_SeqBSRCustom, &seen_restorearray, &f));
  b->baij_restorearray = (PetscErrorCode(*)(Mat, PetscScalar **))f;
  PetscCall(MatSeqBSRCustomBAIJMethod(B, "MatSeqBAIJSetPreallocation_C", ours_preallocation, &seen_preallocation, &f));
  b->baij_seqbaijsetpreallocation = (PetscErrorCode(*)(Mat, PetscInt, PetscInt, const PetscInt[]))f;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomComposeValueRoutes_Private(Mat A, PetscBool install, PetscBool restore)
{
  Mat_SeqBSRCustom *b = (Mat_SeqBSRCustom *)A->spptr;

  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatRetrieveValues_C", install ? MatRetrieveValues_SeqBSRCustom : restore ? b->baij_retrievevalues : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSeqBAIJRestoreArray_C", install ? MatSeqBAIJRestoreArray_SeqBSRCustom : restore ? b->baij_restorearray : NULL));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomGetArrayRead_Private(Mat A, const PetscScalar **array)
{
  PetscBool ours;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBSRCUSTOM, &ours));
  if (ours) PetscCall((*((Mat_SeqBSRCustom *)A->spptr)->baij_getarray)(A, (PetscScalar **)array));
  else PetscCall(MatSeqBAIJGetArray(A, (PetscScalar **)array));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomRestoreArrayRead_Private(Mat A, const PetscScalar **array)
{
  PetscBool ours;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBSRCUSTOM, &ours));
  if (ours) PetscCall((*((Mat_SeqBSRCustom *)A->spptr)->baij_restorearray)(A, (PetscScalar **)array));
  else PetscCall(MatSeqBAIJRestoreArray(A, (PetscScalar **)array));
  PetscFunctionReturn(0);
}
