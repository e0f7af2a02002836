/*
   The local and ghost blocks of a MATMPIBSRCUSTOM as its products and its users see them: the public
   query of the pieces, the blocks as of the last assembly (how the type's other files reach them),
   the blocks' object states following the matrix's, and the record of one product that the backend's
   steps take (bsrcustommpiproduct.h).
*/
#include "mpibsrcustomimpl.h"

/*@C
   MatBSRCustomGetLocalAndGhost - Gets the pieces of this rank's share of an assembled MATMPIBSRCUSTOM
   matrix: the local block (own columns), the ghost block (off-rank columns, compressed), the ghost
   block columns in global numbering, and the halo scatter with its ghost vector. For diagnostics and
   benchmarks (e.g. timing the halo exchange alone); do not destroy what it returns.

   Not Collective

   Input Parameter:
.  A - an assembled MATMPIBSRCUSTOM matrix

   Output Parameters (each may be NULL):
+  local - the local block, a MATSEQBSRCUSTOM
.  ghost - the ghost block, a MATSEQBSRCUSTOM with nghost block columns
.  nghost - the number of ghost block columns
.  ghost_cols - their global block column numbers
.  halo - the scatter that fills ghost_x from a vector of A's column layout
-  ghost_x - the ghost values of x

   Level: developer

.seealso: `MATMPIBSRCUSTOM`
@*/
PetscErrorCode MatBSRCustomGetLocalAndGhost(Mat A, Mat *local, Mat *ghost, PetscInt *nghost, const PetscInt *ghost_cols[], VecScatter *halo, Vec *ghost_x)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatBSRCustomGetLocalAndGhost_C", (Mat, Mat *, Mat *, PetscInt *, const PetscInt **, VecScatter *, Vec *), (A, local, ghost, nghost, ghost_cols, halo, ghost_x));
  PetscFunctionReturn(0);
}

/* MPIBAIJ changes its blocks' values through their operations directly at times (MatDiagonalScale
   does), which leaves the blocks' object state, and so their device copies and transposed copies,
   behind: a change of A's state is passed on to both blocks, whose next products take their values
   again */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomBlocksFollowState_Private(Mat A, Mat Ad, Mat Ao)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;
  PetscObjectState  st;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &st));
  if (st != c->blocks_state) {
    PetscCall(PetscObjectStateIncrease((PetscObject)Ad));
    if (Ao) PetscCall(PetscObjectStateIncrease((PetscObject)Ao));
    c->blocks_state = st;
    /* told by A: not a change of theirs that A must count */
    if (c->seen_valid) {
      PetscCall(PetscObjectStateGet((PetscObject)Ad, &c->seen_local));
      if (Ao) PetscCall(PetscObjectStateGet((PetscObject)Ao, &c->seen_ghost));
    }
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomProductInit_Private(Mat A, Vec x, PetscScalar beta, Vec in, Vec out, MatBSRCustomMPIProduct *p)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  PetscCall(MatMPIBSRCustomGetBlocks_Private(A, &p->Ad, &p->Ao, NULL));
  p->A          = A;
  p->set        = &c->set;
  p->held       = c->held;
  p->halo       = c->halo;
  p->ghost_x    = c->ghost_x;
  p->ghost      = c->ghost_x; /* the choices start from host vectors, the host ghost vector, nothing between tasks */
  p->nghost     = c->nghost;
  p->ghost_cols = c->ghost_cols;
  p->x          = x;
  p->beta       = beta;
  p->in         = in;
  p->out        = out;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomFollowStructure_Private(Mat A, Mat Ad, Mat Ao)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;
  PetscInt          n, nd, no;
  const PetscInt   *ia, *ja;
  PetscBool         changed;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetStructure_Private(Ad, PETSC_TRUE, &n, &ia, &ja));
  nd = ia[n];
  PetscCall(MatBSRCustomGetStructure_Private(Ao, PETSC_TRUE, &n, &ia, &ja));
  no = ia[n];
  if (c->structure_recorded) {
    changed = (PetscBool)(nd != c->recorded_local || no != c->recorded_ghost || c->nghost != c->recorded_nghost);
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &changed, 1, BSRC_MPI_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
    if (changed && A->nonzerostate <= c->recorded_nonzerostate) {
      A->nonzerostate = c->recorded_nonzerostate + 1;
      PetscCall(PetscInfo(A, "Blocks added or dropped since the last assembly: a new nonzero structure\n"));
    }
  }
  c->structure_recorded    = PETSC_TRUE;
  c->recorded_local        = nd;
  c->recorded_ghost        = no;
  c->recorded_nghost       = c->nghost;
  c->recorded_nonzerostate = A->nonzerostate;
  PetscFunctionReturn(0);
}

/* The blocks as of the last assembly (MPIBAIJ replaces them only in steps that end in an assembly);
   any output may be NULL. */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGetBlocks_Private(Mat A, Mat *local, Mat *ghost, const PetscInt **ghost_cols)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;

  PetscFunctionBegin;
  PetscCheck(c && c->local && c->ghost, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "The local/ghost split exists only once the matrix is assembled");
  if (local) *local = c->local;
  if (ghost) *ghost = c->ghost;
  if (ghost_cols) *ghost_cols = c->ghost_cols;
  PetscFunctionReturn(0);
}
