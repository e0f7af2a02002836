/* The cpu backend's operations (seqbsrcustomcpu.c, mpibsrcustomcpu.c), gathered into its table in
   bsrcustomcpu.c; the GPU backends' table of a matrix bound to the CPU reuses them. */
#ifndef BSRCUSTOMCPUIMPL_H
#define BSRCUSTOMCPUIMPL_H

#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>
#include <../src/mat/impls/bsrcustom/backends/bsrcustommpiproduct.h> /* the halo step of the table's entries */

/* how the cpu backend runs transpose products (-info, MatView) */
#define MATBSRCUSTOM_CPU_TRANSPOSE_PATH "cached transposed copy, task kernel"

/* kernel-layer status -> PETSc error naming what failed */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomKernelCheck_Private(Mat, bsrk_status, const char *);
/* Y = alpha A X + beta Y for k columns (column-major, leading dimensions ldx, ldy), M A's view, one
   pass over the matrix on the task partition; flops logged */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUSpMM_Private(Mat A, const bsrk_matrix *M, PetscInt k, PetscScalar alpha, const PetscScalar *X, PetscInt ldx, PetscScalar beta, PetscScalar *Y, PetscInt ldy);
/* the tasks of the partition the cpu backend holds for A (M its view), cut where missing: what
   MatBSRCustomGetNumTasks() reports whatever A's backend */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUNumTasks_Private(Mat A, const bsrk_matrix *M, PetscInt *ntasks);
/* frees the cpu part of a kept matrix (its partition and carry space) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUKeptFree_Private(MatSeqBSRCustomKept *k);

/* the table's entries (see MatBSRCustomBackendOps) */
PETSC_INTERN PetscErrorCode MatBSRCustomCPUVectorsFollow_Private(Mat A);
PETSC_INTERN PetscErrorCode MatBSRCustomCPUAIJMade_Private(Mat M);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUReady_Private(Mat A, const bsrk_matrix *M);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUApply_Private(Mat A, const bsrk_matrix *M, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUKeptApply_Private(Mat A, MatSeqBSRCustomKept *k, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUTransposeView_Private(Mat A, const MatSeqBSRCustomKept *k, PetscBool baij, PetscInt builds, PetscInt refreshes, PetscViewer viewer);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUProductDense_Private(Mat A, const bsrk_matrix *M, Mat B, Mat C);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUView_Private(Mat A, PetscViewer viewer);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPURelease_Private(Mat A, MatSeqBSRCustomKept *k);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUBlockProductPlan_Private(Mat A, bsrk_product_kind kind, const bsrk_rect_matrix *RA, const bsrk_rect_matrix *RP, bsrk_block_product **plan);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCPUBlockProductNumeric_Private(Mat A, const bsrk_matrix *M, bsrk_block_product *plan, const bsrk_rect_matrix *RA, const bsrk_block_source *A_blocks, const bsrk_rect_matrix *RP, PetscScalar *C_values);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUPlace_Private(MatBSRCustomMPIProduct *p);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUHaloBegin_Private(MatBSRCustomMPIProduct *p);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPULocalMult_Private(MatBSRCustomMPIProduct *p);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUGhostMultAdd_Private(MatBSRCustomMPIProduct *p);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUSpMMSplitBegin_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscInt k, const PetscScalar *X, PetscInt ldx, PetscScalar *Y, PetscInt ldy);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUSpMMSplitEnd_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscInt k, const PetscScalar *Xg, PetscInt ldg, PetscScalar *Y, PetscInt ldy);
PETSC_INTERN const char    *MatMPIBSRCustomCPUTransposePath_Private(PetscBool on_device, PetscBool baij);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomCPUView_Private(Mat A, const MatBSRCustomSettings *set, const char *path, PetscViewer viewer);

/* clang-format off */
/* the entries of the cpu backend that the GPU backends' table of a matrix bound to the CPU shares
   (all but the name, MatView's lines, what to give back) */
#define MATBSRCUSTOM_CPU_ENTRIES \
  .aij_seq_type          = MATSEQAIJ, \
  .aij_mpi_type          = MATMPIAIJ, \
  .aij_made              = MatBSRCustomCPUAIJMade_Private, \
  .vectors_follow        = MatBSRCustomCPUVectorsFollow_Private, \
  .ready                 = MatSeqBSRCustomCPUReady_Private, \
  .apply                 = MatSeqBSRCustomCPUApply_Private, \
  .kept_apply            = MatSeqBSRCustomCPUKeptApply_Private, \
  .transpose_view        = MatSeqBSRCustomCPUTransposeView_Private, \
  .transpose_path        = MATBSRCUSTOM_CPU_TRANSPOSE_PATH, \
  .spmm                  = MatSeqBSRCustomCPUProductDense_Private, \
  .block_product_plan    = MatSeqBSRCustomCPUBlockProductPlan_Private, \
  .block_product_numeric = MatSeqBSRCustomCPUBlockProductNumeric_Private, \
  .mpi_place             = MatMPIBSRCustomCPUPlace_Private, \
  .mpi_halo_begin        = MatMPIBSRCustomCPUHaloBegin_Private, \
  .mpi_local_mult        = MatMPIBSRCustomCPULocalMult_Private, \
  .mpi_halo_end          = MatBSRCustomMPIScatterEnd_Private, \
  .mpi_ghost_multadd     = MatMPIBSRCustomCPUGhostMultAdd_Private, \
  .spmm_split_begin      = MatMPIBSRCustomCPUSpMMSplitBegin_Private, \
  .spmm_split_end        = MatMPIBSRCustomCPUSpMMSplitEnd_Private, \
  .mpi_transpose_path    = MatMPIBSRCustomCPUTransposePath_Private, \
  .mpi_transpose_text    = "ghost block's transpose, reverse scatter ADD of the ghost part while the local block's transpose runs", \
  .mpi_spmm_text         = "block SpMM of the local rows while B's ghost rows arrive, then the ghost block's"
/* clang-format on */

#endif
