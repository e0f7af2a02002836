/*
   Matrices made from ours keep our type. Some of BAIJ's operations that create a matrix name the
   type of their input (MatDuplicate, MatTranspose); those that name (seq|mpi)baij outright, in some
   PETSc versions or all (MatCreateSubMatrix(ces) and MatPermute since 3.2x, MatGetMultiProcBlock,
   MatCreateMPIMatConcatenateSeqMat, MatAXPY's new pattern), are wrapped, and their result is
   converted in place here, with the settings of the matrix it was made from. Sub-matrices whose
   index sets are not whole blocks come from the AIJ copy instead (bsrcustomsubmatrixroute.c).
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

PETSC_INTERN PetscErrorCode MatBSRCustomAdopt_Private(Mat from, Mat *B)
{
  MatBSRCustomSettings set;
  PetscBool            seq, mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)*B, MATSEQBAIJ, &seq));
  PetscCall(PetscObjectTypeCompare((PetscObject)*B, MATMPIBAIJ, &mpi));
  if (!seq && !mpi) PetscFunctionReturn(0);
  PetscUseMethod(from, "MatBSRCustomGetSettings_C", (Mat, MatBSRCustomSettings *), (from, &set));
  /* through PETSc's MatConvert, which finds the converter our type composes on its matrices: this
     layer below the types does not call into them */
  PetscCall(MatConvert(*B, seq ? MATSEQBSRCUSTOM : MATMPIBSRCUSTOM, MAT_INPLACE_MATRIX, B));
  PetscUseMethod(*B, "MatBSRCustomSetSettings_C", (Mat, const MatBSRCustomSettings *), (*B, &set));
  PetscCall(PetscInfo(*B, "Made from a %s matrix: %s\n", ((PetscObject)from)->type_name, ((PetscObject)*B)->type_name));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomAdoptAll_Private(Mat from, PetscInt n, Mat B[])
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++)
    if (B[i]) PetscCall(MatBSRCustomAdopt_Private(from, &B[i]));
  PetscFunctionReturn(0);
}

/* the base operations, at the start of the seq or mpi context */
static MatBSRCustomMakers *MatBSRCustomMakersOf(Mat A)
{
  return (MatBSRCustomMakers *)A->spptr;
}

/* index sets of whole blocks: BAIJ's, made ours; others (on any rank): the AIJ copy's (bsrcustomsubmatrixroute.c) */
static PetscErrorCode MatCreateSubMatrix_BSRCustom(Mat A, IS rows, IS cols, MatReuse reuse, Mat *B)
{
  PetscBool blocks;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomSubMatrixOnBlocks_Private(A, 1, &rows, &cols, reuse, reuse == MAT_REUSE_MATRIX ? B : NULL, &blocks));
  if (!blocks) {
    PetscCall(MatBSRCustomSubMatrixOnAIJ_Private(A, rows, cols, reuse, B));
    PetscFunctionReturn(0);
  }
  PetscCall((*MatBSRCustomMakersOf(A)->createsubmatrix)(A, rows, cols, reuse, B));
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatBSRCustomAdopt_Private(A, B));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatCreateSubMatrices_BSRCustom(Mat A, PetscInt n, const IS rows[], const IS cols[], MatReuse reuse, Mat *B[])
{
  PetscBool blocks;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomSubMatrixOnBlocks_Private(A, n, rows, cols, reuse, reuse == MAT_REUSE_MATRIX ? *B : NULL, &blocks));
  if (!blocks) {
    PetscCall(MatBSRCustomSubMatricesOnAIJ_Private(A, n, rows, cols, reuse, B));
    PetscFunctionReturn(0);
  }
  PetscCall((*MatBSRCustomMakersOf(A)->createsubmatrices)(A, n, rows, cols, reuse, B));
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatBSRCustomAdoptAll_Private(A, n, *B));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatPermute_BSRCustom(Mat A, IS rows, IS cols, Mat *B)
{
  PetscFunctionBegin;
  PetscCall((*MatBSRCustomMakersOf(A)->permute)(A, rows, cols, B));
  PetscCall(MatBSRCustomAdopt_Private(A, B));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomMakersInstall_Private(Mat A, const struct _MatOps *base, MatBSRCustomMakers *m, PetscBool install)
{
  PetscFunctionBegin;
  if (install) {
    m->createsubmatrix   = base->createsubmatrix;
    m->createsubmatrices = base->createsubmatrices;
    m->permute           = base->permute;
    m->creategraph       = base->creategraph;
    if (m->createsubmatrix) A->ops->createsubmatrix = MatCreateSubMatrix_BSRCustom;
    if (m->createsubmatrices) A->ops->createsubmatrices = MatCreateSubMatrices_BSRCustom;
    if (m->permute) A->ops->permute = MatPermute_BSRCustom;
  } else {
    A->ops->createsubmatrix   = m->createsubmatrix;
    A->ops->createsubmatrices = m->createsubmatrices;
    A->ops->permute           = m->permute;
    A->ops->creategraph       = m->creategraph;
  }
  PetscFunctionReturn(0);
}
