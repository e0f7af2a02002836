/*
   The public setters and getters of the cpu backend's settings (threads, tasks, streams, prefetch,
   shared rows, huge pages, the busy-core fallback, MPI progress, the transpose product) and the task count. Each public function is
   PETSc's usual dispatch: a setter calls PetscTryMethod, so it does nothing on a matrix of another
   type, a getter PetscUseMethod, so it errors there. Both types compose the implementations below
   (MatBSRCustomComposeTypeMethods_Private, bsrcustomlifecycle.c).
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

BSRC_SETTING_SET(ChunksPerThread, PetscInt, chunks_per_thread)
BSRC_SETTING_GET(ChunksPerThread, PetscInt, chunks_per_thread)
BSRC_SETTING_SET(CPUStreams, PetscInt, cpu_streams)
BSRC_SETTING_GET(CPUStreams, PetscInt, cpu_streams)
BSRC_SETTING_SET(CPUPrefetch, PetscInt, cpu_prefetch)
BSRC_SETTING_GET(CPUPrefetch, PetscInt, cpu_prefetch)
BSRC_SETTING_SET(SharedRows, MatBSRCustomSharedRows, shared_rows)
BSRC_SETTING_GET(SharedRows, MatBSRCustomSharedRows, shared_rows)
BSRC_SETTING_SET(HugePages, PetscBool, huge_pages)
BSRC_SETTING_GET(HugePages, PetscBool, huge_pages)
BSRC_SETTING_SET(CPUBusyFallback, PetscBool, cpu_busy_fallback)
BSRC_SETTING_GET(CPUBusyFallback, PetscBool, cpu_busy_fallback)
BSRC_SETTING_SET(MPIProgress, PetscBool, mpi_progress)
BSRC_SETTING_GET(MPIProgress, PetscBool, mpi_progress)
BSRC_SETTING_SET(Transpose, MatBSRCustomTransposeMode, transpose)
BSRC_SETTING_GET(Transpose, MatBSRCustomTransposeMode, transpose)
BSRC_SETTING_GET(NumThreads, PetscInt, nthreads)

static PetscErrorCode MatBSRCustomSetNumThreads_BSRCustom(Mat A, PetscInt nthreads)
{
  MatBSRCustomSettings set;

  PetscFunctionBegin;
  PetscCall(MatBSRCustomGetSettings_Private(A, &set));
  if (nthreads == PETSC_DEFAULT) {
    char why[256];

    PetscCall(MatBSRCustomDefaultThreads_Private(&set.nthreads, why, sizeof(why)));
    PetscCall(PetscInfo(A, "%" PetscInt_FMT " threads: %s\n", set.nthreads, why));
  } else set.nthreads = nthreads;
  set.nthreads_default = (PetscBool)(nthreads == PETSC_DEFAULT);
  PetscCall(MatBSRCustomSetSettings_Private(A, &set, "MatBSRCustomSetNumThreads()"));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode MatBSRCustomComposeCPUSettings_Private(Mat A, PetscBool install)
{
  PetscFunctionBegin;
  BSRC_COMPOSE_SETTING(A, NumThreads, install);
  BSRC_COMPOSE_SETTING(A, ChunksPerThread, install);
  BSRC_COMPOSE_SETTING(A, CPUStreams, install);
  BSRC_COMPOSE_SETTING(A, CPUPrefetch, install);
  BSRC_COMPOSE_SETTING(A, SharedRows, install);
  BSRC_COMPOSE_SETTING(A, HugePages, install);
  BSRC_COMPOSE_SETTING(A, CPUBusyFallback, install);
  BSRC_COMPOSE_SETTING(A, MPIProgress, install);
  BSRC_COMPOSE_SETTING(A, Transpose, install);
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetNumThreads - Sets the OpenMP threads that run MatMult/MatMultAdd on this matrix.

   Logically Collective

   Input Parameters:
+  A - the matrix
-  nthreads - threads, >= 1, or PETSC_DEFAULT for the default (below)

   Options Database Key:
.  -mat_bsrcustom_threads <n> - threads

   Notes:
   Does nothing when A is not a MATBSRCUSTOM matrix, so that a program may call it whatever type
   its options chose.

   The default is OMP_NUM_THREADS where it is set; else the node's cores shared among the job's ranks
   on that node, at least 1 and at most the cores the rank may run on (the logical CPUs of the ranks'
   affinity masks; ranks on the node by MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) over
   PETSC_COMM_WORLD, taken when the first matrix of ours on all ranks is created, or the launcher's
   node-local variables before that), so that p ranks on c cores run c/p threads each rather than c.
   MatView (-mat_view ::ascii_info) and -info say the count and why.

   Level: intermediate

.seealso: `MatBSRCustomSetChunksPerThread()`
@*/
PetscErrorCode MatBSRCustomSetNumThreads(Mat A, PetscInt nthreads)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, nthreads, 2);
  PetscTryMethod(A, "MatBSRCustomSetNumThreads_C", (Mat, PetscInt), (A, nthreads));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(nthreads, 2);
  PetscUseMethod(A, "MatBSRCustomGetNumThreads_C", (Mat, PetscInt *), (A, nthreads));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetChunksPerThread - Sets how many fixed-size tasks per thread the nonzero blocks are
   cut into (the partition is rebuilt at the next MatMult or assembly).

   Logically Collective

   Input Parameters:
