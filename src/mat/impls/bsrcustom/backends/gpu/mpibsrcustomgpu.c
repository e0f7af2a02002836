/*
   The GPU backends' part of an MPI matrix's products that is not one block's: where the vectors live
   (decided once per product), the paths -info and MatView name, and the device lines of MatView.
   Which halo runs (PetscSF on device memory, or the staged halo of bsrcustomstagedhalo.c) follows
   from where the vectors are.
*/
#include "mpibsrcustomimpl.h"
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuseq.h>

/* CUDA vectors are used in place; host vectors (x, out, in, the ghost vector) are page-locked on
   their second use, before the exchange and the split take their arrays */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUPlaceVectors_Private(Mat A, Vec x, PetscScalar beta, Vec in, Vec out, Vec ghost_x, PetscBool *on_device)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomVecOnDevice_Private(x, on_device));
  PetscCall(MatBSRCustomNoteVectors_Private(A, x, *on_device));
  if (*on_device) PetscFunctionReturn(0);
  PetscCall(MatBSRCustomCUDAPinProductVecs_Private(c->set.cuda_pin_vectors, x, beta, in, out));
  PetscCall(MatBSRCustomCUDAPinVec_Private(c->set.cuda_pin_vectors, ghost_x));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomGPUOnDevice_Private(Vec x, PetscBool *on_device)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomVecOnDevice_Private(x, on_device));
  PetscFunctionReturn(0);
}

/* the GPU works on its own while the host thread waits on MPI: nothing to do between tasks */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUBetween_Private(Mat A, Mat block, bsrk_between *hook, const bsrk_between **use)
{
  PetscFunctionBegin;
  (void)A, (void)block, (void)hook;
  *use = NULL;
  PetscFunctionReturn(0);
}

PETSC_INTERN const char *MatMPIBSRCustomGPUPath_Private(PetscBool on_device, PetscBool staged, PetscBool split, PetscBool between)
{
  (void)between;
  return staged    ? "GPU, CUDA vectors, MPI on host memory: halo gathered on the GPU ahead of the local kernel, copied through page-locked host buffers while it runs, ghost kernel after"
       : on_device ? "GPU, CUDA vectors: halo packed and unpacked on the GPU by PetscSF into a device ghost vector, local kernel queued while it moves, ghost kernel after"
       : split     ? "GPU, host-staged halo (local kernel queued before the exchange ends, ghost kernel into the same device y, one download)"
                   : "GPU, per-block products";
}

PETSC_INTERN const char *MatMPIBSRCustomGPUTransposePath_Private(PetscBool on_device, PetscBool baij)
{
  return baij      ? "blocks by BAIJ's serial transpose on the host (-mat_bsrcustom_transpose baij); the ghost part's reverse scatter ADD overlaps the local block's"
       : on_device ? "GPU, CUDA vectors: blocks by their cached transposed copies on the GPU (our kernels), the ghost part into a device ghost vector, its reverse scatter ADD (PetscSF) overlapping the local block's"
                   : "GPU, host vectors: blocks by their cached transposed copies on the GPU (our kernels); the ghost part's reverse scatter ADD overlaps the local block's";
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUView_Private(Mat A, const char *path, PetscViewer viewer)
{
  Mat_MPIBSRCustom *c = (Mat_MPIBSRCustom *)A->spptr;
  PetscMPIInt       rank;
  PetscInt          device;
  char              how[128];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  PetscCall(MatBSRCustomViewDeviceVectors_Private(A, viewer));
  PetscCall(MatBSRCustomCUDAViewHostVectors_Private(c->set.cuda_pin_vectors, viewer));
  PetscCall(MatBSRCustomCUDADevice_Private(c->set.cuda_device, &device, how, sizeof(how)));
  PetscCall(PetscViewerASCIIPushSynchronized(viewer));
  PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "  [%d] CUDA device %" PetscInt_FMT " (%s); last product: %s\n", rank, device, how, path ? path : "none yet"));
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  PetscFunctionReturn(0);
}
