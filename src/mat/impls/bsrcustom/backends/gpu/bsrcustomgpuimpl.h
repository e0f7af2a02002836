/*
   Package-internal: what seqbsrcustom and mpibsrcustom share to run on a GPU, independent of either
   type's context. PETSc types and the public header only, so that bsrcustomimpl.h can include it.
     bsrcustomcudabind.c  - whether this build has CUDA, and the GPU a matrix runs on
     bsrcustomvecpin.c    - page-locking the arrays of host vectors that products move to the GPU
     bsrcustomdevice.c    - PETSc's own device support (CUDA vectors, device contexts)
     bsrcustomaijhostvectors.c - host vectors for the AIJ matrices the GPU backends make on the device
     seqbsrcustomgpucoo.c - MatSetValuesCOO's values in device memory
*/
#ifndef BSRCUSTOMGPUIMPL_H
#define BSRCUSTOMGPUIMPL_H

#include <petscmat.h>
#include <petscmatbsrcustom.h>

/* the CUDA kernel that runs A's products, a seqbsrcustom (auto resolved once A is on the device;
   seqbsrcustomgpu.c) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUKernelUsed_Private(Mat A, MatBSRCustomCUDAKernel *used);

/* Device binding (bsrcustomcudabind.c). */
/* Errors, naming `what`, unless this build has CUDA and a GPU is visible. */
PETSC_INTERN PetscErrorCode MatBSRCustomCUDAAvailable_Private(Mat, const char *what);
/* The device of a matrix whose -mat_bsrcustom_cuda_device is `asked` (-1: automatic), and how it was
   chosen (for MatView and -info); -1 when no GPU is visible. */
PETSC_INTERN PetscErrorCode MatBSRCustomCUDADevice_Private(PetscInt asked, PetscInt *device, char *how, size_t len);

/* Host-vector pinning (bsrcustomvecpin.c). */
/* Called on every vector a GPU product reads or writes through host memory, before its array is
   taken: with pin (-mat_bsrcustom_cuda_pin_vectors), page-locks the array of a large VECSEQ/VECMPI on
   its second use, so that its transfers DMA straight from/to it. Never an error when page-locking
   fails (-info says why). */
PETSC_INTERN PetscErrorCode MatBSRCustomCUDAPinVec_Private(PetscBool pin, Vec v);
/* The same for the vectors of one product out = alpha A x + beta in (in read only when beta != 0). */
PETSC_INTERN PetscErrorCode MatBSRCustomCUDAPinProductVecs_Private(PetscBool pin, Vec x, PetscScalar beta, Vec in, Vec out);
/* Whether v's own array is page-locked by MatBSRCustomCUDAPinVec_Private() now (exported for the tests). */
PETSC_EXTERN PetscErrorCode MatBSRCustomCUDAVecPinned_Private(Vec v, PetscBool *pinned);
/* MatView (ascii_info) of a GPU backend: how host vectors reach the device */
PETSC_INTERN PetscErrorCode MatBSRCustomCUDAViewHostVectors_Private(PetscBool pin, PetscViewer viewer);

/* PETSc's own device support (bsrcustomdevice.c), where PETSc has it (BSRC_HAVE_PETSC_CUDA):
   - VecTypeFollow: A's MatCreateVecs type is VECCUDA (a CUDA-enabled PETSc) and A->boundtocpu false,
     for a matrix whose products run on the GPU (the GPU backends' vectors_follow);
   - Stream: the cudaStream_t (as void *) of PETSc's current device context, NULL without one;
   - DeviceId: PETSc's CUDA device, -1 without one;
   - VecOnDevice: whether v is a CUDA vector not bound to the CPU (its arrays are device memory);
   - ViewDeviceVectors: MatView (ascii_info) of where vectors and halo live, or that PETSc has no
     device vectors. */
PETSC_INTERN PetscErrorCode MatBSRCustomVecTypeFollow_Private(Mat A);
PETSC_INTERN PetscErrorCode MatBSRCustomPETScStream_Private(void **stream);
PETSC_INTERN PetscErrorCode MatBSRCustomPETScDeviceId_Private(PetscInt *id);
PETSC_INTERN PetscErrorCode MatBSRCustomVecOnDevice_Private(Vec v, PetscBool *on_device);
PETSC_INTERN PetscErrorCode MatBSRCustomViewDeviceVectors_Private(Mat A, PetscViewer viewer);

/* MatSetValuesCOO's values (seqbsrcustomgpucoo.c): whether v is device memory (asked of CUDA, so with
   any PETSc; never in a build without CUDA), and a host copy of n of them (PetscFree it) */
PETSC_INTERN PetscErrorCode MatBSRCustomCOOValuesOnDevice_Private(const PetscScalar v[], PetscBool *device);
PETSC_INTERN PetscErrorCode MatBSRCustomCOOHostCopy_Private(const PetscScalar v[], PetscCount n, PetscScalar **host);
/* the values a star forest of this PETSc reads: v, or a host copy of device values (*host, to free) */
PETSC_INTERN PetscErrorCode MatBSRCustomCOOValuesForSF_Private(const PetscScalar v[], PetscBool on_device, PetscCount n, const PetscScalar **sent, PetscScalar **host);
/* A seqbsrcustom's final assembly, before the base type's: where MatSetValuesCOO filled its device copy
   and nothing was set or changed since, the state increase MatAssemblyEnd() makes changes no value and
   the device copy stays current. Forget: B's values changed unseen (an MPI matrix's MatSetValues). */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUCOOAssembly_Private(Mat A);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUCOOForget_Private(Mat B);

/* A matrix of the GPU backends' AIJ type (MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE on a CUDA-enabled
   PETSc) made by ours: its products accept host vectors too (bsrcustomaijhostvectors.c). */
PETSC_INTERN PetscErrorCode MatBSRCustomGPUAIJMade_Private(Mat M);

/* The halo exchange on CUDA vectors staged through page-locked host memory (bsrcustomstagedhalo.c),
   for an MPI that reads host memory only. */
typedef struct _n_MatBSRCustomStagedHalo *MatBSRCustomStagedHalo;
PETSC_INTERN PetscErrorCode               MatBSRCustomStagedHaloCreate(Mat, PetscInt, const PetscInt[], PetscInt, MatBSRCustomStagedHalo *);
PETSC_INTERN PetscErrorCode               MatBSRCustomStagedHaloDestroy(MatBSRCustomStagedHalo *);
PETSC_INTERN PetscErrorCode               MatBSRCustomStagedHaloBegin(MatBSRCustomStagedHalo, Vec, void *);
PETSC_INTERN PetscErrorCode               MatBSRCustomStagedHaloEnd(MatBSRCustomStagedHalo, Vec, void *);

#endif
