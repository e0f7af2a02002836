/* The command line: the options of -help, their defaults and their checks. */
#include "bench_options.h"

static PetscErrorCode BenchOptionsDefault(BenchOptions *o)
{
  const PetscInt chunks[] = {1, 2, 4, 8, 16, 64, 256}, spmm_k[] = {1, 4, 8, 32};

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(o, sizeof(*o)));
  o->nmats       = MAX_LIST;
  o->ntypes      = MAX_LIST;
  o->reps        = 50;
  o->trials      = 5;
  o->warmup      = 3;
  o->seed        = 1;
  o->thesis_rows = 32000;
  o->thesis_bs   = 5;
  o->stencil_n   = 48;
  o->stencil_bs  = 3;
  for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) o->chunks[i] = chunks[i];
  o->nchunks = MAX_LIST;
  for (size_t i = 0; i < sizeof(spmm_k) / sizeof(spmm_k[0]); i++) o->spmm_k[i] = spmm_k[i];
  o->nspmm                = MAX_LIST;
  o->density              = 0.05;
  o->stream_mb            = 400.0;
  o->budget               = 6.0;
  o->sweep_budget         = -1.0;
  o->target_baij          = 1.0;
  o->target_read          = 90.0;
  o->target_overlap       = 1.10;
  o->target_vs_ranks      = 1.0;
  o->target_vs_one        = 8.0;
  o->target_loaded        = 1.0;
  o->target_idle_cost     = 0.97;
  o->target_transpose     = 0.7;
  o->target_transpose_gpu = 0.85;
  o->target_spmm          = 0.4;
  o->target_gpu_spmm      = 0.3;
  o->dosweep              = PETSC_TRUE;
  o->dooverlap            = PETSC_TRUE;
  o->doonerank            = PETSC_TRUE;
  o->doloaded             = PETSC_TRUE;
  o->dotranspose          = PETSC_TRUE;
  o->docopies             = PETSC_TRUE;
  o->nthreads             = 1;
  PetscCall(PetscStrncpy(o->ksp_type, KSPGMRES, sizeof(o->ksp_type)));
  PetscCall(PetscStrncpy(o->pc_type, PCPBJACOBI, sizeof(o->pc_type)));
  PetscFunctionReturn(0);
}

