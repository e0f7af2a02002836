/* The GPU backends' operations (seqbsrcustomgpu.c, mpibsrcustomgpu.c), gathered into their tables in
   bsrcustomgpu.c. */
#ifndef BSRCUSTOMGPUSEQ_H
#define BSRCUSTOMGPUSEQ_H

#include "seqbsrcustomimpl.h"
#include <../src/mat/impls/bsrcustom/backends/bsrcustomheld.h>
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuimpl.h>

/* how the GPU backends run transpose products (-info, MatView) */
#define MATBSRCUSTOM_GPU_TRANSPOSE_PATH "cached transposed copy on the GPU, our kernels"

/* the tables' entries (see MatBSRCustomBackendOps) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUApply_Private(Mat A, const bsrk_matrix *M, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUKeptApply_Private(Mat A, MatSeqBSRCustomKept *k, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUTransposeView_Private(Mat A, const MatSeqBSRCustomKept *k, PetscBool baij, PetscInt builds, PetscInt refreshes, PetscViewer viewer);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUProductDense_Private(Mat A, const bsrk_matrix *M, Mat B, Mat C);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUView_Private(Mat A, PetscViewer viewer);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPURelease_Private(Mat A, MatSeqBSRCustomKept *k);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUPlace_Private(MatBSRCustomMPIProduct *p);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUHaloBegin_Private(MatBSRCustomMPIProduct *p);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUHaloEnd_Private(MatBSRCustomMPIProduct *p);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPULocalMult_Private(MatBSRCustomMPIProduct *p);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUGhostMultAdd_Private(MatBSRCustomMPIProduct *p);
/* an MPI matrix's blocks Ad, Ao on host vectors, one device y (seqbsrcustomgpu.c) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUSplitBegin_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscScalar beta, Vec x, Vec in);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUSplitEnd_Private(Mat Ad, Mat Ao, const bsrk_matrix *G, Vec ghost_x, Vec out);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUSpMMSplitBegin_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscInt k, const PetscScalar *X, PetscInt ldx, PetscScalar *Y, PetscInt ldy);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUSpMMSplitEnd_Private(Mat Ad, const bsrk_matrix *M, Mat Ao, const bsrk_matrix *G, PetscInt k, const PetscScalar *Xg, PetscInt ldg, PetscScalar *Y, PetscInt ldy);
PETSC_INTERN const char    *MatMPIBSRCustomGPUTransposePath_Private(PetscBool on_device, PetscBool baij);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGPUView_Private(Mat A, const MatBSRCustomSettings *set, const char *path, PetscViewer viewer);
PETSC_INTERN PetscErrorCode MatBSRCustomGPUVectorsFollow_Private(Mat A);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUReady_Private(Mat A, const bsrk_matrix *M);
/* GAMG's block products: the numeric phase on the GPU (seqbsrcustomgpublockproduct.c) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUBlockProductNumeric_Private(Mat A, const bsrk_matrix *M, bsrk_block_product *plan, const bsrk_rect_matrix *RA, const bsrk_block_source *A_blocks, const bsrk_rect_matrix *RP, PetscScalar *C_values);
/* what seqbsrcustomgpu.c shares with it (CUDA builds only): A's own device copy (a bsrc_cuda_matrix)
   brought up to date, a CUDA layer status as a PETSc error, the flops of a GPU kernel */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUOwnCopy_Private(Mat A, const bsrk_matrix *M, void **gpu, PetscInt *device);
PETSC_INTERN PetscErrorCode MatBSRCustomCUDAStatusCheck_Private(int status, const char *msg, const char *what);
PETSC_INTERN PetscErrorCode MatBSRCustomLogDeviceFlops_Private(PetscLogDouble flops);
/* MatSetValuesCOO with values in device memory (seqbsrcustomgpucoo.c): the tables' coo_device_values
   and coo_device_follow */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUCOODeviceValues_Private(Mat A, const bsrk_matrix *Mv, const MatBSRCustomCOOScatter *sc, PetscInt part, PetscInt nv, const PetscScalar v[], PetscInt nr, const PetscScalar r[], InsertMode mode, PetscScalar a[]);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGPUCOODeviceFollow_Private(Mat A);
/* a matrix of a GPU backend bound to the CPU: MatView says so, then the cpu backend's lines */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomBoundView_Private(Mat A, PetscViewer viewer);

#endif
