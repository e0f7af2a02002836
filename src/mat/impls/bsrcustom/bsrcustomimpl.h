/* Private pieces shared by seqbsrcustom and mpibsrcustom: options, events, coloring. */
#ifndef BSRCUSTOMIMPL_H
#define BSRCUSTOMIMPL_H

#include <petsc/private/matimpl.h>
#include <petscmatbsrcustom.h>
#include <../src/mat/impls/bsrcustom/bsrcustomcompat.h>

#define MATBSRCUSTOM_DEFAULT_CHUNKS_PER_THREAD 8
#define MATBSRCUSTOM_MAX_CHUNKS_PER_THREAD     (1 << 20)
#define MATBSRCUSTOM_MAX_THREADS               4096
#define MATBSRCUSTOM_DEFAULT_CPU_STREAMS       PETSC_DECIDE
#define MATBSRCUSTOM_DEFAULT_CPU_PREFETCH      8192      /* bytes; docs/performance.md, "Block sums and prefetch" */
#define MATBSRCUSTOM_MAX_CPU_PREFETCH          (1 << 20) /* = BSRK_MAX_PREFETCH_BYTES of the kernel layer */

/* -mat_bsrcustom_transpose: how MatMultTranspose runs on the cpu backend (seqbsrcustomtranspose.c) */
typedef enum {
  MAT_BSRCUSTOM_TRANSPOSE_CACHED = 0, /* the task kernel on a cached transposed copy (A^T's blocks, each transposed) */
  MAT_BSRCUSTOM_TRANSPOSE_BAIJ   = 1  /* BAIJ's own serial transpose product, no extra memory */
} MatBSRCustomTransposeMode;
PETSC_INTERN const char *const MatBSRCustomTransposeModes[];

/* What a user sets on a matrix; the seq and mpi types (and an mpi matrix's local and ghost blocks) share it. */
typedef struct {
  PetscInt               nthreads;          /* OpenMP threads of the CPU kernel */
  PetscInt               chunks_per_thread; /* fixed-size tasks per thread */
  PetscInt               cpu_streams;       /* tasks a thread walks at once: 1, 2, 4 or PETSC_DECIDE (MatBSRCustomCPUStreams_Private) */
  PetscInt               cpu_prefetch;      /* bytes ahead of each block its values are prefetched; 0: none */
  MatBSRCustomSharedRows shared_rows;
  MatBSRCustomBackend    backend;
  MatBSRCustomCUDAKernel cuda_kernel;
  MatBSRCustomCUSPARSEAlg cusparse_alg;
  PetscInt               cuda_device; /* GPU of the GPU backends; -1: node-local rank modulo visible GPUs */
  PetscBool              cuda_pin_vectors; /* GPU backends: page-lock host vectors' arrays on their second use */
  PetscBool              cuda_pbjacobi;    /* GPU backends, CUDA-enabled PETSc: PCPBJACOBI applies on the GPU (bsrcustomblockdiag.c) */
  PetscBool              huge_pages;       /* cpu backend: the values on transparent huge pages, asked at each new partition */
  PetscBool              cpu_busy_fallback; /* cpu backend: the passive team while it is measured faster than OpenMP's (bsrk_team) */
  MatBSRCustomTransposeMode transpose;      /* cpu backend: MatMultTranspose on the cached transposed copy or BAIJ's */
} MatBSRCustomSettings;

PETSC_INTERN PetscErrorCode MatBSRCustomSettingsDefault_Private(MatBSRCustomSettings *);
/* The tasks a thread of the cpu backend walks at once. PETSC_DECIDE: 2 on one thread, whose core
   alone must keep enough of the values in flight (a Xeon core read 10-25 % faster with 2), and 1 on
   several, where memory is the limit and one stream costs the fewest instructions (as fast as 2 on
   the Xeon's 16 cores, faster on a 2-core EPYC); docs/performance.md, CPU. */
static inline PetscInt MatBSRCustomCPUStreams_Private(const MatBSRCustomSettings *set)
{
  if (set->cpu_streams != PETSC_DECIDE) return set->cpu_streams;
  return set->nthreads == 1 ? 2 : 1;
}
/* checks every field; `what` names the source (an option or a function) in the error */
PETSC_INTERN PetscErrorCode MatBSRCustomSettingsCheck_Private(Mat, const MatBSRCustomSettings *, const char *);
/* inside PetscOptionsBegin/End (MatSetFromOptions) */
PETSC_INTERN PetscErrorCode MatBSRCustomOptionsProcess_Private(Mat, BSRCOptionItems, MatBSRCustomSettings *);
/* straight from the options database, with the matrix's prefix (at creation) */
PETSC_INTERN PetscErrorCode MatBSRCustomOptionsFromDatabase_Private(Mat, MatBSRCustomSettings *);

