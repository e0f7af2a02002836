/*
   Factorizations of both types (BAIJ's, registered under our names) and, on one rank, those asked for
   a zero-pivot shift, which factor the AIJ copy (bsrcustomaijtwin.c).
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

/*
   A zero-pivot shift (MatFactorInfo's shifttype: -pc_factor_shift_type nonzero, positive_definite or
   inblocks; PCGAMG asks inblocks of its coarse LU, PCICC positive_definite by default) with blocks of
   2 or more, where PETSc's MATSOLVERPETSC factorizations of seqbaij do not honor it: their LU and
   ILU refuse nonzero and positive_definite, and inblocks reaches only the small dense inversions of
   the diagonal blocks, which cannot shift a block's last pivot (bs 2-7, 9, 15) or any (other bs);
   Cholesky and ICC (through seqsbaij) do the same. Asked for a shift, the factorization is AIJ's
   instead, of the matrix's AIJ copy (bsrcustomaijtwin.c), which shifts as it does for a MATAIJ
   matrix: the factor F becomes that AIJ factor at the symbolic phase (MatHeaderReplace, so that its
   holder keeps it), the orderings (of block rows, as MatGetOrdering gives them for blocks) expanded
   to rows, and its numeric phase factors the copy, brought up to date. Without a shift, and with
   blocks of 1 (BAIJ's scalar path shifts), BAIJ's factorization runs as it is.
*/
typedef PetscErrorCode (*BSRCSymbolicLU)(Mat, Mat, IS, IS, const MatFactorInfo *);
typedef PetscErrorCode (*BSRCSymbolicCholesky)(Mat, Mat, IS, const MatFactorInfo *);
typedef PetscErrorCode (*BSRCNumeric)(Mat, Mat, const MatFactorInfo *);

static PetscErrorCode ShiftedNumeric(Mat F, Mat A, const MatFactorInfo *info)
{
  BSRCNumeric numeric = NULL;
  Mat         aij;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, "BSRCustomShiftedNumeric_C", &numeric));
  PetscCheck(numeric, PETSC_COMM_SELF, PETSC_ERR_PLIB, "factor of an AIJ copy without its numeric phase");
  PetscCall(MatBSRCustomAIJTwin_Private(A, &aij));
  aij->erroriffailure = A->erroriffailure; /* a zero pivot: error or failure, as A asks */
  PetscCall((*numeric)(F, aij, info));
  PetscFunctionReturn(0);
}

/* the block permutation p (mbs entries) as a permutation of rows, or p itself where it has them all */
static PetscErrorCode ShiftedOrdering(Mat A, IS p, IS *q)
{
  PetscInt        n, bs;
  const PetscInt *idx;

  PetscFunctionBegin;
  *q = NULL;
  if (!p) PetscFunctionReturn(0);
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(ISGetLocalSize(p, &n));
  if (n == A->rmap->n) {
    PetscCall(PetscObjectReference((PetscObject)p));
    *q = p;
    PetscFunctionReturn(0);
  }
  PetscCheck(n * bs == A->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "ordering of %" PetscInt_FMT " entries for %" PetscInt_FMT " rows in blocks of %" PetscInt_FMT, n, A->rmap->n, bs);
  PetscCall(ISGetIndices(p, &idx));
  PetscCall(ISCreateBlock(PETSC_COMM_SELF, bs, n, idx, PETSC_COPY_VALUES, q));
  PetscCall(ISRestoreIndices(p, &idx));
  PetscCall(ISSetPermutation(*q));
  PetscFunctionReturn(0);
}

