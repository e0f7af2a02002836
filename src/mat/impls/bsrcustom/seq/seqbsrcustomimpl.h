/* Private context of MATSEQBSRCUSTOM, hung on A->spptr of a SeqBAIJ matrix. */
#ifndef SEQBSRCUSTOMIMPL_H
#define SEQBSRCUSTOMIMPL_H

#include <stddef.h>
#include <petsc/private/matimpl.h>
#include <petscmatbsrcustom.h>
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>
#include "bsrkernels.h"
#include <../src/mat/impls/bsrcustom/bsrcustomproducts.h>

typedef struct {
  MatBSRCustomMakers makers; /* first (see MatBSRCustomMakers): SeqBAIJ's sub-matrix and permutation operations, wrapped */

  /* SeqBAIJ's own operations, kept so that ours can call them and the reverse convert can put them back.
     Debian's PETSc hides the *_SeqBAIJ symbols, so we take them from the ops table at convert time. */
  PetscErrorCode (*baij_destroy)(Mat);
  PetscErrorCode (*baij_duplicate)(Mat, MatDuplicateOption, Mat *);
  PetscErrorCode (*baij_assemblyend)(Mat, MatAssemblyType);
  PetscErrorCode (*baij_view)(Mat, PetscViewer);
  PetscErrorCode (*baij_setfromoptions)(Mat, BSRCOptionItems);
  PetscErrorCode (*baij_fdcoloringsetup)(Mat, ISColoring, MatFDColoring);
  PetscErrorCode (*baij_zerorows)(Mat, PetscInt, const PetscInt[], PetscScalar, Vec, Vec);
  PetscErrorCode (*baij_fdcoloringcreate)(Mat, ISColoring, MatFDColoring);
  PetscErrorCode (*baij_mult)(Mat, Vec, Vec); /* SeqBAIJ's choice by block size for a preallocated matrix (MatSeqBSRCustomSaveBAIJMultOps) */
  PetscErrorCode (*baij_multadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*baij_setvalues)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode);
  PetscErrorCode (*baij_seqbaijsetpreallocation)(Mat, PetscInt, PetscInt, const PetscInt[]);
  PetscErrorCode (*baij_retrievevalues)(Mat); /* composed methods that ours wrap (seqbsrcustomvalues.c) */
  PetscErrorCode (*baij_getarray)(Mat, PetscScalar **);
  PetscErrorCode (*baij_restorearray)(Mat, PetscScalar **);
  PetscBool block_preallocated; /* block counts were given: AIJ-style preallocation is then ignored */
  PetscBool aij_bs1;            /* AIJ-style preallocation ran with block size 1 (set, or PETSc's default): a later block size > 1 remakes the matrix */
  PetscErrorCode (*baij_concatenate)(MPI_Comm, Mat, PetscInt, MatReuse, Mat *);

  /* the block structure at the last final assembly, to see a change SeqBAIJ did not count */
  PetscBool        structure_recorded;
  PetscInt         recorded_blocks;
  PetscObjectState recorded_nonzerostate;

  /* the nonzero structure this matrix's COO map is for (the map may be shared with MatDuplicate's copies) */
  PetscObjectState coo_nonzerostate;

  MatBSRCustomSettings          set;     /* threads, chunks, shared rows, backend, kernel */
  PetscBool                     bound;   /* MatBindToCPU(A, PETSC_TRUE): the CPU kernel runs whatever the backend */
  const MatBSRCustomBackendOps *backend; /* where products run: chosen from set and bound (MatBSRCustomHoldSettings_Private) */
  PetscErrorCode (*baij_bindtocpu)(Mat, PetscBool);

  /* A's block rows as the last product or assembly found them (seqbsrcustombsr.c): a copy of the row
     pointers and the nonzero state then, to see changes PETSc 3.18's MatSetValuesBlocked() does not count */
  PetscBool        rows_followed;
  PetscObjectState rows_nonzerostate;
  PetscInt        *rowptr_copy;
  PetscInt         rowptr_len;
  PetscInt         nonzero_block_rows;   /* for flop counts */
  PetscInt         row_generation;       /* counts changes of the block row pointers (the cpu backend's tasks follow it) */
  PetscInt         structure_generation; /* counts changes of the block structure (rows or columns; device and transposed copies follow it) */

  MatBSRCustomHeld *held; /* what the backends hold to run A (backends/bsrcustomheld.h): theirs, made at the convert, given back at the detach */

  /* SeqBAIJ's inverted diagonal blocks (MatInvertBlockDiagonal, MatSOR; seqbsrcustomdiaginv.c): made, for A's state */
  PetscErrorCode (*baij_invertblockdiagonal)(Mat, const PetscScalar **);
  PetscErrorCode (*baij_sor)(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec);
  PetscBool        idiag_made;
  PetscObjectState idiag_state;

  /* transpose products and products with dense matrices (seqbsrcustomtranspose.c) */
  MatBSRCustomTransposeOps baij_transpose_ops;
  void                    *transpose; /* the cached transposed copy and its tasks; NULL until the first use */
} Mat_SeqBSRCustom;
_Static_assert(offsetof(Mat_SeqBSRCustom, makers) == 0, "bsrcustomderived.c finds the makers at the start of A->spptr");

PETSC_INTERN PetscErrorCode MatConvert_SeqBSRCustom_SeqBAIJ(Mat, MatType, MatReuse, Mat *);

