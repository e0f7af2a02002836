/*
   The object in which the backends hold what they need to run a block (bsrcustomheld.h): made empty,
   and given back with its cpu part (the GPU part is given back before, by the GPU backends' release,
   which needs CUDA); and an MPI matrix's, given back whole.
*/
#include <../src/mat/impls/bsrcustom/backends/bsrcustomheld.h>

PETSC_INTERN PetscErrorCode MatBSRCustomHeldCreate_Private(MatBSRCustomHeld **held)
{
  MatBSRCustomHeld *h;

  PetscFunctionBegin;
  PetscCall(PetscNew(&h));
  bsrk_team_init(&h->cpu.team);
  h->gpu.structure = -1;
  *held            = h;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomHeldDestroy_Private(MatBSRCustomHeld **held)
{
  MatBSRCustomHeld *h = *held;

  PetscFunctionBegin;
  if (!h) PetscFunctionReturn(0);
  PetscCheck(!h->gpu.matrix, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A block's device copy outlived its backend's release");
  bsrk_partition_free(&h->cpu.tasks);
  PetscCall(PetscFree(h->cpu.workspace));
  PetscCall(PetscFree(h->cpu.spmm_workspace));
  PetscCall(PetscFree(*held));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomMPIHeldCreate_Private(MatBSRCustomMPIHeld **held)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(held));
  PetscFunctionReturn(0);
}

/* the ghost columns changed: what was made for the old ones goes */
PETSC_INTERN PetscErrorCode MatBSRCustomMPIHeldReset_Private(MatBSRCustomMPIHeld *held)
{
  PetscFunctionBegin;
  if (!held) PetscFunctionReturn(0);
  PetscCall(VecDestroy(&held->ghost_dev));
  PetscCall(MatBSRCustomStagedHaloDestroy(&held->staged));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomMPIHeldDestroy_Private(MatBSRCustomMPIHeld **held)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomMPIHeldReset_Private(*held));
  PetscCall(PetscFree(*held));
  PetscFunctionReturn(0);
}