/* Asks the kernel to back the 2 MiB-aligned interior of [p, p + bytes) with huge pages (Linux:
   madvise MADV_COLLAPSE, else MADV_HUGEPAGE); best effort: *granted says whether the kernel took
   it, -info how or why not. */
PETSC_INTERN PetscErrorCode MatBSRCustomAdviseHugePages_Private(Mat, const void *, size_t, PetscBool *);

/* GPU backends: whether this build has CUDA and a GPU is visible; errors say which is missing */
PETSC_INTERN PetscErrorCode MatBSRCustomCUDAAvailable_Private(Mat, const char *);
/* Device binding: the node-local rank from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) over comm
   (collective; done once, when the first MATMPIBSRCUSTOM is created), and the device a matrix with
   these settings runs on, with how it was chosen (for MatView and -info). */
PETSC_INTERN PetscErrorCode MatBSRCustomCUDASetNodeRank_Private(MPI_Comm);
PETSC_INTERN PetscErrorCode MatBSRCustomCUDADevice_Private(Mat, const MatBSRCustomSettings *, PetscInt *, char *, size_t);
/* GPU backends with host vectors (bsrcustomvecpin.c): called on every vector a product of A reads or
   writes through host memory, before its array is taken; page-locks the array of a large VECSEQ /
   VECMPI on its second use when A's settings allow it (-mat_bsrcustom_cuda_pin_vectors), so that the
   transfers DMA straight from/to it. Never an error when page-locking fails (-info says why). */
PETSC_INTERN PetscErrorCode MatBSRCustomCUDAPinVec_Private(Mat, Vec);
/* Whether v's own array is page-locked by MatBSRCustomCUDAPinVec_Private() now (exported for the tests). */
PETSC_EXTERN PetscErrorCode MatBSRCustomCUDAVecPinned_Private(Vec, PetscBool *);
/* PETSc's own device support (bsrcustomdevice.c), where PETSc has it (BSRC_HAVE_PETSC_CUDA):
   - VecTypeFollow: A's MatCreateVecs type follows where its products run (VECCUDA on a GPU backend
     of a CUDA-enabled PETSc, VECSTANDARD otherwise) and A->boundtocpu says whether they run on the CPU;
     called whenever the backend or the binding changes;
   - Stream: the cudaStream_t (as void *) of PETSc's current device context, NULL without one;
   - DeviceId: PETSc's CUDA device, -1 without one;
   - VecOnDevice: whether v is a CUDA vector not bound to the CPU (its arrays are device memory). */
PETSC_INTERN PetscErrorCode MatBSRCustomVecTypeFollow_Private(Mat A, MatBSRCustomBackend backend, PetscBool bound);
PETSC_INTERN PetscErrorCode MatBSRCustomPETScStream_Private(void **stream);
PETSC_INTERN PetscErrorCode MatBSRCustomPETScDeviceId_Private(PetscInt *id);
PETSC_INTERN PetscErrorCode MatBSRCustomVecOnDevice_Private(Vec v, PetscBool *on_device);
/* PCPBJACOBI on the device: A's diagonal blocks as an aijcusparse matrix (bsrcustomblockdiag.c);
   installs or removes the MATOP_GET_BLOCK_DIAGONAL operation where PETSc has it */
PETSC_INTERN PetscErrorCode MatBSRCustomInstallBlockDiagonal_Private(Mat A, PetscBool install);
/* stops a product of A on the host vector v while PCPBJACOBI holds A's diagonal blocks for the GPU
   (its GPU apply would read v as a CUDA vector) */
PETSC_INTERN PetscErrorCode MatBSRCustomCheckHostVectors_Private(Mat A, Vec v);
/* MatView (ascii_info): where vectors and halo live with PETSc's device vectors, or that PETSc has none */
PETSC_INTERN PetscErrorCode MatBSRCustomViewDeviceVectors_Private(Mat A, PetscViewer viewer);

/* MatView (ascii_info) of a GPU backend: how host vectors reach the device */
PETSC_INTERN PetscErrorCode MatBSRCustomCUDAViewHostVectors_Private(const MatBSRCustomSettings *, PetscViewer);

