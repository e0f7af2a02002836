/*
   Registration of the bsrcustom types, the dispatching root name "bsrcustom", our log events,
   the options shared by the seq and mpi types, and the public setters.
*/
#include <../src/mat/impls/bsrcustom/seq/seqbsrcustomimpl.h>
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>
#include <../src/mat/impls/bsrcustom/mpi/mpibsrcustomimpl.h>
#include <../src/mat/impls/bsrcustom/cuda/bsrcuda_kernel_list.h>
#include <omp.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

const char *const MatBSRCustomSharedRowsTypes[] = {"carry", "atomic", "MatBSRCustomSharedRows", "MAT_BSRCUSTOM_SHARED_ROWS_", NULL};
const char *const MatBSRCustomBackends[]        = {"cpu", "cuda", "cusparse", "MatBSRCustomBackend", "MAT_BSRCUSTOM_BACKEND_", NULL};
#define BSRC_KERNEL_NAME(id, name, what) name,
const char *const MatBSRCustomCUDAKernels[] = {"auto", BSRC_CUDA_OWN_KERNELS(BSRC_KERNEL_NAME) "MatBSRCustomCUDAKernel", "MAT_BSRCUSTOM_CUDA_KERNEL_", NULL};
#undef BSRC_KERNEL_NAME
/* MatBSRCustomCUDAKernel names each kernel of the list by its position (AUTO first); a value outside
   the list is refused by MatBSRCustomSettingsCheck_Private(), which counts the list */
enum {
#define BSRC_KERNEL_POSITION(id, name, what) MatBSRCustomCUDAKernelPosition_##id,
  BSRC_CUDA_OWN_KERNELS(BSRC_KERNEL_POSITION)
#undef BSRC_KERNEL_POSITION
};
#define BSRC_KERNEL_SAME(id, name, what) _Static_assert((int)MAT_BSRCUSTOM_CUDA_KERNEL_##id == 1 + (int)MatBSRCustomCUDAKernelPosition_##id, "MatBSRCustomCUDAKernel and bsrcuda_kernel_list.h disagree at " #id);
BSRC_CUDA_OWN_KERNELS(BSRC_KERNEL_SAME)
#undef BSRC_KERNEL_SAME
const char *const MatBSRCustomTransposeModes[]  = {"cached", "baij", "MatBSRCustomTransposeMode", "MAT_BSRCUSTOM_TRANSPOSE_", NULL};
const char *const MatBSRCustomCUSPARSEAlgs[]    = {"bsrmv", "spmv", "MatBSRCustomCUSPARSEAlg", "MAT_BSRCUSTOM_CUSPARSE_", NULL};

PetscLogEvent    MATBSRCUSTOM_PartitionBuild = 0, MATBSRCUSTOM_Kernel = 0, MATBSRCUSTOM_Upload = 0;
static PetscBool MatBSRCustomPackageInitialized = PETSC_FALSE;

PETSC_INTERN PetscInt MatBSRCustomDefaultThreads(void)
{
  return (PetscInt)omp_get_max_threads();
}

static PetscErrorCode MatBSRCustomFinalizePackage(void)
{
  PetscFunctionBegin;
  MatBSRCustomPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomInitializePackage(void)
{
  PetscFunctionBegin;
  if (MatBSRCustomPackageInitialized) PetscFunctionReturn(0);
  MatBSRCustomPackageInitialized = PETSC_TRUE;
  PetscCall(MatInitializePackage());
  PetscCall(PetscLogEventRegister("BSRCustomTasks", MAT_CLASSID, &MATBSRCUSTOM_PartitionBuild));
  PetscCall(PetscLogEventRegister("BSRCustomKernel", MAT_CLASSID, &MATBSRCUSTOM_Kernel));
  PetscCall(PetscLogEventRegister("BSRCustomUpload", MAT_CLASSID, &MATBSRCUSTOM_Upload));
  PetscCall(MatRegister(MATSEQBSRCUSTOM, MatCreate_SeqBSRCustom));
  PetscCall(MatRegister(MATMPIBSRCUSTOM, MatCreate_MPIBSRCustom));
  PetscCall(MatRegisterRootName(MATBSRCUSTOM, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM));
  PetscCall(MatBSRCustomRegisterFactors_Private());
  PetscCall(PetscRegisterFinalize(MatBSRCustomFinalizePackage));
  PetscFunctionReturn(0);
}

/*@C
   MatBSRCustomRegisterAll - Registers MATBSRCUSTOM, MATSEQBSRCUSTOM and MATMPIBSRCUSTOM, their
   factorizations and log events. Programs that link libpetscbsrcustom call it once after
   PetscInitialize(); programs that load it with -dll_append need not (PETSc calls
   PetscDLLibraryRegister_petscbsrcustom()). Calling it again does nothing.

   Not Collective

   Level: beginner

.seealso: `MATBSRCUSTOM`, `MatCreateBSRCustom()`
@*/
PetscErrorCode MatBSRCustomRegisterAll(void)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomInitializePackage());
  PetscFunctionReturn(0);
}

