/*
   Device binding of the GPU backends: whether this build has CUDA, whether a GPU is visible, and which
   GPU a matrix runs on. In order: -mat_bsrcustom_cuda_device; else PETSc's own CUDA device where PETSc
   has chosen one (its vectors live there); else the node-local rank modulo the visible GPUs. The
   node-local rank comes from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), taken once when the first
   MATMPIBSRCUSTOM is created (a collective moment); a process that never creates one (sequential
   matrices only) falls back on the launcher's node-local rank variables.

   A build without CUDA keeps these entry points: no device, and errors that say the backend is missing.
*/
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuimpl.h>

#if defined(BSRCUSTOM_HAVE_CUDA)
  #include "bsrcuda.h"
  #include <stdlib.h>

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

static PetscMPIInt bsrc_node_rank = -1, bsrc_node_size = 0;

PETSC_INTERN PetscErrorCode MatBSRCustomCUDASetNodeRank_Private(MPI_Comm comm)
{
  MPI_Comm node;
  int      cmp = MPI_UNEQUAL;

  PetscFunctionBegin;
  if (bsrc_node_rank >= 0) PetscFunctionReturn(0);
  /* rank within the node over PETSC_COMM_WORLD when the matrix spans it, so that every matrix agrees */
  PetscCallMPI(MPI_Comm_compare(comm, PETSC_COMM_WORLD, &cmp));
  PetscCallMPI(MPI_Comm_split_type(cmp == MPI_IDENT || cmp == MPI_CONGRUENT ? PETSC_COMM_WORLD : comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_rank(node, &bsrc_node_rank));
  PetscCallMPI(MPI_Comm_size(node, &bsrc_node_size));
  PetscCallMPI(MPI_Comm_free(&node));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomCUDADevice_Private(PetscInt asked, PetscInt *device, char *how, size_t len)
{
  const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "PMI_LOCAL_RANK"};
  int         n = bsrc_cuda_device_count(), local = 0;
  const char *from = "no launcher variable: rank 0";

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
  if (bsrc_node_rank >= 0) {
    local = bsrc_node_rank;
    from  = "MPI_COMM_TYPE_SHARED";
  } else {
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
      const char *v = getenv(vars[i]);
      if (v) {
        local = atoi(v);
        from  = vars[i];
        break;
      }
    }
  }
  *device = local % n;
  if (bsrc_node_rank >= 0) PetscCall(PetscSNPrintf(how, len, "node-local rank %d of %d (%s) mod %d visible", local, (int)bsrc_node_size, from, n));
  else PetscCall(PetscSNPrintf(how, len, "node-local rank %d (%s) mod %d visible", local, from, n));
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

PETSC_INTERN PetscErrorCode MatBSRCustomCUDASetNodeRank_Private(MPI_Comm comm)
{
  PetscFunctionBegin;
  (void)comm;
  PetscFunctionReturn(0);
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
