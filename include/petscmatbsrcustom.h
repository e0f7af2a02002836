/*
   Public interface of the bsrcustom PETSc plugin: a Block Sparse Row matrix type whose MatMult
   and MatMultAdd run our own kernels (OpenMP fixed-size tasks on CPUs).

   Programs pick the type with options alone:
     -dll_append /path/libpetscbsrcustom.so -mat_type bsrcustom      (or -dm_mat_type bsrcustom)
   or, when they link the library, after PetscInitialize():
     MatBSRCustomRegisterAll();
*/
#ifndef PETSCMATBSRCUSTOM_H
#define PETSCMATBSRCUSTOM_H

#include <petscmat.h>

/*MC
   MATBSRCUSTOM - "bsrcustom" - Block Sparse Row matrix with our own MatMult/MatMultAdd kernels.
   On one rank it is MATSEQBSRCUSTOM, on several MATMPIBSRCUSTOM.

   Level: beginner

.seealso: `MATSEQBSRCUSTOM`, `MATMPIBSRCUSTOM`, `MatCreateBSRCustom()`, `MATBAIJ`
M*/
#define MATBSRCUSTOM    "bsrcustom"
#define MATSEQBSRCUSTOM "seqbsrcustom"
#define MATMPIBSRCUSTOM "mpibsrcustom"

/* How a block row that is split between two tasks is summed (see MatBSRCustomSetSharedRows()). */
typedef enum {
  MAT_BSRCUSTOM_SHARED_ROWS_CARRY,  /* per-task carry, added after the parallel loop: deterministic */
  MAT_BSRCUSTOM_SHARED_ROWS_ATOMIC  /* one atomic add per element of each shared task-row */
} MatBSRCustomSharedRows;
PETSC_EXTERN const char *const MatBSRCustomSharedRowsTypes[];

PETSC_EXTERN PetscErrorCode MatBSRCustomRegisterAll(void);
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscbsrcustom(void);

PETSC_EXTERN PetscErrorCode MatCreateBSRCustom(MPI_Comm, PetscInt, PetscInt, PetscInt, PetscInt, PetscInt, PetscInt, const PetscInt[], PetscInt, const PetscInt[], Mat *);

PETSC_EXTERN PetscErrorCode MatBSRCustomSetChunksPerThread(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetChunksPerThread(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetNumThreads(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetNumThreads(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetSharedRows(Mat, MatBSRCustomSharedRows);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetSharedRows(Mat, MatBSRCustomSharedRows *);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetNumTasks(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetLocalAndGhost(Mat, Mat *, Mat *, PetscInt *, const PetscInt *[], VecScatter *, Vec *);

#endif
