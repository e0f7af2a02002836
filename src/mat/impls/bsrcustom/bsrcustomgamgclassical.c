/*
   PCGAMG's classical AMG (-pc_gamg_type classical) on an operator of ours. Its graph is a new matrix
   of the operator's type (ours, which its coarsening then refuses: "Require AIJ matrix"), and its
   direct prolongator reads the operator's storage as AIJ's, which it checks by name. Both work on
   AIJ, so the operator they are given is our AIJ copy (bsrcustomaijtwin.c), up to date with our
   values: the hierarchy is then exactly MATAIJ's. The smoothers and the coarse operators (GAMG's
   P^T A P) still use our matrix.

   PETSc keeps the classical creator behind its GAMG type list, not exported in every release (3.25
   builds it hidden), so the hook is one level up: PCGAMG is registered again with a creator that runs
   PETSc's own (PCCreate_GAMG, exported) and wraps the PC's PCGAMGSetType; whenever that sets the
   classical type, the classical operations it installed are wrapped to pass our AIJ copy on.
   Operators of other types reach them unchanged, and every other GAMG type is untouched.
*/
#include <petsc/private/pcgamgimpl.h>
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

PETSC_EXTERN PetscErrorCode PCCreate_GAMG(PC); /* PETSc's (exported; declared in no header) */

/* PETSc's classical operations (the same functions for every PC) and its PCGAMGSetType */
static struct {
  PetscErrorCode (*creategraph)(PC, Mat, Mat *);
  PetscErrorCode (*prolongator)(BSRC_GAMG_PROLONGATOR_PARAMS);
  PetscErrorCode (*optprolongator)(PC, Mat, Mat *);
} Classical;
static PetscErrorCode (*BaseSetType)(PC, PCGAMGType) = NULL;

/* what classical AMG is given for A: our AIJ copy, or A itself */
static PetscErrorCode ClassicalOperand(Mat A, Mat *use)
{
  PetscBool ours;

  PetscFunctionBegin;
  *use = A;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &ours, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM, ""));
  if (!ours) PetscFunctionReturn(0);
  PetscCall(MatBSRCustomAIJTwin_Private(A, use));
  PetscCall(PetscInfo(A, "PCGAMG classical AMG of %s: given its AIJ copy\n", ((PetscObject)A)->type_name));
  PetscFunctionReturn(0);
}

static PetscErrorCode ClassicalCreateGraph(PC pc, Mat A, Mat *G)
{
  Mat use;

  PetscFunctionBegin;
  PetscCall(ClassicalOperand(A, &use));
  PetscCall((*Classical.creategraph)(pc, use, G));
  PetscFunctionReturn(0);
}

static PetscErrorCode ClassicalProlongator(BSRC_GAMG_PROLONGATOR_PARAMS)
{
  Mat use;

  PetscFunctionBegin;
  PetscCall(ClassicalOperand(A, &use));
  PetscCall((*Classical.prolongator)(BSRC_GAMG_PROLONGATOR_ARGS(use)));
  PetscFunctionReturn(0);
}

static PetscErrorCode ClassicalOptProlongator(PC pc, Mat A, Mat *P)
{
  Mat use;

  PetscFunctionBegin;
  PetscCall(ClassicalOperand(A, &use));
  PetscCall((*Classical.optprolongator)(pc, use, P));
  PetscFunctionReturn(0);
}

/* PETSc's PCGAMGSetType; after it installed the classical operations, ours around them */
static PetscErrorCode PCGAMGSetType_BSRCustom(PC pc, PCGAMGType type)
{
  PC_MG    *mg = (PC_MG *)pc->data;
  PC_GAMG  *pc_gamg;
  PetscBool classical;

  PetscFunctionBegin;
  PetscCall((*BaseSetType)(pc, type));
  PetscCall(PetscStrcmp(type, PCGAMGCLASSICAL, &classical));
  if (!classical) PetscFunctionReturn(0);
  pc_gamg = (PC_GAMG *)mg->innerctx;
  if (pc_gamg->ops->creategraph != ClassicalCreateGraph) {
    Classical.creategraph     = pc_gamg->ops->creategraph;
    pc_gamg->ops->creategraph = Classical.creategraph ? ClassicalCreateGraph : NULL;
  }
  if (pc_gamg->ops->prolongator != ClassicalProlongator) {
    Classical.prolongator     = pc_gamg->ops->prolongator;
    pc_gamg->ops->prolongator = Classical.prolongator ? ClassicalProlongator : NULL;
  }
  if (pc_gamg->ops->optprolongator != ClassicalOptProlongator) {
    Classical.optprolongator     = pc_gamg->ops->optprolongator;
    pc_gamg->ops->optprolongator = Classical.optprolongator ? ClassicalOptProlongator : NULL;
  }
  PetscFunctionReturn(0);
}

/* PETSc's PCGAMG, its PCGAMGSetType wrapped */
static PetscErrorCode PCCreate_GAMG_BSRCustom(PC pc)
{
  PetscErrorCode (*set)(PC, PCGAMGType) = NULL;

  PetscFunctionBegin;
  PetscCall(PCCreate_GAMG(pc));
  PetscCall(PetscObjectQueryFunction((PetscObject)pc, "PCGAMGSetType_C", &set));
  PetscCheck(set, PetscObjectComm((PetscObject)pc), PETSC_ERR_PLIB, "PCGAMG without its PCGAMGSetType_C");
  if (set == PCGAMGSetType_BSRCustom) PetscFunctionReturn(0);
  BaseSetType = set;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCGAMGSetType_C", PCGAMGSetType_BSRCustom));
  PetscFunctionReturn(0);
}

/* at the package's registration: PCGAMG made by the creator above */
PETSC_INTERN PetscErrorCode MatBSRCustomRegisterGAMG_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PCInitializePackage()); /* PETSc's PCGAMG registered first, then replaced */
  PetscCall(PCRegister(PCGAMG, PCCreate_GAMG_BSRCustom));
  PetscFunctionReturn(0);
}
