/*
   Matrices made from ours keep our type. Most of BAIJ's operations that create a matrix name the
   type of their input (MatDuplicate, MatTranspose, MatCreateSubMatrix(ces), MatPermute); those that
   name MATBAIJ outright are wrapped, and their result is converted in place here, with the settings
   of the matrix it was made from.
*/
#include <../src/mat/impls/bsrcustom/seq/seqbsrcustomimpl.h>
#include <../src/mat/impls/bsrcustom/mpi/mpibsrcustomimpl.h>

PETSC_INTERN PetscErrorCode MatBSRCustomAdopt_Private(Mat from, Mat *B)
{
  MatBSRCustomSettings set;
  PetscBool            seq, mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)*B, MATSEQBAIJ, &seq));
  PetscCall(PetscObjectTypeCompare((PetscObject)*B, MATMPIBAIJ, &mpi));
  if (!seq && !mpi) PetscFunctionReturn(0);
  PetscUseMethod(from, "MatBSRCustomGetSettings_C", (Mat, MatBSRCustomSettings *), (from, &set));
  if (seq) PetscCall(MatConvert_SeqBAIJ_SeqBSRCustom(*B, MATSEQBSRCUSTOM, MAT_INPLACE_MATRIX, B));
  else PetscCall(MatConvert_MPIBAIJ_MPIBSRCustom(*B, MATMPIBSRCUSTOM, MAT_INPLACE_MATRIX, B));
  PetscUseMethod(*B, "MatBSRCustomSetSettings_C", (Mat, const MatBSRCustomSettings *), (*B, &set));
  PetscCall(PetscInfo(*B, "Made from a %s matrix: %s\n", ((PetscObject)from)->type_name, ((PetscObject)*B)->type_name));
  PetscFunctionReturn(0);
}
