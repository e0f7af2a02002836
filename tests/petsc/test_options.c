static const char help[] = "Every value of every -mat_bsrcustom_ option is taken, at creation and in MatSetFromOptions(),\n"
                           "on any backend, and its getter returns it; GPU backends without a GPU give the documented errors.\n";

/* Coverage (cases, -test_list): each option at creation and in MatSetFromOptions(), its getter after;
     shared_rows    every value of -mat_bsrcustom_shared_rows
     transpose      every value of -mat_bsrcustom_transpose
     backend        every value of -mat_bsrcustom_backend (GPU ones: the documented error without a GPU)
     cuda_kernel    every value of -mat_bsrcustom_cuda_kernel, taken on the cpu backend; names = enum
     cusparse_alg   every value of -mat_bsrcustom_cusparse_alg
     booleans       huge_pages, cuda_pin_vectors, cuda_pbjacobi, cpu_busy_fallback, mpi_progress: every
                    PETSc spelling, bare option
     integers       threads, chunks_per_thread, cpu_streams (and PETSC_DECIDE/decide), cpu_prefetch,
                    cuda_device -1: limits
   Ranks: 1, 2 (CMakeLists.txt); -help also feeds check_options_doc.py (options_documented). */

#include "testutils.h"
#include <string.h>

/* The names of a PETSc enum: the array ends with the enum's name, its prefix and NULL. */
static PetscInt EnumCount(const char *const *names)
{
  PetscInt n = 0;
  while (names[n]) n++;
  return n - 2;
}

/* A 6 x 6 matrix (bs 2) of our type made with the option `option value` in the database; the option
   is read at creation, or (at_creation false) by MatSetFromOptions() on a matrix made without it.
   *err is the error the creation or MatSetFromOptions() returned; *A is NULL then. */
static PetscErrorCode MakeWithOption(const char *option, const char *value, PetscBool at_creation, Mat *A, PetscErrorCode *err)
{
  PetscFunctionBegin;
  *A = NULL;
  if (at_creation) PetscCall(PetscOptionsSetValue(NULL, option, value));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, 6, 6, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*A, 2));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *err = MatSetType(*A, MATBSRCUSTOM);
  PetscCall(PetscPopErrorHandler());
  if (!*err && !at_creation) {
    PetscCall(PetscOptionsSetValue(NULL, option, value));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    *err = MatSetFromOptions(*A);
    PetscCall(PetscPopErrorHandler());
  }
  PetscCall(PetscOptionsClearValue(NULL, option));
  if (*err) PetscCall(MatDestroy(A));
  PetscFunctionReturn(0);
}

typedef PetscErrorCode (*EnumGetter)(Mat, PetscInt *);

/* A getter of an enum or boolean setting as a PetscInt, for the checks below. */
#define SETTING_GETTER(name, type, call) \
  static PetscErrorCode name(Mat A, PetscInt *v) \
  { \
    type m; \
    PetscFunctionBegin; \
    PetscCall(call); \
    *v = (PetscInt)m; \
    PetscFunctionReturn(0); \
  }
SETTING_GETTER(GetSharedRows, MatBSRCustomSharedRows, MatBSRCustomGetSharedRows(A, &m))
SETTING_GETTER(GetTranspose, MatBSRCustomTransposeMode, MatBSRCustomGetTranspose(A, &m))
SETTING_GETTER(GetBackend, MatBSRCustomBackend, MatBSRCustomGetBackend(A, &m))
SETTING_GETTER(GetKernel, MatBSRCustomCUDAKernel, MatBSRCustomGetCUDAKernel(A, &m, NULL))
SETTING_GETTER(GetCUSPARSEAlg, MatBSRCustomCUSPARSEAlg, MatBSRCustomGetCUSPARSEAlg(A, &m))
SETTING_GETTER(GetHugePages, PetscBool, MatBSRCustomGetHugePages(A, &m))
SETTING_GETTER(GetBusyFallback, PetscBool, MatBSRCustomGetCPUBusyFallback(A, &m))
SETTING_GETTER(GetMPIProgress, PetscBool, MatBSRCustomGetMPIProgress(A, &m))
SETTING_GETTER(GetPBJacobi, PetscBool, MatBSRCustomGetCUDAPBJacobi(A, &m))
SETTING_GETTER(GetPinVectors, PetscBool, MatBSRCustomGetCUDAPinVectors(A, &m))
#undef SETTING_GETTER

