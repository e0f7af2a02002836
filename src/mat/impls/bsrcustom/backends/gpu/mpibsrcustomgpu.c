/*
   The GPU backends' steps of an MPI matrix's products (bsrcustommpiproduct.h): where the vectors live
   (decided once per product), the halo that follows from it (PetscSF on host or device memory, or the
   staged halo of bsrcustomstagedhalo.c), the blocks' products, the paths -info and MatView name, and
   the device lines of MatView.
*/
#include <../src/mat/impls/bsrcustom/backends/bsrcustommpiproduct.h>
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuseq.h>

#if defined(BSRC_HAVE_PETSC_CUDA)
/* set by -use_gpu_aware_mpi (PETSc's option; declared in a private header of PETSc) */
PETSC_EXTERN PetscBool use_gpu_aware_mpi;
#endif

/* CUDA vectors (not bound to the CPU) are used in place, with a ghost vector on the device made at
   its first use; host vectors with the host ghost vector. The GPU works on its own while the host
   thread waits on MPI: nothing to do between tasks. */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUPlace_Private(MatBSRCustomMPIProduct *p)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomVecOnDevice_Private(p->x, &p->on_device));
  if (!p->on_device) PetscFunctionReturn(0);
  if (!p->held->ghost_dev) {
    PetscInt n;
    PetscCall(VecGetLocalSize(p->ghost_x, &n));
    PetscCall(VecCreate(PETSC_COMM_SELF, &p->held->ghost_dev));
    PetscCall(VecSetSizes(p->held->ghost_dev, n, n));
    PetscCall(VecSetType(p->held->ghost_dev, VECSEQCUDA));
  }
  p->ghost = p->held->ghost_dev;
  PetscFunctionReturn(0);
}

/* After the place: host vectors (x, out, in, the ghost vector) page-locked on their second use, before
   the exchange and the local product take their arrays; CUDA vectors with an MPI that takes host
   memory only: our staged halo (bsrcustomstagedhalo.c) gathers x's entries ahead of the local kernel,
   on PETSc's stream; else PetscSF, on host or device memory. */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUHaloBegin_Private(MatBSRCustomMPIProduct *p)
{
  PetscFunctionBegin;
  PetscCall(MatMPIBSRCustomGPUPlace_Private(p));
  PetscCall(MatBSRCustomNoteVectors_Private(p->A, p->x, p->on_device));
  if (!p->on_device) {
    PetscCall(MatBSRCustomCUDAPinProductVecs_Private(p->set->cuda_pin_vectors, p->x, p->beta, p->in, p->out));
    PetscCall(MatBSRCustomCUDAPinVec_Private(p->set->cuda_pin_vectors, p->ghost_x));
  }
#if defined(BSRC_HAVE_PETSC_CUDA)
  p->staged = (PetscBool)(p->on_device && !use_gpu_aware_mpi);
#endif
  if (!p->staged) {
    PetscCall(MatBSRCustomMPIScatterBegin_Private(p));
    PetscFunctionReturn(0);
  }
  if (!p->held->staged) {
    PetscInt device;
    PetscCall(MatBSRCustomPETScDeviceId_Private(&device));
    PetscCall(MatBSRCustomStagedHaloCreate(p->A, p->nghost, p->ghost_cols, device, &p->held->staged));
  }
  PetscCall(MatBSRCustomPETScStream_Private(&p->stream));
  PetscCall(MatBSRCustomStagedHaloBegin(p->held->staged, p->x, p->stream));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUHaloEnd_Private(MatBSRCustomMPIProduct *p)
{
  PetscFunctionBegin;
  if (p->staged) PetscCall(MatBSRCustomStagedHaloEnd(p->held->staged, p->ghost, p->stream));
  else PetscCall(MatBSRCustomMPIScatterEnd_Private(p));
  PetscFunctionReturn(0);
}

/* CUDA vectors: the local block's own product on their device arrays, queued while the halo moves;
   host vectors: x (and in) uploaded and the local kernel queued into a device y the ghost kernel
   adds to (seqbsrcustomgpu.c) */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPULocalMult_Private(MatBSRCustomMPIProduct *p)
{
  PetscFunctionBegin;
  if (p->on_device) PetscCall(MatSeqBSRCustomGPUApply_Private(p->Ad, &p->M, 1.0, p->x, p->beta, p->beta == (PetscScalar)0.0 ? NULL : p->in, p->out, NULL));
  else PetscCall(MatSeqBSRCustomGPUSplitBegin_Private(p->Ad, &p->M, p->Ao, &p->G, p->beta, p->x, p->in));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUGhostMultAdd_Private(MatBSRCustomMPIProduct *p)
{
  PetscFunctionBegin;
  if (p->on_device) PetscCall(MatSeqBSRCustomGPUApply_Private(p->Ao, &p->G, 1.0, p->ghost, 1.0, p->out, p->out, NULL));
  else PetscCall(MatSeqBSRCustomGPUSplitEnd_Private(p->Ad, p->Ao, &p->G, p->ghost, p->out));
  p->path = p->staged    ? "GPU, CUDA vectors, MPI on host memory: halo gathered on the GPU ahead of the local kernel, copied through page-locked host buffers while it runs, ghost kernel after"
          : p->on_device ? "GPU, CUDA vectors: halo packed and unpacked on the GPU by PetscSF into a device ghost vector, local kernel queued while it moves, ghost kernel after"
                         : "GPU, host-staged halo (local kernel queued before the exchange ends, ghost kernel into the same device y, one download)";
  PetscFunctionReturn(0);
}

PETSC_INTERN const char *MatMPIBSRCustomGPUTransposePath_Private(PetscBool on_device, PetscBool baij)
{
  return baij      ? "blocks by BAIJ's serial transpose on the host (-mat_bsrcustom_transpose baij); the ghost part's reverse scatter ADD overlaps the local block's"
       : on_device ? "GPU, CUDA vectors: blocks by their cached transposed copies on the GPU (our kernels), the ghost part into a device ghost vector, its reverse scatter ADD (PetscSF) overlapping the local block's"
                   : "GPU, host vectors: blocks by their cached transposed copies on the GPU (our kernels); the ghost part's reverse scatter ADD overlaps the local block's";
}

PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUView_Private(Mat A, const MatBSRCustomSettings *set, const char *path, PetscViewer viewer)
{
  PetscMPIInt rank;
  PetscInt    device;
  char        how[128];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  PetscCall(MatBSRCustomViewDeviceVectors_Private(A, viewer));
  PetscCall(MatBSRCustomCUDAViewHostVectors_Private(set->cuda_pin_vectors, viewer));
  PetscCall(MatBSRCustomCUDADevice_Private(set->cuda_device, &device, how, sizeof(how)));
  PetscCall(PetscViewerASCIIPushSynchronized(viewer));
  PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "  [%d] CUDA device %" PetscInt_FMT " (%s); last product: %s\n", rank, device, how, path ? path : "none yet"));
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  PetscFunctionReturn(0);
}
