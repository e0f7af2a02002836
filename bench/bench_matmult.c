static const char help[] = "MatMult / MatMultAdd benchmark of block sparse matrix types at PETSc level.\n\
Each matrix is generated here, assembled once as BAIJ (MatCreate + MatSetType(baij) + MatXAIJSetPreallocation)\n\
and converted (MatConvert) to every other type, so all types hold identical values. The products of every\n\
type are checked against the first type (relative max-norm difference < 1e-13).\n\
Matrices (-bench_matrices thesis,stencil27):\n\
  thesis    : -thesis_rows <32000> rows, -thesis_bs <5> dense blocks, -thesis_density <0.05> of the entries nonzero,\n\
              the nonzero blocks of each block row forming a contiguous band of block columns centred on the\n\
              diagonal (shifted at the edges); positive random entries, every scalar row sums to 1\n\
  stencil27 : 27-point stencil on a -stencil_n <48>^3 grid, -stencil_bs <3> random dense blocks\n\
Options:\n\
  -bench_types <baij>      : comma list of Mat types; the first is the reference for checks and ratios\n\
  -bench_reps <50>         : products per timed trial (at most; see -bench_time_budget)\n\
  -bench_time_budget <6>   : seconds of timed products per matrix, type and operation; if reps x trials\n\
                             calls would take longer, fewer calls per trial are made (0: never)\n\
  -bench_trials <5>        : trials; the median is reported\n\
  -bench_warmup <3>        : untimed products before timing\n\
  -bench_seed <1>          : seed of the generators (results do not depend on the number of ranks)\n\
  -stream_mb <400>         : total size over all ranks, in MB, of the arrays of each bandwidth reference: the STREAM\n\
                             triad's three (a = b + s c, 24 B an element: two reads and a write) and the read's one\n\
                             (a vectorised sum of its elements, 8 B an element: reads only)\n\
  -bench_json <file>       : also write the results as JSON\n\
bsrcustom extras (the program links libpetscbsrcustom and registers its types at start):\n\
  -bench_sweep <true>      : on 1 rank, for seqbsrcustom: thread sweep 1..omp_get_max_threads()\n\
                             (MatBSRCustomSetNumThreads; triad and read re-measured with as many threads)\n\
                             and chunks-per-thread sweep at the matrix's thread count (MatBSRCustomSetChunksPerThread)\n\
  -bench_sweep_chunks <1,2,4,8,16,64,256> : chunks per thread of the chunk sweep\n\
  -bench_sweep_time_budget <budget> : -bench_time_budget of each sweep point\n\
  -bench_overlap <true>    : on several ranks, for mpibsrcustom: time the halo exchange alone, the local\n\
                             product alone, the ghost product alone and the whole MatMult (cpu backend: also\n\
                             without MPI progress during the local product, -mat_bsrcustom_mpi_progress false)\n\
  -bench_target_baij <1.0> : target: 1-thread seqbsrcustom MatMult at least this times as fast as seqbaij\n\
  -bench_target_read <90>  : target: all-threads seqbsrcustom MatMult at least this percentage of the read reference;\n\
                             judged on pairs (single reads and MatMults alternate for -bench_time_budget s;\n\
                             the median of each MatMult's ratio to the reads beside it), so that a drift of\n\
                             the machine's bandwidth moves both sides alike\n\
  -bench_target_overlap <1.10> : target: overlapped MatMult <= this x (max(exchange, local) + the ghost product after the local one)\n\
  -bench_one_rank <true>   : on P > 1 ranks of one node: rank 0 also holds the whole matrix as seqbaij and as\n\
                             seqbsrcustom with P threads; the three MatMults (mpibaij on all ranks, then the two\n\
                             on rank 0 alone while the other ranks sleep) are timed in interleaved trials\n\
  -bench_target_vs_ranks <1.0> : target: seqbsrcustom with P threads at least this times as fast as mpibaij on P ranks\n\
  -bench_target_vs_one <8.0>   : target (P >= 8 only): ... and at least this times as fast as seqbaij on 1 rank\n\
  -bench_loaded <true>     : on 1 rank (Linux): seqbaij and seqbsrcustom with default settings timed in interleaved\n\
                             trials while a CPU-bound process runs on every CPU of the rank; before that, on the\n\
                             idle machine, seqbsrcustom with and without its busy-core fallback, interleaved\n\
  -bench_target_loaded <1.0>   : target: seqbsrcustom at least this times as fast as seqbaij on busy cores\n\
  -bench_target_idle_cost <0.97> : target: seqbsrcustom with the fallback at least this times as fast as without, idle\n\
  -bench_copies <true>     : with a bsrcustom type in -bench_types (cpu backend): MatMult of the BAIJ matrices made from\n\
                             it, MatConvert(ours, MATBAIJ) and MatConvert(MatDuplicate(ours), MATBAIJ), timed in\n\
                             interleaved trials against the BAIJ assembled here (ratio: median of the per-trial\n\
                             time ratios copy / assembled; 1: as fast)\n\
  -bench_transpose <true>  : MatMultTranspose of every type timed beside its own MatMult (interleaved trials), its\n\
                             product checked against the first type's; ratios to its MatMult and to the first type's transpose\n\
  -bench_spmm <1,4,8,32>   : MatMatMult with a dense matrix of k columns (MAT_REUSE_MATRIX) per column, beside one MatMult\n\
                             (interleaved), for each k of the list (empty: none); column results checked against MatMult\n\
  -bench_target_transpose <0.7> : target (cpu backend): MatMultTranspose throughput at least this times MatMult's, all threads\n\
  -bench_target_transpose_gpu <0.85> : target (GPU backends): MatMultTranspose (the transposed copy on the GPU) throughput at least\n\
                             this times MatMult's\n\
  -bench_target_spmm <0.4> : target (cpu backend): MatMatMult with 8 columns at most this times a MatMult per column\n\
  -bench_target_gpu_spmm <0.3> : target (GPU backends, -mat_bsrcustom_backend cuda): the GPU block SpMM with 8 columns\n\
                             at most this times the same backend's MatMult per column\n\
  -bench_ksp <0>           : after the MatMult timings, KSPSolve with every type, exactly this many iterations (0: none):\n\
                             -bench_ksp_type <gmres> (restart 30, preconditioned on the right) with -bench_ksp_pc_type <pbjacobi>, b = A u for a fixed\n\
                             random u, x0 = 0, rtol = atol = 0, so that no solve stops early. The thesis matrix is nearly\n\
                             singular and the solve does not converge: this times the solver's iterations (products,\n\
                             orthogonalisation, PC), not its convergence. One untimed solve, then -bench_trials solves\n\
                             per type in interleaved trials (median of the slowest rank's time); the residuals\n\
                             ||b - A x|| / ||b|| must agree with the first type's to 1e-4 (relative); the solutions'\n\
                             difference is printed. Table lines start with \"ksp \"\n\
Block rows are split evenly over the MPI ranks. The bandwidth references (STREAM triad, read) run on all ranks at\n\
once, each with omp_get_max_threads() OpenMP threads on its share of the arrays; their bandwidth is the aggregate\n\
of all ranks. The table's %triad and %read are MatMult's GB/s in percent of each: the triad is the seed thesis's\n\
reference, kept for comparison with it; the read is the bound of a product that reads its matrix and x and writes\n\
only y, and the target is judged against it (on a machine where writes cost little the triad runs above what\n\
the cores can read, and the reverse). Both are host memory's: rows of a product on a GPU print \"-\".\n\n";