/* factorizations of (MPI)BAIJ registered under our type names (bsrcustomutils.c) */
PETSC_INTERN PetscErrorCode MatBSRCustomRegisterFactors_Private(void);

/* log events and registration */
PETSC_INTERN PetscLogEvent  MATBSRCUSTOM_PartitionBuild, MATBSRCUSTOM_Kernel, MATBSRCUSTOM_Upload;
PETSC_INTERN PetscErrorCode MatBSRCustomInitializePackage(void);
PETSC_INTERN PetscInt       MatBSRCustomDefaultThreads(void);

/* A DMDA gives non-"baij" types a coloring of scalar columns; BAIJ's FD coloring wants block columns. */
PETSC_INTERN PetscErrorCode MatBSRCustomBlockColoring_Private(Mat, ISColoring, ISColoring *);
/* runs fn (BAIJ's FD coloring create or set-up) under the base type name with a block coloring */
PETSC_INTERN PetscErrorCode MatBSRCustomFDColoringCall_Private(Mat, MatType, MatType, PetscErrorCode (*)(Mat, ISColoring, MatFDColoring), ISColoring, MatFDColoring);

/* *B, a seqbaij or mpibaij matrix that a base-type operation just made from `from` (ours), becomes
   ours in place with from's settings; other types are left alone (bsrcustomderived.c). */
PETSC_INTERN PetscErrorCode MatBSRCustomAdopt_Private(Mat from, Mat *B);
PETSC_INTERN PetscErrorCode MatBSRCustomAdoptAll_Private(Mat from, PetscInt n, Mat B[]);
/* the base type's operations that make matrices, wrapped by both our types so that what they make is ours */
typedef struct {
  PetscErrorCode (*createsubmatrix)(Mat, IS, IS, MatReuse, Mat *);
  PetscErrorCode (*createsubmatrices)(Mat, PetscInt, const IS[], const IS[], MatReuse, Mat *[]);
  PetscErrorCode (*permute)(Mat, IS, IS, Mat *);
  PetscErrorCode (*creategraph)(BSRC_CREATEGRAPH_PARAMS); /* none in BAIJ: ours answers through an AIJ copy */
} MatBSRCustomMakers;
/* saves the base type's operations (base) in m and installs the wrappers on A (install), or puts them back */
PETSC_INTERN PetscErrorCode MatBSRCustomMakersInstall_Private(Mat A, const struct _MatOps *base, MatBSRCustomMakers *m, PetscBool install);

/* What GAMG asks beyond MatMult, through an AIJ copy of the matrix (bsrcustomaijtwin.c): the copy
   (borrowed, kept up to date), the graph of the blocks, sparse products with AIJ matrices */
PETSC_INTERN PetscErrorCode MatBSRCustomAIJTwin_Private(Mat A, Mat *aij);
PETSC_INTERN PetscErrorCode MatCreateGraph_BSRCustom(BSRC_CREATEGRAPH_PARAMS);
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_BSRCustom_AIJ(Mat C);
/* composes MatProductSetFromOptions_<ours>_<AIJ types>_C on A (install) or removes them */
PETSC_INTERN PetscErrorCode MatBSRCustomComposeAIJProducts_Private(Mat A, const char ours[], PetscBool install);

/* X -> ours through the base BAIJ type and our in-place convert */
PETSC_INTERN PetscErrorCode MatBSRCustomConvertViaBase_Private(Mat, MatType, PetscErrorCode (*)(Mat, MatType, MatReuse, Mat *), MatType, MatReuse, Mat *);

/* MatSetValues() with NULL values inserts zeros (AIJ does; BAIJ crashes): wraps BAIJ's setvalues. */
typedef PetscErrorCode (*MatBSRCustomSetValuesFn)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode);
PETSC_INTERN PetscErrorCode MatBSRCustomSetValuesAllowNull_Private(MatBSRCustomSetValuesFn, Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode);

/* AIJ-style per-row counts (scalar rows) -> per-block-row counts, ceil(max over the block's rows / bs),
   capped at cap; nnz may be NULL (then *bnnz = NULL). The caller frees *bnnz. */
PETSC_INTERN PetscErrorCode MatBSRCustomBlockCounts_Private(PetscInt, PetscInt, const PetscInt[], PetscInt, PetscInt **);

#endif