/* F becomes MATSOLVERPETSC's factor of A's AIJ copy, its symbolic phase done */
static PetscErrorCode ShiftedSymbolic(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info, PetscBool incomplete)
{
  MatFactorType ftype = F->factortype;
  Mat           aij, G;
  IS            r, c = NULL;
  const char   *prefix;
  PetscBool     lu    = (PetscBool)(ftype == MAT_FACTOR_LU || ftype == MAT_FACTOR_ILU);
  const char   *kinds = lu ? (incomplete ? "ILU" : "LU") : (incomplete ? "ICC" : "Cholesky");

  PetscFunctionBegin;
  PetscCall(MatBSRCustomAIJTwin_Private(A, &aij));
  PetscCall(MatGetFactor(aij, MATSOLVERPETSC, ftype, &G));
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)F, &prefix));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)G, prefix));
  PetscCall(MatHeaderReplace(F, &G));
  PetscCall(ShiftedOrdering(A, row, &r));
  if (lu) PetscCall(ShiftedOrdering(A, col, &c));
  /* AIJ's numeric phase on inodes (chosen where the matrix has them) needs an ordering that keeps each
     inode's rows together, as MatGetOrdering of an AIJ matrix gives; an ordering of blocks may split
     them (an inode may cross blocks), so the copy gives up its inodes (for every shifted factorization
     of it: the numeric phase chosen here must not depend on those of other factorizations) */
  PetscCall(MatSetOption(aij, MAT_USE_INODES, PETSC_FALSE));
  PetscCall(MatAssemblyBegin(aij, MAT_FINAL_ASSEMBLY)); /* drops the inodes found */
  PetscCall(MatAssemblyEnd(aij, MAT_FINAL_ASSEMBLY));
  if (lu && incomplete) PetscCall((*F->ops->ilufactorsymbolic)(F, aij, r, c, info));
  else if (lu) PetscCall((*F->ops->lufactorsymbolic)(F, aij, r, c, info));
  else if (incomplete) PetscCall((*F->ops->iccfactorsymbolic)(F, aij, r, info));
  else PetscCall((*F->ops->choleskyfactorsymbolic)(F, aij, r, info));
  PetscCall(ISDestroy(&r));
  PetscCall(ISDestroy(&c));
  if (lu) {
    PetscCall(PetscObjectComposeFunction((PetscObject)F, "BSRCustomShiftedNumeric_C", F->ops->lufactornumeric));
    F->ops->lufactornumeric = ShiftedNumeric;
  } else {
    PetscCall(PetscObjectComposeFunction((PetscObject)F, "BSRCustomShiftedNumeric_C", F->ops->choleskyfactornumeric));
    F->ops->choleskyfactornumeric = ShiftedNumeric;
  }
  PetscCall(PetscInfo(A, "%s with a zero-pivot shift (%s) of %s (%" PetscInt_FMT " x %" PetscInt_FMT " blocks) factors its AIJ copy (BAIJ's blocked factorization does not shift as AIJ's does)\n", kinds, MatFactorShiftTypes[(int)info->shifttype],
                      ((PetscObject)A)->type_name, A->rmap->bs, A->rmap->bs));
  PetscFunctionReturn(0);
}

/* the symbolic phases F's type set: the above with a shift, else the base ones (kept with F, composed
   as BSRCustomBase_<op>_C); LU and ILU share a signature, Cholesky and ICC another */
#define BSRC_SHIFTED_LU(name, op, incomplete) \
  static PetscErrorCode name(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info) \
  { \
    BSRCSymbolicLU base = NULL; \
    PetscFunctionBegin; \
    if (info->shifttype != (PetscReal)MAT_SHIFT_NONE) PetscCall(ShiftedSymbolic(F, A, row, col, info, incomplete)); \
    else { \
      PetscCall(PetscObjectQueryFunction((PetscObject)F, "BSRCustomBase_" #op "_C", &base)); \
      PetscCall((*base)(F, A, row, col, info)); \
    } \
    PetscFunctionReturn(0); \
  }
#define BSRC_SHIFTED_CHOLESKY(name, op, incomplete) \
  static PetscErrorCode name(Mat F, Mat A, IS row, const MatFactorInfo *info) \
  { \
    BSRCSymbolicCholesky base = NULL; \
    PetscFunctionBegin; \
    if (info->shifttype != (PetscReal)MAT_SHIFT_NONE) PetscCall(ShiftedSymbolic(F, A, row, NULL, info, incomplete)); \
    else { \
      PetscCall(PetscObjectQueryFunction((PetscObject)F, "BSRCustomBase_" #op "_C", &base)); \
      PetscCall((*base)(F, A, row, info)); \
    } \
    PetscFunctionReturn(0); \
  }
BSRC_SHIFTED_LU(ShiftedLU, lufactorsymbolic, PETSC_FALSE)
BSRC_SHIFTED_LU(ShiftedILU, ilufactorsymbolic, PETSC_TRUE)
BSRC_SHIFTED_CHOLESKY(ShiftedCholesky, choleskyfactorsymbolic, PETSC_FALSE)
BSRC_SHIFTED_CHOLESKY(ShiftedICC, iccfactorsymbolic, PETSC_TRUE)

static PetscErrorCode ShiftedInstall(Mat F)
{
  PetscFunctionBegin;
#define BSRC_INSTALL(op, fn) \
  if (F->ops->op) { \
    PetscCall(PetscObjectComposeFunction((PetscObject)F, "BSRCustomBase_" #op "_C", F->ops->op)); \
    F->ops->op = fn; \
  }
  BSRC_INSTALL(lufactorsymbolic, ShiftedLU)
  BSRC_INSTALL(ilufactorsymbolic, ShiftedILU)
  BSRC_INSTALL(choleskyfactorsymbolic, ShiftedCholesky)
  BSRC_INSTALL(iccfactorsymbolic, ShiftedICC)
#undef BSRC_INSTALL
  PetscFunctionReturn(0);
}

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
  if (seq && solver == 0 && A->rmap->bs > 1) PetscCall(ShiftedInstall(*F)); /* MATSOLVERPETSC */
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
