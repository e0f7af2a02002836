/*
   Conversions whose PETSc code reads its source by the type's name: to MATHYPRE (PCHYPRE converts
   its operator) and to MATIS. BAIJ's converters, registered under our names, would see "seqbsrcustom"
   or "mpibsrcustom": hypre's preallocates only for the (seq|mpi)(b)aij names it knows and then writes
   into an unallocated hypre matrix (a crash); MATIS's takes the local and ghost blocks only of matrices
   named mpiaij or mpibaij ("No support for this operation"). Both work on AIJ, which is where BAIJ's
   own conversion ends up (hypre's converts BAIJ to AIJ first; MATIS's local matrices are AIJ on
   several ranks), so ours convert the AIJ copy (bsrcustomaijtwin.c), up to date with our values:
   MAT_INITIAL_MATRIX and MAT_REUSE_MATRIX (PCHYPRE's second setup with new values) convert it into
   the target, MAT_INPLACE_MATRIX converts it and replaces ours by the result.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

static PetscErrorCode MatConvert_BSRCustom_ViaAIJ(Mat A, MatType target, MatReuse reuse, Mat *B)
{
  Mat         aij, M = NULL;
  PetscMPIInt size;
  PetscBool   is;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomAIJTwin_Private(A, &aij));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(PetscStrcmp(target, MATIS, &is));
  switch (reuse) {
  case MAT_REUSE_MATRIX:
    if (is && size == 1) {
      /* MATIS's one-rank reuse makes its source the local matrix: that must not be our copy, which
         follows our values (and that MATIS would then change) */
      Mat D;
      PetscCall(MatDuplicate(aij, MAT_COPY_VALUES, &D));
      PetscCall(MatConvert(D, target, MAT_REUSE_MATRIX, B));
      PetscCall(MatDestroy(&D));
    } else PetscCall(MatConvert(aij, target, MAT_REUSE_MATRIX, B));
    break;
  case MAT_INITIAL_MATRIX:
    PetscCall(MatConvert(aij, target, MAT_INITIAL_MATRIX, B));
    break;
  case MAT_INPLACE_MATRIX:
    PetscCall(MatConvert(aij, target, MAT_INITIAL_MATRIX, &M));
    PetscCall(PetscInfo(A, "MatConvert of %s to %s (in place) through its AIJ copy\n", ((PetscObject)A)->type_name, target));
    PetscCall(MatHeaderReplace(A, &M)); /* our copy goes with A's old contents */
    PetscFunctionReturn(0);
  default:
    SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "MatConvert of %s to %s: unknown MatReuse %d", ((PetscObject)A)->type_name, target, (int)reuse);
  }
  PetscCall(PetscInfo(A, "MatConvert of %s to %s (%s) through its AIJ copy\n", ((PetscObject)A)->type_name, target, reuse == MAT_REUSE_MATRIX ? "reused" : "new"));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatConvert_BSRCustom_HYPRE(Mat A, MatType type, MatReuse reuse, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(MatConvert_BSRCustom_ViaAIJ(A, MATHYPRE, reuse, B));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatConvert_BSRCustom_IS(Mat A, MatType type, MatReuse reuse, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(MatConvert_BSRCustom_ViaAIJ(A, MATIS, reuse, B));
  PetscFunctionReturn(0);
}

/* composes MatConvert_<ours>_{hypre,is}_C on A (install: where the base type `base` has that
   conversion, as PETSc built with hypre has) or removes them */
PETSC_INTERN PetscErrorCode MatBSRCustomComposeConvertersViaAIJ_Private(Mat A, const char base[], const char ours[], PetscBool install)
{
  const char *targets[]                                      = {MATHYPRE, MATIS};
  PetscErrorCode (*convert[])(Mat, MatType, MatReuse, Mat *) = {MatConvert_BSRCustom_HYPRE, MatConvert_BSRCustom_IS};
  char name[128];

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(targets); i++) {
    void (*f)(void) = NULL;
    if (install) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", base, targets[i]));
      PetscCall(PetscObjectQueryFunction((PetscObject)A, name, &f));
    }
    PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", ours, targets[i]));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, name, f ? convert[i] : NULL));
  }
  PetscFunctionReturn(0);
}
