/* Private pieces shared by seqbsrcustom and mpibsrcustom: settings and options, events, the types'
   entry points, coloring, what both wrap of BAIJ. The GPU plumbing they share: bsrcustomgpuimpl.h. */
#ifndef BSRCUSTOMIMPL_H
#define BSRCUSTOMIMPL_H

#include <petsc/private/matimpl.h>
#include <petscmatbsrcustom.h>
#include <../src/mat/impls/bsrcustom/bsrcustomcompat.h>
#include <../src/mat/impls/bsrcustom/backends/gpu/bsrcustomgpuimpl.h>
#include <../src/mat/impls/bsrcustom/backends/bsrcustombackend.h>

#define MATBSRCUSTOM_DEFAULT_CHUNKS_PER_THREAD 8
#define MATBSRCUSTOM_MAX_CHUNKS_PER_THREAD     (1 << 20)
#define MATBSRCUSTOM_MAX_THREADS               4096
#define MATBSRCUSTOM_DEFAULT_CPU_STREAMS       PETSC_DECIDE
#define MATBSRCUSTOM_DEFAULT_CPU_PREFETCH      8192      /* bytes: enough stream in flight beyond the hardware prefetchers' reach */
#define MATBSRCUSTOM_MAX_CPU_PREFETCH          (1 << 20) /* = BSRK_MAX_PREFETCH_BYTES of the kernel layer */

/* What a user sets on a matrix; the seq and mpi types (and an mpi matrix's local and ghost blocks) share it. */
typedef struct _MatBSRCustomSettings {
  PetscInt                  nthreads;          /* OpenMP threads of the CPU kernel */
  PetscBool                 nthreads_default;  /* nthreads is MatBSRCustomDefaultThreads_Private()'s (no option or setter chose it) */
  PetscInt                  chunks_per_thread; /* fixed-size tasks per thread */
  PetscInt                  cpu_streams;       /* tasks a thread walks at once: 1, 2, 4 or PETSC_DECIDE (MatBSRCustomCPUStreams_Private) */
  PetscInt                  cpu_prefetch;      /* bytes ahead of each block its values are prefetched; 0: none */
  MatBSRCustomSharedRows    shared_rows;
  MatBSRCustomBackend       backend;
  MatBSRCustomCUDAKernel    cuda_kernel;
  MatBSRCustomCUSPARSEAlg   cusparse_alg;
  PetscInt                  cuda_device;       /* GPU of the GPU backends; -1: node-local rank modulo visible GPUs */
  PetscBool                 cuda_pin_vectors;  /* GPU backends: page-lock host vectors' arrays on their second use */
  PetscBool                 cuda_pbjacobi;     /* GPU backends, CUDA-enabled PETSc: PCPBJACOBI applies on the GPU (bsrcustomblockdiag.c) */
  PetscBool                 huge_pages;        /* cpu backend: the values on transparent huge pages, asked at each new partition */
  PetscBool                 cpu_busy_fallback; /* cpu backend: the passive team while its products take less time than OpenMP's (bsrk_team) */
  PetscBool                 mpi_progress;      /* several ranks, cpu backend: MPI progress between the local product's tasks */
  MatBSRCustomTransposeMode transpose;         /* MatMultTranspose on the cached transposed copy (host or device) or BAIJ's */
} MatBSRCustomSettings;

PETSC_INTERN PetscErrorCode MatBSRCustomSettingsDefault_Private(MatBSRCustomSettings *);
/* The backend table of a matrix with these settings, bound to the CPU or not; the check that the
   backend they ask for can run here, naming `what` (backends/bsrcustombackend.c) */
PETSC_INTERN const MatBSRCustomBackendOps *MatBSRCustomBackendOf_Private(const MatBSRCustomSettings *set, PetscBool bound);
PETSC_INTERN PetscErrorCode                MatBSRCustomBackendCheck_Private(Mat A, const MatBSRCustomSettings *set, const char *what);
/* The tasks a thread of the cpu backend walks at once. PETSC_DECIDE: 2 on one thread, whose core
   alone must keep enough of the values in flight, and 1 on several, where memory bandwidth is the
   limit and one stream costs the fewest instructions. */
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
/* A's settings, read and written through the methods both types compose ("MatBSRCustomGetSettings_C",
   "MatBSRCustomSetSettings_C"); the setter checks them first, naming `what` in the error */