/* the options database, in the order -help lists them */
static PetscErrorCode BenchOptionsRead(BenchOptions *o, PetscBool *setm, PetscBool *sett, PetscBool *setc, PetscBool *setk)
{
  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "MatMult benchmark options", "Mat");
  PetscCall(PetscOptionsStringArray("-bench_matrices", "Matrices: thesis,stencil27", "bench_matmult.c", o->mats, &o->nmats, setm));
  PetscCall(PetscOptionsStringArray("-bench_types", "Mat types, the first is the reference", "MatConvert", o->types, &o->ntypes, sett));
  PetscCall(PetscOptionsInt("-bench_reps", "Products per trial", "bench_matmult.c", o->reps, &o->reps, NULL));
  PetscCall(PetscOptionsInt("-bench_trials", "Trials (median reported)", "bench_matmult.c", o->trials, &o->trials, NULL));
  PetscCall(PetscOptionsInt("-bench_warmup", "Untimed products before timing", "bench_matmult.c", o->warmup, &o->warmup, NULL));
  PetscCall(PetscOptionsReal("-bench_time_budget", "Seconds of timed calls per matrix, type and product before -bench_reps is reduced (0: never reduce)", "bench_matmult.c", o->budget, &o->budget, NULL));
  PetscCall(PetscOptionsInt("-bench_seed", "Seed of the generators", "bench_matmult.c", o->seed, &o->seed, NULL));
  PetscCall(PetscOptionsInt("-thesis_rows", "Rows of the thesis matrix", "bench_matmult.c", o->thesis_rows, &o->thesis_rows, NULL));
  PetscCall(PetscOptionsInt("-thesis_bs", "Block size of the thesis matrix", "bench_matmult.c", o->thesis_bs, &o->thesis_bs, NULL));
  PetscCall(PetscOptionsReal("-thesis_density", "Fraction of nonzero entries of the thesis matrix", "bench_matmult.c", o->density, &o->density, NULL));
  PetscCall(PetscOptionsInt("-stencil_n", "Grid points per direction of the stencil27 matrix", "bench_matmult.c", o->stencil_n, &o->stencil_n, NULL));
  PetscCall(PetscOptionsInt("-stencil_bs", "Block size of the stencil27 matrix", "bench_matmult.c", o->stencil_bs, &o->stencil_bs, NULL));
  PetscCall(PetscOptionsReal("-stream_mb", "Total MB of the arrays of each bandwidth reference (STREAM triad, read)", "bench_matmult.c", o->stream_mb, &o->stream_mb, NULL));
  PetscCall(PetscOptionsString("-bench_json", "Write results as JSON to this file", "bench_matmult.c", o->json, o->json, sizeof(o->json), &o->hasjson));
  PetscCall(PetscOptionsBool("-bench_sweep", "1 rank: thread and chunks-per-thread sweeps of seqbsrcustom", "MatBSRCustomSetNumThreads", o->dosweep, &o->dosweep, NULL));
  PetscCall(PetscOptionsIntArray("-bench_sweep_chunks", "Chunks per thread of the chunk sweep", "MatBSRCustomSetChunksPerThread", o->chunks, &o->nchunks, setc));
  PetscCall(PetscOptionsReal("-bench_sweep_time_budget", "-bench_time_budget of each sweep point (default: -bench_time_budget)", "bench_matmult.c", o->sweep_budget, &o->sweep_budget, NULL));
  PetscCall(PetscOptionsBool("-bench_overlap", "Several ranks: time exchange, local and ghost products of mpibsrcustom alone and together", "MatBSRCustomGetLocalAndGhost", o->dooverlap, &o->dooverlap, NULL));
  PetscCall(PetscOptionsReal("-bench_target_baij", "Target: 1-thread seqbsrcustom / seqbaij MatMult speed", "bench_matmult.c", o->target_baij, &o->target_baij, NULL));
  PetscCall(PetscOptionsReal("-bench_target_read", "Target: all-threads seqbsrcustom MatMult, percent of the read reference (paired)", "bench_matmult.c", o->target_read, &o->target_read, NULL));
  PetscCall(PetscOptionsReal("-bench_target_overlap", "Target: overlapped MatMult / (max(exchange, local) + ghost)", "bench_matmult.c", o->target_overlap, &o->target_overlap, NULL));
  PetscCall(PetscOptionsBool("-bench_one_rank", "Several ranks of one node: seqbsrcustom with one thread per rank on rank 0 against mpibaij on all ranks, interleaved", "bench_matmult.c", o->doonerank, &o->doonerank, NULL));
  PetscCall(PetscOptionsReal("-bench_target_vs_ranks", "Target: seqbsrcustom with P threads / mpibaij on P ranks MatMult speed", "bench_matmult.c", o->target_vs_ranks, &o->target_vs_ranks, NULL));
  PetscCall(PetscOptionsBool("-bench_loaded", "1 rank: seqbaij and seqbsrcustom with a CPU-bound process on every CPU, and the busy-core fallback's cost on the idle machine", "MatBSRCustomSetCPUBusyFallback", o->doloaded, &o->doloaded, NULL));
  PetscCall(PetscOptionsReal("-bench_target_loaded", "Target: seqbsrcustom / seqbaij MatMult speed on busy cores", "bench_matmult.c", o->target_loaded, &o->target_loaded, NULL));
  PetscCall(PetscOptionsReal("-bench_target_idle_cost", "Target: seqbsrcustom with / without the busy-core fallback MatMult speed, idle", "bench_matmult.c", o->target_idle_cost, &o->target_idle_cost, NULL));
  PetscCall(PetscOptionsReal("-bench_target_vs_one", "Target (P >= 8): seqbsrcustom with P threads / seqbaij on 1 rank MatMult speed", "bench_matmult.c", o->target_vs_one, &o->target_vs_one, NULL));
  PetscCall(PetscOptionsBool("-bench_copies", "MatMult of MatConvert(ours, MATBAIJ) and MatConvert(MatDuplicate(ours), MATBAIJ) against the BAIJ assembled here", "MatConvert", o->docopies, &o->docopies, NULL));
  PetscCall(PetscOptionsBool("-bench_transpose", "MatMultTranspose of every type beside its MatMult", "MatMultTranspose", o->dotranspose, &o->dotranspose, NULL));
  PetscCall(PetscOptionsIntArray("-bench_spmm", "Columns k of the MatMatMult with a dense matrix (per column against one MatMult)", "MatMatMult", o->spmm_k, &o->nspmm, setk));
  PetscCall(PetscOptionsReal("-bench_target_transpose", "Target (cpu backend): MatMultTranspose throughput / MatMult's", "bench_matmult.c", o->target_transpose, &o->target_transpose, NULL));
  PetscCall(PetscOptionsReal("-bench_target_transpose_gpu", "Target (GPU backends): MatMultTranspose throughput / MatMult's", "bench_matmult.c", o->target_transpose_gpu, &o->target_transpose_gpu, NULL));
  PetscCall(PetscOptionsReal("-bench_target_spmm", "Target (cpu backend): MatMatMult with 8 columns per column / one MatMult", "bench_matmult.c", o->target_spmm, &o->target_spmm, NULL));
  PetscCall(PetscOptionsReal("-bench_target_gpu_spmm", "Target (GPU backends): the GPU block SpMM with 8 columns per column / one MatMult", "bench_matmult.c", o->target_gpu_spmm, &o->target_gpu_spmm, NULL));
  PetscCall(PetscOptionsInt("-bench_ksp", "Iterations of the fixed-iteration KSPSolve of every type after the MatMult timings (0: none)", "KSPSolve", o->ksp_its, &o->ksp_its, NULL));
  PetscCall(PetscOptionsString("-bench_ksp_type", "KSP type of -bench_ksp (GMRES types restart every 30 iterations)", "KSPSetType", o->ksp_type, o->ksp_type, sizeof(o->ksp_type), NULL));
  PetscCall(PetscOptionsString("-bench_ksp_pc_type", "PC type of -bench_ksp", "PCSetType", o->pc_type, o->pc_type, sizeof(o->pc_type), NULL));
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