+  A - the matrix
-  chunks - tasks per thread, >= 1 (default 8)

   Options Database Key:
.  -mat_bsrcustom_chunks_per_thread <c> - tasks per thread

   Note:
   Does nothing when A is not a MATBSRCUSTOM matrix, so that a program may call it whatever type
   its options chose.

   Level: intermediate

.seealso: `MATBSRCUSTOM`, `MatBSRCustomSetNumThreads()`, `MatBSRCustomGetNumTasks()`
@*/
PetscErrorCode MatBSRCustomSetChunksPerThread(Mat A, PetscInt chunks)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, chunks, 2);
  PetscTryMethod(A, "MatBSRCustomSetChunksPerThread_C", (Mat, PetscInt), (A, chunks));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(chunks, 2);
  PetscUseMethod(A, "MatBSRCustomGetChunksPerThread_C", (Mat, PetscInt *), (A, chunks));
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

/*@
   MatBSRCustomSetCPUStreams - Sets how many of its tasks each thread of the cpu backend walks at
   once, block by block in lockstep (block sizes 1..8; larger blocks walk one). The tasks are a
   fixed fraction of the matrix apart, so a thread reads that many separate stretches of the
   values, which some processors stream faster than one. With shared rows by carry (the default)
   the product is the same, bit for bit.

   Logically Collective

   Input Parameters:
+  A - the matrix
-  streams - 1, 2, 4 or PETSC_DECIDE (the default: 2 when the product runs on one thread, 1 on several)

   Options Database Key:
.  -mat_bsrcustom_cpu_streams <s> - tasks a thread walks at once (1, 2, 4 or PETSC_DECIDE)

   Notes:
   Does nothing when A is not a MATBSRCUSTOM matrix, so that a program may call it whatever type
   its options chose.

   Which count streams fastest depends on the processor. When all cores run the product, memory
   bandwidth is the limit and one stream costs the fewest instructions; a lone thread must keep enough
   of the values in flight by itself, which two streams help on some processors. PETSC_DECIDE
   therefore takes two for one thread and one for several.

   Level: advanced

.seealso: `MATBSRCUSTOM`, `MatBSRCustomSetChunksPerThread()`, `MatBSRCustomSetNumThreads()`
@*/
PetscErrorCode MatBSRCustomSetCPUStreams(Mat A, PetscInt streams)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, streams, 2);
  PetscTryMethod(A, "MatBSRCustomSetCPUStreams_C", (Mat, PetscInt), (A, streams));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(streams, 2);
  PetscUseMethod(A, "MatBSRCustomGetCPUStreams_C", (Mat, PetscInt *), (A, streams));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCPUPrefetch - Sets how far ahead of each block the cpu backend prefetches the
   matrix values (prefetcht0, every cache line of a block), so that more of the stream is on its way
   from memory than the hardware prefetchers keep in flight. The product is the same, bit for bit.

   Logically Collective

   Input Parameters:
+  A - the matrix
-  bytes - distance in bytes, 0 to 1048576; 0 prefetches nothing (default 8192)

   Options Database Key:
.  -mat_bsrcustom_cpu_prefetch <bytes> - prefetch distance

   Notes:
   Does nothing when A is not a MATBSRCUSTOM matrix, so that a program may call it whatever type
   its options chose.

   The default, 8192 bytes, keeps more of the values on their way from memory than the hardware
   prefetchers do alone, on one thread as on all cores; 0 leaves the prefetching to the hardware.

   Level: advanced

