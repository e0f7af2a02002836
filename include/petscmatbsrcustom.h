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

   Options Database Keys:
+  -mat_type bsrcustom - selects the type (with -dll_append path/libpetscbsrcustom.so)
.  -mat_bsrcustom_threads <n> - OpenMP threads for MatMult (default: OMP_NUM_THREADS where set, else the node's cores / the job's ranks on it, at least 1; MatBSRCustomSetNumThreads())
.  -mat_bsrcustom_chunks_per_thread <c> - tasks per thread (default 8)
.  -mat_bsrcustom_cpu_streams <1,2,4,PETSC_DECIDE> - tasks a thread walks at once, in lockstep (default PETSC_DECIDE: 2 on one thread, else 1)
.  -mat_bsrcustom_cpu_prefetch <bytes> - how far ahead of each block its values are prefetched, 0 for none (default 8192)
.  -mat_bsrcustom_shared_rows <carry,atomic> - how split block rows are summed (default carry)
.  -mat_bsrcustom_huge_pages <true,false> - ask for transparent huge pages under the values (default true)
.  -mat_bsrcustom_cpu_busy_fallback <true,false> - products on a team whose threads sleep between them while that is faster than the OpenMP team (busy cores; default true)
.  -mat_bsrcustom_mpi_progress <true,false> - several ranks, cpu backend: MPI progress between the local product's tasks, so that the halo exchange moves while it runs (default true)
.  -mat_bsrcustom_transpose <cached,baij> - MatMultTranspose(Add): our kernels on a cached transposed copy (the task kernel; on the GPU backends the copy is also a second device matrix; built at the first transpose product, refreshed with the values; the matrix's memory again) or BAIJ's serial code on the host (no extra memory) (default cached)
.  -mat_bsrcustom_backend <cpu,cuda,cusparse> - where MatMult runs (default cpu)
.  -mat_bsrcustom_cuda_kernel <auto,rowmajor_shared,thread_private,team_scalar,vector_unrolled,warp_row,hybrid,segmented,sliced> - the kernel of the cuda backend (default auto: picked per matrix)
.  -mat_bsrcustom_cusparse_alg <bsrmv,spmv> - the cuSPARSE routine of the cusparse backend (default bsrmv)
.  -mat_bsrcustom_cuda_device <n> - the GPU of the GPU backends (default -1: node-local rank modulo the visible GPUs)
.  -mat_bsrcustom_cuda_pin_vectors <true,false> - page-lock large host vectors on their second use (default true)
-  -mat_bsrcustom_cuda_pbjacobi <true,false> - with CUDA vectors of a CUDA-enabled PETSc, PCPBJACOBI applies on the GPU (default true)

   MATBSRCUSTOM, MATSEQBSRCUSTOM and MATMPIBSRCUSTOM take the same options.

   Level: beginner

.seealso: `MATSEQBSRCUSTOM`, `MATMPIBSRCUSTOM`, `MatCreateBSRCustom()`, `MATBAIJ`
M*/
#define MATBSRCUSTOM    "bsrcustom"
#define MATSEQBSRCUSTOM "seqbsrcustom"
#define MATMPIBSRCUSTOM "mpibsrcustom"

/* How a block row that is split between two tasks is summed (see MatBSRCustomSetSharedRows()). */
typedef enum {
  MAT_BSRCUSTOM_SHARED_ROWS_CARRY, /* per-task carry, added after the parallel loop: deterministic */
  MAT_BSRCUSTOM_SHARED_ROWS_ATOMIC /* one atomic add per element of each shared task-row */
} MatBSRCustomSharedRows;
PETSC_EXTERN const char *const MatBSRCustomSharedRowsTypes[];

/* How MatMultTranspose(Add) runs on the cpu backend (see MatBSRCustomSetTranspose()). */
typedef enum {
  MAT_BSRCUSTOM_TRANSPOSE_CACHED, /* the task kernel on a cached transposed copy (A^T's blocks, each transposed; default) */
  MAT_BSRCUSTOM_TRANSPOSE_BAIJ    /* BAIJ's own serial transpose product, no extra memory */
} MatBSRCustomTransposeMode;
PETSC_EXTERN const char *const MatBSRCustomTransposeModes[];

/* Where MatMult runs (see MatBSRCustomSetBackend()). */
typedef enum {
  MAT_BSRCUSTOM_BACKEND_CPU,     /* OpenMP fixed-size tasks (default) */
  MAT_BSRCUSTOM_BACKEND_CUDA,    /* our CUDA kernels on one GPU per rank */
  MAT_BSRCUSTOM_BACKEND_CUSPARSE /* cuSPARSE on the same device storage: the baseline */
} MatBSRCustomBackend;
PETSC_EXTERN const char *const MatBSRCustomBackends[];

/* The CUDA kernels (-mat_bsrcustom_cuda_kernel); AUTO picks one per matrix from its structure. */
typedef enum {
  MAT_BSRCUSTOM_CUDA_KERNEL_AUTO,
  MAT_BSRCUSTOM_CUDA_KERNEL_ROWMAJOR_SHARED, /* thesis ch. 8 kernel 1 */
  MAT_BSRCUSTOM_CUDA_KERNEL_THREAD_PRIVATE,  /* kernel 2 */
  MAT_BSRCUSTOM_CUDA_KERNEL_TEAM_SCALAR,     /* kernel 3 */
  MAT_BSRCUSTOM_CUDA_KERNEL_VECTOR_UNROLLED, /* kernel 4 */
  MAT_BSRCUSTOM_CUDA_KERNEL_WARP_ROW,        /* short block rows: a (sub-)warp per block row */
  MAT_BSRCUSTOM_CUDA_KERNEL_HYBRID,          /* uneven rows: short rows a group of lanes each, long ones cut into pieces of a warp each */
  MAT_BSRCUSTOM_CUDA_KERNEL_SEGMENTED,       /* strips of consecutive rows walked by a warp as one run, sums per row by a segmented scan */
  MAT_BSRCUSTOM_CUDA_KERNEL_SLICED           /* short even rows, uneven 2x2 and 4x4 rows: a lane per block row (a group of lanes per longer one), on its own copy of the values in slices of 32 rows (device memory for the matrix doubles) */
} MatBSRCustomCUDAKernel;
PETSC_EXTERN const char *const MatBSRCustomCUDAKernels[];

/* The cuSPARSE baseline routine (-mat_bsrcustom_cusparse_alg). */
typedef enum {
  MAT_BSRCUSTOM_CUSPARSE_BSRMV, /* cusparseDbsrmv, column-major blocks (BAIJ's own layout) */
  MAT_BSRCUSTOM_CUSPARSE_SPMV   /* cusparseSpMV with a BSR descriptor */
} MatBSRCustomCUSPARSEAlg;
PETSC_EXTERN const char *const MatBSRCustomCUSPARSEAlgs[];

PETSC_EXTERN PetscErrorCode MatBSRCustomRegisterAll(void);
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscbsrcustom(void);

PETSC_EXTERN PetscErrorCode MatCreateBSRCustom(MPI_Comm, PetscInt, PetscInt, PetscInt, PetscInt, PetscInt, PetscInt, const PetscInt[], PetscInt, const PetscInt[], Mat *);

/* COO assembly with coordinates of whole blocks (block rows and columns, bs x bs values each, row by
   row): the block form of MatSetPreallocationCOO() / MatSetValuesCOO() (bsrcustomcooblocked.c) */
PETSC_EXTERN PetscErrorCode MatBSRCustomSetPreallocationCOOBlocked(Mat, PetscCount, const PetscInt[], const PetscInt[]);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetValuesCOOBlocked(Mat, const PetscScalar[], InsertMode);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetChunksPerThread(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetChunksPerThread(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetCPUStreams(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetCPUStreams(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetCPUPrefetch(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetCPUPrefetch(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetNumThreads(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetNumThreads(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetSharedRows(Mat, MatBSRCustomSharedRows);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetSharedRows(Mat, MatBSRCustomSharedRows *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetTranspose(Mat, MatBSRCustomTransposeMode);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetTranspose(Mat, MatBSRCustomTransposeMode *);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetNumTasks(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetBackend(Mat, MatBSRCustomBackend);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetBackend(Mat, MatBSRCustomBackend *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetCUDAKernel(Mat, MatBSRCustomCUDAKernel);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetCUDAKernel(Mat, MatBSRCustomCUDAKernel *, MatBSRCustomCUDAKernel *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetCUDADevice(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetCUDADevice(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetCUSPARSEAlg(Mat, MatBSRCustomCUSPARSEAlg);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetCUSPARSEAlg(Mat, MatBSRCustomCUSPARSEAlg *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetCUDAPinVectors(Mat, PetscBool);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetCUDAPinVectors(Mat, PetscBool *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetCUDAPBJacobi(Mat, PetscBool);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetCUDAPBJacobi(Mat, PetscBool *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetHugePages(Mat, PetscBool);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetHugePages(Mat, PetscBool *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetCPUBusyFallback(Mat, PetscBool);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetCPUBusyFallback(Mat, PetscBool *);
PETSC_EXTERN PetscErrorCode MatBSRCustomSetMPIProgress(Mat, PetscBool);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetMPIProgress(Mat, PetscBool *);
PETSC_EXTERN PetscBool      MatBSRCustomHasCUDA(void);
PETSC_EXTERN PetscInt       MatBSRCustomCUDADeviceCount(void);
PETSC_EXTERN PetscErrorCode MatBSRCustomGetLocalAndGhost(Mat, Mat *, Mat *, PetscInt *, const PetscInt *[], VecScatter *, Vec *);

#endif
