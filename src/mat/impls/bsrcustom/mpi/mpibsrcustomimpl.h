/* Private context of MATMPIBSRCUSTOM, hung on A->spptr of an MPIBAIJ matrix. */
#ifndef MPIBSRCUSTOMIMPL_H
#define MPIBSRCUSTOMIMPL_H

#include <stddef.h>
#include <petsc/private/matimpl.h>
#include <petscmatbsrcustom.h>
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>
#include <../src/mat/impls/bsrcustom/bsrcustomproducts.h>
#include <../src/mat/impls/bsrcustom/backends/bsrcustommpiproduct.h>
#include "bsrk_blockproducts.h"

typedef struct {
  MatBSRCustomMakers makers; /* first (see MatBSRCustomMakers): MPIBAIJ's sub-matrix and permutation operations, wrapped */

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
  MatBSRCustomSetValuesFn baij_setvalues;
  MatBSRCustomSetValuesFn baij_setvaluesblocked;
  PetscErrorCode (*baij_mpibaijsetpreallocation)(Mat, PetscInt, PetscInt, const PetscInt[], PetscInt, const PetscInt[]);
  PetscBool block_preallocated; /* block counts were given: AIJ-style preallocation is then ignored */
  PetscBool aij_bs1;            /* AIJ-style preallocation ran with block size 1 (set, or PETSc's default): a later block size > 1 remakes the matrix */

  /* the blocks' structure at the last final assembly, to see a change MPIBAIJ did not count */
  PetscBool        structure_recorded;
  PetscInt         recorded_local, recorded_ghost, recorded_nghost;
  PetscObjectState recorded_nonzerostate;

  /* the nonzero structure this matrix's COO map is for (the map may be shared with MatDuplicate's copies) */
  PetscObjectState coo_nonzerostate;
  PetscBool        ignore_off_proc; /* MAT_IGNORE_OFF_PROC_ENTRIES, which MPIBAIJ keeps where we cannot read it */

  MatBSRCustomSettings          set;     /* handed to the local and ghost blocks */
  PetscBool                     bound;   /* MatBindToCPU(A, PETSC_TRUE): passed on to the blocks */
  const MatBSRCustomBackendOps *backend; /* where the products run: chosen from set and bound (MatBSRCustomHoldSettings_Private) */
  PetscErrorCode (*baij_bindtocpu)(Mat, PetscBool);

  /* the local and ghost blocks (MPIBAIJ's, borrowed), as of the last assembly */
  Mat local, ghost;

  /* the halo: ghost_cols[k] is the global block column of ghost block column k; ghost_x receives
     those entries of x through halo (a VecScatter, i.e. PetscSF). Rebuilt only when ghost_cols change. */
  PetscInt                *ghost_cols;
  PetscInt                 nghost;
  Vec                      ghost_x;
  VecScatter               halo;
  MatBSRCustomMPIHeld     *held;                   /* what A's backends hold for its products (a device ghost vector, a staged halo) */
  const char              *path;                   /* how the last product ran (MatView, -info) */
  PetscObjectState         blocks_state;           /* A's object state when the blocks were last told (see MatMPIBSRCustomApply) */
  PetscBool                coo_device_fresh;       /* MatSetValuesCOO filled the blocks' device copies; its closing assembly may not have run */
  PetscObjectState         seen_local, seen_ghost; /* the blocks' object states A's state last accounted for (MatBSRCustomValuesState_Private) */
  PetscBool                seen_valid;
  MatBSRCustomTransposeOps baij_transpose_ops; /* MPIBAIJ's, while ours are installed (mpibsrcustomproducts.c) */
  const char              *transpose_path;     /* how the last transpose product ran (MatView, -info) */
  /* transpose products (mpibsrcustomproducts.c): the ghost block's part arrives by the reverse halo
     scatter into recv while the local block's product writes y; host recv: only the touched entries
     (those the scatter adds into) are added to y and zeroed again */
  Vec        transpose_recv;
  VecScatter transpose_fold; /* device recv: adds its touched entries into y (made on first use) */
  PetscInt  *transpose_touched;
  PetscInt   transpose_ntouched;
  PetscBool  transpose_touched_set;
} Mat_MPIBSRCustom;
_Static_assert(offsetof(Mat_MPIBSRCustom, makers) == 0, "bsrcustomderived.c finds the makers at the start of A->spptr");