.seealso: `MATBSRCUSTOM`, `MatBSRCustomSetCPUStreams()`, `MatBSRCustomSetHugePages()`
@*/
PetscErrorCode MatBSRCustomSetCPUPrefetch(Mat A, PetscInt bytes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, bytes, 2);
  PetscTryMethod(A, "MatBSRCustomSetCPUPrefetch_C", (Mat, PetscInt), (A, bytes));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(bytes, 2);
  PetscUseMethod(A, "MatBSRCustomGetCPUPrefetch_C", (Mat, PetscInt *), (A, bytes));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetSharedRows - Chooses how a block row split between two tasks is summed:
   MAT_BSRCUSTOM_SHARED_ROWS_CARRY (each task keeps its partial sum, added after the parallel loop;
   results do not depend on thread timing) or MAT_BSRCUSTOM_SHARED_ROWS_ATOMIC (one atomic add per
   element of each shared task-row).

   Logically Collective

   Input Parameters:
+  A - the matrix
-  mode - the mode

   Options Database Key:
.  -mat_bsrcustom_shared_rows <carry,atomic> - the mode

   Note:
   Does nothing when A is not a MATBSRCUSTOM matrix, so that a program may call it whatever type
   its options chose.

   Level: advanced

.seealso: `MatBSRCustomSetChunksPerThread()`
@*/
PetscErrorCode MatBSRCustomSetSharedRows(Mat A, MatBSRCustomSharedRows mode)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, mode, 2);
  PetscTryMethod(A, "MatBSRCustomSetSharedRows_C", (Mat, MatBSRCustomSharedRows), (A, mode));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(mode, 2);
  PetscUseMethod(A, "MatBSRCustomGetSharedRows_C", (Mat, MatBSRCustomSharedRows *), (A, mode));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetHugePages - Chooses whether the cpu backend asks the operating system to back the
   matrix values with transparent huge pages (2 MiB), so that its threads stream them with fewer TLB
   misses and with hardware prefetching that does not stop at every 4 KiB page.

   Logically Collective

   Input Parameters:
+  A - the matrix
-  huge - PETSC_TRUE (default) to ask, PETSC_FALSE to leave the values' pages as they are

   Options Database Key:
.  -mat_bsrcustom_huge_pages <true,false> - put the values on huge pages

   Notes:
   Does nothing when A is not a MATBSRCUSTOM matrix, so that a program may call it whatever type
   its options chose.

   Asked for when the task partition is built (the first assembly of a nonzero structure, and after a
   change of threads or chunks): on Linux with madvise(MADV_COLLAPSE), which moves the values onto
   huge pages at once (kernel 6.1 and later), else with MADV_HUGEPAGE. Only whole 2 MiB pages inside
   the values array are affected; the values themselves do not change, and nothing happens to
   arrays below 2 MiB. A refusal (transparent huge pages disabled, an older kernel, another
   operating system) is no error: -info and MatView say what happened. The gain is small and varies
   with the machine and its load; it is on by default because it costs nothing when refused.

   Level: advanced

.seealso: `MatBSRCustomGetHugePages()`, `MatBSRCustomSetNumThreads()`
@*/
PetscErrorCode MatBSRCustomSetHugePages(Mat A, PetscBool huge)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveBool(A, huge, 2);
  PetscTryMethod(A, "MatBSRCustomSetHugePages_C", (Mat, PetscBool), (A, huge));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(huge, 2);
  PetscUseMethod(A, "MatBSRCustomGetHugePages_C", (Mat, PetscBool *), (A, huge));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetCPUBusyFallback - Chooses whether the cpu backend may run its products on a team
   of threads that sleep between products instead of its OpenMP team, when other work keeps the
   cores busy.

   Logically Collective

   Input Parameters:
+  A - the matrix
-  fallback - PETSC_TRUE (default) or PETSC_FALSE (always the OpenMP team)

   Options Database Key:
.  -mat_bsrcustom_cpu_busy_fallback <true,false> - the busy-core fallback

   Notes:
   Does nothing when A is not a MATBSRCUSTOM matrix, so that a program may call it whatever type
   its options chose.

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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveBool(A, fallback, 2);
  PetscTryMethod(A, "MatBSRCustomSetCPUBusyFallback_C", (Mat, PetscBool), (A, fallback));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(fallback, 2);
  PetscUseMethod(A, "MatBSRCustomGetCPUBusyFallback_C", (Mat, PetscBool *), (A, fallback));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetMPIProgress - Chooses whether, on several ranks, the cpu backend's local product lets
   MPI make progress between its tasks.

   Logically Collective

   Input Parameters:
