/*
   The node a process runs on, as far as our defaults need it: its rank among the node's ranks of the
   job, how many ranks the node holds and how many cores they may run on, and the default thread
   count taken from them (the node's cores shared among its ranks), and why a matrix has its count.

   MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) over PETSC_COMM_WORLD tells them exactly, but it is
   collective: it runs once per process, when the first of our matrices is created on a communicator
   congruent to PETSC_COMM_WORLD (every rank creates it). A process whose first matrices live on a
   smaller communicator (PETSC_COMM_SELF in a multi-rank job) falls back on the launcher's node-local
   variables until then. "Cores" are the logical CPUs of the affinity masks: the union of the node
   ranks' masks is what the job may use there, and a rank's own mask caps its threads (a rank bound
   to one core gets one thread, as libgomp's own default would give it).
*/
#if defined(__linux__) && !defined(_GNU_SOURCE)
  #define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
  #include <sched.h>
#endif

static struct {
  PetscBool   learned;   /* by MPI_Comm_split_type */
  PetscMPIInt rank;      /* among the node's ranks */
  PetscMPIInt size;      /* ranks on the node */
  int         node_cpus; /* CPUs in the union of the node ranks' affinity masks */
} bsrc_node = {PETSC_FALSE, 0, 1, 0};

/* The CPUs this process may run on; where the mask is unknown, OpenMP's count of processors. */
static int OwnCPUs(void)
{
#if defined(__linux__)
  cpu_set_t set;

  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
#endif
  return omp_get_num_procs();
}

PETSC_INTERN PetscErrorCode MatBSRCustomNodeLearn_Private(MPI_Comm comm)
{
  int      cmp = MPI_UNEQUAL;
  MPI_Comm node;

  PetscFunctionBegin;
  if (bsrc_node.learned) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_compare(comm, PETSC_COMM_WORLD, &cmp));
  if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT) PetscFunctionReturn(0); /* not every rank is here */
  PetscCallMPI(MPI_Comm_split_type(PETSC_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_rank(node, &bsrc_node.rank));
  PetscCallMPI(MPI_Comm_size(node, &bsrc_node.size));
#if defined(__linux__)
  {
    cpu_set_t own, all;

    CPU_ZERO(&own);
    if (sched_getaffinity(0, sizeof(own), &own) != 0) CPU_ZERO(&own);
    PetscCallMPI(MPI_Allreduce(&own, &all, (PetscMPIInt)sizeof(own), MPI_BYTE, MPI_BOR, node));
    bsrc_node.node_cpus = CPU_COUNT(&all);
  }
#endif
  if (bsrc_node.node_cpus <= 0) bsrc_node.node_cpus = OwnCPUs();
  PetscCallMPI(MPI_Comm_free(&node));
  bsrc_node.learned = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The CPUs the operating system has online; the process's own where it cannot say. */
static int OnlineCPUs(void)
{
#if defined(_SC_NPROCESSORS_ONLN)
  long n = sysconf(_SC_NPROCESSORS_ONLN);

  if (n > 0) return (int)n;
#endif
  return OwnCPUs();
}

/* The first of the launcher's variables that is set, as a number >= 0; -1 when none is. */
static int LauncherVariable(const char *const vars[], size_t n, const char **from)
{
  for (size_t i = 0; i < n; i++) {
    const char *v = getenv(vars[i]);
    if (v && *v) {
      *from = vars[i];
      return atoi(v);
    }
  }
  return -1;
}

PETSC_INTERN void MatBSRCustomNodeRanks_Private(PetscMPIInt *rank, PetscMPIInt *size, const char **from)
{
  const char *rank_vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "PMI_LOCAL_RANK"};
  const char *size_vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "MV2_COMM_WORLD_LOCAL_SIZE", "PMI_LOCAL_SIZE"};
  const char *rank_from = NULL, *size_from = NULL;
  int         r, s;

  if (bsrc_node.learned) {
    *rank = bsrc_node.rank;
    *size = bsrc_node.size;
    *from = "MPI_COMM_TYPE_SHARED";
    return;
  }
  r     = LauncherVariable(rank_vars, PETSC_STATIC_ARRAY_LENGTH(rank_vars), &rank_from);
  s     = LauncherVariable(size_vars, PETSC_STATIC_ARRAY_LENGTH(size_vars), &size_from);
  *rank = r >= 0 ? (PetscMPIInt)r : 0;
  *size = s >= 1 ? (PetscMPIInt)s : 1;
  *from = size_from ? size_from : rank_from ? rank_from : "no launcher variable: rank 0 of 1";
}

PETSC_INTERN PetscErrorCode MatBSRCustomDefaultThreads_Private(PetscInt *nthreads, char why[], size_t len)
{
  const char *omp = getenv("OMP_NUM_THREADS"), *from;
  PetscMPIInt rank, size;
  int         own, node_cpus, share, online;

  PetscFunctionBegin;
  if (omp && *omp) { /* the user's choice, as OpenMP read it */
    *nthreads = (PetscInt)omp_get_max_threads();
    if (why) PetscCall(PetscSNPrintf(why, len, "OMP_NUM_THREADS=%s", omp));
    PetscFunctionReturn(0);
  }
  MatBSRCustomNodeRanks_Private(&rank, &size, &from);
  own       = OwnCPUs();
  node_cpus = bsrc_node.learned ? bsrc_node.node_cpus : own;
  share     = node_cpus / (int)size;
  *nthreads = (PetscInt)PetscMax(1, PetscMin(own, share));
  if (!why) PetscFunctionReturn(0);
  online = OnlineCPUs();
  PetscCall(PetscSNPrintf(why, len, "%d core%s / %d rank%s on this node", node_cpus, node_cpus == 1 ? "" : "s", (int)size, size == 1 ? "" : "s"));
  if (online > node_cpus) PetscCall(PetscSNPrintf(why + strlen(why), len - strlen(why), " (in the ranks' affinity masks, of %d online)", online));
  if (own < share) PetscCall(PetscSNPrintf(why + strlen(why), len - strlen(why), ", at most the %d this rank is bound to", own));
  PetscCall(PetscSNPrintf(why + strlen(why), len - strlen(why), " (ranks by %s; OMP_NUM_THREADS unset)", from));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomThreadsWhy_Private(const MatBSRCustomSettings *set, char why[], size_t len)
{
  PetscInt n;
  char     how[256];

  PetscFunctionBegin;
  if (!set->nthreads_default) {
    PetscCall(PetscStrncpy(why, "-mat_bsrcustom_threads or MatBSRCustomSetNumThreads()", len));
    PetscFunctionReturn(0);
  }
  PetscCall(MatBSRCustomDefaultThreads_Private(&n, how, sizeof(how)));
  /* the default is taken at creation; the node may have been learned since */
  if (n == set->nthreads) PetscCall(PetscSNPrintf(why, len, "the default: %s", how));
  else PetscCall(PetscSNPrintf(why, len, "the default when the matrix was created; now it would be %" PetscInt_FMT ": %s", n, how));
  PetscFunctionReturn(0);
}
