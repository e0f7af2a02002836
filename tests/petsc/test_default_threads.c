static const char help[] = "The default thread count of our matrices: with OMP_NUM_THREADS unset, the node's cores shared among\n"
                           "its ranks; OMP_NUM_THREADS and -mat_bsrcustom_threads decide where given.\n";

/* Cases (-test_list):
     unset            OMP_NUM_THREADS unset (CTest runs it through `cmake -E env --unset`): an MPI (or,
                      on one rank, sequential) matrix on PETSC_COMM_WORLD and a sequential one on
                      PETSC_COMM_SELF get max(1, min(own, node / ranks)) threads, with node the CPUs
                      of the union of the node ranks' affinity masks and own this rank's, computed
                      here from MPI_Allgather of the masks; MatView says why; the option and
                      MatBSRCustomSetNumThreads() override it, PETSC_DEFAULT brings it back
     omp_num_threads  OMP_NUM_THREADS set (CTest: 1 on one rank, 3 on two): that many threads, and
                      MatView names it
   Ranks: 1, 2 (CMakeLists.txt). */

#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "testutils.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* The expected default: the node's ranks by a split of PETSC_COMM_WORLD, their masks gathered. */
static PetscErrorCode ExpectedDefault(PetscInt *expected, int *node_cpus, PetscMPIInt *node_ranks)
{
  MPI_Comm    node;
  cpu_set_t   own, *all;
  PetscMPIInt size;
  int         share;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_split_type(PETSC_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &size));
  PetscCheck(sched_getaffinity(0, sizeof(own), &own) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "sched_getaffinity failed");
  PetscCall(PetscMalloc1(size, &all));
  PetscCallMPI(MPI_Allgather(&own, (PetscMPIInt)sizeof(own), MPI_BYTE, all, (PetscMPIInt)sizeof(own), MPI_BYTE, node));
  for (PetscMPIInt r = 1; r < size; r++) CPU_OR(&all[0], &all[0], &all[r]);
  *node_cpus  = CPU_COUNT(&all[0]);
  *node_ranks = size;
  share       = *node_cpus / (int)size;
  *expected   = PetscMax(1, PetscMin(CPU_COUNT(&own), share));
  PetscCall(PetscFree(all));
  PetscCallMPI(MPI_Comm_free(&node));
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeMatrix(MPI_Comm comm, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, 6, 6, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*A, 2));
  PetscCall(MatSetType(*A, MATBSRCUSTOM));
  PetscCall(MatSeqBAIJSetPreallocation(*A, 2, 1, NULL));
  PetscCall(MatMPIBAIJSetPreallocation(*A, 2, 1, NULL, 0, NULL));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* the threads of A, and whether the ASCII info view of a sequential A holds `needle` */