static PetscErrorCode GetThreads(Mat A, PetscInt *v)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetNumThreads(A, v));
  PetscFunctionReturn(0);
}
static PetscErrorCode GetChunks(Mat A, PetscInt *v)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetChunksPerThread(A, v));
  PetscFunctionReturn(0);
}
static PetscErrorCode GetStreams(Mat A, PetscInt *v)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetCPUStreams(A, v));
  PetscFunctionReturn(0);
}
static PetscErrorCode GetPrefetch(Mat A, PetscInt *v)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetCPUPrefetch(A, v));
  PetscFunctionReturn(0);
}
static PetscErrorCode GetDevice(Mat A, PetscInt *v)
{
  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetCUDADevice(A, v));
  PetscFunctionReturn(0);
}

/* Takes `option value` at creation and in MatSetFromOptions(); the getter must return want. A GPU
   value (gpu true) where this build or machine has no GPU must instead fail with the documented code
   and a message naming what is missing. */
static PetscErrorCode CheckValue(TestContext *ctx, const char *option, const char *value, EnumGetter get, PetscInt want, PetscBool gpu)
{
  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    const PetscBool at_creation = (PetscBool)(k == 0);
    const char     *when        = at_creation ? "at creation" : "in MatSetFromOptions()";
    Mat             A;
    PetscErrorCode  err;
    PetscCall(MakeWithOption(option, value, at_creation, &A, &err));
    if (gpu && MatBSRCustomCUDADeviceCount() == 0) {
      const PetscErrorCode code     = MatBSRCustomHasCUDA() ? PETSC_ERR_SUP_SYS : PETSC_ERR_SUP;
      const char          *text     = NULL;
      BSRCErrorText        specific = NULL;
      PetscCall(PetscErrorMessage(err, &text, &specific));
      TEST_CHECK(PETSC_COMM_WORLD, err == code && specific && strstr(specific, option), ctx->failures, "%s %s %s without a GPU: error %d (%s), expected %d naming the option", option, value, when, (int)err, specific ? specific : "", (int)code);
      PetscCall(MatDestroy(&A));
      continue;
    }
    TEST_CHECK(PETSC_COMM_WORLD, !err, ctx->failures, "%s %s refused %s (error %d)", option, value, when, (int)err);
    if (!err) {
      PetscInt got;
      PetscCall(get(A, &got));
      TEST_CHECK(PETSC_COMM_WORLD, got == want, ctx->failures, "%s %s %s: the getter returns %" PetscInt_FMT ", expected %" PetscInt_FMT, option, value, when, got, want);
    }
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(0);
}

