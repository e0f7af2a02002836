/*
   The public setters and getters of where products run and of the GPU backends' settings (backend,
   CUDA kernel, cuSPARSE routine, device, page-locked host vectors, PBJacobi on the GPU). Each public
   function is PETSc's usual dispatch: a setter calls PetscTryMethod, so it does nothing on a matrix of
   another type, a getter PetscUseMethod, so it errors there. Both types compose the implementations
   below (MatBSRCustomComposeTypeMethods_Private, bsrcustomlifecycle.c).
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

BSRC_SETTING_SET(Backend, MatBSRCustomBackend, backend)
BSRC_SETTING_GET(Backend, MatBSRCustomBackend, backend)
BSRC_SETTING_SET(CUDAKernel, MatBSRCustomCUDAKernel, cuda_kernel)
BSRC_SETTING_SET(CUSPARSEAlg, MatBSRCustomCUSPARSEAlg, cusparse_alg)
BSRC_SETTING_GET(CUSPARSEAlg, MatBSRCustomCUSPARSEAlg, cusparse_alg)
BSRC_SETTING_SET(CUDADevice, PetscInt, cuda_device)
BSRC_SETTING_SET(CUDAPinVectors, PetscBool, cuda_pin_vectors)
BSRC_SETTING_GET(CUDAPinVectors, PetscBool, cuda_pin_vectors)
BSRC_SETTING_SET(CUDAPBJacobi, PetscBool, cuda_pbjacobi)
BSRC_SETTING_GET(CUDAPBJacobi, PetscBool, cuda_pbjacobi)

/* the kernel asked for, and the one that runs (the type's own query: seq's, or mpi's local block's) */
static PetscErrorCode MatBSRCustomGetCUDAKernel_BSRCustom(Mat A, MatBSRCustomCUDAKernel *requested, MatBSRCustomCUDAKernel *used)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetSettings_Private(A, &set));
  if (requested) *requested = set.cuda_kernel;
  if (used) PetscUseMethod(A, "MatBSRCustomGetCUDAKernelUsed_C", (Mat, MatBSRCustomCUDAKernel *), (A, used));
  PetscFunctionReturn(0);
}

