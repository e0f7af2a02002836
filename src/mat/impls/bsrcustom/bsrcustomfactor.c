/*
   Factorizations of both types: BAIJ's, registered under our names.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

/*
   Factorizations. PETSc looks them up by exact type name, so BAIJ's are registered under ours; and
   packages pick their BAIJ code paths by type name too (MUMPS reads our data as AIJ otherwise and
   crashes), so the factor is created under the base type's name. One wrapper per package, since a
   MatSolverFunction carries no context; the factor type picks the base routine.
*/
static const MatSolverType BSRCSolvers[] = {MATSOLVERPETSC, MATSOLVERMUMPS, MATSOLVERSUPERLU, MATSOLVERUMFPACK, MATSOLVERCHOLMOD, MATSOLVERKLU};
#define BSRC_NSOLVERS 6
#define BSRC_NFACTORS (MAT_FACTOR_ICC + 1)
static MatSolverFunction BSRCBaseFactor[2][BSRC_NSOLVERS][BSRC_NFACTORS]; /* [seq, mpi][solver][factor type] */

static PetscErrorCode MatGetFactor_BSRCustom(PetscInt solver, Mat A, MatFactorType ftype, Mat *F)
{
  PetscBool         seq;
  MatSolverFunction base;
  const char       *ours = ((PetscObject)A)->type_name;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBSRCUSTOM, &seq));
  base = BSRCBaseFactor[seq ? 0 : 1][solver][ftype];
  PetscCheck(base, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "MatSolverType %s has no factorization %s for %s", BSRCSolvers[solver], MatFactorTypes[ftype], ours);
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, seq ? MATSEQBAIJ : MATMPIBAIJ));
  PetscCall((*base)(A, ftype, F));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, seq ? MATSEQBSRCUSTOM : MATMPIBSRCUSTOM));
  PetscFunctionReturn(0);
}

#define BSRC_FACTOR_WRAPPER(k) \
  static PetscErrorCode MatGetFactor_BSRCustom_##k(Mat A, MatFactorType ftype, Mat *F) \
  { \
    PetscFunctionBegin; \
    PetscCall(MatGetFactor_BSRCustom(k, A, ftype, F)); \
    PetscFunctionReturn(0); \
  }
BSRC_FACTOR_WRAPPER(0)
BSRC_FACTOR_WRAPPER(1)
BSRC_FACTOR_WRAPPER(2)
BSRC_FACTOR_WRAPPER(3)
BSRC_FACTOR_WRAPPER(4)
BSRC_FACTOR_WRAPPER(5)
static const MatSolverFunction BSRCWrappers[BSRC_NSOLVERS] = {MatGetFactor_BSRCustom_0, MatGetFactor_BSRCustom_1, MatGetFactor_BSRCustom_2, MatGetFactor_BSRCustom_3, MatGetFactor_BSRCustom_4, MatGetFactor_BSRCustom_5};

PETSC_INTERN PetscErrorCode MatBSRCustomRegisterFactors_Private(void)
{
  const MatType base[2] = {MATSEQBAIJ, MATMPIBAIJ}, ours[2] = {MATSEQBSRCUSTOM, MATMPIBSRCUSTOM};

  PetscFunctionBegin;
  for (int t = 0; t < 2; t++) {
    for (PetscInt s = 0; s < BSRC_NSOLVERS; s++) {
      for (int f = MAT_FACTOR_LU; f < BSRC_NFACTORS; f++) {
        PetscBool         foundsolver = PETSC_FALSE, foundmtype = PETSC_FALSE;
        MatSolverFunction create = NULL;
        if (f == MAT_FACTOR_NONE) continue;
        PetscCall(MatSolverTypeGet(BSRCSolvers[s], base[t], (MatFactorType)f, &foundsolver, &foundmtype, &create));
        BSRCBaseFactor[t][s][f] = create;
        if (create) PetscCall(MatSolverTypeRegister(BSRCSolvers[s], ours[t], (MatFactorType)f, BSRCWrappers[s]));
      }
    }
  }
  PetscFunctionReturn(0);
}
