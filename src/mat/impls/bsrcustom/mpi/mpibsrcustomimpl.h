/* Private context of MATMPIBSRCUSTOM, hung on A->spptr of an MPIBAIJ matrix. */
#ifndef MPIBSRCUSTOMIMPL_H
#define MPIBSRCUSTOMIMPL_H

#include <petsc/private/matimpl.h>
#include <petscmatbsrcustom.h>
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>
#include <../src/mat/impls/bsrcustom/bsrcustomproducts.h>

typedef struct {
  /* MPIBAIJ's operations that ours wrap or that the reverse convert puts back */
  PetscErrorCode (*baij_destroy)(Mat);
  PetscErrorCode (*baij_duplicate)(Mat, MatDuplicateOption, Mat *);
  PetscErrorCode (*baij_assemblyend)(Mat, MatAssemblyType);
  PetscErrorCode (*baij_view)(Mat, PetscViewer);
  PetscErrorCode (*baij_setfromoptions)(Mat, BSRCOptionItems);
  PetscErrorCode (*baij_mult)(Mat, Vec, Vec);
  PetscErrorCode (*baij_multadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*baij_fdcoloringcreate)(Mat, ISColoring, MatFDColoring);
  PetscErrorCode (*baij_fdcoloringsetup)(Mat, ISColoring, MatFDColoring);
  PetscErrorCode (*baij_getmultiprocblock)(Mat, MPI_Comm, MatReuse, Mat *);
  PetscErrorCode (*baij_axpy)(Mat, PetscScalar, Mat, MatStructure);
  MatBSRCustomMakers makers; /* MPIBAIJ's sub-matrix and permutation operations, wrapped */
  MatBSRCustomSetValuesFn baij_setvalues;
  MatBSRCustomSetValuesFn baij_setvaluesblocked;
  PetscErrorCode (*baij_mpibaijsetpreallocation)(Mat, PetscInt, PetscInt, const PetscInt[], PetscInt, const PetscInt[]);
  PetscBool block_preallocated; /* block counts were given: AIJ-style preallocation is then ignored */
  PetscBool aij_bs1;      /* AIJ-style preallocation ran with block size 1 (set, or PETSc's default): a later block size > 1 remakes the matrix */

  MatBSRCustomSettings set; /* handed to the local and ghost blocks */
  PetscBool            bound; /* MatBindToCPU(A, PETSC_TRUE): passed on to the blocks */
  PetscErrorCode (*baij_bindtocpu)(Mat, PetscBool);

  /* the local and ghost blocks (MPIBAIJ's, borrowed), as of the last assembly */
  Mat local, ghost;

  /* the halo: ghost_cols[k] is the global block column of ghost block column k; ghost_x receives
     those entries of x through halo (a VecScatter, i.e. PetscSF). Rebuilt only when ghost_cols change. */
  PetscInt  *ghost_cols;
  PetscInt   nghost;
  Vec        ghost_x;
  Vec        ghost_x_dev; /* the same on the device (a CUDA vector), for products on CUDA vectors; made on first use */
  VecScatter halo;
  const char *path; /* how the last product ran (MatView, -info) */
  PetscObjectState blocks_state; /* A's object state when the blocks were last told (see MatMPIBSRCustomApply) */
  MatBSRCustomTransposeOps baij_transpose_ops; /* MPIBAIJ's, while ours are installed (mpibsrcustomproducts.c) */
  const char              *transpose_path;     /* how the last transpose product ran (MatView, -info) */
} Mat_MPIBSRCustom;

PETSC_INTERN PetscErrorCode MatCreate_MPIBSRCustom(Mat);
PETSC_INTERN PetscErrorCode MatConvert_MPIBAIJ_MPIBSRCustom(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_MPIBSRCustom_MPIBAIJ(Mat, MatType, MatReuse, Mat *);

#endif