PETSC_INTERN PetscErrorCode MatConvert_MPIBSRCustom_MPIBAIJ(Mat, MatType, MatReuse, Mat *);
/* the local and ghost blocks and the ghost block columns as of the last assembly (any may be NULL;
   mpibsrcustomblocks.c) */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomGetBlocks_Private(Mat A, Mat *local, Mat *ghost, const PetscInt **ghost_cols);
/* blocked entries (MatSetValuesBlocked of A, context c) and block preallocation (mpibsrcustomsetvalues.c) */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomSetValuesBlocked_Private(Mat A, Mat_MPIBSRCustom *c, PetscInt m, const PetscInt im[], PetscInt n, const PetscInt in[], const PetscScalar v[], InsertMode mode);
PETSC_INTERN PetscErrorCode MatMPIBAIJSetPreallocation_MPIBSRCustom(Mat A, PetscInt bs, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[]);
/* to MATMPIAIJ from the local and ghost blocks, A left as it is (mpibsrcustomaij.c) */
PETSC_INTERN PetscErrorCode MatConvert_MPIBSRCustom_MPIAIJ(Mat, MatType, MatReuse, Mat *);
/* the blocks' object states follow A's; a product's record with A's operands (blocks, settings, halo)
   and out = Ad x + beta in + Ao ghost(x), ready for the backend's steps (mpibsrcustomblocks.c) */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomBlocksFollowState_Private(Mat A, Mat Ad, Mat Ao);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomProductInit_Private(Mat A, Vec x, PetscScalar beta, Vec in, Vec out, MatBSRCustomMPIProduct *p);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomTransposeHaloFree_Private(Mat_MPIBSRCustom *c);
/* at a final assembly (collective): blocks or ghosts added on any rank since the last record move
   A->nonzerostate on, on every rank (MPIBAIJ sums its blocks' counts, which PETSc 3.18 does not move
   for every insertion, and a ghost block made anew starts again); the structure is recorded
   (mpibsrcustomblocks.c) */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomFollowStructure_Private(Mat A, Mat Ad, Mat Ao);
/* AIJ-style preallocation (mpibsrcustomaijstyle.c), as seqbsrcustom's: counts and CSR per scalar row */
PETSC_INTERN PetscErrorCode MatMPIAIJSetPreallocation_MPIBSRCustom(Mat A, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[]);
PETSC_INTERN PetscErrorCode MatMPIAIJSetPreallocationCSR_MPIBSRCustom(Mat A, const PetscInt i[], const PetscInt j[], const PetscScalar v[]);
/* COO assembly (mpibsrcustomcoo.c): MatSetPreallocationCOO / MatSetValuesCOO composed on A (install) or removed */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomComposeCOO_Private(Mat A, PetscBool install);
PETSC_INTERN PetscErrorCode MatMPIBSRCustomDuplicateCOO_Private(Mat A, Mat M);
/* a prolongator's block rows that this rank's rows of A reach, gathered from their owners with their
   global columns (mpibsrcustomgatheredrows.c): made for P's structure, its values brought again at each
   update, viewed as the block-product kernels take a bs x c matrix */
typedef struct _MatMPIBSRCustomGatheredRows MatMPIBSRCustomGatheredRows;
PETSC_INTERN PetscErrorCode                 MatMPIBSRCustomGatheredRowsCreate_Private(Mat P, PetscBool p_ours, PetscInt bs, PetscInt c, PetscInt nrows, const PetscInt rows[], MatMPIBSRCustomGatheredRows **G);
PETSC_INTERN PetscErrorCode                 MatMPIBSRCustomGatheredRowsUpdateValues_Private(MatMPIBSRCustomGatheredRows *G, Mat P);
PETSC_INTERN void                           MatMPIBSRCustomGatheredRowsView_Private(const MatMPIBSRCustomGatheredRows *G, PetscBool with_values, bsrk_rect_matrix *R);
PETSC_INTERN PetscErrorCode                 MatMPIBSRCustomGatheredRowsDestroy_Private(MatMPIBSRCustomGatheredRows **G);
/* GAMG's block products A P and P^T A P on several ranks (mpibsrcustomgalerkin.c) */
PETSC_INTERN PetscErrorCode MatMPIBSRCustomComposeGalerkinProducts_Private(Mat A, PetscBool install);

#endif