/* Every value of an enum option; `gpu_from` is the first value that needs a GPU (-1: none). */
static PetscErrorCode CheckEnum(TestContext *ctx, const char *option, const char *const *names, EnumGetter get, PetscInt gpu_from)
{
  PetscFunctionBegin;
  for (PetscInt v = 0; v < EnumCount(names); v++) PetscCall(CheckValue(ctx, option, names[v], get, v, (PetscBool)(gpu_from >= 0 && v >= gpu_from)));
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseSharedRows(TestContext *ctx)
{
  PetscFunctionBegin;
  PetscCall(CheckEnum(ctx, "-mat_bsrcustom_shared_rows", MatBSRCustomSharedRowsTypes, GetSharedRows, -1));
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseTranspose(TestContext *ctx)
{
  PetscFunctionBegin;
  PetscCall(CheckEnum(ctx, "-mat_bsrcustom_transpose", MatBSRCustomTransposeModes, GetTranspose, -1));
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseBackend(TestContext *ctx)
{
  PetscFunctionBegin;
  PetscCall(CheckEnum(ctx, "-mat_bsrcustom_backend", MatBSRCustomBackends, GetBackend, MAT_BSRCUSTOM_BACKEND_CUDA));
  PetscFunctionReturn(0);
}

/* the kernel is chosen on the cpu backend too (it applies once the backend changes) */
static PetscErrorCode CaseCUDAKernel(TestContext *ctx)
{
  PetscFunctionBegin;
  PetscCall(CheckEnum(ctx, "-mat_bsrcustom_cuda_kernel", MatBSRCustomCUDAKernels, GetKernel, -1));
  TEST_CHECK(PETSC_COMM_WORLD, EnumCount(MatBSRCustomCUDAKernels) == MAT_BSRCUSTOM_CUDA_KERNEL_SLICED + 1, ctx->failures, "MatBSRCustomCUDAKernels names %" PetscInt_FMT " kernels, the enum %d", EnumCount(MatBSRCustomCUDAKernels), MAT_BSRCUSTOM_CUDA_KERNEL_SLICED + 1);
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseCUSPARSEAlg(TestContext *ctx)
{
  PetscFunctionBegin;
  PetscCall(CheckEnum(ctx, "-mat_bsrcustom_cusparse_alg", MatBSRCustomCUSPARSEAlgs, GetCUSPARSEAlg, -1));
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseBooleans(TestContext *ctx)
{
  const char *yes[] = {"true", "yes", "on", "1", ""}, *no[] = {"false", "no", "off", "0"};

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(yes); i++) {
    PetscCall(CheckValue(ctx, "-mat_bsrcustom_huge_pages", yes[i], GetHugePages, PETSC_TRUE, PETSC_FALSE));
    PetscCall(CheckValue(ctx, "-mat_bsrcustom_cuda_pin_vectors", yes[i], GetPinVectors, PETSC_TRUE, PETSC_FALSE));
    PetscCall(CheckValue(ctx, "-mat_bsrcustom_cuda_pbjacobi", yes[i], GetPBJacobi, PETSC_TRUE, PETSC_FALSE));
    PetscCall(CheckValue(ctx, "-mat_bsrcustom_cpu_busy_fallback", yes[i], GetBusyFallback, PETSC_TRUE, PETSC_FALSE));
    PetscCall(CheckValue(ctx, "-mat_bsrcustom_mpi_progress", yes[i], GetMPIProgress, PETSC_TRUE, PETSC_FALSE));
  }
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(no); i++) {
    PetscCall(CheckValue(ctx, "-mat_bsrcustom_huge_pages", no[i], GetHugePages, PETSC_FALSE, PETSC_FALSE));
    PetscCall(CheckValue(ctx, "-mat_bsrcustom_cuda_pin_vectors", no[i], GetPinVectors, PETSC_FALSE, PETSC_FALSE));
    PetscCall(CheckValue(ctx, "-mat_bsrcustom_cuda_pbjacobi", no[i], GetPBJacobi, PETSC_FALSE, PETSC_FALSE));
    PetscCall(CheckValue(ctx, "-mat_bsrcustom_cpu_busy_fallback", no[i], GetBusyFallback, PETSC_FALSE, PETSC_FALSE));
    PetscCall(CheckValue(ctx, "-mat_bsrcustom_mpi_progress", no[i], GetMPIProgress, PETSC_FALSE, PETSC_FALSE));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseIntegers(TestContext *ctx)
{
  PetscFunctionBegin;
  PetscCall(CheckValue(ctx, "-mat_bsrcustom_threads", "1", GetThreads, 1, PETSC_FALSE));
  PetscCall(CheckValue(ctx, "-mat_bsrcustom_threads", "3", GetThreads, 3, PETSC_FALSE));
  PetscCall(CheckValue(ctx, "-mat_bsrcustom_chunks_per_thread", "1", GetChunks, 1, PETSC_FALSE));
  PetscCall(CheckValue(ctx, "-mat_bsrcustom_chunks_per_thread", "1048576", GetChunks, 1048576, PETSC_FALSE));
  PetscCall(CheckValue(ctx, "-mat_bsrcustom_cpu_streams", "1", GetStreams, 1, PETSC_FALSE));
  PetscCall(CheckValue(ctx, "-mat_bsrcustom_cpu_streams", "2", GetStreams, 2, PETSC_FALSE));
  PetscCall(CheckValue(ctx, "-mat_bsrcustom_cpu_streams", "4", GetStreams, 4, PETSC_FALSE));
  PetscCall(CheckValue(ctx, "-mat_bsrcustom_cpu_streams", "PETSC_DECIDE", GetStreams, PETSC_DECIDE, PETSC_FALSE));
  PetscCall(CheckValue(ctx, "-mat_bsrcustom_cpu_streams", "decide", GetStreams, PETSC_DECIDE, PETSC_FALSE));
  PetscCall(CheckValue(ctx, "-mat_bsrcustom_cpu_prefetch", "0", GetPrefetch, 0, PETSC_FALSE));
  PetscCall(CheckValue(ctx, "-mat_bsrcustom_cpu_prefetch", "1048576", GetPrefetch, 1048576, PETSC_FALSE));
  /* -1: the automatic binding; without a GPU the device is reported as -1 */
  PetscCall(CheckValue(ctx, "-mat_bsrcustom_cuda_device", "-1", GetDevice, MatBSRCustomCUDADeviceCount() ? 0 : -1, PETSC_FALSE));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"shared_rows", CaseSharedRows, 0}, {"transpose", CaseTranspose, 0}, {"backend", CaseBackend, 0}, {"cuda_kernel", CaseCUDAKernel, 0}, {"cusparse_alg", CaseCUSPARSEAlg, 0}, {"booleans", CaseBooleans, 0}, {"integers", CaseIntegers, 0},
  };
  int status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  PetscCall(TestRunCases("options", PETSC_STATIC_ARRAY_LENGTH(cases), cases, NULL, &status));
  PetscCall(PetscFinalize());
  return status;
}
