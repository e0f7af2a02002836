/*
   The settings of a matrix (MatBSRCustomSettings): the names of their public enums, their defaults,
   their checks, the option table that both readers of the options database walk (MatSetFromOptions
   and creation), and the access that the public setters and getters (bsrcustomsetcpu.c,
   bsrcustomsetgpu.c) go through.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>
#include <../src/mat/impls/bsrcustom/cuda/bsrcuda_kernel_list.h>
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
const char *const MatBSRCustomCUSPARSEAlgs[]   = {"bsrmv", "spmv", "MatBSRCustomCUSPARSEAlg", "MAT_BSRCUSTOM_CUSPARSE_", NULL};
const char *const MatBSRCustomTransposeModes[] = {"cached", "baij", "MatBSRCustomTransposeMode", "MAT_BSRCUSTOM_TRANSPOSE_", NULL};

PETSC_INTERN PetscErrorCode MatBSRCustomSettingsDefault_Private(MatBSRCustomSettings *set)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomDefaultThreads_Private(&set->nthreads, NULL, 0));
  set->nthreads_default  = PETSC_TRUE;
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
  set->mpi_progress      = PETSC_TRUE;
  set->transpose         = MAT_BSRCUSTOM_TRANSPOSE_CACHED;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomSettingsCheck_Private(Mat A, const MatBSRCustomSettings *set, const char *what)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  PetscCheck(set->nthreads >= 1 && set->nthreads <= MATBSRCUSTOM_MAX_THREADS, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: threads must be in [1, %d], got %" PetscInt_FMT, what, MATBSRCUSTOM_MAX_THREADS, set->nthreads);
  PetscCheck(set->chunks_per_thread >= 1 && set->chunks_per_thread <= MATBSRCUSTOM_MAX_CHUNKS_PER_THREAD, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: chunks per thread must be in [1, %d], got %" PetscInt_FMT, what, MATBSRCUSTOM_MAX_CHUNKS_PER_THREAD, set->chunks_per_thread);
  PetscCheck(set->cpu_streams == PETSC_DECIDE || set->cpu_streams == 1 || set->cpu_streams == 2 || set->cpu_streams == 4, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: CPU streams (tasks a thread walks at once) must be 1, 2, 4 or PETSC_DECIDE, got %" PetscInt_FMT, what,
             set->cpu_streams);
  PetscCheck(set->cpu_prefetch >= 0 && set->cpu_prefetch <= MATBSRCUSTOM_MAX_CPU_PREFETCH, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: CPU prefetch distance must be in [0, %d] bytes (0: no prefetch), got %" PetscInt_FMT, what, MATBSRCUSTOM_MAX_CPU_PREFETCH,
             set->cpu_prefetch);
  PetscCheck(set->shared_rows == MAT_BSRCUSTOM_SHARED_ROWS_CARRY || set->shared_rows == MAT_BSRCUSTOM_SHARED_ROWS_ATOMIC, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: unknown shared-rows mode %d", what, (int)set->shared_rows);
  PetscCheck(set->backend >= MAT_BSRCUSTOM_BACKEND_CPU && set->backend <= MAT_BSRCUSTOM_BACKEND_CUSPARSE, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: unknown backend %d", what, (int)set->backend);
  PetscCheck(set->cuda_kernel >= MAT_BSRCUSTOM_CUDA_KERNEL_AUTO && (int)set->cuda_kernel <= BSRC_CUDA_OWN_KERNEL_COUNT, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: unknown CUDA kernel %d", what, (int)set->cuda_kernel);
  PetscCheck(set->cusparse_alg == MAT_BSRCUSTOM_CUSPARSE_BSRMV || set->cusparse_alg == MAT_BSRCUSTOM_CUSPARSE_SPMV, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: unknown cuSPARSE routine %d", what, (int)set->cusparse_alg);
  PetscCheck(set->cuda_pin_vectors == PETSC_TRUE || set->cuda_pin_vectors == PETSC_FALSE, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: page-locking of host vectors must be PETSC_TRUE or PETSC_FALSE, got %d", what, (int)set->cuda_pin_vectors);
  PetscCheck(set->cuda_pbjacobi == PETSC_TRUE || set->cuda_pbjacobi == PETSC_FALSE, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: PBJacobi on the GPU must be PETSC_TRUE or PETSC_FALSE, got %d", what, (int)set->cuda_pbjacobi);
  PetscCheck(set->huge_pages == PETSC_TRUE || set->huge_pages == PETSC_FALSE, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: huge pages must be PETSC_TRUE or PETSC_FALSE, got %d", what, (int)set->huge_pages);
  PetscCheck(set->cpu_busy_fallback == PETSC_TRUE || set->cpu_busy_fallback == PETSC_FALSE, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: the busy-core fallback must be PETSC_TRUE or PETSC_FALSE, got %d", what, (int)set->cpu_busy_fallback);
  PetscCheck(set->mpi_progress == PETSC_TRUE || set->mpi_progress == PETSC_FALSE, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: MPI progress during the local product must be PETSC_TRUE or PETSC_FALSE, got %d", what, (int)set->mpi_progress);
  PetscCheck(set->transpose == MAT_BSRCUSTOM_TRANSPOSE_CACHED || set->transpose == MAT_BSRCUSTOM_TRANSPOSE_BAIJ, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: unknown transpose mode %d", what, (int)set->transpose);
  PetscCheck(set->cuda_device >= -1, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: CUDA device must be -1 (automatic: node-local rank modulo the visible GPUs) or a device number, got %" PetscInt_FMT, what, set->cuda_device);
  PetscCall(MatBSRCustomBackendCheck_Private(A, set, what)); /* the backend asked for can run here */
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
typedef enum {
  BSRC_OPT_INT,
  BSRC_OPT_ENUM,
  BSRC_OPT_BOOL
} BSRCOptKind;
typedef struct {
  const char        *name, *help, *man;
  BSRCOptKind        kind;
  const char *const *names; /* enum value names */
  PetscInt           nnames;
  size_t             offset; /* of the field in MatBSRCustomSettings */
} BSRCOption;