/* What PETSc calls when -dll_append / -dll_prepend loads libpetscbsrcustom.so. */
PetscErrorCode PetscDLLibraryRegister_petscbsrcustom(void)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomInitializePackage());
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomSettingsDefault_Private(MatBSRCustomSettings *set)
{
  PetscFunctionBegin;
  set->nthreads          = MatBSRCustomDefaultThreads();
  set->chunks_per_thread = MATBSRCUSTOM_DEFAULT_CHUNKS_PER_THREAD;
  set->cpu_streams       = MATBSRCUSTOM_DEFAULT_CPU_STREAMS;
  set->cpu_prefetch      = MATBSRCUSTOM_DEFAULT_CPU_PREFETCH;
  set->shared_rows       = MAT_BSRCUSTOM_SHARED_ROWS_CARRY;
  set->backend           = MAT_BSRCUSTOM_BACKEND_CPU;
  set->cuda_kernel       = MAT_BSRCUSTOM_CUDA_KERNEL_AUTO;
  set->cusparse_alg      = MAT_BSRCUSTOM_CUSPARSE_BSRMV;
  set->cuda_device       = -1;
  set->cuda_pin_vectors  = PETSC_TRUE;
  set->cuda_pbjacobi     = PETSC_TRUE;
  set->huge_pages        = PETSC_TRUE;
  set->cpu_busy_fallback = PETSC_TRUE;
  set->transpose         = MAT_BSRCUSTOM_TRANSPOSE_CACHED;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomSettingsCheck_Private(Mat A, const MatBSRCustomSettings *set, const char *what)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  PetscCheck(set->nthreads >= 1 && set->nthreads <= MATBSRCUSTOM_MAX_THREADS, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: threads must be in [1, %d], got %" PetscInt_FMT, what, MATBSRCUSTOM_MAX_THREADS, set->nthreads);
  PetscCheck(set->chunks_per_thread >= 1 && set->chunks_per_thread <= MATBSRCUSTOM_MAX_CHUNKS_PER_THREAD, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: chunks per thread must be in [1, %d], got %" PetscInt_FMT, what, MATBSRCUSTOM_MAX_CHUNKS_PER_THREAD, set->chunks_per_thread);
  PetscCheck(set->cpu_streams == PETSC_DECIDE || set->cpu_streams == 1 || set->cpu_streams == 2 || set->cpu_streams == 4, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: CPU streams (tasks a thread walks at once) must be 1, 2, 4 or PETSC_DECIDE, got %" PetscInt_FMT, what, set->cpu_streams);
  PetscCheck(set->cpu_prefetch >= 0 && set->cpu_prefetch <= MATBSRCUSTOM_MAX_CPU_PREFETCH, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: CPU prefetch distance must be in [0, %d] bytes (0: no prefetch), got %" PetscInt_FMT, what, MATBSRCUSTOM_MAX_CPU_PREFETCH, set->cpu_prefetch);
  PetscCheck(set->shared_rows == MAT_BSRCUSTOM_SHARED_ROWS_CARRY || set->shared_rows == MAT_BSRCUSTOM_SHARED_ROWS_ATOMIC, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: unknown shared-rows mode %d", what, (int)set->shared_rows);
  PetscCheck(set->backend >= MAT_BSRCUSTOM_BACKEND_CPU && set->backend <= MAT_BSRCUSTOM_BACKEND_CUSPARSE, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: unknown backend %d", what, (int)set->backend);
  PetscCheck(set->cuda_kernel >= MAT_BSRCUSTOM_CUDA_KERNEL_AUTO && (int)set->cuda_kernel <= BSRC_CUDA_OWN_KERNEL_COUNT, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: unknown CUDA kernel %d", what, (int)set->cuda_kernel);
  PetscCheck(set->cusparse_alg == MAT_BSRCUSTOM_CUSPARSE_BSRMV || set->cusparse_alg == MAT_BSRCUSTOM_CUSPARSE_SPMV, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: unknown cuSPARSE routine %d", what, (int)set->cusparse_alg);
  PetscCheck(set->cuda_pin_vectors == PETSC_TRUE || set->cuda_pin_vectors == PETSC_FALSE, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: page-locking of host vectors must be PETSC_TRUE or PETSC_FALSE, got %d", what, (int)set->cuda_pin_vectors);
  PetscCheck(set->cuda_pbjacobi == PETSC_TRUE || set->cuda_pbjacobi == PETSC_FALSE, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: PBJacobi on the GPU must be PETSC_TRUE or PETSC_FALSE, got %d", what, (int)set->cuda_pbjacobi);
  PetscCheck(set->huge_pages == PETSC_TRUE || set->huge_pages == PETSC_FALSE, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: huge pages must be PETSC_TRUE or PETSC_FALSE, got %d", what, (int)set->huge_pages);
  PetscCheck(set->cpu_busy_fallback == PETSC_TRUE || set->cpu_busy_fallback == PETSC_FALSE, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: the busy-core fallback must be PETSC_TRUE or PETSC_FALSE, got %d", what, (int)set->cpu_busy_fallback);
  PetscCheck(set->transpose == MAT_BSRCUSTOM_TRANSPOSE_CACHED || set->transpose == MAT_BSRCUSTOM_TRANSPOSE_BAIJ, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: unknown transpose mode %d", what, (int)set->transpose);
  PetscCheck(set->cuda_device >= -1, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: CUDA device must be -1 (automatic: node-local rank modulo the visible GPUs) or a device number, got %" PetscInt_FMT, what, set->cuda_device);
  if (set->backend != MAT_BSRCUSTOM_BACKEND_CPU) {
    PetscCall(MatBSRCustomCUDAAvailable_Private(A, what));
    PetscCheck(set->cuda_device < MatBSRCustomCUDADeviceCount(), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: CUDA device %" PetscInt_FMT " asked for, but this process sees %" PetscInt_FMT " device(s) (numbered from 0 within CUDA_VISIBLE_DEVICES)", what, set->cuda_device, MatBSRCustomCUDADeviceCount());
  }
  PetscFunctionReturn(0);
}

/* PETSc's own integer parser does not name the option in its error; ours does. Like PETSc's, it
   takes PETSC_DECIDE or DECIDE (any case) for PETSC_DECIDE. */
static PetscErrorCode MatBSRCustomParseInt(Mat A, const char *option, const char *text, PetscInt *value)
{
  char     *end = NULL;
  long long v;
  PetscBool decide, decide2;

  PetscFunctionBegin;
  PetscCall(PetscStrcasecmp(text, "PETSC_DECIDE", &decide));
  PetscCall(PetscStrcasecmp(text, "DECIDE", &decide2));
  if (decide || decide2) {
    *value = PETSC_DECIDE;
    PetscFunctionReturn(0);
  }
  errno = 0;
  v     = strtoll(text, &end, 10);
  PetscCheck(end != text && *end == '\0' && errno == 0 && v >= PETSC_MIN_INT && v <= PETSC_MAX_INT, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "%s expects an integer, got \"%s\"", option, text);
  *value = (PetscInt)v;
  PetscFunctionReturn(0);
}

/* Booleans as PETSc spells them (true/yes/on/1, false/no/off/0, any case; no value = true), with
   an error that names the option (PetscOptionsStringToBool's does not). */
static PetscErrorCode MatBSRCustomParseBool(Mat A, const char *option, const char *text, PetscBool *value)
{
  const char *yes[] = {"", "true", "yes", "on", "1"}, *no[] = {"false", "no", "off", "0"};
  PetscBool   match;

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(yes); i++) {
    PetscCall(PetscStrcasecmp(text, yes[i], &match));
    if (match) {
      *value = PETSC_TRUE;
      PetscFunctionReturn(0);
    }
  }
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(no); i++) {
    PetscCall(PetscStrcasecmp(text, no[i], &match));
    if (match) {
      *value = PETSC_FALSE;
      PetscFunctionReturn(0);
    }
  }
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "%s expects a boolean (true/false, yes/no, on/off, 1/0), got \"%s\"", option, text);
}

/* Enum values are parsed here too: PETSc's enum reader leaks on a bad value and its message is generic. */
static PetscErrorCode MatBSRCustomParseEnum(Mat A, const char *option, const char *const *names, PetscInt n, const char *text, PetscInt *value)
{
  PetscBool found;
  char      choices[256] = "";

  PetscFunctionBegin;
  PetscCall(PetscEListFind(n, names, text, value, &found));
  if (found) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(PetscStrlcat(choices, i ? ", " : "", sizeof(choices)));
    PetscCall(PetscStrlcat(choices, names[i], sizeof(choices)));
  }
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_UNKNOWN_TYPE, "%s: unknown value \"%s\"; use one of: %s", option, text, choices);
}

/* A PETSc enum's names and their count: the array ends with the enum's name, its prefix and NULL. */
#define BSRC_ENUM_NAMES(names) names, (PetscInt)(PETSC_STATIC_ARRAY_LENGTH(names) - 3)

/* The options, one table for both readers below. */
typedef enum { BSRC_OPT_INT, BSRC_OPT_ENUM, BSRC_OPT_BOOL } BSRCOptKind;
typedef struct {
  const char        *name, *help, *man;
  BSRCOptKind        kind;
  const char *const *names; /* enum value names */
  PetscInt           nnames;
  size_t             offset; /* of the field in MatBSRCustomSettings */
} BSRCOption;

static const BSRCOption BSRCOptions[] = {
  {"-mat_bsrcustom_threads",           "OpenMP threads that run MatMult (default: OMP_NUM_THREADS)",       "MatBSRCustomSetNumThreads",      BSRC_OPT_INT,  NULL,                        0, offsetof(MatBSRCustomSettings, nthreads)         },
  {"-mat_bsrcustom_chunks_per_thread", "Fixed-size tasks per thread, cut at assembly",                     "MatBSRCustomSetChunksPerThread", BSRC_OPT_INT,  NULL,                        0, offsetof(MatBSRCustomSettings, chunks_per_thread)},
  {"-mat_bsrcustom_cpu_streams",       "cpu backend: tasks a thread walks at once, in lockstep (1, 2, 4; PETSC_DECIDE: 2 on one thread, else 1)",  "MatBSRCustomSetCPUStreams",      BSRC_OPT_INT,  NULL,                        0, offsetof(MatBSRCustomSettings, cpu_streams)      },
  {"-mat_bsrcustom_cpu_prefetch",      "cpu backend: bytes ahead of each block its values are prefetched (0: none)", "MatBSRCustomSetCPUPrefetch", BSRC_OPT_INT, NULL,                       0, offsetof(MatBSRCustomSettings, cpu_prefetch)     },
  {"-mat_bsrcustom_shared_rows",       "How a block row split between tasks is summed",                    "MatBSRCustomSetSharedRows",      BSRC_OPT_ENUM, BSRC_ENUM_NAMES(MatBSRCustomSharedRowsTypes), offsetof(MatBSRCustomSettings, shared_rows)      },
  {"-mat_bsrcustom_backend",           "Where MatMult runs: cpu (default), cuda or cusparse",              "MatBSRCustomSetBackend",         BSRC_OPT_ENUM, BSRC_ENUM_NAMES(MatBSRCustomBackends), offsetof(MatBSRCustomSettings, backend)          },
  {"-mat_bsrcustom_cuda_kernel",       "CUDA kernel of the cuda backend (auto picks per matrix)",          "MatBSRCustomSetCUDAKernel",      BSRC_OPT_ENUM, BSRC_ENUM_NAMES(MatBSRCustomCUDAKernels), offsetof(MatBSRCustomSettings, cuda_kernel)      },
  {"-mat_bsrcustom_cusparse_alg",      "cuSPARSE routine of the cusparse backend",                         "MatBSRCustomSetCUSPARSEAlg",     BSRC_OPT_ENUM, BSRC_ENUM_NAMES(MatBSRCustomCUSPARSEAlgs), offsetof(MatBSRCustomSettings, cusparse_alg)     },
  {"-mat_bsrcustom_cuda_device",       "GPU of the GPU backends (-1: node-local rank modulo visible GPUs)", "MatBSRCustomSetCUDADevice",      BSRC_OPT_INT,  NULL,                        0, offsetof(MatBSRCustomSettings, cuda_device)      },
  {"-mat_bsrcustom_cuda_pin_vectors",  "GPU backends: page-lock big host vectors on their second use",      "MatBSRCustomSetCUDAPinVectors",  BSRC_OPT_BOOL, NULL,                        0, offsetof(MatBSRCustomSettings, cuda_pin_vectors) },
  {"-mat_bsrcustom_cuda_pbjacobi",     "GPU backends, CUDA vectors: PCPBJACOBI gets the diagonal blocks for the GPU (host vectors then need false)", "MatBSRCustomSetCUDAPBJacobi", BSRC_OPT_BOOL, NULL, 0, offsetof(MatBSRCustomSettings, cuda_pbjacobi)},
  {"-mat_bsrcustom_huge_pages",        "cpu backend: put the matrix values on transparent huge pages",     "MatBSRCustomSetHugePages",       BSRC_OPT_BOOL, NULL,                        0, offsetof(MatBSRCustomSettings, huge_pages)       },
  {"-mat_bsrcustom_cpu_busy_fallback", "cpu backend: products on a team whose threads sleep between them while that is faster (cores busy with other work)", "MatBSRCustomSetCPUBusyFallback", BSRC_OPT_BOOL, NULL, 0, offsetof(MatBSRCustomSettings, cpu_busy_fallback)},
  {"-mat_bsrcustom_transpose",         "cpu backend: MatMultTranspose on a cached transposed copy (task kernel, the matrix's memory again) or BAIJ's serial code (no extra memory)", "MATSEQBSRCUSTOM", BSRC_OPT_ENUM, BSRC_ENUM_NAMES(MatBSRCustomTransposeModes), offsetof(MatBSRCustomSettings, transpose)},
};

static PetscErrorCode MatBSRCustomOptionValue(const MatBSRCustomSettings *set, const BSRCOption *o, char *buf, size_t len)
{
  const void *field = (const char *)set + o->offset;

  PetscFunctionBegin;
  if (o->kind == BSRC_OPT_INT) PetscCall(PetscSNPrintf(buf, len, "%" PetscInt_FMT, *(const PetscInt *)field));
  else if (o->kind == BSRC_OPT_BOOL) PetscCall(PetscStrncpy(buf, PetscBools[*(const PetscBool *)field], len));
  else PetscCall(PetscStrncpy(buf, o->names[*(const int *)field], len));
  PetscFunctionReturn(0);
}

/* The help line -help prints: the option's text and, for an enum or a boolean, its values. */
static PetscErrorCode MatBSRCustomOptionHelp(const BSRCOption *o, char *help, size_t len)
{
  PetscFunctionBegin;
  PetscCall(PetscStrncpy(help, o->help, len));
  if (o->kind == BSRC_OPT_INT) PetscFunctionReturn(0);
  PetscCall(PetscStrlcat(help, " (one of: ", len));
  if (o->kind == BSRC_OPT_BOOL) PetscCall(PetscStrlcat(help, "true, false", len));
  for (PetscInt k = 0; o->kind == BSRC_OPT_ENUM && k < o->nnames; k++) {
    PetscCall(PetscStrlcat(help, k ? ", " : "", len));
    PetscCall(PetscStrlcat(help, o->names[k], len));
  }
  PetscCall(PetscStrlcat(help, ")", len));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatBSRCustomOptionStore(Mat A, const BSRCOption *o, const char *text, MatBSRCustomSettings *set)
{
  void    *field = (char *)set + o->offset;
  PetscInt v;

  PetscFunctionBegin;
  if (o->kind == BSRC_OPT_INT) {
    PetscCall(MatBSRCustomParseInt(A, o->name, text, &v));
    *(PetscInt *)field = v;
  } else if (o->kind == BSRC_OPT_BOOL) {
    PetscCall(MatBSRCustomParseBool(A, o->name, text, (PetscBool *)field));
  } else {
    PetscCall(MatBSRCustomParseEnum(A, o->name, o->names, o->nnames, text, &v));
    *(int *)field = (int)v; /* the settings' enums */
  }
  PetscCall(MatBSRCustomSettingsCheck_Private(A, set, o->name));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomOptionsProcess_Private(Mat A, BSRCOptionItems PetscOptionsObject, MatBSRCustomSettings *set)
{
  char      buf[64];
  PetscBool flg;

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(BSRCOptions); i++) {
    const BSRCOption *o = &BSRCOptions[i];
    char              help[512];
    PetscCall(MatBSRCustomOptionHelp(o, help, sizeof(help)));
    PetscCall(MatBSRCustomOptionValue(set, o, buf, sizeof(buf)));
    PetscCall(PetscOptionsString(o->name, help, o->man, buf, buf, sizeof(buf), &flg));
    if (flg) PetscCall(MatBSRCustomOptionStore(A, o, buf, set));
  }
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomOptionsFromDatabase_Private(Mat A, MatBSRCustomSettings *set)
{
  char      buf[64];
  PetscBool flg;

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(BSRCOptions); i++) {
    PetscCall(PetscOptionsGetString(((PetscObject)A)->options, ((PetscObject)A)->prefix, BSRCOptions[i].name, buf, sizeof(buf), &flg));
    if (flg) PetscCall(MatBSRCustomOptionStore(A, &BSRCOptions[i], buf, set));
  }
  PetscFunctionReturn(0);
}

/*@C
   MatCreateBSRCustom - Creates a MATBSRCUSTOM matrix (MATSEQBSRCUSTOM on one rank, MATMPIBSRCUSTOM
   on several) with BAIJ-style block preallocation.

   Collective

   Input Parameters:
+  comm - MPI communicator
.  bs - block size
.  m, n - local rows and columns (or PETSC_DECIDE)
.  M, N - global rows and columns (or PETSC_DETERMINE)
.  d_nz, d_nnz - block nonzeros per block row in the diagonal part (d_nnz may be NULL)
-  o_nz, o_nnz - block nonzeros per block row in the off-diagonal part (ignored on one rank)

   Output Parameter:
.  A - the matrix

   Level: beginner

.seealso: `MATBSRCUSTOM`, `MatCreateBAIJ()`
@*/
PetscErrorCode MatCreateBSRCustom(MPI_Comm comm, PetscInt bs, PetscInt m, PetscInt n, PetscInt M, PetscInt N, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[], Mat *A)
{
  PetscFunctionBegin;
  PetscAssertPointer(A, 11);
  PetscCall(MatBSRCustomInitializePackage());
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, M, N));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, MATBSRCUSTOM));
  PetscCall(MatSeqBAIJSetPreallocation(*A, bs, d_nz, d_nnz));
  PetscCall(MatMPIBAIJSetPreallocation(*A, bs, d_nz, d_nnz, o_nz, o_nnz));
  PetscFunctionReturn(0);
}

/* Every setter: read the matrix's settings, change one, check them all, store them (seq or mpi). */
static PetscErrorCode MatBSRCustomGetSettings(Mat A, MatBSRCustomSettings *set)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatBSRCustomGetSettings_C", (Mat, MatBSRCustomSettings *), (A, set));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatBSRCustomSetSettings(Mat A, const MatBSRCustomSettings *set, const char *what)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomSettingsCheck_Private(A, set, what));
  PetscUseMethod(A, "MatBSRCustomSetSettings_C", (Mat, const MatBSRCustomSettings *), (A, set));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetChunksPerThread - Sets how many fixed-size tasks per thread the nonzero blocks are
   cut into (the partition is rebuilt at the next MatMult or assembly).

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  chunks - tasks per thread, >= 1 (default 8)

   Options Database Key:
.  -mat_bsrcustom_chunks_per_thread <c> - tasks per thread

   Level: intermediate

.seealso: `MATBSRCUSTOM`, `MatBSRCustomSetNumThreads()`, `MatBSRCustomGetNumTasks()`
@*/
PetscErrorCode MatBSRCustomSetChunksPerThread(Mat A, PetscInt chunks)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, chunks, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  set.chunks_per_thread = chunks;
  PetscCall(MatBSRCustomSetSettings(A, &set, "MatBSRCustomSetChunksPerThread()"));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetChunksPerThread - Gets the fixed-size tasks per thread.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  chunks - tasks per thread

   Level: intermediate

.seealso: `MatBSRCustomSetChunksPerThread()`
@*/
PetscErrorCode MatBSRCustomGetChunksPerThread(Mat A, PetscInt *chunks)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscAssertPointer(chunks, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  *chunks = set.chunks_per_thread;
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCPUStreams - Sets how many of its tasks each thread of the cpu backend walks at
   once, block by block in lockstep (block sizes 1..8; larger blocks walk one). The tasks are a
   fixed fraction of the matrix apart, so a thread reads that many separate stretches of the
   values, which some processors stream faster than one. With shared rows by carry (the default)
   the product is the same, bit for bit.

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  streams - 1, 2, 4 or PETSC_DECIDE (the default: 2 when the product runs on one thread, 1 on several)

   Options Database Key:
.  -mat_bsrcustom_cpu_streams <s> - tasks a thread walks at once (1, 2, 4 or PETSC_DECIDE)

   Note:
   Measured in docs/performance.md (CPU section, "Vector accumulators, an inlined row loop and the
   streams by thread count"). With all cores busy, one stream and two ran alike on a 16-core Xeon host,
   and one was faster on a 2-core EPYC VM. A lone thread on that Xeon read 10-25 % faster with two
   streams, and 5 % slower on the EPYC; PETSC_DECIDE takes two for one thread.

   Level: advanced

.seealso: `MATBSRCUSTOM`, `MatBSRCustomSetChunksPerThread()`, `MatBSRCustomSetNumThreads()`
@*/
PetscErrorCode MatBSRCustomSetCPUStreams(Mat A, PetscInt streams)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, streams, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  set.cpu_streams = streams;
  PetscCall(MatBSRCustomSetSettings(A, &set, "MatBSRCustomSetCPUStreams()"));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCPUPrefetch - Sets how far ahead of each block the cpu backend prefetches the
   matrix values (prefetcht0, every cache line of a block), so that more of the stream is on its way
   from memory than the hardware prefetchers keep in flight. The product is the same, bit for bit.

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  bytes - distance in bytes, 0 to 1048576; 0 prefetches nothing (default 8192)

   Options Database Key:
.  -mat_bsrcustom_cpu_prefetch <bytes> - prefetch distance

   Note:
   Measured in docs/performance.md (CPU section, "Block sums and prefetch"): 8192 bytes took one
   thread of a 2-core EPYC VM from 27-34 to 37-42 GB/s, and 16 threads of a 16-core Xeon host
   (matrices of 746-836 MB) from 91-99 to 112-118 GB/s.

   Level: advanced

.seealso: `MATBSRCUSTOM`, `MatBSRCustomSetCPUStreams()`, `MatBSRCustomSetHugePages()`
@*/
PetscErrorCode MatBSRCustomSetCPUPrefetch(Mat A, PetscInt bytes)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, bytes, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  set.cpu_prefetch = bytes;
  PetscCall(MatBSRCustomSetSettings(A, &set, "MatBSRCustomSetCPUPrefetch()"));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetCPUPrefetch - Gets how far ahead of each block the cpu backend prefetches the values.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  bytes - the distance in bytes; 0: no prefetch

   Level: advanced

.seealso: `MatBSRCustomSetCPUPrefetch()`
@*/
PetscErrorCode MatBSRCustomGetCPUPrefetch(Mat A, PetscInt *bytes)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscAssertPointer(bytes, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  *bytes = set.cpu_prefetch;
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetCPUStreams - Gets how many tasks each thread of the cpu backend walks at once.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  streams - 1, 2, 4 or PETSC_DECIDE, as set (`MatView()` shows the count a thread walks)

   Level: advanced

.seealso: `MatBSRCustomSetCPUStreams()`
@*/
PetscErrorCode MatBSRCustomGetCPUStreams(Mat A, PetscInt *streams)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscAssertPointer(streams, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  *streams = set.cpu_streams;
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetNumThreads - Sets the OpenMP threads that run MatMult/MatMultAdd on this matrix.

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  nthreads - threads, >= 1, or PETSC_DEFAULT for omp_get_max_threads() (OMP_NUM_THREADS)

   Options Database Key:
.  -mat_bsrcustom_threads <n> - threads

   Level: intermediate

.seealso: `MatBSRCustomSetChunksPerThread()`
@*/
PetscErrorCode MatBSRCustomSetNumThreads(Mat A, PetscInt nthreads)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, nthreads, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  set.nthreads = nthreads == PETSC_DEFAULT ? MatBSRCustomDefaultThreads() : nthreads;
  PetscCall(MatBSRCustomSetSettings(A, &set, "MatBSRCustomSetNumThreads()"));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetNumThreads - Gets the OpenMP threads that run MatMult on this matrix.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  nthreads - threads

   Level: intermediate

.seealso: `MatBSRCustomSetNumThreads()`
@*/
PetscErrorCode MatBSRCustomGetNumThreads(Mat A, PetscInt *nthreads)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscAssertPointer(nthreads, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  *nthreads = set.nthreads;
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetSharedRows - Chooses how a block row split between two tasks is summed:
   MAT_BSRCUSTOM_SHARED_ROWS_CARRY (each task keeps its partial sum, added after the parallel loop;
   results do not depend on thread timing) or MAT_BSRCUSTOM_SHARED_ROWS_ATOMIC (one atomic add per
   element of each shared task-row).

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  mode - the mode

   Options Database Key:
.  -mat_bsrcustom_shared_rows <carry,atomic> - the mode

   Level: advanced

.seealso: `MatBSRCustomSetChunksPerThread()`
@*/
PetscErrorCode MatBSRCustomSetSharedRows(Mat A, MatBSRCustomSharedRows mode)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscValidLogicalCollectiveEnum(A, mode, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  set.shared_rows = mode;
  PetscCall(MatBSRCustomSetSettings(A, &set, "MatBSRCustomSetSharedRows()"));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetSharedRows - Gets how split block rows are summed.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  mode - the mode

   Level: advanced

.seealso: `MatBSRCustomSetSharedRows()`
@*/
PetscErrorCode MatBSRCustomGetSharedRows(Mat A, MatBSRCustomSharedRows *mode)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscAssertPointer(mode, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  *mode = set.shared_rows;
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetBackend - Chooses where MatMult/MatMultAdd run: MAT_BSRCUSTOM_BACKEND_CPU (default,
   OpenMP), MAT_BSRCUSTOM_BACKEND_CUDA (our kernels on the GPU) or MAT_BSRCUSTOM_BACKEND_CUSPARSE
   (cuSPARSE on the same device storage, the baseline). The GPU backends need a build with CUDA and a
   visible GPU; otherwise this fails with PETSC_ERR_SUP / PETSC_ERR_SUP_SYS saying which is missing.

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  backend - the backend

   Options Database Key:
.  -mat_bsrcustom_backend <cpu,cuda,cusparse> - the backend

   Notes:
   With host vectors (Debian's PETSc has no others), each product stages x to the device and y back
   through pinned buffers; large vectors are page-locked on their second use so that their transfers
   skip that copy (see MatBSRCustomSetCUDAPinVectors()). Where PETSc itself has CUDA vectors, their
   device arrays are used directly.

   Level: beginner

.seealso: `MatBSRCustomSetCUDAKernel()`, `MatBSRCustomSetCUSPARSEAlg()`
@*/
PetscErrorCode MatBSRCustomSetBackend(Mat A, MatBSRCustomBackend backend)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscValidLogicalCollectiveEnum(A, backend, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  set.backend = backend;
  PetscCall(MatBSRCustomSetSettings(A, &set, "MatBSRCustomSetBackend()"));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetBackend - Gets where MatMult runs.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  backend - the backend

   Level: beginner

.seealso: `MatBSRCustomSetBackend()`
@*/
PetscErrorCode MatBSRCustomGetBackend(Mat A, MatBSRCustomBackend *backend)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscAssertPointer(backend, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  *backend = set.backend;
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCUDAKernel - Chooses the CUDA kernel of the cuda backend; MAT_BSRCUSTOM_CUDA_KERNEL_AUTO
   (default) picks one per matrix from its block size and row-length statistics: sliced for short,
   even block rows of 2x2 to 4x4 blocks (at most 1 KiB of values a row on average: 7-point stencils,
   2D Jacobians) and for uneven rows of 2x2 and 4x4 blocks (power-law lengths, a mean row of 4
   blocks to 2 KiB), warp_row for the other short, even block rows (PDE stencils), vector_unrolled for long,
   even ones, hybrid for the other uneven rows (a group of lanes per short row, the long rows cut
   into warp-sized pieces). sliced runs a lane per block row on its own copy of the matrix, built on
   the device at its first product and after each change of values, in slices of 32 rows stored step
   by step: the matrix then takes twice its device memory (MatView reports it), which warp_row or
   hybrid avoid at a cost of 2-7 % in time on such matrices (H100). On rows of uneven length its copy
   sorts the rows by length and gives a longer row a group of 2-32 lanes (a row of more than 1024
   blocks whole slices, added up by the warp that finishes its last); with scalar blocks that is
   slower than hybrid. segmented (a warp per strip of up to 32 rows, walked as one run with a
   segmented warp scan) is never auto's choice: it ties hybrid on scalar power-law rows and is
   slower elsewhere (docs/performance.md).

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  kernel - the kernel

   Options Database Key:
.  -mat_bsrcustom_cuda_kernel <auto,rowmajor_shared,thread_private,team_scalar,vector_unrolled,warp_row,hybrid,segmented,sliced> - the kernel

   Level: intermediate

.seealso: `MatBSRCustomSetBackend()`, `MatBSRCustomGetCUDAKernel()`
@*/
PetscErrorCode MatBSRCustomSetCUDAKernel(Mat A, MatBSRCustomCUDAKernel kernel)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscValidLogicalCollectiveEnum(A, kernel, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  set.cuda_kernel = kernel;
  PetscCall(MatBSRCustomSetSettings(A, &set, "MatBSRCustomSetCUDAKernel()"));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetCUDAKernel - Gets the CUDA kernel asked for and the one that runs (what auto
   resolves to on this matrix, or on this rank's local block).

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameters:
+  requested - the kernel asked for (may be NULL)
-  used - the kernel that runs; AUTO until the matrix was uploaded (may be NULL)

   Level: intermediate

.seealso: `MatBSRCustomSetCUDAKernel()`
@*/
PetscErrorCode MatBSRCustomGetCUDAKernel(Mat A, MatBSRCustomCUDAKernel *requested, MatBSRCustomCUDAKernel *used)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetSettings(A, &set));
  if (requested) *requested = set.cuda_kernel;
  if (used) PetscUseMethod(A, "MatBSRCustomGetCUDAKernelUsed_C", (Mat, MatBSRCustomCUDAKernel *), (A, used));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCUSPARSEAlg - Chooses the cuSPARSE routine of the cusparse backend:
   MAT_BSRCUSTOM_CUSPARSE_BSRMV (cusparseDbsrmv on BAIJ's column-major blocks, default) or
   MAT_BSRCUSTOM_CUSPARSE_SPMV (cusparseSpMV with a BSR descriptor).

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  alg - the routine

   Options Database Key:
.  -mat_bsrcustom_cusparse_alg <bsrmv,spmv> - the routine

   Level: intermediate

.seealso: `MatBSRCustomSetBackend()`
@*/
PetscErrorCode MatBSRCustomSetCUSPARSEAlg(Mat A, MatBSRCustomCUSPARSEAlg alg)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscValidLogicalCollectiveEnum(A, alg, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  set.cusparse_alg = alg;
  PetscCall(MatBSRCustomSetSettings(A, &set, "MatBSRCustomSetCUSPARSEAlg()"));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetCUSPARSEAlg - Gets the cuSPARSE routine of the cusparse backend.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  alg - the routine

   Level: intermediate

.seealso: `MatBSRCustomSetCUSPARSEAlg()`
@*/
PetscErrorCode MatBSRCustomGetCUSPARSEAlg(Mat A, MatBSRCustomCUSPARSEAlg *alg)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscAssertPointer(alg, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  *alg = set.cusparse_alg;
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCUDADevice - Chooses the GPU that the cuda and cusparse backends of this matrix use.
   The default, -1, binds each MPI rank to the GPU numbered (node-local rank) modulo (visible GPUs),
   the node-local rank coming from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED); CUDA_VISIBLE_DEVICES
   narrows and renumbers the GPUs a process sees, as usual. Several ranks may share one GPU.

   Logically Collective (the device may differ between ranks)

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  device - a device number in [0, visible GPUs), or -1 for the automatic binding

   Options Database Key:
.  -mat_bsrcustom_cuda_device <-1> - the device

   Notes:
   A matrix already on a GPU moves to the new one at its next product.

   Level: intermediate

.seealso: `MatBSRCustomGetCUDADevice()`, `MatBSRCustomSetBackend()`
@*/
PetscErrorCode MatBSRCustomSetCUDADevice(Mat A, PetscInt device)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetSettings(A, &set));
  set.cuda_device = device;
  PetscCall(MatBSRCustomSetSettings(A, &set, "MatBSRCustomSetCUDADevice()"));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCUDAPinVectors - Chooses whether the cuda and cusparse backends page-lock
   (cudaHostRegister) the arrays of the host vectors that this matrix's products read and write,
   so that x and y move by DMA straight from and to the vectors' own arrays instead of through a
   host copy into pinned buffers (the copy runs at 11-20 GB/s on an H100 host, the DMA at 51 GB/s).

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  pin - PETSC_TRUE (default) to page-lock, PETSC_FALSE to always stage through pinned buffers

   Options Database Key:
.  -mat_bsrcustom_cuda_pin_vectors <true,false> - page-lock host vectors

   Notes:
   Only VECSEQ and VECMPI vectors whose array PETSc allocated and that hold at least 64 KiB on this
   rank are page-locked, on their second use by a product (a vector used once is not worth the
   registration), and only while their own array is in place (an array given with VecPlaceArray()
   is staged). The page-locking ends when the vector is destroyed or its array replaced
   (VecReplaceArray()). A failure to page-lock is no error: the vector is staged from then on and
   -info says why. Turning the option off stops new page-locking; vectors already page-locked stay
   so until they are destroyed. Page-locked memory is taken from the host's physical memory for as
   long as the vectors live.

   Level: advanced

.seealso: `MatBSRCustomGetCUDAPinVectors()`, `MatBSRCustomSetBackend()`
@*/
PetscErrorCode MatBSRCustomSetCUDAPinVectors(Mat A, PetscBool pin)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscValidLogicalCollectiveBool(A, pin, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  set.cuda_pin_vectors = pin;
  PetscCall(MatBSRCustomSetSettings(A, &set, "MatBSRCustomSetCUDAPinVectors()"));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCUDAPBJacobi - Chooses whether, on a GPU backend of a PETSc configured with CUDA,
   this matrix gives PCPBJACOBI its diagonal blocks as a MATAIJCUSPARSE matrix, so that the
   preconditioner applies its inverse blocks on the GPU (a batched GEMV on CUDA vectors) and a Krylov
   iteration copies no vector between host and device.

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  flg - PETSC_TRUE (default) for PBJacobi on the GPU, PETSC_FALSE for PETSc's host PBJacobi

   Options Database Key:
.  -mat_bsrcustom_cuda_pbjacobi <true,false> - PBJacobi on the GPU

   Notes:
   PETSc's GPU PBJacobi needs CUDA vectors, as MATAIJCUSPARSE's products do. A program that solves
   with host vectors (VECSTANDARD, -vec_type standard) on a GPU backend sets this to PETSC_FALSE; a
   product of this matrix on host vectors while its device diagonal blocks are in use stops with
   PETSC_ERR_ARG_INCOMP saying so. No effect on the cpu backend, on a matrix bound to the CPU, or with
   a PETSc without CUDA (Debian's 3.18): PBJacobi then runs on the host.

   Level: advanced

.seealso: `MatBSRCustomGetCUDAPBJacobi()`, `MatBSRCustomSetBackend()`, `PCPBJACOBI`
@*/
PetscErrorCode MatBSRCustomSetCUDAPBJacobi(Mat A, PetscBool flg)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscValidLogicalCollectiveBool(A, flg, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  set.cuda_pbjacobi = flg;
  PetscCall(MatBSRCustomSetSettings(A, &set, "MatBSRCustomSetCUDAPBJacobi()"));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetCUDAPBJacobi - Gets whether PCPBJACOBI applies on the GPU with this matrix.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  flg - whether the diagonal blocks go to PCPBJACOBI for the GPU

   Level: advanced

.seealso: `MatBSRCustomSetCUDAPBJacobi()`
@*/
PetscErrorCode MatBSRCustomGetCUDAPBJacobi(Mat A, PetscBool *flg)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscAssertPointer(flg, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  *flg = set.cuda_pbjacobi;
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetCUDAPinVectors - Gets whether the GPU backends page-lock host vectors.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  pin - whether large host vectors are page-locked on their second use

   Level: advanced

.seealso: `MatBSRCustomSetCUDAPinVectors()`
@*/
PetscErrorCode MatBSRCustomGetCUDAPinVectors(Mat A, PetscBool *pin)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscAssertPointer(pin, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  *pin = set.cuda_pin_vectors;
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetHugePages - Chooses whether the cpu backend asks the operating system to back the
   matrix values with transparent huge pages (2 MiB), so that its threads stream them with fewer TLB
   misses and with hardware prefetching that does not stop at every 4 KiB page.

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  huge - PETSC_TRUE (default) to ask, PETSC_FALSE to leave the values' pages as they are

   Options Database Key:
.  -mat_bsrcustom_huge_pages <true,false> - put the values on huge pages

   Notes:
   Asked for when the task partition is built (the first assembly of a nonzero structure, and after a
   change of threads or chunks): on Linux with madvise(MADV_COLLAPSE), which moves the values onto
   huge pages at once (kernel 6.1 and later), else with MADV_HUGEPAGE. Only whole 2 MiB pages inside
   the values array are affected; the values themselves do not change, and nothing happens to
   arrays below 2 MiB. A refusal (transparent huge pages disabled, an older kernel, another
   operating system) is no error: -info and MatView say what happened. The gain measured varies
   and is noisy: thesis matrix MatMult, 16 threads of the H100 machine's host, 8 % in two A/B pairs and
   no clear difference in three more (that host's STREAM triad moved between 49 and 131 GB/s);
   2 threads of a 2-core VM, 3.5 % (medians of three) in one session and 20 % (medians of five
   alternated pairs) in another. docs/performance.md has the commands.

   Level: advanced

.seealso: `MatBSRCustomGetHugePages()`, `MatBSRCustomSetNumThreads()`
@*/
PetscErrorCode MatBSRCustomSetHugePages(Mat A, PetscBool huge)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscValidLogicalCollectiveBool(A, huge, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  set.huge_pages = huge;
  PetscCall(MatBSRCustomSetSettings(A, &set, "MatBSRCustomSetHugePages()"));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCPUBusyFallback - Chooses whether the cpu backend may run its products on a team
   of threads that sleep between products instead of its OpenMP team, when other work keeps the
   cores busy.

   Logically Collective

   Input Parameters:
+  A - a MATBSRCUSTOM matrix
-  fallback - PETSC_TRUE (default) or PETSC_FALSE (always the OpenMP team)

   Options Database Key:
.  -mat_bsrcustom_cpu_busy_fallback <true,false> - the busy-core fallback

   Notes:
   An OpenMP team waits for its slowest thread at the end of each product, and its idle threads
   spin between products. When other processes (a compile, more ranks than cores) keep the cores
   busy, the spinning threads use up their turns and products can take many times longer than on an
   idle machine. With the fallback, each matrix times its products: its first ones alternate between
   the OpenMP team and the passive team (whose threads sleep, and whose calling thread never waits
   for a thread that took no task), and the faster becomes the matrix's choice. While the OpenMP
   team's products keep their usual time nothing more happens; when they slow down, the passive team
   is tried again, and while it is the choice, the OpenMP team is tried about every 0.25 to 2
   seconds. The product is the same, bit for bit (shared rows by carry). -info says when a matrix
   changes team, MatView which it uses and the times measured.

   Level: advanced

.seealso: `MatBSRCustomGetCPUBusyFallback()`, `MatBSRCustomSetNumThreads()`
@*/
PetscErrorCode MatBSRCustomSetCPUBusyFallback(Mat A, PetscBool fallback)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscValidLogicalCollectiveBool(A, fallback, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  set.cpu_busy_fallback = fallback;
  PetscCall(MatBSRCustomSetSettings(A, &set, "MatBSRCustomSetCPUBusyFallback()"));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetCPUBusyFallback - Gets whether the cpu backend falls back to one thread on busy cores.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  fallback - whether the fallback is on

   Level: advanced

.seealso: `MatBSRCustomSetCPUBusyFallback()`
@*/
PetscErrorCode MatBSRCustomGetCPUBusyFallback(Mat A, PetscBool *fallback)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscAssertPointer(fallback, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  *fallback = set.cpu_busy_fallback;
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetHugePages - Gets whether the cpu backend asks for huge pages for the matrix values.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  huge - whether huge pages are asked for

   Level: advanced

.seealso: `MatBSRCustomSetHugePages()`
@*/
PetscErrorCode MatBSRCustomGetHugePages(Mat A, PetscBool *huge)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscAssertPointer(huge, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  *huge = set.huge_pages;
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetCUDADevice - Gets the GPU that this rank's part of the matrix uses (or will use)
   with a GPU backend: the one asked for, or the automatic binding's choice.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  device - the device number, within CUDA_VISIBLE_DEVICES; -1 when this build has no CUDA or no GPU is visible

   Level: intermediate

.seealso: `MatBSRCustomSetCUDADevice()`
@*/
PetscErrorCode MatBSRCustomGetCUDADevice(Mat A, PetscInt *device)
{
  MatBSRCustomSettings set;
  char                 how[8];

  PetscFunctionBegin;
  PetscAssertPointer(device, 2);
  PetscCall(MatBSRCustomGetSettings(A, &set));
  PetscCall(MatBSRCustomCUDADevice_Private(A, &set, device, how, sizeof(how)));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetNumTasks - Gets the number of fixed-size tasks of an assembled matrix (on several
   ranks: of this rank's local block).

   Not Collective

   Input Parameter:
.  A - an assembled MATBSRCUSTOM matrix

   Output Parameter:
.  ntasks - the tasks (at most threads x chunks per thread; fewer when there are fewer blocks)

   Level: advanced

.seealso: `MatBSRCustomSetChunksPerThread()`
@*/
PetscErrorCode MatBSRCustomGetNumTasks(Mat A, PetscInt *ntasks)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(ntasks, 2);
  PetscUseMethod(A, "MatBSRCustomGetNumTasks_C", (Mat, PetscInt *), (A, ntasks));
  PetscFunctionReturn(0);
}

/*@C
   MatBSRCustomGetLocalAndGhost - Gets the pieces of this rank's share of an assembled MATMPIBSRCUSTOM
   matrix: the local block (own columns), the ghost block (off-rank columns, compressed), the ghost
   block columns in global numbering, and the halo scatter with its ghost vector. For diagnostics and
   benchmarks (e.g. timing the halo exchange alone); do not destroy what it returns.

   Not Collective

   Input Parameter:
.  A - an assembled MATMPIBSRCUSTOM matrix

   Output Parameters (each may be NULL):
+  local - the local block, a MATSEQBSRCUSTOM
.  ghost - the ghost block, a MATSEQBSRCUSTOM with nghost block columns
.  nghost - the number of ghost block columns
.  ghost_cols - their global block column numbers
.  halo - the scatter that fills ghost_x from a vector of A's column layout
-  ghost_x - the ghost values of x

   Level: developer

.seealso: `MATMPIBSRCUSTOM`
@*/
PetscErrorCode MatBSRCustomGetLocalAndGhost(Mat A, Mat *local, Mat *ghost, PetscInt *nghost, const PetscInt *ghost_cols[], VecScatter *halo, Vec *ghost_x)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatBSRCustomGetLocalAndGhost_C", (Mat, Mat *, Mat *, PetscInt *, const PetscInt **, VecScatter *, Vec *), (A, local, ghost, nghost, ghost_cols, halo, ghost_x));
  PetscFunctionReturn(0);
}