static PetscErrorCode ThreadsAndView(Mat A, const char *needle, PetscInt *threads, PetscBool *found)
{
  char text[8192];

  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetNumThreads(A, threads));
  PetscCall(TestViewInfoText(A, text, sizeof(text)));
  *found = (PetscBool)(strstr(text, needle) != NULL);
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseUnset(TestContext *ctx)
{
  const char *omp = getenv("OMP_NUM_THREADS");
  PetscInt    expected, got;
  int         node_cpus;
  PetscMPIInt node_ranks;
  Mat         W, S;
  PetscBool   found;
  char        needle[128];

  PetscFunctionBegin;
  TEST_CHECK(PETSC_COMM_WORLD, !omp, ctx->failures, "OMP_NUM_THREADS is set (\"%s\"): this case must run with it unset", omp ? omp : "");
  PetscCall(ExpectedDefault(&expected, &node_cpus, &node_ranks));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  node: %d CPUs in the ranks' masks, %d ranks; expected default %" PetscInt_FMT " threads (rank 0)\n", node_cpus, (int)node_ranks, expected));
  PetscCall(MakeMatrix(PETSC_COMM_WORLD, &W));
  PetscCall(MatBSRCustomGetNumThreads(W, &got));
  TEST_CHECK(PETSC_COMM_SELF, got == expected, ctx->failures, "rank %d: a matrix on PETSC_COMM_WORLD has %" PetscInt_FMT " threads, expected %" PetscInt_FMT " (%d CPUs / %d ranks on the node)", ctx->rank, got, expected, node_cpus, (int)node_ranks);
  /* a sequential matrix of one rank: the node's ranks are the job's, not PETSC_COMM_SELF's one */
  PetscCall(MakeMatrix(PETSC_COMM_SELF, &S));
  PetscCall(PetscSNPrintf(needle, sizeof(needle), "%d rank%s on this node", (int)node_ranks, node_ranks == 1 ? "" : "s"));
  PetscCall(ThreadsAndView(S, needle, &got, &found));
  TEST_CHECK(PETSC_COMM_SELF, got == expected, ctx->failures, "rank %d: a matrix on PETSC_COMM_SELF has %" PetscInt_FMT " threads, expected %" PetscInt_FMT, ctx->rank, got, expected);
  TEST_CHECK(PETSC_COMM_SELF, found, ctx->failures, "rank %d: MatView does not say \"%s\"", ctx->rank, needle);
  PetscCall(ThreadsAndView(S, "OMP_NUM_THREADS unset", &got, &found));
  TEST_CHECK(PETSC_COMM_SELF, found, ctx->failures, "rank %d: MatView does not say that OMP_NUM_THREADS is unset", ctx->rank);
  /* the setter overrides, PETSC_DEFAULT brings the default back */
  PetscCall(MatBSRCustomSetNumThreads(S, expected + 1));
  PetscCall(ThreadsAndView(S, "MatBSRCustomSetNumThreads()", &got, &found));
  TEST_CHECK(PETSC_COMM_SELF, got == expected + 1 && found, ctx->failures, "rank %d: after MatBSRCustomSetNumThreads(%" PetscInt_FMT "): %" PetscInt_FMT " threads, view names the setter: %d", ctx->rank, expected + 1, got, (int)found);
  PetscCall(MatBSRCustomSetNumThreads(S, PETSC_DEFAULT));
  PetscCall(ThreadsAndView(S, "OMP_NUM_THREADS unset", &got, &found));
  TEST_CHECK(PETSC_COMM_SELF, got == expected && found, ctx->failures, "rank %d: after PETSC_DEFAULT: %" PetscInt_FMT " threads (expected %" PetscInt_FMT "), view gives the default's reason: %d", ctx->rank, got, expected, (int)found);
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&W));
  /* the option overrides it, on either communicator */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_bsrcustom_threads", "2"));
  PetscCall(MakeMatrix(PETSC_COMM_WORLD, &W));
  PetscCall(MatBSRCustomGetNumThreads(W, &got));
  TEST_CHECK(PETSC_COMM_SELF, got == 2, ctx->failures, "rank %d: -mat_bsrcustom_threads 2 on PETSC_COMM_WORLD gave %" PetscInt_FMT " threads", ctx->rank, got);
  PetscCall(MakeMatrix(PETSC_COMM_SELF, &S));
  PetscCall(ThreadsAndView(S, "-mat_bsrcustom_threads", &got, &found));
  TEST_CHECK(PETSC_COMM_SELF, got == 2 && found, ctx->failures, "rank %d: -mat_bsrcustom_threads 2 on PETSC_COMM_SELF gave %" PetscInt_FMT " threads, view names the option: %d", ctx->rank, got, (int)found);
  PetscCall(PetscOptionsClearValue(NULL, "-mat_bsrcustom_threads"));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&W));
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseOMPNumThreads(TestContext *ctx)
{
  const char *omp  = getenv("OMP_NUM_THREADS");
  PetscInt    want = omp ? (PetscInt)atoi(omp) : 0, got;
  Mat         W, S;
  PetscBool   found;
  char        needle[64];

  PetscFunctionBegin;
  TEST_CHECK(PETSC_COMM_WORLD, want >= 1, ctx->failures, "OMP_NUM_THREADS is \"%s\": this case must run with it set to a count", omp ? omp : "(unset)");
  if (want < 1) PetscFunctionReturn(0);
  PetscCall(MakeMatrix(PETSC_COMM_WORLD, &W));
  PetscCall(MatBSRCustomGetNumThreads(W, &got));
  TEST_CHECK(PETSC_COMM_SELF, got == want, ctx->failures, "rank %d: OMP_NUM_THREADS=%s, a matrix on PETSC_COMM_WORLD has %" PetscInt_FMT " threads", ctx->rank, omp, got);
  PetscCall(MakeMatrix(PETSC_COMM_SELF, &S));
  PetscCall(PetscSNPrintf(needle, sizeof(needle), "OMP_NUM_THREADS=%s", omp));
  PetscCall(ThreadsAndView(S, needle, &got, &found));
  TEST_CHECK(PETSC_COMM_SELF, got == want && found, ctx->failures, "rank %d: OMP_NUM_THREADS=%s, a matrix on PETSC_COMM_SELF has %" PetscInt_FMT " threads, view names OMP_NUM_THREADS: %d", ctx->rank, omp, got, (int)found);
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&W));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  int status = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
  {
    const TestCase cases[] = {
      {"unset", CaseUnset, 0},
      {"omp_num_threads", CaseOMPNumThreads, 0},
    };
    PetscCall(TestRunCases("default_threads", PETSC_STATIC_ARRAY_LENGTH(cases), cases, NULL, &status));
  }
  PetscCall(PetscFinalize());
  return status;
}