+  A - the matrix
-  progress - PETSC_TRUE (default) or PETSC_FALSE

   Options Database Key:
.  -mat_bsrcustom_mpi_progress <true,false> - MPI progress during the local product

   Notes:
   Does nothing when A is not a MATBSRCUSTOM matrix, and changes nothing on one rank or on the GPU
   backends.

   MatMult on several ranks begins the halo exchange, runs the local block's product and then waits
   for the ghost values. Most MPI libraries move a message only inside MPI calls, and a message
   above their eager limit (a few KiB between processes of one node with Open MPI) needs both sides
   to take part: without a call during the local product, each rank's exchange completes only once
   its neighbours have finished their own local products, so every MatMult waits for the slowest
   neighbour. With progress on, the thread that called MatMult makes a cheap MPI call
   (MPI_Iprobe) after each task (or group of tasks walked together) it runs, so the exchange moves
   during the product. Several threads need an MPI of thread level MPI_THREAD_FUNNELED or above
   (PETSc asks for it); below that, only products on one thread make the calls. The product is the
   same either way.

   Level: advanced

.seealso: `MatBSRCustomGetMPIProgress()`, `MatBSRCustomSetChunksPerThread()`
@*/
PetscErrorCode MatBSRCustomSetMPIProgress(Mat A, PetscBool progress)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveBool(A, progress, 2);
  PetscTryMethod(A, "MatBSRCustomSetMPIProgress_C", (Mat, PetscBool), (A, progress));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetMPIProgress - Gets whether the cpu backend's local product lets MPI make progress
   between its tasks (several ranks).

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  progress - whether it does

   Level: advanced

.seealso: `MatBSRCustomSetMPIProgress()`
@*/
PetscErrorCode MatBSRCustomGetMPIProgress(Mat A, PetscBool *progress)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(progress, 2);
  PetscUseMethod(A, "MatBSRCustomGetMPIProgress_C", (Mat, PetscBool *), (A, progress));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomSetTranspose - Chooses how MatMultTranspose(Add) and MatMultHermitianTranspose(Add)
   run: MAT_BSRCUSTOM_TRANSPOSE_CACHED runs our kernels on a transposed copy of the matrix (A^T's
   blocks, each transposed), built at the first transpose product and after a change of the nonzero
   structure, its values refreshed through a stored block permutation when the values change; it costs
   the matrix's memory again. On the cpu backend (or bound to the CPU) the task kernel runs on it; on
   the GPU backends it is also uploaded as a second device matrix (structure when built, values when
   refreshed; the device memory of the matrix again) and the product runs the backend's kernel on it,
   on host or CUDA vectors as MatMult does. MAT_BSRCUSTOM_TRANSPOSE_BAIJ runs BAIJ's own serial code on
   the host, with no extra memory.

   Logically Collective

   Input Parameters:
+  A - the matrix
-  mode - the mode

   Options Database Key:
.  -mat_bsrcustom_transpose <cached,baij> - the mode

   Note:
   Does nothing when A is not a MATBSRCUSTOM matrix, so that a program may call it whatever type
   its options chose.

   Level: advanced

.seealso: `MatBSRCustomGetTranspose()`, `MatMultTranspose()`
@*/
PetscErrorCode MatBSRCustomSetTranspose(Mat A, MatBSRCustomTransposeMode mode)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, mode, 2);
  PetscTryMethod(A, "MatBSRCustomSetTranspose_C", (Mat, MatBSRCustomTransposeMode), (A, mode));
  PetscFunctionReturn(0);
}

/*@
   MatBSRCustomGetTranspose - Gets how transpose products run on the cpu backend.

   Not Collective

   Input Parameter:
.  A - a MATBSRCUSTOM matrix

   Output Parameter:
.  mode - the mode

   Level: advanced

.seealso: `MatBSRCustomSetTranspose()`
@*/
PetscErrorCode MatBSRCustomGetTranspose(Mat A, MatBSRCustomTransposeMode *mode)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(mode, 2);
  PetscUseMethod(A, "MatBSRCustomGetTranspose_C", (Mat, MatBSRCustomTransposeMode *), (A, mode));
  PetscFunctionReturn(0);
}
