/*
   Device binding of the GPU backends: whether this build has CUDA, whether a GPU is visible, and which
   GPU a matrix runs on. In order: -mat_bsrcustom_cuda_device; else PETSc's own CUDA device where PETSc
   has chosen one (its vectors live there); else the node-local rank modulo the visible GPUs (the
   rank as bsrcustomnode.c learned it: MPI_COMM_TYPE_SHARED, or the launcher's variables).

   A build without CUDA keeps these entry points: no device, and errors that say the backend is missing.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h> /* the node-local rank (bsrcustomnode.c); it includes bsrcustomgpuimpl.h */

#if defined(BSRCUSTOM_HAVE_CUDA)
  #include "bsrcuda.h"

PetscBool MatBSRCustomHasCUDA(void)
{
  return PETSC_TRUE;
}

PetscInt MatBSRCustomCUDADeviceCount(void)
{
  return (PetscInt)bsrc_cuda_device_count();
}

PETSC_INTERN PetscErrorCode MatBSRCustomCUDAAvailable_Private(Mat A, const char *what)
{
  PetscFunctionBegin;
  PetscCheck(bsrc_cuda_device_count() > 0, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP_SYS, "%s: no CUDA device is visible on this machine (CUDA_VISIBLE_DEVICES, driver?); use -mat_bsrcustom_backend cpu", what);
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCUDADevice_Private(PetscInt asked, PetscInt *device, char *how, size_t len)
{
  int         n = bsrc_cuda_device_count();
  PetscMPIInt local, size;
  const char *from;

  PetscFunctionBegin;
  if (n == 0) {
    *device = -1;
    PetscCall(PetscStrncpy(how, "no CUDA device visible", len));
    PetscFunctionReturn(0);
  }
  if (asked >= 0) {
    *device = asked;
    PetscCall(PetscSNPrintf(how, len, "-mat_bsrcustom_cuda_device %" PetscInt_FMT ", %d visible", asked, n));
    PetscFunctionReturn(0);
  }
  {
    PetscInt petsc_device; /* a CUDA-enabled PETSc has chosen one: its vectors live there */

    PetscCall(MatBSRCustomPETScDeviceId_Private(&petsc_device));
    if (petsc_device >= 0) {
      *device = petsc_device;
      PetscCall(PetscSNPrintf(how, len, "PETSc's CUDA device (its current device context), %d visible", n));
      PetscFunctionReturn(0);
    }
  }
  MatBSRCustomNodeRanks_Private(&local, &size, &from);
  *device = local % n;
  PetscCall(PetscSNPrintf(how, len, "node-local rank %d of %d (%s) mod %d visible", (int)local, (int)size, from, n));
  PetscFunctionReturn(0);
}

#else /* no CUDA in this build */

PetscBool MatBSRCustomHasCUDA(void)
{
  return PETSC_FALSE;
}

PetscInt MatBSRCustomCUDADeviceCount(void)
{
  return 0;
}

PETSC_INTERN PetscErrorCode MatBSRCustomCUDAAvailable_Private(Mat A, const char *what)
{
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "%s: this build of libpetscbsrcustom has no CUDA backend (it was built where nvcc was not found); use -mat_bsrcustom_backend cpu, or rebuild with the CUDA toolkit", what);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCUDADevice_Private(PetscInt asked, PetscInt *device, char *how, size_t len)
{
  PetscFunctionBegin;
  (void)asked;
  *device = -1;
  PetscCall(PetscStrncpy(how, "no CUDA in this build", len));
  PetscFunctionReturn(0);
}
#endif