static const BSRCOption BSRCOptions[] = {
  {"-mat_bsrcustom_threads", "OpenMP threads that run MatMult (default: OMP_NUM_THREADS, else the node's cores / its ranks)", "MatBSRCustomSetNumThreads", BSRC_OPT_INT, NULL, 0, offsetof(MatBSRCustomSettings, nthreads)},
  {"-mat_bsrcustom_chunks_per_thread", "Fixed-size tasks per thread, cut at assembly", "MatBSRCustomSetChunksPerThread", BSRC_OPT_INT, NULL, 0, offsetof(MatBSRCustomSettings, chunks_per_thread)},
  {"-mat_bsrcustom_cpu_streams", "cpu backend: tasks a thread walks at once, in lockstep (1, 2, 4; PETSC_DECIDE: 2 on one thread, else 1)", "MatBSRCustomSetCPUStreams", BSRC_OPT_INT, NULL, 0, offsetof(MatBSRCustomSettings, cpu_streams)},
  {"-mat_bsrcustom_cpu_prefetch", "cpu backend: bytes ahead of each block its values are prefetched (0: none)", "MatBSRCustomSetCPUPrefetch", BSRC_OPT_INT, NULL, 0, offsetof(MatBSRCustomSettings, cpu_prefetch)},
  {"-mat_bsrcustom_shared_rows", "How a block row split between tasks is summed", "MatBSRCustomSetSharedRows", BSRC_OPT_ENUM, BSRC_ENUM_NAMES(MatBSRCustomSharedRowsTypes), offsetof(MatBSRCustomSettings, shared_rows)},
  {"-mat_bsrcustom_backend", "Where MatMult runs: cpu (default), cuda or cusparse", "MatBSRCustomSetBackend", BSRC_OPT_ENUM, BSRC_ENUM_NAMES(MatBSRCustomBackends), offsetof(MatBSRCustomSettings, backend)},
  {"-mat_bsrcustom_cuda_kernel", "CUDA kernel of the cuda backend (auto picks per matrix)", "MatBSRCustomSetCUDAKernel", BSRC_OPT_ENUM, BSRC_ENUM_NAMES(MatBSRCustomCUDAKernels), offsetof(MatBSRCustomSettings, cuda_kernel)},
  {"-mat_bsrcustom_cusparse_alg", "cuSPARSE routine of the cusparse backend", "MatBSRCustomSetCUSPARSEAlg", BSRC_OPT_ENUM, BSRC_ENUM_NAMES(MatBSRCustomCUSPARSEAlgs), offsetof(MatBSRCustomSettings, cusparse_alg)},
  {"-mat_bsrcustom_cuda_device", "GPU of the GPU backends (-1: node-local rank modulo visible GPUs)", "MatBSRCustomSetCUDADevice", BSRC_OPT_INT, NULL, 0, offsetof(MatBSRCustomSettings, cuda_device)},
  {"-mat_bsrcustom_cuda_pin_vectors", "GPU backends: page-lock big host vectors on their second use", "MatBSRCustomSetCUDAPinVectors", BSRC_OPT_BOOL, NULL, 0, offsetof(MatBSRCustomSettings, cuda_pin_vectors)},
  {"-mat_bsrcustom_cuda_pbjacobi", "GPU backends, CUDA vectors: PCPBJACOBI gets the diagonal blocks for the GPU (host vectors then need false)", "MatBSRCustomSetCUDAPBJacobi", BSRC_OPT_BOOL, NULL, 0, offsetof(MatBSRCustomSettings, cuda_pbjacobi)},
  {"-mat_bsrcustom_huge_pages", "cpu backend: put the matrix values on transparent huge pages", "MatBSRCustomSetHugePages", BSRC_OPT_BOOL, NULL, 0, offsetof(MatBSRCustomSettings, huge_pages)},
  {"-mat_bsrcustom_cpu_busy_fallback", "cpu backend: products on a team whose threads sleep between them while that is faster (cores busy with other work)", "MatBSRCustomSetCPUBusyFallback", BSRC_OPT_BOOL, NULL, 0, offsetof(MatBSRCustomSettings, cpu_busy_fallback)},
  {"-mat_bsrcustom_mpi_progress", "several ranks, cpu backend: the local product lets MPI progress between its tasks, so that the halo exchange moves while it runs", "MatBSRCustomSetMPIProgress", BSRC_OPT_BOOL, NULL, 0, offsetof(MatBSRCustomSettings, mpi_progress)},
  {"-mat_bsrcustom_transpose", "MatMultTranspose on a cached transposed copy (task kernel, or a second device matrix on the GPU backends; the matrix's memory again) or BAIJ's serial code on the host (no extra memory)", "MatBSRCustomSetTranspose", BSRC_OPT_ENUM, BSRC_ENUM_NAMES(MatBSRCustomTransposeModes), offsetof(MatBSRCustomSettings, transpose)},
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
    if (o->offset == offsetof(MatBSRCustomSettings, nthreads)) set->nthreads_default = PETSC_FALSE;
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

/* The settings of A, through the method both types compose. */
PETSC_INTERN PetscErrorCode MatBSRCustomGetSettings_Private(Mat A, MatBSRCustomSettings *set)
{
  PetscFunctionBegin;
  PetscUseMethod(A, "MatBSRCustomGetSettings_C", (Mat, MatBSRCustomSettings *), (A, set));
  PetscFunctionReturn(0);
}

/* Checks set (`what` names the caller in the error) and makes it A's. */
PETSC_INTERN PetscErrorCode MatBSRCustomSetSettings_Private(Mat A, const MatBSRCustomSettings *set, const char *what)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomSettingsCheck_Private(A, set, what));
  PetscUseMethod(A, "MatBSRCustomSetSettings_C", (Mat, const MatBSRCustomSettings *), (A, set));
  PetscFunctionReturn(0);
}
