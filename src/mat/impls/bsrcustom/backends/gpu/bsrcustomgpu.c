/*
   The GPU backends' tables: cuda (our kernels) and cusparse (cuSPARSE on the same device storage,
   the baseline) differ only in the kernel their products pick (set.cusparse_alg / set.cuda_kernel),
   so they share every entry and their device copies. GAMG's block products are planned by the cpu
   backend's entry on the host, once per pattern, and computed on the GPU. A matrix of either
   bound to the CPU (MatBindToCPU) runs the cpu backend's entries and keeps its device copies for later.
*/
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuseq.h>
#include <../src/mat/impls/bsrcustom/backends/cpu/bsrcustomcpuimpl.h>

PETSC_INTERN PetscErrorCode MatBSRCustomGPUVectorsFollow_Private(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomVecTypeFollow_Private(A));
  PetscFunctionReturn(0);
}

/* nothing ahead of the product (no host task partition): the device copy follows the structure and
   values at its next product */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUReady_Private(Mat A, const bsrk_matrix *M)
{
  PetscFunctionBegin;
  (void)A, (void)M;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatSeqBSRCustomBoundView_Private(Mat A, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomViewDeviceVectors_Private(A, viewer));
  PetscCall(MatSeqBSRCustomCPUView_Private(A, viewer));
  PetscFunctionReturn(0);
}

/* a CUDA-enabled PETSc keeps a rectangular-block matrix (a GAMG prolongator) on the device too */
#if defined(BSRC_HAVE_PETSC_CUDA)
  #define BSRC_GPU_AIJ_SEQ MATSEQAIJCUSPARSE
  #define BSRC_GPU_AIJ_MPI MATMPIAIJCUSPARSE
#else
  #define BSRC_GPU_AIJ_SEQ MATSEQAIJ
  #define BSRC_GPU_AIJ_MPI MATMPIAIJ
#endif

/* clang-format off */
#define BSRC_GPU_BACKEND(label) \
  { \
    .name                  = label, \
    .aij_seq_type          = BSRC_GPU_AIJ_SEQ, \
    .aij_mpi_type          = BSRC_GPU_AIJ_MPI, \
    .aij_made              = MatBSRCustomGPUAIJMade_Private, \
    .vectors_follow        = MatBSRCustomGPUVectorsFollow_Private, \
    .ready                 = MatSeqBSRCustomGPUReady_Private, \
    .apply                 = MatSeqBSRCustomGPUApply_Private, \
    .kept_apply            = MatSeqBSRCustomGPUKeptApply_Private, \
    .transpose_view        = MatSeqBSRCustomGPUTransposeView_Private, \
    .transpose_path        = MATBSRCUSTOM_GPU_TRANSPOSE_PATH, \
    .spmm                  = MatSeqBSRCustomGPUProductDense_Private, \
    .view                  = MatSeqBSRCustomGPUView_Private, \
    .block_product_plan    = MatSeqBSRCustomCPUBlockProductPlan_Private, \
    .block_product_numeric = MatSeqBSRCustomGPUBlockProductNumeric_Private, \
    .release               = MatSeqBSRCustomGPURelease_Private, \
    .coo_device_values     = MatSeqBSRCustomGPUCOODeviceValues_Private, \
    .coo_device_follow     = MatSeqBSRCustomGPUCOODeviceFollow_Private, \
    .mpi_place             = MatMPIBSRCustomGPUPlace_Private, \
    .mpi_halo_begin        = MatMPIBSRCustomGPUHaloBegin_Private, \
    .mpi_local_mult        = MatMPIBSRCustomGPULocalMult_Private, \
    .mpi_halo_end          = MatMPIBSRCustomGPUHaloEnd_Private, \
    .mpi_ghost_multadd     = MatMPIBSRCustomGPUGhostMultAdd_Private, \
    .spmm_split_begin      = MatMPIBSRCustomGPUSpMMSplitBegin_Private, \
    .spmm_split_end        = MatMPIBSRCustomGPUSpMMSplitEnd_Private, \
    .mpi_transpose_path    = MatMPIBSRCustomGPUTransposePath_Private, \
    .mpi_transpose_text    = "cached transposed copies on the GPU, our kernels: ghost block's, reverse scatter ADD of the ghost part while the local block's runs", \
    .mpi_spmm_text         = "block SpMM on the GPU, one pass for all columns: the local block's while B's ghost rows arrive, then the ghost block's into the same device C", \
    .mpi_view              = MatMPIBSRCustomGPUView_Private, \
  }
/* clang-format on */

const MatBSRCustomBackendOps MatBSRCustomBackendCUDA     = BSRC_GPU_BACKEND("cuda");
const MatBSRCustomBackendOps MatBSRCustomBackendCUSPARSE = BSRC_GPU_BACKEND("cusparse");

const MatBSRCustomBackendOps MatBSRCustomBackendBoundCPU = {
  MATBSRCUSTOM_CPU_ENTRIES,
  .name     = "cpu (bound to the CPU)",
  .view     = MatSeqBSRCustomBoundView_Private,  /* says it is bound, then the cpu lines */
  .release  = MatSeqBSRCustomGPURelease_Private, /* the device copies it keeps */
  .mpi_view = MatMPIBSRCustomGPUView_Private,    /* the device it will run on again */
};