/* The value routes (seqbsrcustomvalues.c): SeqBAIJ's composed methods that ours wrap or call, saved
   in B's context (ours_preallocation: our preallocation method, which a duplicate of ours inherits);
   the wrappers that increase the state after MatRetrieveValues and MatSeqBAIJRestoreArray, composed
   (install) or removed (restore: SeqBAIJ's put back) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomSaveBAIJMethods_Private(Mat B, void (*ours_preallocation)(void));
PETSC_INTERN PetscErrorCode MatSeqBSRCustomComposeValueRoutes_Private(Mat A, PetscBool install, PetscBool restore);
/* MatProduct AB and PtAP with a seqbsrcustom or seqaij second operand computed in blocks
   (seqbsrcustomgalerkin.c): composed after the AIJ-copy products, whose entries they replace (install) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomComposeGalerkinProducts_Private(Mat A, PetscBool install);
/* MatProductSetFromOptions of both types: in blocks (symbolic) unless `why` or the algorithm asked for
   says otherwise, then on AIJ copies (seqbsrcustomgalerkin.c) */
PETSC_INTERN PetscErrorCode MatBSRCustomGalerkinChoose_Private(Mat C, const char *why, PetscErrorCode (*symbolic)(Mat));
/* the bs x c block structure of an AIJ matrix's CSR, and each stored entry's place among the block
   values (seqbsrcustomgalerkin.c) */
PETSC_INTERN PetscErrorCode MatBSRCustomAIJBlockStructure_Private(PetscInt m, const PetscInt ai[], const PetscInt aj[], PetscInt bs, PetscInt c, PetscInt nbcols, PetscInt **rowptr, PetscInt **colidx, PetscInt **offset, PetscInt *nblocks);
/* what P's products keep for interpolation and restriction, made now where P carries
   MAT_FORM_EXPLICIT_TRANSPOSE (seqbsrcustomgalerkin.c; the Galerkin products of both types call it) */
PETSC_INTERN PetscErrorCode MatBSRCustomPrepareTransfers_Private(Mat P);
/* MatInvertBlockDiagonal and MatSOR with SeqBAIJ's inverses made again after a change of A's state
   (seqbsrcustomdiaginv.c): installed, or SeqBAIJ's put back */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomInstallInvertBlockDiagonal_Private(Mat A, PetscBool install);

/* the transposed copy's kept matrix (NULL: none yet), for a backend to give back what it holds
   (seqbsrcustomtranspose.c) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomTransposeKept_Private(Mat A, MatSeqBSRCustomKept **k);
/* what backend ops holds for A and its transposed copy, given back (seqbsrcustom.c) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomRelease_Private(Mat A, const MatBSRCustomBackendOps *ops);
/* the BSR view M of A after the bookkeeping a product does first (seqbsrcustombsr.c): A's block rows
   followed (compare_rows: the row pointers compared with the copy too, at assembly; elsewhere O(1)
   states) into the row and structure generations, then what A's backend makes ahead of its products
   (its `ready`: the cpu backend's task partition) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomUpdate_Private(Mat A, PetscBool compare_rows, bsrk_matrix *M);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomPrepare_Private(Mat A, bsrk_matrix *M);
/* at a final assembly or after blocks were dropped: blocks added or dropped since the last record move
   A->nonzerostate on (PETSc 3.18's SeqBAIJ does not count blocks that MatSetValuesBlocked adds), and
   the structure is recorded (seqbsrcustombsr.c) */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomFollowStructure_Private(Mat A);
/* AIJ-style preallocation (seqbsrcustomaijstyle.c): counts and CSR per scalar row */
PETSC_INTERN PetscErrorCode MatSeqAIJSetPreallocation_SeqBSRCustom(Mat A, PetscInt nz, const PetscInt nnz[]);
PETSC_INTERN PetscErrorCode MatSeqAIJSetPreallocationCSR_SeqBSRCustom(Mat A, const PetscInt i[], const PetscInt j[], const PetscScalar v[]);
/* COO assembly (seqbsrcustomcoo.c): MatSetPreallocationCOO / MatSetValuesCOO composed on A (install) or
   removed; the values of B[0] and B[1] (NULL on one rank; the MPI type's local and ghost blocks) from
   the coordinates' values through sc (sources q < nv: v[q], after: r[q - nv]), their states increased */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomComposeCOO_Private(Mat A, PetscBool install);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomDuplicateCOO_Private(Mat A, Mat M);
/* the values an MPI rank receives for MatSetValuesCOO while its own are added: end(ctx) completes them */
typedef struct {
  PetscErrorCode (*end)(void *ctx);
  void *ctx;
} MatBSRCustomCOOReceipt;
PETSC_INTERN PetscErrorCode MatSeqBSRCustomCOOSetValues_Private(Mat B[2], const MatBSRCustomCOOScatter *sc, PetscInt nv, const PetscScalar v[], PetscInt nr, const PetscScalar r[], const MatBSRCustomCOOReceipt *receipt, InsertMode mode);
/* out = alpha*A*x + beta*in on A's backend; between: the calling thread's work between its tasks on
   the cpu backend (mpibsrcustom: MPI progress of the halo exchange); may be NULL */
PETSC_INTERN PetscErrorCode MatSeqBSRCustomApply_Private(Mat A, PetscScalar alpha, Vec x, PetscScalar beta, Vec in, Vec out, const bsrk_between *between);

#endif
