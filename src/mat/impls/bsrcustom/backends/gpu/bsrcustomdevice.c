/*
   bsrcustom and PETSc's own device support (a PETSc configured with CUDA, 3.21 or later).

   There, as with MATAIJCUSPARSE, a matrix on a GPU backend makes CUDA vectors (MatCreateVecs), its
   products read and write their device arrays where PETSc's offload state has them, and they are
   queued on the stream of PETSc's current device context, so that they order themselves with
   PETSc's vector kernels without host waits. The device is PETSc's unless -mat_bsrcustom_cuda_device
   names one. A matrix bound to the CPU (MatBindToCPU) runs the CPU kernel and makes host vectors.

   Without that support (Debian's PETSc 3.18) these report "no device": vectors are host vectors and
   the GPU backends stage them (seqbsrcustomgpu.c, bsrcustomvecpin.c).
*/
#include <petsc/private/matimpl.h>
#include <../src/mat/impls/bsrcustom/bsrcustomcompat.h>
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuimpl.h>
#if defined(BSRC_HAVE_PETSC_CUDA)
  #include <petscdevice.h>
#endif

PETSC_INTERN PetscErrorCode MatBSRCustomVecTypeFollow_Private(Mat A)
{
  PetscFunctionBegin;
#if defined(BSRC_HAVE_PETSC_CUDA)
  PetscCall(MatSetVecType(A, VECCUDA));
#endif
#if defined(BSRC_HAVE_DEVICE_BINDING)
  A->boundtocpu = PETSC_FALSE;
#endif
  (void)A;
  PetscFunctionReturn(0);
}

#if defined(BSRC_HAVE_PETSC_CUDA)
/* PETSc's current device context when it is a CUDA one, else NULL. PETSc's CUDA device is not
   initialized here: until something of PETSc's uses it (a CUDA vector), our host-vector products
   keep to our own device choice, and PETSc's start-up checks (its refusal of an MPI that is not
   CUDA-aware without -use_gpu_aware_mpi 0) stay where PETSc puts them. */
static PetscErrorCode MatBSRCustomPETScCUDAContext(PetscDeviceContext *dctx)
{
  PetscDeviceType type;

  PetscFunctionBegin;
  *dctx = NULL;
  if (!PetscDeviceInitialized(PETSC_DEVICE_CUDA)) PetscFunctionReturn(0);
  PetscCall(PetscDeviceContextGetCurrentContext(dctx));
  PetscCall(PetscDeviceContextGetDeviceType(*dctx, &type));
  if (type != PETSC_DEVICE_CUDA) *dctx = NULL;
  PetscFunctionReturn(0);
}
#endif

PETSC_INTERN PetscErrorCode MatBSRCustomPETScStream_Private(void **stream)
{
  PetscFunctionBegin;
  *stream = NULL;
#if defined(BSRC_HAVE_PETSC_CUDA)
  {
    PetscDeviceContext dctx;
    void              *handle = NULL;

    PetscCall(MatBSRCustomPETScCUDAContext(&dctx));
    if (dctx) PetscCall(PetscDeviceContextGetStreamHandle(dctx, &handle));
    if (handle) *stream = *(void **)handle; /* a cudaStream_t *, NULL for the legacy default stream */
  }
#endif
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomPETScDeviceId_Private(PetscInt *id)
{
  PetscFunctionBegin;
  *id = -1;
#if defined(BSRC_HAVE_PETSC_CUDA)
  {
    PetscDeviceContext dctx;
    PetscDevice        device;

    PetscCall(MatBSRCustomPETScCUDAContext(&dctx));
    if (dctx) {
      PetscCall(PetscDeviceContextGetDevice(dctx, &device));
      PetscCall(PetscDeviceGetDeviceId(device, id));
    }
  }
#endif
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomVecOnDevice_Private(Vec v, PetscBool *on_device)
{
  PetscFunctionBegin;
  *on_device = PETSC_FALSE;
#if defined(BSRC_HAVE_PETSC_CUDA)
  {
    PetscBool cuda, bound = PETSC_FALSE;

    PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &cuda, VECSEQCUDA, VECMPICUDA, ""));
    if (cuda) PetscCall(VecBoundToCPU(v, &bound));
    *on_device = (PetscBool)(cuda && !bound);
  }
#endif
  (void)v;
  PetscFunctionReturn(0);
}

#if defined(BSRC_HAVE_PETSC_CUDA)
/* set by -use_gpu_aware_mpi (PETSc's option; declared in a private header of PETSc) */
PETSC_EXTERN PetscBool use_gpu_aware_mpi;
#endif

PETSC_INTERN PetscErrorCode MatBSRCustomViewDeviceVectors_Private(Mat A, PetscViewer viewer)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
#if defined(BSRC_HAVE_PETSC_CUDA)
  {
    PetscBool bound = PETSC_FALSE;

    PetscCall(MatBoundToCPU(A, &bound));
    if (bound) PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: bound to the CPU (MatBindToCPU): the CPU kernel runs, MatCreateVecs gives host vectors\n"));
    else {
      PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: CUDA vectors (MatCreateVecs gives %s): products on their device arrays, queued on PETSc's current stream, no host copies\n", A->defaultvectype));
      if (size > 1)
        PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: halo with CUDA vectors: PetscSF packs and unpacks on the GPU into a device ghost vector, %s, while the local kernel runs; the ghost kernel follows\n", use_gpu_aware_mpi ? "MPI reads and writes device buffers (CUDA-aware MPI)" : "messages staged through host buffers (-use_gpu_aware_mpi 0)"));
    }
  }
#else
  PetscCall(PetscViewerASCIIPrintf(viewer, "bsrcustom: this PETSc has no CUDA vectors: host vectors are staged to the device%s\n", size > 1 ? "; the halo travels through host memory" : ""));
#endif
  PetscFunctionReturn(0);
}
