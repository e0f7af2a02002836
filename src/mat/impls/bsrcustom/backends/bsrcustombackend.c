/*
   The one place that maps a matrix's settings and CPU binding to its backend table (the only reader
   of the backend setting besides the options that set it), and the check that the backend asked
   for can run here.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

PETSC_INTERN const MatBSRCustomBackendOps *MatBSRCustomBackendOf_Private(const MatBSRCustomSettings *set, PetscBool bound)
{
  switch (set->backend) {
  case MAT_BSRCUSTOM_BACKEND_CUDA:
    return bound ? &MatBSRCustomBackendBoundCPU : &MatBSRCustomBackendCUDA;
  case MAT_BSRCUSTOM_BACKEND_CUSPARSE:
    return bound ? &MatBSRCustomBackendBoundCPU : &MatBSRCustomBackendCUSPARSE;
  default:
    return &MatBSRCustomBackendCPU;
  }
}

PETSC_INTERN PetscErrorCode MatBSRCustomBackendCheck_Private(Mat A, const MatBSRCustomSettings *set, const char *what)
{
  PetscFunctionBegin;
  if (set->backend == MAT_BSRCUSTOM_BACKEND_CPU) PetscFunctionReturn(0);
  PetscCall(MatBSRCustomCUDAAvailable_Private(A, what));
  PetscCheck(set->cuda_device < MatBSRCustomCUDADeviceCount(), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: CUDA device %" PetscInt_FMT " asked for, but this process sees %" PetscInt_FMT " device(s) (numbered from 0 within CUDA_VISIBLE_DEVICES)", what,
             set->cuda_device, MatBSRCustomCUDADeviceCount());
  PetscFunctionReturn(0);
}