#include "bench_matmult.h"

int main(int argc, char **argv)
{
  char         *mats[MAX_LIST], *types[MAX_LIST], json[PETSC_MAX_PATH_LEN] = "";
  PetscInt      nmats = MAX_LIST, ntypes = MAX_LIST, reps = 50, trials = 5, warmup = 3, seed = 1;
  PetscInt      thesis_rows = 32000, thesis_bs = 5, stencil_n = 48, stencil_bs = 3, im, it, nres = 0;
  PetscInt      chunks[MAX_LIST] = {1, 2, 4, 8, 16, 64, 256}, nchunks = MAX_LIST, nsw = 0, nov = 0, ntg = 0, maxsw, maxtg;
  PetscReal     density = 0.05, stream_mb = 400.0, budget = 6.0, sweep_budget = -1.0;
  PetscReal     target_baij = 1.0, target_read = 90.0, target_overlap = 1.10, target_vs_ranks = 1.0, target_vs_one = 8.0;
  PetscReal     target_loaded = 1.0, target_idle_cost = 0.97;
  PetscBool     setm, sett, setc, hasjson, dosweep = PETSC_TRUE, dooverlap = PETSC_TRUE, doonerank = PETSC_TRUE, doloaded = PETSC_TRUE;
  PetscBool     gpu_run     = PETSC_FALSE; /* -mat_bsrcustom_backend names a GPU backend: no CPU-only comparisons */
  PetscBool     dotranspose = PETSC_TRUE;
  PetscBool     docopies    = PETSC_TRUE;
  CopiesRow    *copies;
  PetscInt      ncopies          = 0;
  PetscInt      spmm_k[MAX_LIST] = {1, 4, 8, 32}, nspmm = MAX_LIST;
  PetscBool     setk;
  PetscReal     target_transpose = 0.7, target_transpose_gpu = 0.85, target_spmm = 0.4, target_gpu_spmm = 0.3;
  TransposeRow *trow;
  SpMMRow      *srow;
  PetscMPIInt   size;
  double        triad = 0.0, read = 0.0;
  Refs         *refs;
  PairedRow    *paired;
  PetscInt      npaired  = 0;
  int           nthreads = 1, k;
  Result       *res;
  SweepRow     *sw;
  OverlapRow   *ov;
  OneRankRow   *one;
  LoadedRow    *loaded;
  PetscInt      none = 0, nloaded = 0;
  Target       *tg;
  PetscInt      ksp_its = 0, nkr = 0;
  char          ksp_type[64] = KSPGMRES, pc_type[64] = PCPBJACOBI;
  KSPRow       *kr;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll()); /* bsrcustom, seqbsrcustom, mpibsrcustom without -dll_append */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "MatMult benchmark options", "Mat");
  PetscCall(PetscOptionsStringArray("-bench_matrices", "Matrices: thesis,stencil27", "bench_matmult.c", mats, &nmats, &setm));
  PetscCall(PetscOptionsStringArray("-bench_types", "Mat types, the first is the reference", "MatConvert", types, &ntypes, &sett));
  PetscCall(PetscOptionsInt("-bench_reps", "Products per trial", "bench_matmult.c", reps, &reps, NULL));
  PetscCall(PetscOptionsInt("-bench_trials", "Trials (median reported)", "bench_matmult.c", trials, &trials, NULL));
  PetscCall(PetscOptionsInt("-bench_warmup", "Untimed products before timing", "bench_matmult.c", warmup, &warmup, NULL));
  PetscCall(PetscOptionsReal("-bench_time_budget", "Seconds of timed calls per matrix, type and product before -bench_reps is reduced (0: never reduce)", "bench_matmult.c", budget, &budget, NULL));
  PetscCall(PetscOptionsInt("-bench_seed", "Seed of the generators", "bench_matmult.c", seed, &seed, NULL));
  PetscCall(PetscOptionsInt("-thesis_rows", "Rows of the thesis matrix", "bench_matmult.c", thesis_rows, &thesis_rows, NULL));
  PetscCall(PetscOptionsInt("-thesis_bs", "Block size of the thesis matrix", "bench_matmult.c", thesis_bs, &thesis_bs, NULL));
  PetscCall(PetscOptionsReal("-thesis_density", "Fraction of nonzero entries of the thesis matrix", "bench_matmult.c", density, &density, NULL));
  PetscCall(PetscOptionsInt("-stencil_n", "Grid points per direction of the stencil27 matrix", "bench_matmult.c", stencil_n, &stencil_n, NULL));
  PetscCall(PetscOptionsInt("-stencil_bs", "Block size of the stencil27 matrix", "bench_matmult.c", stencil_bs, &stencil_bs, NULL));
  PetscCall(PetscOptionsReal("-stream_mb", "Total MB of the arrays of each bandwidth reference (STREAM triad, read)", "bench_matmult.c", stream_mb, &stream_mb, NULL));
  PetscCall(PetscOptionsString("-bench_json", "Write results as JSON to this file", "bench_matmult.c", json, json, sizeof(json), &hasjson));
  PetscCall(PetscOptionsBool("-bench_sweep", "1 rank: thread and chunks-per-thread sweeps of seqbsrcustom", "MatBSRCustomSetNumThreads", dosweep, &dosweep, NULL));
  PetscCall(PetscOptionsIntArray("-bench_sweep_chunks", "Chunks per thread of the chunk sweep", "MatBSRCustomSetChunksPerThread", chunks, &nchunks, &setc));
  PetscCall(PetscOptionsReal("-bench_sweep_time_budget", "-bench_time_budget of each sweep point (default: -bench_time_budget)", "bench_matmult.c", sweep_budget, &sweep_budget, NULL));
  PetscCall(PetscOptionsBool("-bench_overlap", "Several ranks: time exchange, local and ghost products of mpibsrcustom alone and together", "MatBSRCustomGetLocalAndGhost", dooverlap, &dooverlap, NULL));
  PetscCall(PetscOptionsReal("-bench_target_baij", "Target: 1-thread seqbsrcustom / seqbaij MatMult speed", "bench_matmult.c", target_baij, &target_baij, NULL));
  PetscCall(PetscOptionsReal("-bench_target_read", "Target: all-threads seqbsrcustom MatMult, percent of the read reference (paired)", "bench_matmult.c", target_read, &target_read, NULL));
  PetscCall(PetscOptionsReal("-bench_target_overlap", "Target: overlapped MatMult / (max(exchange, local) + ghost)", "bench_matmult.c", target_overlap, &target_overlap, NULL));
  PetscCall(PetscOptionsBool("-bench_one_rank", "Several ranks of one node: seqbsrcustom with one thread per rank on rank 0 against mpibaij on all ranks, interleaved", "bench_matmult.c", doonerank, &doonerank, NULL));
  PetscCall(PetscOptionsReal("-bench_target_vs_ranks", "Target: seqbsrcustom with P threads / mpibaij on P ranks MatMult speed", "bench_matmult.c", target_vs_ranks, &target_vs_ranks, NULL));
  PetscCall(PetscOptionsBool("-bench_loaded", "1 rank: seqbaij and seqbsrcustom with a CPU-bound process on every CPU, and the busy-core fallback's cost on the idle machine", "MatBSRCustomSetCPUBusyFallback", doloaded, &doloaded, NULL));
  PetscCall(PetscOptionsReal("-bench_target_loaded", "Target: seqbsrcustom / seqbaij MatMult speed on busy cores", "bench_matmult.c", target_loaded, &target_loaded, NULL));
  PetscCall(PetscOptionsReal("-bench_target_idle_cost", "Target: seqbsrcustom with / without the busy-core fallback MatMult speed, idle", "bench_matmult.c", target_idle_cost, &target_idle_cost, NULL));
  PetscCall(PetscOptionsReal("-bench_target_vs_one", "Target (P >= 8): seqbsrcustom with P threads / seqbaij on 1 rank MatMult speed", "bench_matmult.c", target_vs_one, &target_vs_one, NULL));
  PetscCall(PetscOptionsBool("-bench_copies", "MatMult of MatConvert(ours, MATBAIJ) and MatConvert(MatDuplicate(ours), MATBAIJ) against the BAIJ assembled here", "MatConvert", docopies, &docopies, NULL));
  PetscCall(PetscOptionsBool("-bench_transpose", "MatMultTranspose of every type beside its MatMult", "MatMultTranspose", dotranspose, &dotranspose, NULL));
  PetscCall(PetscOptionsIntArray("-bench_spmm", "Columns k of the MatMatMult with a dense matrix (per column against one MatMult)", "MatMatMult", spmm_k, &nspmm, &setk));
  PetscCall(PetscOptionsReal("-bench_target_transpose", "Target (cpu backend): MatMultTranspose throughput / MatMult's", "bench_matmult.c", target_transpose, &target_transpose, NULL));
  PetscCall(PetscOptionsReal("-bench_target_transpose_gpu", "Target (GPU backends): MatMultTranspose throughput / MatMult's", "bench_matmult.c", target_transpose_gpu, &target_transpose_gpu, NULL));
  PetscCall(PetscOptionsReal("-bench_target_spmm", "Target (cpu backend): MatMatMult with 8 columns per column / one MatMult", "bench_matmult.c", target_spmm, &target_spmm, NULL));
  PetscCall(PetscOptionsReal("-bench_target_gpu_spmm", "Target (GPU backends): the GPU block SpMM with 8 columns per column / one MatMult", "bench_matmult.c", target_gpu_spmm, &target_gpu_spmm, NULL));
  PetscCall(PetscOptionsInt("-bench_ksp", "Iterations of the fixed-iteration KSPSolve of every type after the MatMult timings (0: none)", "KSPSolve", ksp_its, &ksp_its, NULL));
  PetscCall(PetscOptionsString("-bench_ksp_type", "KSP type of -bench_ksp (GMRES types restart every 30 iterations)", "KSPSetType", ksp_type, ksp_type, sizeof(ksp_type), NULL));
  PetscCall(PetscOptionsString("-bench_ksp_pc_type", "PC type of -bench_ksp", "PCSetType", pc_type, pc_type, sizeof(pc_type), NULL));
  PetscOptionsEnd();
  PetscCheck(ksp_its >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_ksp must be >= 0, got %" PetscInt_FMT, ksp_its);
  if (!setk) { /* the defaults, or none for an empty -bench_spmm (PETSc reads it as given without values) */
    PetscBool given;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-bench_spmm", &given));
    nspmm = given ? 0 : 4;
  }
  for (k = 0; k < (int)nspmm; k++) PetscCheck(spmm_k[k] >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_spmm: columns must be >= 1, got %" PetscInt_FMT, spmm_k[k]);
  {
    PetscEnum be  = (PetscEnum)MAT_BSRCUSTOM_BACKEND_CPU;
    PetscBool set = PETSC_FALSE;
    PetscCall(PetscOptionsGetEnum(NULL, NULL, "-mat_bsrcustom_backend", MatBSRCustomBackends, &be, &set));
    gpu_run = (PetscBool)(set && be != (PetscEnum)MAT_BSRCUSTOM_BACKEND_CPU);
  }
  if (!setm || nmats == 0) {
    nmats = 2;
    PetscCall(PetscStrallocpy("thesis", &mats[0]));
    PetscCall(PetscStrallocpy("stencil27", &mats[1]));
  }
  if (!sett || ntypes == 0) {
    ntypes = 1;
    PetscCall(PetscStrallocpy(MATBAIJ, &types[0]));
  }
  if (!setc) nchunks = 7;
  if (sweep_budget < 0.0) sweep_budget = budget;
  PetscCheck(reps >= 1 && trials >= 1 && warmup >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Need -bench_reps >= 1, -bench_trials >= 1, -bench_warmup >= 0");
  PetscCheck(budget >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_time_budget must be >= 0");
  PetscCheck(stream_mb > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-stream_mb must be positive");
  for (k = 0; k < (int)nchunks; k++) PetscCheck(chunks[k] >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_sweep_chunks: chunks per thread must be >= 1, got %" PetscInt_FMT, chunks[k]);
#if defined(_OPENMP)
  nthreads = omp_get_max_threads();
#endif
  PetscCheck(nthreads <= MAX_THREADS, PETSC_COMM_WORLD, PETSC_ERR_SUP, "At most %d OpenMP threads", MAX_THREADS);
  maxsw = nmats * (nthreads + nchunks); /* one seqbsrcustom type per matrix is swept */
  maxtg = nmats * (4 + ntypes);         /* 4 targets on 1 rank or 2 of the one-rank comparison, one overlap target per mpibsrcustom type */
  PetscCall(PetscMalloc1(nmats * ntypes, &res));
  PetscCall(PetscCalloc2(MAX_LIST, &trow, MAX_LIST * MAX_LIST, &srow));
  PetscCall(PetscCalloc3(nmats, &one, nmats, &loaded, nmats, &copies));
  PetscCall(PetscCalloc1(nmats * ntypes, &kr));
  PetscCall(PetscCalloc4(maxsw, &sw, nmats * ntypes, &ov, maxtg, &tg, 1, &refs));
  PetscCall(PetscCalloc1(2 * nmats, &paired));
  PetscCall(RefsGet(refs, stream_mb, nthreads, &triad, &read));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatMult benchmark: %d MPI rank(s), %d OpenMP thread(s) per rank, %" PetscInt_FMT " warm-up + median of %" PetscInt_FMT " trials x reps calls (reps <= %" PetscInt_FMT ", fewer when a measurement would exceed %.6g s)\n", (int)size, nthreads, warmup, trials, reps, (double)budget));
  {
    int ncpu = AffinityCPUs(), mincpu;

    PetscCallMPI(MPI_Allreduce(&ncpu, &mincpu, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
    if (mincpu > 0 && mincpu < nthreads) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "WARNING: a rank may run on only %d CPU(s) but uses %d OpenMP threads (mpiexec binds ranks to cores: use --bind-to none or set OMP_NUM_THREADS)\n", mincpu, nthreads));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "STREAM triad (all ranks x threads, %.6g MB total, best of 10): %.2f GB/s; read (sum of one %.6g MB array, same threads, best of 10): %.2f GB/s\n", (double)stream_mb, triad, (double)stream_mb, read));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%%triad, %%read = MatMult GB/s in percent of the triad (the seed thesis's reference) and of the read (MatMult reads its matrix and x and writes only y: the bound the target judges it against); \"-\" for a product on a GPU, which these host references say nothing of\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Bytes per product = values (8 B) + column indices (4 B per block for block types, per scalar for AIJ types) + row pointers + x + y (MatMultAdd: + z); MB = matrix storage (values + indices + row pointers), 1 MB = 1e6 B\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ratio = time of %s / time of this type (> 1: faster than %s); reldiff = max relative difference of the products to %s\n", types[0], types[0], types[0]));

  for (im = 0; im < nmats; im++) {
    MatrixSpec spec;
    Mat        base;
    Vec        xref, yref, zref, yaddref, xtref, ytref;
    PetscBool  have_tref;
    double     tref = 0.0, taddref = 0.0;
    double     t_baij = 0.0, t_bsr1 = 0.0, gbs_bsr = 0.0, triad_bsr = 0.0, read_bsr = 0.0;
    PairedRef  pt_bsr = {REF_TRIAD, 0, 0, 0, 0, 0, 0}, pr_bsr = {REF_READ, 0, 0, 0, 0, 0, 0};
    PetscInt   nt_bsr = 0, nov0 = nov;
    char       bsr_type[64] = "", ours_type[64] = "";

    PetscCall(SetupSpec(mats[im], thesis_rows, thesis_bs, density, stencil_n, stencil_bs, &spec));
    PetscCall(AssembleBAIJ(&spec, seed, &base));
    PetscCall(MatCreateVecs(base, &xref, &yref));
    PetscCall(VecDuplicate(yref, &zref));
    PetscCall(VecDuplicate(yref, &yaddref));
    if (spec.band > 0) { /* the thesis matrix is row-stochastic: A 1 = 1 */
      PetscReal err;
      PetscCall(VecSet(xref, 1.0));
      PetscCall(MatMult(base, xref, yref));
      PetscCall(VecShift(yref, -1.0));
      PetscCall(VecNorm(yref, NORM_INFINITY, &err));
      PetscCheck(err < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Thesis matrix rows do not sum to 1: max error %g", (double)err);
    }
    PetscCall(FillRandom(xref, seed));
    PetscCall(FillRandom(zref, seed + 1000003));
    PetscCall(MatCreateVecs(base, &ytref, &xtref)); /* MatMultTranspose: xt has A's rows, yt its columns */
    PetscCall(FillRandom(xtref, seed + 2000003));
    have_tref = PETSC_FALSE;

    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %3s %9s %4s %9s %9s %8s %6s %6s %9s %8s %7s %7s %9s\n", "matrix", "type", "bs", "nblocks", "reps", "MB", "Mult ms", "GB/s", "%triad", "%read", "MAdd ms", "GB/s", "ratio", "ratioA", "reldiff"));
    for (it = 0; it < ntypes; it++) {
      Result             *r = &res[nres];
      Mat                 A;
      Vec                 x, y, z;
      PetscBool           same, isseqbaij, isseqbsr, ismpibsr;
      MatBSRCustomBackend backend = MAT_BSRCUSTOM_BACKEND_CPU;
      MatType             mtype;
      double              t0;

      PetscCall(PetscMemzero(r, sizeof(*r)));
      PetscCall(IsBaseType(base, types[it], &same));
      t0 = MPI_Wtime();
      if (same) A = base;
      else PetscCall(MatConvert(base, types[it], MAT_INITIAL_MATRIX, &A));
      r->convert_s = MPI_Wtime() - t0;
      PetscCall(MatGetType(A, &mtype));
      PetscCall(PetscStrncpy(r->matrix, spec.name, sizeof(r->matrix)));
      PetscCall(PetscStrncpy(r->type, mtype, sizeof(r->type)));
      r->bs      = spec.bs;
      r->nrows   = spec.nbrows * spec.bs;
      r->nblocks = spec.nblocks;
      PetscCall(TrafficModel(A, &spec, r));
      PetscCall(RunsOnDevice(A, &r->device));

      PetscCall(MatCreateVecs(A, &x, &y));
      PetscCall(VecDuplicate(y, &z));
      PetscCall(VecCopy(xref, x));
      PetscCall(VecCopy(zref, z));
      /* correctness against the first type */
      PetscCall(MatMult(A, x, y));
      if (it == 0) PetscCall(VecCopy(y, yref));
      else PetscCall(RelDiff(y, yref, &r->diff_mult));
      PetscCall(MatMultAdd(A, x, z, y));
      if (it == 0) PetscCall(VecCopy(y, yaddref));
      else PetscCall(RelDiff(y, yaddref, &r->diff_multadd));
      PetscCheck(r->diff_mult < 1e-13 && r->diff_multadd < 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Matrix %s, type %s: products differ from type %s: MatMult %g, MatMultAdd %g (relative max norm)", spec.name, mtype, types[0], r->diff_mult, r->diff_multadd);

      PetscCall(TimeProduct(A, x, z, y, PETSC_FALSE, warmup, reps, trials, budget, &r->mult_s, &r->reps_mult));
      PetscCall(TimeProduct(A, x, z, y, PETSC_TRUE, warmup, reps, trials, budget, &r->multadd_s, &r->reps_multadd));
      if (it == 0) {
        tref    = r->mult_s;
        taddref = r->multadd_s;
      }
      r->ratio_mult    = tref / r->mult_s;
      r->ratio_multadd = taddref / r->multadd_s;
      PetscCall(PrintRow(r, triad, read));
      nres++;
      if (dotranspose) PetscCall(BenchTranspose(A, x, y, xtref, ytref, &have_tref, warmup, reps, trials, budget, &trow[it]));
      else {
        PetscCall(PetscStrncpy(trow[it].type, mtype, sizeof(trow[it].type)));
        PetscCall(IsCPUBSRCustom(A, &trow[it].cpu_bsr));
      }
      PetscCall(IsGPUBSRCustom(A, &trow[it].gpu_spmm));
      for (PetscInt ik = 0; ik < nspmm; ik++) PetscCall(BenchSpMM(A, x, y, spmm_k[ik], seed, warmup, reps, trials, budget, &srow[it * MAX_LIST + ik]));
      PetscCall(VecCopy(xref, x)); /* BenchSpMM used x */

      PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJ, &isseqbaij));
      PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBSRCUSTOM, &isseqbsr));
      PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBSRCUSTOM, &ismpibsr));
      if (isseqbaij && t_baij == 0.0) t_baij = r->mult_s;
      if ((isseqbsr || ismpibsr) && !ours_type[0]) PetscCall(PetscStrncpy(ours_type, types[it], sizeof(ours_type)));
      if (isseqbsr) PetscCall(MatBSRCustomGetBackend(A, &backend));
      /* the CPU targets (threads against the read reference and against MATBAIJ) are about the cpu backend only */
      if (isseqbsr && backend == MAT_BSRCUSTOM_BACKEND_CPU && !bsr_type[0]) {
        PetscCall(PetscStrncpy(bsr_type, mtype, sizeof(bsr_type)));
        PetscCall(MatBSRCustomGetNumThreads(A, &nt_bsr));
        PetscCheck(nt_bsr >= 1 && nt_bsr <= MAX_THREADS, PETSC_COMM_WORLD, PETSC_ERR_SUP, "The benchmark handles at most %d threads, the matrix uses %" PetscInt_FMT, MAX_THREADS, nt_bsr);
        if (nt_bsr == 1) t_bsr1 = r->mult_s;
        PetscCall(RefsGet(refs, stream_mb, nt_bsr, &triad_bsr, &read_bsr));
        gbs_bsr = r->mult_bytes / r->mult_s / 1e9;
        if (size == 1) {
          PetscCall(MeasurePaired(REF_READ, A, x, y, r->mult_bytes, stream_mb, (int)nt_bsr, warmup, trials, budget, &pr_bsr));
          PetscCall(MeasurePaired(REF_TRIAD, A, x, y, r->mult_bytes, stream_mb, (int)nt_bsr, warmup, trials, budget, &pt_bsr));
          for (int q = 0; q < 2; q++) {
            PairedRow *row = &paired[npaired++];
            PetscCall(PetscStrncpy(row->matrix, spec.name, sizeof(row->matrix)));
            PetscCall(PetscStrncpy(row->type, mtype, sizeof(row->type)));
            row->threads = nt_bsr;
            row->p       = q ? pt_bsr : pr_bsr;
          }
        }
        if (dosweep) {
          PetscInt n0 = nsw;
          PetscCall(Sweeps(A, x, y, r, stream_mb, nthreads, chunks, nchunks, warmup, reps, trials, sweep_budget, sw, maxsw, &nsw, refs));
          for (; n0 < nsw; n0++)
            if (!strcmp(sw[n0].sweep, "threads") && sw[n0].threads == 1 && t_bsr1 == 0.0) t_bsr1 = sw[n0].mult_s;
        }
      }
      if (ismpibsr && dooverlap) PetscCall(Overlap(A, x, y, r, warmup, reps, trials, budget, target_overlap, &ov[nov++]));

      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
      PetscCall(VecDestroy(&z));
      if (A != base) PetscCall(MatDestroy(&A));
    }
    PetscCall(PrintTransposeSpMM(spec.name, types[0], ntypes, trow, dotranspose, srow, nspmm, gpu_run, target_transpose, target_transpose_gpu, target_spmm, target_gpu_spmm));
    PetscCall(VecDestroy(&xtref));
    PetscCall(VecDestroy(&ytref));
    if (nov > nov0) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  overlap of the halo exchange, %s, %d ranks (times in ms, medians of the max over ranks; ghost = the ghost product alone, loc+ghost = the local then the ghost product without the exchange, so the ghost product after the local one is max(ghost, loc+ghost - local), as cold as in MatMult; bound = max(exchange, local) + that; full/bd = T_full / bound from the medians, paired = median of the per-trial ratios, vs warm = T_full / (max(exchange, local) + ghost); hidden = (exchange + local + ghost - full) / exchange, clamped to [0,1], raw beside it; cpu backend: no-prog = MatMult of a copy without MPI progress during the local product (-mat_bsrcustom_mpi_progress false), np/full = median of its per-trial ratio to full; all are timed in interleaved trials)\n",
                            spec.name, (int)size));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %13s %9s %9s %9s %9s %9s %9s %8s %8s %8s %7s %8s %9s %8s\n", "matrix", "type", "ghosts", "exchange", "local", "ghost", "loc+ghost", "full", "bound", "full/bd", "paired", "vs warm", "hidden", "raw", "no-prog", "np/full"));
      for (; nov0 < nov; nov0++) {
        char what[160];
        PetscCall(PrintOverlap(&ov[nov0]));
        PetscCall(PetscSNPrintf(what, sizeof(what), "%s on %d ranks: MatMult / (max(exchange, local) + ghost product after the local one) <= %.2f", ov[nov0].type, (int)size, (double)target_overlap));
        PetscCall(
          PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s overlap: %s: %.3f (%.3f ms vs bound %.3f ms; %.0f%% of the exchange hidden): %s\n", spec.name, what, ov[nov0].ratio, 1e3 * ov[nov0].t_full, 1e3 * ov[nov0].bound, 100.0 * ov[nov0].hidden, ov[nov0].pass ? "PASS" : "MISS"));
        PetscCall(AddTarget(tg, maxtg, &ntg, spec.name, "overlap", what, ov[nov0].ratio, (double)target_overlap, PETSC_FALSE));
      }
    }
    if (size > 1 && doonerank && !gpu_run) {
      OneRankRow *o = &one[none];

      PetscCall(OneRankVsRanks(&spec, seed, base, xref, warmup, reps, trials, budget, o));
      if (o->threads > 0) {
        char what[160];

        none++;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  1 rank x %" PetscInt_FMT " threads against MATBAIJ, %s, in one run: mpibaij on %d ranks, then seqbaij and %s (%" PetscInt_FMT " threads) on rank 0 alone, in %" PetscInt_FMT " interleaved trials; products agree to %.1e\n", o->threads,
                              spec.name, (int)size, o->type, o->threads, trials, o->diff));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %12s %12s %14s %9s %9s\n", "matrix", "mpibaij ms", "seqbaij ms", "seqbsrcust ms", "vs ranks", "vs 1 rank"));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %12.3f %12.3f %14.3f %9.3f %9.3f\n", spec.name, 1e3 * o->t[0], 1e3 * o->t[1], 1e3 * o->t[2], o->vs_ranks, o->vs_one));
        PetscCall(PetscSNPrintf(what, sizeof(what), "bsrcustom 1 rank x %" PetscInt_FMT " threads at least %.2fx as fast as MATBAIJ on %d ranks, paired", o->threads, (double)target_vs_ranks, (int)size));
        PetscCall(AddTarget(tg, maxtg, &ntg, spec.name, "one_rank_vs_ranks", what, o->vs_ranks, (double)target_vs_ranks, PETSC_TRUE));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (median of %" PetscInt_FMT " per-trial ratios, quartiles %.3f-%.3f; medians mpibaij %.3f ms, %s %.3f ms): %s\n", spec.name, what, o->vs_ranks, trials, o->vs_ranks_q1, o->vs_ranks_q3, 1e3 * o->t[0], o->type, 1e3 * o->t[2],
                              tg[ntg - 1].pass ? "PASS" : "MISS"));
        if (size >= 8) {
          PetscCall(PetscSNPrintf(what, sizeof(what), "bsrcustom 1 rank x %" PetscInt_FMT " threads at least %.2fx as fast as MATBAIJ on 1 rank, paired", o->threads, (double)target_vs_one));
          PetscCall(AddTarget(tg, maxtg, &ntg, spec.name, "one_rank_vs_one", what, o->vs_one, (double)target_vs_one, PETSC_TRUE));
          PetscCall(
            PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (median of %" PetscInt_FMT " per-trial ratios; medians seqbaij %.3f ms, %s %.3f ms): %s\n", spec.name, what, o->vs_one, trials, 1e3 * o->t[1], o->type, 1e3 * o->t[2], tg[ntg - 1].pass ? "PASS" : "MISS"));
        }
      }
    }
    if (size == 1 && bsr_type[0]) {
      char what[160];
      if (t_baij == 0.0) { /* seqbaij was not among the types: time the assembled BAIJ matrix for the target */
        PetscInt rb;
        PetscCall(TimeProduct(base, xref, NULL, yref, PETSC_FALSE, warmup, reps, trials, budget, &t_baij, &rb));
      }
      if (t_bsr1 > 0.0) {
        PetscCall(PetscSNPrintf(what, sizeof(what), "%s 1 thread MatMult at least %.2fx as fast as seqbaij (1 rank)", bsr_type, (double)target_baij));
        PetscCall(AddTarget(tg, maxtg, &ntg, spec.name, "bsrcustom_1thread_vs_baij", what, t_baij / t_bsr1, (double)target_baij, PETSC_TRUE));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (seqbaij %.3f ms, %s 1 thread %.3f ms): %s\n", spec.name, what, t_baij / t_bsr1, 1e3 * t_baij, bsr_type, 1e3 * t_bsr1, tg[ntg - 1].pass ? "PASS" : "MISS"));
      } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s 1 thread vs seqbaij: not measured (no 1-thread run: use OMP_NUM_THREADS=1 or -bench_sweep)\n", spec.name, bsr_type));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT " thread(s) MatMult at least %.0f%% of the read reference with as many threads, paired", bsr_type, nt_bsr, (double)target_read));
      PetscCall(AddTarget(tg, maxtg, &ntg, spec.name, "bsrcustom_allthreads_pct_read", what, pr_bsr.pct_med, (double)target_read, PETSC_TRUE));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.1f%% (median of %" PetscInt_FMT " pairs of a read and a MatMult, quartiles %.1f-%.1f%%; median GB/s %.2f MatMult, %.2f read; against the one best-of-10 read at start: %.1f%% = %.2f of %.2f GB/s): %s\n",
                            spec.name, what, pr_bsr.pct_med, pr_bsr.pairs, pr_bsr.pct_q1, pr_bsr.pct_q3, pr_bsr.mult_med, pr_bsr.ref_med, 100.0 * gbs_bsr / read_bsr, gbs_bsr, read_bsr, tg[ntg - 1].pass ? "PASS" : "MISS"));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-10s %s %" PetscInt_FMT " thread(s) MatMult against the STREAM triad, paired the same way (the seed thesis's reference, not judged): %.1f%% (median of %" PetscInt_FMT " pairs, quartiles %.1f-%.1f%%; median GB/s %.2f MatMult, %.2f triad; against the one best-of-10 triad at start: %.1f%% = %.2f of %.2f GB/s)\n",
                            spec.name, bsr_type, nt_bsr, pt_bsr.pct_med, pt_bsr.pairs, pt_bsr.pct_q1, pt_bsr.pct_q3, pt_bsr.mult_med, pt_bsr.ref_med, 100.0 * gbs_bsr / triad_bsr, gbs_bsr, triad_bsr));
      if (doloaded) {
        LoadedRow *l = &loaded[nloaded];
        PetscCall(LoadedVsBAIJ(base, xref, bsr_type, warmup, reps, trials, budget, l));
        if (l->busy > 0) {
          PetscCall(PetscStrncpy(l->matrix, spec.name, sizeof(l->matrix)));
          nloaded++;
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  busy cores, %s: seqbaij and %s (%" PetscInt_FMT " threads, default settings) in %" PetscInt_FMT " interleaved trials with a CPU-bound process on each of %" PetscInt_FMT " CPUs; idle before that: %s with and without the busy-core fallback\n",
                                spec.name, bsr_type, l->threads, trials, l->busy, bsr_type));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %12s %14s %9s %16s %16s %9s\n", "matrix", "busy baij ms", "busy bsrc. ms", "ratio", "idle fallback ms", "idle without ms", "ratio"));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %12.3f %14.3f %9.3f %16.3f %16.3f %9.3f\n", spec.name, l->t_baij, l->t_bsr, l->ratio, l->t_on, l->t_off, l->idle));
          PetscCall(PetscSNPrintf(what, sizeof(what), "%s MatMult at least %.2fx as fast as seqbaij with a CPU-bound process on every CPU, paired", bsr_type, (double)target_loaded));
          PetscCall(AddTarget(tg, maxtg, &ntg, spec.name, "bsrcustom_busy_vs_baij", what, l->ratio, (double)target_loaded, PETSC_TRUE));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (median of %" PetscInt_FMT " per-trial ratios, quartiles %.3f-%.3f; medians seqbaij %.3f ms, %s %.3f ms): %s\n", spec.name, what, l->ratio, trials, l->q1, l->q3, l->t_baij, bsr_type, l->t_bsr,
                                tg[ntg - 1].pass ? "PASS" : "MISS"));
          PetscCall(PetscSNPrintf(what, sizeof(what), "%s MatMult with the busy-core fallback at least %.2fx as fast as without it, idle, paired", bsr_type, (double)target_idle_cost));
          PetscCall(AddTarget(tg, maxtg, &ntg, spec.name, "bsrcustom_fallback_idle_cost", what, l->idle, (double)target_idle_cost, PETSC_TRUE));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (median of %" PetscInt_FMT " per-trial ratios, quartiles %.3f-%.3f; medians %.3f ms with, %.3f ms without): %s\n", spec.name, what, l->idle, trials, l->idle_q1, l->idle_q3, l->t_on, l->t_off,
                                tg[ntg - 1].pass ? "PASS" : "MISS"));
        } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "busy cores, %s: not measured (needs Linux)\n", spec.name));
      }
    }
    if (docopies && ours_type[0] && !gpu_run) {
      CopiesRow *c = &copies[ncopies++];
      PetscCall(BenchBAIJCopies(base, xref, ours_type, warmup, reps, trials, budget, c));
      PetscCall(PetscStrncpy(c->matrix, spec.name, sizeof(c->matrix)));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  BAIJ copies of %s, %s: MatMult of MatConvert(ours, MATBAIJ) and of MatConvert(MatDuplicate(ours), MATBAIJ) against the %s assembled here, in %" PetscInt_FMT " interleaved trials (ratio: median of the per-trial time ratios copy / assembled; 1 = as fast); products agree to %.1e\n", c->type,
                            spec.name, c->baij_type, trials, c->diff));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-10s %3s %12s %12s %7s %14s %7s\n", "matrix", "copies", "bs", "assembled ms", "converted ms", "ratio", "dup+conv. ms", "ratio"));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-10s %3" PetscInt_FMT " %12.3f %12.3f %7.3f %14.3f %7.3f\n", spec.name, c->baij_type, c->bs, c->t[0], c->t[1], c->ratio[0], c->t[2], c->ratio[1]));
    }
    if (ksp_its > 0) {
      PetscCall(BenchKSP(&spec, base, ntypes, types, ksp_its, ksp_type, pc_type, seed, trials, &kr[nkr]));
      nkr += ntypes;
    }
    PetscCall(VecDestroy(&xref));
    PetscCall(VecDestroy(&yref));
    PetscCall(VecDestroy(&zref));
    PetscCall(VecDestroy(&yaddref));
    PetscCall(MatDestroy(&base));
  }
  if (ntg) {
    PetscInt npass = 0;
    for (k = 0; k < (int)ntg; k++) npass += tg[k].pass;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGETS: %" PetscInt_FMT " of %" PetscInt_FMT " pass\n", npass, ntg));
  }
  if (hasjson && json[0]) {
    PetscCall(WriteJSON(json, res, nres, triad, read, paired, npaired, nthreads, reps, trials, budget, sw, nsw, ov, nov, one, none, loaded, nloaded, copies, ncopies, kr, nkr, tg, ntg));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Results written to %s\n", json));
  }

  for (im = 0; im < nmats; im++) PetscCall(PetscFree(mats[im]));
  for (it = 0; it < ntypes; it++) PetscCall(PetscFree(types[it]));
  PetscCall(PetscFree(res));
  PetscCall(PetscFree3(one, loaded, copies));
  PetscCall(PetscFree(kr));
  PetscCall(PetscFree4(sw, ov, tg, refs));
  PetscCall(PetscFree(paired));
  PetscCall(PetscFree2(trow, srow));
  PetscCall(PetscFinalize());
  return 0;
}