/* the device asked for, or the automatic binding's choice */
static PetscErrorCode MatBSRCustomGetCUDADevice_BSRCustom(Mat A, PetscInt *device)
{
  MatBSRCustomSettings set;
  char                 how[8];

  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetSettings_Private(A, &set));
  PetscCall(MatBSRCustomCUDADevice_Private(set.cuda_device, device, how, sizeof(how)));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomComposeGPUSettings_Private(Mat A, PetscBool install)
{
  PetscFunctionBegin;
  BSRC_COMPOSE_SETTING(A, Backend, install);
  BSRC_COMPOSE_SETTING(A, CUDAKernel, install);
  BSRC_COMPOSE_SETTING(A, CUSPARSEAlg, install);
  BSRC_COMPOSE_SETTING(A, CUDADevice, install);
  BSRC_COMPOSE_SETTING(A, CUDAPinVectors, install);
  BSRC_COMPOSE_SETTING(A, CUDAPBJacobi, install);
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetBackend - Chooses where MatMult/MatMultAdd run: MAT_BSRCUSTOM_BACKEND_CPU (default,
   OpenMP), MAT_BSRCUSTOM_BACKEND_CUDA (our kernels on the GPU) or MAT_BSRCUSTOM_BACKEND_CUSPARSE
   (cuSPARSE on the same device storage, the baseline). The GPU backends need a build with CUDA and a
   visible GPU; otherwise this fails with PETSC_ERR_SUP / PETSC_ERR_SUP_SYS saying which is missing.

   Logically Collective

   Input Parameters:
+  A - the matrix
-  backend - the backend

   Options Database Key:
.  -mat_bsrcustom_backend <cpu,cuda,cusparse> - the backend

   Notes:
   Does nothing when A is not a MATBSRCUSTOM matrix, so that a program may call it whatever type
   its options chose.

   With host vectors (Debian's PETSc has no others), each product stages x to the device and y back
   through pinned buffers; large vectors are page-locked on their second use so that their transfers
   skip that copy (see MatBSRCustomSetCUDAPinVectors()). Where PETSc itself has CUDA vectors, their
   device arrays are used directly.

   Level: beginner

.seealso: `MatBSRCustomSetCUDAKernel()`, `MatBSRCustomSetCUSPARSEAlg()`
@*/
PetscErrorCode MatBSRCustomSetBackend(Mat A, MatBSRCustomBackend backend)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, backend, 2);
  PetscTryMethod(A, "MatBSRCustomSetBackend_C", (Mat, MatBSRCustomBackend), (A, backend));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetBackend - Gets where MatMult runs.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  backend - the backend

   Level: beginner

.seealso: `MatBSRCustomSetBackend()`
@*/
PetscErrorCode MatBSRCustomGetBackend(Mat A, MatBSRCustomBackend *backend)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(backend, 2);
  PetscUseMethod(A, "MatBSRCustomGetBackend_C", (Mat, MatBSRCustomBackend *), (A, backend));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCUDAKernel - Chooses the CUDA kernel of the cuda backend; MAT_BSRCUSTOM_CUDA_KERNEL_AUTO
   (default) picks one per matrix from its block size and row-length statistics: sliced for short,
   even block rows of 2x2 to 4x4 blocks (at most 1 KiB of values a row on average: 7-point stencils,
   2D Jacobians) and for uneven rows of 2x2 and 4x4 blocks (power-law lengths, a mean row of 4
   blocks to 2 KiB), warp_row for the other short, even block rows (PDE stencils), vector_unrolled for long,
   even ones, hybrid for the other uneven rows (a group of lanes per short row, the long rows cut
   into warp-sized pieces). sliced runs a lane per block row on its own copy of the matrix, built on
   the device at its first product and after each change of values, in slices of 32 rows stored step
   by step: the matrix then takes twice its device memory (MatView reports it), which warp_row or
   hybrid avoid at some cost in time on such matrices. On rows of uneven length its copy
   sorts the rows by length and gives a longer row a group of 2-32 lanes (a row of more than 1024
   blocks whole slices, added up by the warp that finishes its last); with scalar blocks that is
   slower than hybrid. segmented (a warp per strip of up to 32 rows, walked as one run with a
   segmented warp scan) is never auto's choice: it ties hybrid on scalar power-law rows and is
   slower elsewhere.

   Logically Collective

   Input Parameters:
+  A - the matrix
-  kernel - the kernel

   Options Database Key:
.  -mat_bsrcustom_cuda_kernel <auto,rowmajor_shared,thread_private,team_scalar,vector_unrolled,warp_row,hybrid,segmented,sliced> - the kernel

   Note:
   Does nothing when A is not a MATBSRCUSTOM matrix, so that a program may call it whatever type
   its options chose.

   Level: intermediate

.seealso: `MatBSRCustomSetBackend()`, `MatBSRCustomGetCUDAKernel()`
@*/
PetscErrorCode MatBSRCustomSetCUDAKernel(Mat A, MatBSRCustomCUDAKernel kernel)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, kernel, 2);
  PetscTryMethod(A, "MatBSRCustomSetCUDAKernel_C", (Mat, MatBSRCustomCUDAKernel), (A, kernel));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetCUDAKernel - Gets the CUDA kernel asked for and the one that runs (what auto
   resolves to on this matrix, or on this rank's local block).

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameters:
+  requested - the kernel asked for (may be NULL)
-  used - the kernel that runs; AUTO until the matrix was uploaded (may be NULL)

   Level: intermediate

.seealso: `MatBSRCustomSetCUDAKernel()`
@*/
PetscErrorCode MatBSRCustomGetCUDAKernel(Mat A, MatBSRCustomCUDAKernel *requested, MatBSRCustomCUDAKernel *used)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatBSRCustomGetCUDAKernel_C", (Mat, MatBSRCustomCUDAKernel *, MatBSRCustomCUDAKernel *), (A, requested, used));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCUSPARSEAlg - Chooses the cuSPARSE routine of the cusparse backend:
   MAT_BSRCUSTOM_CUSPARSE_BSRMV (cusparseDbsrmv on BAIJ's column-major blocks, default) or
   MAT_BSRCUSTOM_CUSPARSE_SPMV (cusparseSpMV with a BSR descriptor).

   Logically Collective

   Input Parameters:
+  A - the matrix
-  alg - the routine

   Options Database Key:
.  -mat_bsrcustom_cusparse_alg <bsrmv,spmv> - the routine

   Note:
   Does nothing when A is not a MATBSRCUSTOM matrix, so that a program may call it whatever type
   its options chose.

   Level: intermediate

.seealso: `MatBSRCustomSetBackend()`
@*/
PetscErrorCode MatBSRCustomSetCUSPARSEAlg(Mat A, MatBSRCustomCUSPARSEAlg alg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, alg, 2);
  PetscTryMethod(A, "MatBSRCustomSetCUSPARSEAlg_C", (Mat, MatBSRCustomCUSPARSEAlg), (A, alg));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetCUSPARSEAlg - Gets the cuSPARSE routine of the cusparse backend.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  alg - the routine

   Level: intermediate

.seealso: `MatBSRCustomSetCUSPARSEAlg()`
@*/
PetscErrorCode MatBSRCustomGetCUSPARSEAlg(Mat A, MatBSRCustomCUSPARSEAlg *alg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(alg, 2);
  PetscUseMethod(A, "MatBSRCustomGetCUSPARSEAlg_C", (Mat, MatBSRCustomCUSPARSEAlg *), (A, alg));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCUDADevice - Chooses the GPU that the cuda and cusparse backends of this matrix use.
   The default, -1, binds each MPI rank to the GPU numbered (node-local rank) modulo (visible GPUs),
   the node-local rank coming from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED); CUDA_VISIBLE_DEVICES
   narrows and renumbers the GPUs a process sees, as usual. Several ranks may share one GPU.

   Logically Collective (the device may differ between ranks)

   Input Parameters:
+  A - the matrix
-  device - a device number in [0, visible GPUs), or -1 for the automatic binding

   Options Database Key:
.  -mat_bsrcustom_cuda_device <-1> - the device

   Notes:
   Does nothing when A is not a MATBSRCUSTOM matrix, so that a program may call it whatever type
   its options chose.

   A matrix already on a GPU moves to the new one at its next product.

   Level: intermediate

.seealso: `MatBSRCustomGetCUDADevice()`, `MatBSRCustomSetBackend()`
@*/
PetscErrorCode MatBSRCustomSetCUDADevice(Mat A, PetscInt device)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscTryMethod(A, "MatBSRCustomSetCUDADevice_C", (Mat, PetscInt), (A, device));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetCUDADevice - Gets the GPU that this rank's part of the matrix uses (or will use)
   with a GPU backend: the one asked for, or the automatic binding's choice.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  device - the device number, within CUDA_VISIBLE_DEVICES; -1 when this build has no CUDA or no GPU is visible

   Level: intermediate

.seealso: `MatBSRCustomSetCUDADevice()`
@*/
PetscErrorCode MatBSRCustomGetCUDADevice(Mat A, PetscInt *device)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(device, 2);
  PetscUseMethod(A, "MatBSRCustomGetCUDADevice_C", (Mat, PetscInt *), (A, device));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCUDAPinVectors - Chooses whether the cuda and cusparse backends page-lock
   (cudaHostRegister) the arrays of the host vectors that this matrix's products read and write,
   so that x and y move by DMA straight from and to the vectors' own arrays instead of through a
   host copy into pinned buffers, which is slower than the DMA itself.

   Logically Collective

   Input Parameters:
+  A - the matrix
-  pin - PETSC_TRUE (default) to page-lock, PETSC_FALSE to always stage through pinned buffers

   Options Database Key:
.  -mat_bsrcustom_cuda_pin_vectors <true,false> - page-lock host vectors

   Notes:
   Does nothing when A is not a MATBSRCUSTOM matrix, so that a program may call it whatever type
   its options chose.

   Only VECSEQ and VECMPI vectors whose array PETSc allocated and that hold at least 64 KiB on this
   rank are page-locked, on their second use by a product (a vector used once is not worth the
   registration), and only while their own array is in place (an array given with VecPlaceArray()
   is staged). The page-locking ends when the vector is destroyed or its array replaced
   (VecReplaceArray()). A failure to page-lock is no error: the vector is staged from then on and
   -info says why. Turning the option off stops new page-locking; vectors already page-locked stay
   so until they are destroyed. Page-locked memory is taken from the host's physical memory for as
   long as the vectors live.

   Level: advanced

.seealso: `MatBSRCustomGetCUDAPinVectors()`, `MatBSRCustomSetBackend()`
@*/
PetscErrorCode MatBSRCustomSetCUDAPinVectors(Mat A, PetscBool pin)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveBool(A, pin, 2);
  PetscTryMethod(A, "MatBSRCustomSetCUDAPinVectors_C", (Mat, PetscBool), (A, pin));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetCUDAPinVectors - Gets whether the GPU backends page-lock host vectors.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  pin - whether large host vectors are page-locked on their second use

   Level: advanced

.seealso: `MatBSRCustomSetCUDAPinVectors()`
@*/
PetscErrorCode MatBSRCustomGetCUDAPinVectors(Mat A, PetscBool *pin)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(pin, 2);
  PetscUseMethod(A, "MatBSRCustomGetCUDAPinVectors_C", (Mat, PetscBool *), (A, pin));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCUDAPBJacobi - Chooses whether, on a GPU backend of a PETSc configured with CUDA,
   this matrix gives PCPBJACOBI its diagonal blocks as a MATAIJCUSPARSE matrix, so that the
   preconditioner applies its inverse blocks on the GPU (a batched GEMV on CUDA vectors) and a Krylov
   iteration copies no vector between host and device.

   Logically Collective

   Input Parameters:
+  A - the matrix
-  flg - PETSC_TRUE (default) for PBJacobi on the GPU, PETSC_FALSE for PETSc's host PBJacobi

   Options Database Key:
.  -mat_bsrcustom_cuda_pbjacobi <true,false> - PBJacobi on the GPU

   Notes:
   Does nothing when A is not a MATBSRCUSTOM matrix, so that a program may call it whatever type
   its options chose.

   PETSc's GPU PBJacobi needs CUDA vectors, as MATAIJCUSPARSE's products do. A program that solves
   with host vectors (VECSTANDARD, -vec_type standard) on a GPU backend sets this to PETSC_FALSE; a
   product of this matrix on host vectors while its device diagonal blocks are in use stops with
   PETSC_ERR_ARG_INCOMP saying so. No effect on the cpu backend, on a matrix bound to the CPU, or with
   a PETSc without CUDA (Debian's 3.18): PBJacobi then runs on the host.

   Level: advanced

.seealso: `MatBSRCustomGetCUDAPBJacobi()`, `MatBSRCustomSetBackend()`, `PCPBJACOBI`
@*/
PetscErrorCode MatBSRCustomSetCUDAPBJacobi(Mat A, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveBool(A, flg, 2);
  PetscTryMethod(A, "MatBSRCustomSetCUDAPBJacobi_C", (Mat, PetscBool), (A, flg));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetCUDAPBJacobi - Gets whether PCPBJACOBI applies on the GPU with this matrix.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  flg - whether the diagonal blocks go to PCPBJACOBI for the GPU

   Level: advanced

.seealso: `MatBSRCustomSetCUDAPBJacobi()`
@*/
PetscErrorCode MatBSRCustomGetCUDAPBJacobi(Mat A, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(flg, 2);
  PetscUseMethod(A, "MatBSRCustomGetCUDAPBJacobi_C", (Mat, PetscBool *), (A, flg));
  PetscFunctionReturn(0);
}
