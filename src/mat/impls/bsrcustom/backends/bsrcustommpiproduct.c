/* The halo step every backend can run: PetscSF moves x's ghost entries into the product's ghost
   vector, host or device memory as the vectors are (bsrcustommpiproduct.h). */
#include <../src/mat/impls/bsrcustom/backends/bsrcustommpiproduct.h>

PETSC_INTERN PetscErrorCode MatBSRCustomMPIScatterBegin_Private(MatBSRCustomMPIProduct *p)
{
  PetscFunctionBegin;
  PetscCall(VecScatterBegin(p->halo, p->x, p->ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomMPIScatterEnd_Private(MatBSRCustomMPIProduct *p)
{
  PetscFunctionBegin;
  PetscCall(VecScatterEnd(p->halo, p->x, p->ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(0);
}
