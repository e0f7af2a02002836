/*
   Transpose products and products with dense matrices of seqbsrcustom and mpibsrcustom (issue 30):
   seq/seqbsrcustomtranspose.c (MatMultTranspose(Add) over a cached transposed copy, the block SpMM)
   and mpi/mpibsrcustomproducts.c (local and ghost blocks around the halo).
*/
#ifndef BSRCUSTOMPRODUCTS_H
#define BSRCUSTOMPRODUCTS_H

#include <petsc/private/matimpl.h>
#include "bsrkernels.h" /* bsrk_between */

/* the base type's transpose operations, kept while ours are installed */
typedef struct {
  PetscErrorCode (*multtranspose)(Mat, Vec, Vec);
  PetscErrorCode (*multtransposeadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*multhermitiantranspose)(Mat, Vec, Vec);
  PetscErrorCode (*multhermitiantransposeadd)(Mat, Vec, Vec, Vec);
} MatBSRCustomTransposeOps;

/* install: our transpose products on A (the base type's kept in A's context) and the
   MatProductSetFromOptions_<ours>_<dense>_C method; otherwise the base type's back, the method
   removed and the transposed copy freed. Called again after each assembly (the base type may
   reselect its operations at preallocation). */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomProductsInstall_Private(Mat A, PetscBool install);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomProductsInstall_Private(Mat A, PetscBool install);

/* out = alpha A^T x + beta in on a seqbsrcustom (the cached copy or BAIJ's, as the settings say) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomTransposeApply_Private(Mat A, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between);
/* MatView (ascii_info) lines: which transpose path runs and what the copy holds */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomTransposeView_Private(Mat A, PetscViewer viewer);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomTransposeView_Private(Mat A, PetscViewer viewer);

/* C = A B, B dense, by one MatMult per column (an MPI matrix whose blocks are not seqbsrcustom) */
PETSC_INTERN PetscErrorCode MatBSRCustomProductByColumns_Private(Mat A, Mat B, Mat C);

#endif