/* the defaults of the lists not given, and the checks */
static PetscErrorCode BenchOptionsComplete(BenchOptions *o, PetscBool setm, PetscBool sett, PetscBool setc, PetscBool setk)
{
  PetscFunctionBeginUser;
  PetscCheck(o->ksp_its >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_ksp must be >= 0, got %" PetscInt_FMT, o->ksp_its);
  if (!setk) { /* the defaults, or none for an empty -bench_spmm (PETSc reads it as given without values) */
    PetscBool given;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-bench_spmm", &given));
    o->nspmm = given ? 0 : 4;
  }
  for (int k = 0; k < (int)o->nspmm; k++) PetscCheck(o->spmm_k[k] >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_spmm: columns must be >= 1, got %" PetscInt_FMT, o->spmm_k[k]);
  {
    PetscEnum be  = (PetscEnum)MAT_BSRCUSTOM_BACKEND_CPU;
    PetscBool set = PETSC_FALSE;
    PetscCall(PetscOptionsGetEnum(NULL, NULL, "-mat_bsrcustom_backend", MatBSRCustomBackends, &be, &set));
    o->gpu_run = (PetscBool)(set && be != (PetscEnum)MAT_BSRCUSTOM_BACKEND_CPU);
  }
  if (!setm || o->nmats == 0) {
    o->nmats = 2;
    PetscCall(PetscStrallocpy("thesis", &o->mats[0]));
    PetscCall(PetscStrallocpy("stencil27", &o->mats[1]));
  }
  if (!sett || o->ntypes == 0) {
    o->ntypes = 1;
    PetscCall(PetscStrallocpy(MATBAIJ, &o->types[0]));
  }
  if (!setc) o->nchunks = 7;
  if (o->sweep_budget < 0.0) o->sweep_budget = o->budget;
  PetscCheck(o->reps >= 1 && o->trials >= 1 && o->warmup >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Need -bench_reps >= 1, -bench_trials >= 1, -bench_warmup >= 0");
  PetscCheck(o->budget >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_time_budget must be >= 0");
  PetscCheck(o->stream_mb > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-stream_mb must be positive");
  for (int k = 0; k < (int)o->nchunks; k++) PetscCheck(o->chunks[k] >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_sweep_chunks: chunks per thread must be >= 1, got %" PetscInt_FMT, o->chunks[k]);
#if defined(_OPENMP)
  o->nthreads = omp_get_max_threads();
#endif
  PetscCheck(o->nthreads <= MAX_THREADS, PETSC_COMM_WORLD, PETSC_ERR_SUP, "At most %d OpenMP threads", MAX_THREADS);
  PetscFunctionReturn(0);
}

PetscErrorCode BenchOptionsGet(BenchOptions *o)
{
  PetscBool setm, sett, setc, setk;

  PetscFunctionBeginUser;
  PetscCall(BenchOptionsDefault(o));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &o->size));
  PetscCall(BenchOptionsRead(o, &setm, &sett, &setc, &setk));
  PetscCall(BenchOptionsComplete(o, setm, sett, setc, setk));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchOptionsFree(BenchOptions *o)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < o->nmats; i++) PetscCall(PetscFree(o->mats[i]));
  for (PetscInt i = 0; i < o->ntypes; i++) PetscCall(PetscFree(o->types[i]));
  PetscFunctionReturn(0);
}