PETSC_INTERN PetscErrorCode MatBSRCustomGetSettings_Private(Mat, MatBSRCustomSettings *);
PETSC_INTERN PetscErrorCode MatBSRCustomSetSettings_Private(Mat, const MatBSRCustomSettings *, const char *what);
/* compose (install) or remove the implementations of the public setters and getters on A, as both
   types do with their other methods (options/bsrcustomsetcpu.c, options/bsrcustomsetgpu.c) */
PETSC_INTERN PetscErrorCode MatBSRCustomComposeCPUSettings_Private(Mat A, PetscBool install);
PETSC_INTERN PetscErrorCode MatBSRCustomComposeGPUSettings_Private(Mat A, PetscBool install);
/* The implementations behind a public MatBSRCustomSet<Name>() / MatBSRCustomGet<Name>() of one field:
   read A's settings, change the field, check them all, store them. */
#define BSRC_SETTING_SET(Name, Type, field) \
  static PetscErrorCode MatBSRCustomSet##Name##_BSRCustom(Mat A, Type value) \
  { \
    MatBSRCustomSettings set; \
    PetscFunctionBegin; \
    PetscCall(MatBSRCustomGetSettings_Private(A, &set)); \
    set.field = value; \
    PetscCall(MatBSRCustomSetSettings_Private(A, &set, "MatBSRCustomSet" #Name "()")); \
    PetscFunctionReturn(0); \
  }
#define BSRC_SETTING_GET(Name, Type, field) \
  static PetscErrorCode MatBSRCustomGet##Name##_BSRCustom(Mat A, Type *value) \
  { \
    MatBSRCustomSettings set; \
    PetscFunctionBegin; \
    PetscCall(MatBSRCustomGetSettings_Private(A, &set)); \
    *value = set.field; \
    PetscFunctionReturn(0); \
  }
/* composes "MatBSRCustomSet<Name>_C" and "MatBSRCustomGet<Name>_C" (install) or removes them */
#define BSRC_COMPOSE_SETTING(A, Name, install) \
  do { \
    PetscCall(PetscObjectComposeFunction((PetscObject)(A), "MatBSRCustomSet" #Name "_C", (install) ? MatBSRCustomSet##Name##_BSRCustom : NULL)); \
    PetscCall(PetscObjectComposeFunction((PetscObject)(A), "MatBSRCustomGet" #Name "_C", (install) ? MatBSRCustomGet##Name##_BSRCustom : NULL)); \
  } while (0)

/* Asks the kernel to back the 2 MiB-aligned interior of [p, p + bytes) with huge pages (Linux:
   madvise MADV_COLLAPSE, else MADV_HUGEPAGE); best effort: *granted says whether the kernel took
   it, -info how or why not. */
PETSC_INTERN PetscErrorCode MatBSRCustomAdviseHugePages_Private(Mat, const void *, size_t, PetscBool *);

/* PCPBJACOBI on the device: A's diagonal blocks as an aijcusparse matrix (seq/seqbsrcustomblockdiag.c);
   installs or removes the MATOP_GET_BLOCK_DIAGONAL operation where PETSc has it */
PETSC_INTERN PetscErrorCode MatBSRCustomInstallBlockDiagonal_Private(Mat A, PetscBool install);
/* the GPU backend's part of it (backends/gpu/bsrcustomgpublockdiag.c): whether PCPBJACOBI gets A's
   diagonal blocks for the GPU (*diag: the kept ones, referenced, where they are current), and their
   matrix made from the local block's values aa, block row r's diagonal block at where[r], then kept */
PETSC_INTERN PetscErrorCode MatBSRCustomGPUBlockDiagonalWanted_Private(Mat A, PetscBool *want, Mat *diag);
PETSC_INTERN PetscErrorCode MatBSRCustomGPUBlockDiagonalMake_Private(Mat A, PetscInt nbrows, const PetscInt where[], const PetscScalar aa[], Mat *diag);
/* a GPU product of A ran on v, a CUDA vector (on_device) or a host one: recorded for PCPBJACOBI's
   choice; a host vector is stopped while PCPBJACOBI holds A's diagonal blocks for the GPU (its GPU
   apply would read v as a CUDA vector). What was recorded (any: a GPU product ran; host: one on host
   vectors); the block diagonal kept for the GPU while current (NULL: none), and keeping one
   (backends/gpu/bsrcustomvecseen.c) */
PETSC_INTERN PetscErrorCode MatBSRCustomNoteVectors_Private(Mat A, Vec v, PetscBool on_device);
PETSC_INTERN PetscErrorCode MatBSRCustomVectorsSeen_Private(Mat A, PetscBool *any, PetscBool *host);
PETSC_INTERN PetscErrorCode MatBSRCustomDeviceBlockDiagonal_Private(Mat A, Mat *diag);
PETSC_INTERN PetscErrorCode MatBSRCustomDeviceBlockDiagonalKeep_Private(Mat A, Mat diag);
/* A's values as SeqBAIJ holds them (A a seqbaij or seqbsrcustom), read without counting as a change
   (seqbsrcustomvalues.c) */
/* MatAXPY with SUBSET_NONZERO_PATTERN merged row by row (seq/seqbsrcustomsubsetaxpy.c): for ours (*done
   false where it does not apply: the caller runs the type's own), and put on the MATSEQAIJ/MATMPIAIJ
   matrices ours makes */
PETSC_INTERN PetscErrorCode MatBSRCustomSubsetAXPY_Private(Mat Y, PetscScalar a, Mat X, MatStructure str, PetscBool *done);
PETSC_INTERN PetscErrorCode MatBSRCustomAIJSubsetAXPY_Private(Mat M);
/* a sequential matrix's own CSR arrays (blocks or scalars), without a copy (bsrcustomutils.c) */
PETSC_INTERN PetscErrorCode MatBSRCustomGetStructure_Private(Mat M, PetscBool blocks, PetscInt *n, const PetscInt **rowptr, const PetscInt **colidx);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomGetArrayRead_Private(Mat A, const PetscScalar **array);
PETSC_INTERN PetscErrorCode MatSeqBSRCustomRestoreArrayRead_Private(Mat A, const PetscScalar **array);
/* A's object state, first increased where A's values changed by a route that PETSc does not count
   (on several ranks: a change of the local or ghost block's values, seen through their states). Every
   copy derived from A's values keys on this (bsrcustomutils.c; "MatBSRCustomSyncState_C") */
PETSC_INTERN PetscErrorCode MatBSRCustomValuesState_Private(Mat A, PetscObjectState *state);
/* The block map of a COO list (bsrcustomcoo.c). rows[e]: a local scalar row; cols[e]: a scalar column
   key * bs + c in a compact space of nkeys block columns; either negative: ignored. Block columns
   (keys) below nsplit go to part[0], the others to part[1] with keys less nsplit (the MPI type's local
   and ghost blocks; one rank: nsplit = nkeys). Each part: its blocks as a block CSR over the mb block
   rows, columns sorted, and for each of its nvals stored values (block p, column-major: p * bs^2 +
   c * bs + i) the coordinates that land there, perm[jmap[v] .. jmap[v + 1]), in the order given.
   jmap and perm hold coordinate counts and positions, PetscInt (at most PETSC_MAX_INT coordinates on
   a rank): half the memory traffic of MatSetValuesCOO's pass where PetscInt has 32 bits. */
typedef struct {
  PetscInt  *ia, *ja;
  PetscCount nvals;
  PetscInt  *jmap, *perm;
} MatBSRCustomCOOPart;
/* What MatSetValuesCOO runs, made from a map's two parts (their values one after the other, part 0's
   first): the coordinates as (source, destination value) pairs, grouped by the thread that owns the
   destination (thread t: values vbound[t] .. vbound[t + 1], about equal shares of the coordinates) and
   in the order given within a group, so that each thread reads the caller's values as a stream and adds
   them into values no other thread writes. Sources: positions in the caller's array (then, on several
   ranks, in the received values). A thread's sources ascend and mostly one by one (an element's
   coordinates stay together), so they are kept as runs: run k is pairs run[k] .. run[k + 1] - 1, with
   sources run_src[k], run_src[k] + 1, ...; no run crosses a thread or the end of the caller's array.
   A pair that is the first to reach its value holds ~d instead of d (MatBSRCustomCOODst), so that
   INSERT_VALUES starts the value there and no pass zeroes the values first; the values no pair reaches
   are listed in zero. This leaves 4 bytes of index a coordinate for the pass to read. id: names this
   scatter among all made (a device copy of it follows). */
typedef struct _MatBSRCustomCOOScatter {
  PetscInt64 id;
  PetscInt   nthreads;
  PetscInt  *off;     /* nthreads + 1: thread t's pairs */
  PetscInt  *dst;     /* the pairs' destinations, in the values of part 0 then part 1 (~d: d's first) */
  PetscInt  *roff;    /* nthreads + 1: thread t's runs */
  PetscInt  *run;     /* runs + 1 */
  PetscInt  *run_src; /* runs */
  PetscInt  *zero;    /* nzero values no coordinate gives */
  PetscInt   nzero;
  PetscInt  *vbound; /* nthreads + 1 */
  PetscInt   nvals[2];
} MatBSRCustomCOOScatter;
/* the destination value of a pair's dst entry */
static inline PetscInt MatBSRCustomCOODst(PetscInt e)
{
  return e < 0 ? ~e : e;
}
/* nsrc sources, the first nfirst of them the caller's array */
PETSC_INTERN PetscErrorCode MatBSRCustomCOOScatterBuild_Private(const MatBSRCustomCOOPart part[2], PetscInt nsrc, PetscInt nfirst, PetscInt nthreads, MatBSRCustomCOOScatter *sc);
PETSC_INTERN PetscErrorCode MatBSRCustomCOOScatterFree_Private(MatBSRCustomCOOScatter *sc);
PETSC_INTERN PetscErrorCode MatBSRCustomCOOBuild_Private(PetscCount n, const PetscInt rows[], const PetscInt cols[], PetscInt bs, PetscInt mb, PetscInt nkeys, PetscInt nsplit, MatBSRCustomCOOPart part[2]);
PETSC_INTERN PetscErrorCode MatBSRCustomCOOPartFreeStructure_Private(MatBSRCustomCOOPart *part);
PETSC_INTERN PetscErrorCode MatBSRCustomCOOPartFree_Private(MatBSRCustomCOOPart *part);
/* a coordinate outside A (global indices; negative ones are ignored) is PETSC_ERR_ARG_OUTOFRANGE on
   every rank of A (collective) */
PETSC_INTERN PetscErrorCode MatBSRCustomCOODuplicate_Private(Mat A, Mat M, const char name[], PetscObjectState a_state, PetscObjectState *m_state);
PETSC_INTERN PetscErrorCode MatBSRCustomCOOCheckRange_Private(Mat A, PetscCount n, const PetscInt coo_i[], const PetscInt coo_j[]);

/* factorizations of (MPI)BAIJ registered under our type names (bsrcustomutils.c) */
PETSC_INTERN PetscErrorCode MatBSRCustomRegisterFactors_Private(void);
/* PCGAMG registered again, so that its classical AMG is given our AIJ copy (bsrcustomgamgclassical.c) */
PETSC_INTERN PetscErrorCode MatBSRCustomRegisterGAMG_Private(void);

/* The types' entry points, which the package registers (bsrcustom.c) and converts what BAIJ makes
   with (bsrcustomderived.c): MATSEQBSRCUSTOM in seq/, MATMPIBSRCUSTOM in mpi/. */
PETSC_INTERN PetscErrorCode MatCreate_SeqBSRCustom(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIBSRCustom(Mat);
PETSC_INTERN PetscErrorCode MatConvert_SeqBAIJ_SeqBSRCustom(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_MPIBAIJ_MPIBSRCustom(Mat, MatType, MatReuse, Mat *);

/* log events and registration */
/* BlockProduct: the block products' kernels alone (plan and numeric phase), inside PETSc's MatProduct events */
PETSC_INTERN PetscLogEvent  MATBSRCUSTOM_PartitionBuild, MATBSRCUSTOM_Kernel, MATBSRCUSTOM_Upload, MATBSRCUSTOM_UploadStructure, MATBSRCUSTOM_Graph, MATBSRCUSTOM_BlockProduct;
PETSC_INTERN PetscErrorCode MatBSRCustomInitializePackage(void);
/* The node this process runs on and the default thread count (bsrcustomnode.c). Learn: collective on
   comm, once per process, and only on a communicator congruent to PETSC_COMM_WORLD (elsewhere the
   launcher's node-local variables stand in); both types' creation calls it. Ranks: this rank among
   the node's ranks and their count, `from` naming the source. DefaultThreads: OMP_NUM_THREADS where
   set, else the node's cores / its ranks (at least 1, at most the cores this rank may run on), `why`
   saying which (why may be NULL). */
PETSC_INTERN PetscErrorCode MatBSRCustomNodeLearn_Private(MPI_Comm comm);
PETSC_INTERN void           MatBSRCustomNodeRanks_Private(PetscMPIInt *rank, PetscMPIInt *size, const char **from);
PETSC_INTERN PetscErrorCode MatBSRCustomDefaultThreads_Private(PetscInt *nthreads, char why[], size_t len);
/* why a matrix with these settings has set->nthreads threads, for MatView and -info */
PETSC_INTERN PetscErrorCode MatBSRCustomThreadsWhy_Private(const MatBSRCustomSettings *set, char why[], size_t len);

/* A DMDA gives non-"baij" types a coloring of scalar columns; BAIJ's FD coloring wants block columns. */
PETSC_INTERN PetscErrorCode MatBSRCustomBlockColoring_Private(Mat, ISColoring, ISColoring *);
/* runs fn (BAIJ's FD coloring create or set-up) under the base type name with a block coloring */
PETSC_INTERN PetscErrorCode MatBSRCustomFDColoringCall_Private(Mat, MatType, MatType, PetscErrorCode (*)(Mat, ISColoring, MatFDColoring), ISColoring, MatFDColoring);
PETSC_INTERN PetscErrorCode MatBSRCustomFDColoringHostWork_Private(MatFDColoring);

/* *B, a seqbaij or mpibaij matrix that a base-type operation just made from `from` (ours), becomes
   ours in place with from's settings; other types are left alone (bsrcustomderived.c). */
PETSC_INTERN PetscErrorCode MatBSRCustomAdopt_Private(Mat from, Mat *B);
PETSC_INTERN PetscErrorCode MatBSRCustomAdoptAll_Private(Mat from, PetscInt n, Mat B[]);
/* the base type's operations that make matrices, wrapped by both our types so that what they make is
   ours; the first member of both types' contexts (A->spptr), where the wrappers find it */
typedef struct {
  PetscErrorCode (*createsubmatrix)(Mat, IS, IS, MatReuse, Mat *);
  PetscErrorCode (*createsubmatrices)(Mat, PetscInt, const IS[], const IS[], MatReuse, Mat *[]);
  PetscErrorCode (*permute)(Mat, IS, IS, Mat *);
  PetscErrorCode (*creategraph)(BSRC_CREATEGRAPH_PARAMS); /* none in BAIJ: ours collapses its blocks (seq/seqbsrcustomgraph.c, installed by the types) */
} MatBSRCustomMakers;
/* Sub-matrices: whether the index sets are whole blocks on every rank of A's communicator (reused:
   the matrices of a MAT_REUSE_MATRIX, whose type decides), and the AIJ copy's route for those that
   are not (bsrcustomsubmatrixroute.c) */
PETSC_INTERN PetscErrorCode MatBSRCustomSubMatrixOnBlocks_Private(Mat A, PetscInt n, const IS rows[], const IS cols[], MatReuse reuse, const Mat reused[], PetscBool *blocks);
PETSC_INTERN PetscErrorCode MatBSRCustomSubMatrixOnAIJ_Private(Mat A, IS rows, IS cols, MatReuse reuse, Mat *B);
PETSC_INTERN PetscErrorCode MatBSRCustomSubMatricesOnAIJ_Private(Mat A, PetscInt n, const IS rows[], const IS cols[], MatReuse reuse, Mat *B[]);
/* saves the base type's operations (base) in m and installs the wrappers on A (install), or puts them back */
PETSC_INTERN PetscErrorCode MatBSRCustomMakersInstall_Private(Mat A, const struct _MatOps *base, MatBSRCustomMakers *m, PetscBool install);

/* MatConvert to MATHYPRE and MATIS through the AIJ copy, composed as MatConvert_<ours>_{hypre,is}_C
   where the base type has them (bsrcustomconvertviaaij.c) */
PETSC_INTERN PetscErrorCode MatBSRCustomComposeConvertersViaAIJ_Private(Mat A, const char base[], const char ours[], PetscBool install);

/* What GAMG asks beyond MatMult, through an AIJ copy of the matrix (bsrcustomaijtwin.c): the copy
   (borrowed, kept up to date), sparse products with AIJ matrices */
PETSC_INTERN PetscErrorCode MatBSRCustomAIJTwin_Private(Mat A, Mat *aij);
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_BSRCustom_AIJ(Mat C);
/* MatCreateGraph of both types, from the blocks (seq/seqbsrcustomgraph.c, installed by the types) */
PETSC_INTERN PetscErrorCode MatCreateGraph_BSRCustom(BSRC_CREATEGRAPH_PARAMS);
/* composes MatProductSetFromOptions_<ours>_<AIJ types>_C on A (install) or removes them */
PETSC_INTERN PetscErrorCode MatBSRCustomComposeAIJProducts_Private(Mat A, const char ours[], PetscBool install);

/* The lifecycle both types share (bsrcustomlifecycle.c). X -> ours through the base BAIJ type and our
   in-place convert; ours -> the base type through the type's own detach (restore = PETSC_TRUE). */
PETSC_INTERN PetscErrorCode MatBSRCustomConvertViaBase_Private(Mat, MatType, PetscErrorCode (*)(Mat, MatType, MatReuse, Mat *), MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatBSRCustomConvertToBase_Private(Mat A, PetscErrorCode (*detach)(Mat, PetscBool restore), MatReuse, Mat *);
/* a type's implementations of the methods that both types compose on their matrices */
typedef struct {
  const char *to_base_name; /* "MatConvert_<ours>_<base>_C" */
  PetscErrorCode (*to_base)(Mat, MatType, MatReuse, Mat *);
  PetscErrorCode (*get_settings)(Mat, MatBSRCustomSettings *);
  PetscErrorCode (*set_settings)(Mat, const MatBSRCustomSettings *);
  PetscErrorCode (*cuda_kernel_used)(Mat, MatBSRCustomCUDAKernel *);
  PetscErrorCode (*num_tasks)(Mat, PetscInt *);
} MatBSRCustomTypeMethods;
/* composes them (install) or removes them, with the public setters and getters of the settings */
PETSC_INTERN PetscErrorCode MatBSRCustomComposeTypeMethods_Private(Mat A, const MatBSRCustomTypeMethods *, PetscBool install);
/* stores settings and CPU binding where the type keeps them (held_*), with the backend table they
   choose, and A's vector type follows: one rule for a setter, MatBindToCPU and a duplicate */
PETSC_INTERN PetscErrorCode MatBSRCustomHoldSettings_Private(Mat A, const MatBSRCustomSettings *set, PetscBool bound, MatBSRCustomSettings *held_set, PetscBool *held_bound, const MatBSRCustomBackendOps **held_backend);

/* MatSetValues() with NULL values inserts zeros (AIJ does; BAIJ crashes): wraps BAIJ's setvalues. */
typedef PetscErrorCode (*MatBSRCustomSetValuesFn)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode);
PETSC_INTERN PetscErrorCode MatBSRCustomSetValuesAllowNull_Private(MatBSRCustomSetValuesFn, Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode);

/* AIJ-style counts (scalar rows) -> block counts that allow exactly what the counts allow, so that
   BAIJ's MAT_NEW_NONZERO_ALLOCATION_ERR is AIJ's: a block row whose rows' counts are equal and a
   multiple of bs (the counts of a block-structured pattern) gets count / bs blocks; any other, the
   sum of its rows' counts (each block holds an entry of one of its rows), at most cap. nnz may be NULL
   (then *bnnz = NULL). The caller frees *bnnz. */
PETSC_INTERN PetscErrorCode MatBSRCustomBlockCounts_Private(PetscInt, PetscInt, const PetscInt[], PetscInt, PetscInt **);
/* the same for one count nz a row (PETSC_DEFAULT and PETSC_DECIDE stay as they are) */
PETSC_INTERN PetscInt MatBSRCustomBlockCount_Private(PetscInt nz, PetscInt bs, PetscInt cap);

/* a scalar CSR (m rows of bs, columns in 0..N-1) as block counts per block row: all blocks, and those
   among the block columns [cstart, cend) (the diagonal part; the rest is off-diagonal) */
PETSC_INTERN PetscErrorCode MatBSRCustomCSRBlockCounts_Private(PetscInt m, PetscInt bs, const PetscInt i[], const PetscInt j[], PetscInt N, PetscInt cstart, PetscInt cend, PetscInt **dnnz, PetscInt **onnz);

/* X (a product's result, its product data kept) takes E's header, and a nonzerostate that no earlier
   structure of X had */
PETSC_INTERN PetscErrorCode MatBSRCustomHeaderReplaceKeepProduct_Private(Mat X, Mat *E);

#endif
