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

#include "bench_options.h"
#include "bench_matrices.h"
#include "bench_timing.h"
#include "bench_references.h"
#include "bench_sweeps.h"
#include "bench_overlap.h"
#include "bench_one_rank.h"
#include "bench_busy.h"
#include "bench_copies.h"
#include "bench_products.h"
#include "bench_ksp.h"
#include "bench_report.h"

/* What the run collects over all matrices and types: the table rows, the targets, the references. */
typedef struct {
  Result       *res;
  SweepRow     *sw;
  OverlapRow   *ov;
  OneRankRow   *one;
  LoadedRow    *loaded;
  CopiesRow    *copies;
  KSPRow       *kr;
  Target       *tg;
  PairedRow    *paired;
  TransposeRow *trow; /* one matrix's, by type */
  SpMMRow      *srow; /* one matrix's, by type and number of columns */
  Refs         *refs;
  PetscInt      nres, nsw, nov, none, nloaded, ncopies, nkr, ntg, npaired;
  PetscInt      maxsw, maxtg;
  double        triad, read; /* the references with the run's threads */
} BenchRun;

/* One matrix: the BAIJ matrix every type converts, the reference vectors and what the targets need. */
typedef struct {
  MatrixSpec spec;
  Mat        base;
  Vec        xref, yref, zref, yaddref, xtref, ytref;
  PetscBool  have_tref;
  double     tref, taddref; /* the first type's times */
  double     t_baij, t_bsr1, gbs_bsr, triad_bsr, read_bsr;
  PairedRef  pt_bsr, pr_bsr;
  PetscInt   nt_bsr, nov0;
  char       bsr_type[64];  /* the first seqbsrcustom type on the cpu backend: the CPU targets' */
  char       ours_type[64]; /* the first bsrcustom type: the BAIJ copies' */
} MatrixRun;

static PetscErrorCode BenchRunCreate(const BenchOptions *o, BenchRun *R)
{
  const PetscInt nmats = o->nmats, ntypes = o->ntypes;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(R, sizeof(*R)));
  R->maxsw = nmats * (o->nthreads + o->nchunks); /* one seqbsrcustom type per matrix is swept */
  R->maxtg = nmats * (4 + ntypes);               /* 4 targets on 1 rank or 2 of the one-rank comparison, one overlap target per mpibsrcustom type */
  PetscCall(PetscMalloc1(nmats * ntypes, &R->res));
  PetscCall(PetscCalloc2(MAX_LIST, &R->trow, MAX_LIST * MAX_LIST, &R->srow));
  PetscCall(PetscCalloc3(nmats, &R->one, nmats, &R->loaded, nmats, &R->copies));
  PetscCall(PetscCalloc1(nmats * ntypes, &R->kr));
  PetscCall(PetscCalloc4(R->maxsw, &R->sw, nmats * ntypes, &R->ov, R->maxtg, &R->tg, 1, &R->refs));
  PetscCall(PetscCalloc1(2 * nmats, &R->paired));
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchRunDestroy(BenchRun *R)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(R->res));
  PetscCall(PetscFree3(R->one, R->loaded, R->copies));
  PetscCall(PetscFree(R->kr));
  PetscCall(PetscFree4(R->sw, R->ov, R->tg, R->refs));
  PetscCall(PetscFree(R->paired));
  PetscCall(PetscFree2(R->trow, R->srow));
  PetscFunctionReturn(0);
}

static PetscErrorCode PrintPreamble(const BenchOptions *o, const BenchRun *R)
{
  const int nthreads = o->nthreads;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatMult benchmark: %d MPI rank(s), %d OpenMP thread(s) per rank, %" PetscInt_FMT " warm-up + median of %" PetscInt_FMT " trials x reps calls (reps <= %" PetscInt_FMT ", fewer when a measurement would exceed %.6g s)\n",
                        (int)o->size, nthreads, o->warmup, o->trials, o->reps, (double)o->budget));
  {
    int ncpu = AffinityCPUs(), mincpu;

    PetscCallMPI(MPI_Allreduce(&ncpu, &mincpu, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
    if (mincpu > 0 && mincpu < nthreads) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "WARNING: a rank may run on only %d CPU(s) but uses %d OpenMP threads (mpiexec binds ranks to cores: use --bind-to none or set OMP_NUM_THREADS)\n", mincpu, nthreads));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "STREAM triad (all ranks x threads, %.6g MB total, best of 10): %.2f GB/s; read (sum of one %.6g MB array, same threads, best of 10): %.2f GB/s\n", (double)o->stream_mb, R->triad, (double)o->stream_mb, R->read));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%%triad, %%read = MatMult GB/s in percent of the triad (the seed thesis's reference) and of the read (MatMult reads its matrix and x and writes only y: the bound the target judges it against); \"-\" for a product on a GPU, which these host references say nothing of\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Bytes per product = values (8 B) + column indices (4 B per block for block types, per scalar for AIJ types) + row pointers + x + y (MatMultAdd: + z); MB = matrix storage (values + indices + row pointers), 1 MB = 1e6 B\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ratio = time of %s / time of this type (> 1: faster than %s); reldiff = max relative difference of the products to %s\n", o->types[0], o->types[0], o->types[0]));
  PetscFunctionReturn(0);
}

/* the matrix named name assembled as BAIJ, and the reference vectors */
static PetscErrorCode MatrixRunSetUp(const BenchOptions *o, const char name[], MatrixRun *M)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(M, sizeof(*M)));
  M->pt_bsr.kind = REF_TRIAD;
  M->pr_bsr.kind = REF_READ;
  PetscCall(SetupSpec(name, o->thesis_rows, o->thesis_bs, o->density, o->stencil_n, o->stencil_bs, &M->spec));
  PetscCall(AssembleBAIJ(&M->spec, o->seed, &M->base));
  PetscCall(MatCreateVecs(M->base, &M->xref, &M->yref));
  PetscCall(VecDuplicate(M->yref, &M->zref));
  PetscCall(VecDuplicate(M->yref, &M->yaddref));
  if (M->spec.band > 0) { /* the thesis matrix is row-stochastic: A 1 = 1 */
    PetscReal err;
    PetscCall(VecSet(M->xref, 1.0));
    PetscCall(MatMult(M->base, M->xref, M->yref));
    PetscCall(VecShift(M->yref, -1.0));
    PetscCall(VecNorm(M->yref, NORM_INFINITY, &err));
    PetscCheck(err < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Thesis matrix rows do not sum to 1: max error %g", (double)err);
  }
  PetscCall(FillRandom(M->xref, o->seed));
  PetscCall(FillRandom(M->zref, o->seed + 1000003));
  PetscCall(MatCreateVecs(M->base, &M->ytref, &M->xtref)); /* MatMultTranspose: xt has A's rows, yt its columns */
  PetscCall(FillRandom(M->xtref, o->seed + 2000003));
  M->have_tref = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Type it of matrix M: converted from the BAIJ matrix, its products checked against the first
   type's, then timed; the row printed. */
static PetscErrorCode BenchTypeProducts(const BenchOptions *o, BenchRun *R, MatrixRun *M, PetscInt it, Mat *A, Vec *x, Vec *y, Vec *z)
{
  Result *r = &R->res[R->nres];
  MatType mtype;
  double  t0;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  {
    PetscBool same;
    PetscCall(IsBaseType(M->base, o->types[it], &same));
    t0 = MPI_Wtime();
    if (same) *A = M->base;
    else PetscCall(MatConvert(M->base, o->types[it], MAT_INITIAL_MATRIX, A));
    r->convert_s = MPI_Wtime() - t0;
  }
  PetscCall(MatGetType(*A, &mtype));
  PetscCall(PetscStrncpy(r->matrix, M->spec.name, sizeof(r->matrix)));
  PetscCall(PetscStrncpy(r->type, mtype, sizeof(r->type)));
  r->bs      = M->spec.bs;
  r->nrows   = M->spec.nbrows * M->spec.bs;
  r->nblocks = M->spec.nblocks;
  PetscCall(TrafficModel(*A, &M->spec, r));
  PetscCall(RunsOnDevice(*A, &r->device));

  PetscCall(MatCreateVecs(*A, x, y));
  PetscCall(VecDuplicate(*y, z));
  PetscCall(VecCopy(M->xref, *x));
  PetscCall(VecCopy(M->zref, *z));
  /* correctness against the first type */
  PetscCall(MatMult(*A, *x, *y));
  if (it == 0) PetscCall(VecCopy(*y, M->yref));
  else PetscCall(RelDiff(*y, M->yref, &r->diff_mult));
  PetscCall(MatMultAdd(*A, *x, *z, *y));
  if (it == 0) PetscCall(VecCopy(*y, M->yaddref));
  else PetscCall(RelDiff(*y, M->yaddref, &r->diff_multadd));
  PetscCheck(r->diff_mult < 1e-13 && r->diff_multadd < 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Matrix %s, type %s: products differ from type %s: MatMult %g, MatMultAdd %g (relative max norm)", M->spec.name, mtype, o->types[0], r->diff_mult, r->diff_multadd);

  PetscCall(TimeProduct(*A, *x, *z, *y, PETSC_FALSE, o->warmup, o->reps, o->trials, o->budget, &r->mult_s, &r->reps_mult));
  PetscCall(TimeProduct(*A, *x, *z, *y, PETSC_TRUE, o->warmup, o->reps, o->trials, o->budget, &r->multadd_s, &r->reps_multadd));
  if (it == 0) {
    M->tref    = r->mult_s;
    M->taddref = r->multadd_s;
  }
  r->ratio_mult    = M->tref / r->mult_s;
  r->ratio_multadd = M->taddref / r->multadd_s;
  PetscCall(PrintRow(r, R->triad, R->read));
  R->nres++;
  PetscFunctionReturn(0);
}

/* MatMultTranspose and MatMatMult of type it beside its MatMult */
static PetscErrorCode BenchTypeTransposeSpMM(const BenchOptions *o, BenchRun *R, MatrixRun *M, PetscInt it, Mat A, Vec x, Vec y)
{
  MatType mtype;

  PetscFunctionBeginUser;
  PetscCall(MatGetType(A, &mtype));
  if (o->dotranspose) PetscCall(BenchTranspose(A, x, y, M->xtref, M->ytref, &M->have_tref, o->warmup, o->reps, o->trials, o->budget, &R->trow[it]));
  else {
    PetscCall(PetscStrncpy(R->trow[it].type, mtype, sizeof(R->trow[it].type)));
    PetscCall(IsCPUBSRCustom(A, &R->trow[it].cpu_bsr));
  }
  PetscCall(IsGPUBSRCustom(A, &R->trow[it].gpu_spmm));
  for (PetscInt ik = 0; ik < o->nspmm; ik++) PetscCall(BenchSpMM(A, x, y, o->spmm_k[ik], o->seed, o->warmup, o->reps, o->trials, o->budget, &R->srow[it * MAX_LIST + ik]));
  PetscCall(VecCopy(M->xref, x)); /* BenchSpMM used x */
  PetscFunctionReturn(0);
}

/* The first seqbsrcustom type on the cpu backend: its read and triad measured in pairs with its
   MatMult (1 rank), and the sweeps. */
static PetscErrorCode BenchTypeCPUTargets(const BenchOptions *o, BenchRun *R, MatrixRun *M, Mat A, Vec x, Vec y, const Result *r)
{
  MatType mtype;

  PetscFunctionBeginUser;
  PetscCall(MatGetType(A, &mtype));
  PetscCall(PetscStrncpy(M->bsr_type, mtype, sizeof(M->bsr_type)));
  PetscCall(MatBSRCustomGetNumThreads(A, &M->nt_bsr));
  PetscCheck(M->nt_bsr >= 1 && M->nt_bsr <= MAX_THREADS, PETSC_COMM_WORLD, PETSC_ERR_SUP, "The benchmark handles at most %d threads, the matrix uses %" PetscInt_FMT, MAX_THREADS, M->nt_bsr);
  if (M->nt_bsr == 1) M->t_bsr1 = r->mult_s;
  PetscCall(RefsGet(R->refs, o->stream_mb, M->nt_bsr, &M->triad_bsr, &M->read_bsr));
  M->gbs_bsr = r->mult_bytes / r->mult_s / 1e9;
  if (o->size == 1) {
    PetscCall(MeasurePaired(REF_READ, A, x, y, r->mult_bytes, o->stream_mb, (int)M->nt_bsr, o->warmup, o->trials, o->budget, &M->pr_bsr));
    PetscCall(MeasurePaired(REF_TRIAD, A, x, y, r->mult_bytes, o->stream_mb, (int)M->nt_bsr, o->warmup, o->trials, o->budget, &M->pt_bsr));
    for (int q = 0; q < 2; q++) {
      PairedRow *row = &R->paired[R->npaired++];
      PetscCall(PetscStrncpy(row->matrix, M->spec.name, sizeof(row->matrix)));
      PetscCall(PetscStrncpy(row->type, mtype, sizeof(row->type)));
      row->threads = M->nt_bsr;
      row->p       = q ? M->pt_bsr : M->pr_bsr;
    }
  }
  if (o->dosweep) {
    PetscInt n0 = R->nsw;
    PetscCall(Sweeps(A, x, y, r, o->stream_mb, o->nthreads, o->chunks, o->nchunks, o->warmup, o->reps, o->trials, o->sweep_budget, R->sw, R->maxsw, &R->nsw, R->refs));
    for (; n0 < R->nsw; n0++)
      if (!strcmp(R->sw[n0].sweep, "threads") && R->sw[n0].threads == 1 && M->t_bsr1 == 0.0) M->t_bsr1 = R->sw[n0].mult_s;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchType(const BenchOptions *o, BenchRun *R, MatrixRun *M, PetscInt it)
{
  Mat                 A;
  Vec                 x, y, z;
  PetscBool           isseqbaij, isseqbsr, ismpibsr;
  MatBSRCustomBackend backend = MAT_BSRCUSTOM_BACKEND_CPU;
  const Result       *r       = &R->res[R->nres];

  PetscFunctionBeginUser;
  PetscCall(BenchTypeProducts(o, R, M, it, &A, &x, &y, &z));
  PetscCall(BenchTypeTransposeSpMM(o, R, M, it, A, x, y));

  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJ, &isseqbaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQBSRCUSTOM, &isseqbsr));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBSRCUSTOM, &ismpibsr));
  if (isseqbaij && M->t_baij == 0.0) M->t_baij = r->mult_s;
  if ((isseqbsr || ismpibsr) && !M->ours_type[0]) PetscCall(PetscStrncpy(M->ours_type, o->types[it], sizeof(M->ours_type)));
  if (isseqbsr) PetscCall(MatBSRCustomGetBackend(A, &backend));
  /* the CPU targets (threads against the read reference and against MATBAIJ) are about the cpu backend only */
  if (isseqbsr && backend == MAT_BSRCUSTOM_BACKEND_CPU && !M->bsr_type[0]) PetscCall(BenchTypeCPUTargets(o, R, M, A, x, y, r));
  if (ismpibsr && o->dooverlap) PetscCall(Overlap(A, x, y, r, o->warmup, o->reps, o->trials, o->budget, o->target_overlap, &R->ov[R->nov++]));

  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  if (A != M->base) PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* the overlap rows of this matrix's mpibsrcustom types, and their targets */
static PetscErrorCode ReportOverlap(const BenchOptions *o, BenchRun *R, MatrixRun *M)
{
  const char *name = M->spec.name;

  PetscFunctionBeginUser;
  if (R->nov <= M->nov0) PetscFunctionReturn(0);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  overlap of the halo exchange, %s, %d ranks (times in ms, medians of the max over ranks; ghost = the ghost product alone, loc+ghost = the local then the ghost product without the exchange, so the ghost product after the local one is max(ghost, loc+ghost - local), as cold as in MatMult; bound = max(exchange, local) + that; full/bd = T_full / bound from the medians, paired = median of the per-trial ratios, vs warm = T_full / (max(exchange, local) + ghost); hidden = (exchange + local + ghost - full) / exchange, clamped to [0,1], raw beside it; cpu backend: no-prog = MatMult of a copy without MPI progress during the local product (-mat_bsrcustom_mpi_progress false), np/full = median of its per-trial ratio to full; all are timed in interleaved trials)\n", name,
                        (int)o->size));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %13s %9s %9s %9s %9s %9s %9s %8s %8s %8s %7s %8s %9s %8s\n", "matrix", "type", "ghosts", "exchange", "local", "ghost", "loc+ghost", "full", "bound", "full/bd", "paired", "vs warm", "hidden", "raw", "no-prog", "np/full"));
  for (; M->nov0 < R->nov; M->nov0++) {
    const OverlapRow *ov = &R->ov[M->nov0];
    char              what[160];
    PetscCall(PrintOverlap(ov));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s on %d ranks: MatMult / (max(exchange, local) + ghost product after the local one) <= %.2f", ov->type, (int)o->size, (double)o->target_overlap));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s overlap: %s: %.3f (%.3f ms vs bound %.3f ms; %.0f%% of the exchange hidden): %s\n", name, what, ov->ratio, 1e3 * ov->t_full, 1e3 * ov->bound, 100.0 * ov->hidden, ov->pass ? "PASS" : "MISS"));
    PetscCall(AddTarget(R->tg, R->maxtg, &R->ntg, name, "overlap", what, ov->ratio, (double)o->target_overlap, PETSC_FALSE));
  }
  PetscFunctionReturn(0);
}

/* several ranks: 1 rank x P threads against MATBAIJ on P ranks (and on 1 rank) */
static PetscErrorCode BenchOneRank(const BenchOptions *o, BenchRun *R, MatrixRun *M)
{
  OneRankRow *one  = &R->one[R->none];
  const char *name = M->spec.name;
  const int   size = (int)o->size;
  char        what[160];

  PetscFunctionBeginUser;
  PetscCall(OneRankVsRanks(&M->spec, o->seed, M->base, M->xref, o->warmup, o->reps, o->trials, o->budget, one));
  if (one->threads <= 0) PetscFunctionReturn(0);
  R->none++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  1 rank x %" PetscInt_FMT " threads against MATBAIJ, %s, in one run: mpibaij on %d ranks, then seqbaij and %s (%" PetscInt_FMT " threads) on rank 0 alone, in %" PetscInt_FMT " interleaved trials; products agree to %.1e\n",
                        one->threads, name, size, one->type, one->threads, o->trials, one->diff));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %12s %12s %14s %9s %9s\n", "matrix", "mpibaij ms", "seqbaij ms", "seqbsrcust ms", "vs ranks", "vs 1 rank"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %12.3f %12.3f %14.3f %9.3f %9.3f\n", name, 1e3 * one->t[0], 1e3 * one->t[1], 1e3 * one->t[2], one->vs_ranks, one->vs_one));
  PetscCall(PetscSNPrintf(what, sizeof(what), "bsrcustom 1 rank x %" PetscInt_FMT " threads at least %.2fx as fast as MATBAIJ on %d ranks, paired", one->threads, (double)o->target_vs_ranks, size));
  PetscCall(AddTarget(R->tg, R->maxtg, &R->ntg, name, "one_rank_vs_ranks", what, one->vs_ranks, (double)o->target_vs_ranks, PETSC_TRUE));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (median of %" PetscInt_FMT " per-trial ratios, quartiles %.3f-%.3f; medians mpibaij %.3f ms, %s %.3f ms): %s\n", name, what, one->vs_ranks, o->trials, one->vs_ranks_q1, one->vs_ranks_q3,
                        1e3 * one->t[0], one->type, 1e3 * one->t[2], R->tg[R->ntg - 1].pass ? "PASS" : "MISS"));
  if (size >= 8) {
    PetscCall(PetscSNPrintf(what, sizeof(what), "bsrcustom 1 rank x %" PetscInt_FMT " threads at least %.2fx as fast as MATBAIJ on 1 rank, paired", one->threads, (double)o->target_vs_one));
    PetscCall(AddTarget(R->tg, R->maxtg, &R->ntg, name, "one_rank_vs_one", what, one->vs_one, (double)o->target_vs_one, PETSC_TRUE));
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (median of %" PetscInt_FMT " per-trial ratios; medians seqbaij %.3f ms, %s %.3f ms): %s\n", name, what, one->vs_one, o->trials, 1e3 * one->t[1], one->type, 1e3 * one->t[2], R->tg[R->ntg - 1].pass ? "PASS" : "MISS"));
  }
  PetscFunctionReturn(0);
}

/* 1 rank: the 1-thread target against seqbaij and the all-threads target against the read */
static PetscErrorCode ReportCPUTargets(const BenchOptions *o, BenchRun *R, MatrixRun *M)
{
  const char *name = M->spec.name, *bsr_type = M->bsr_type;
  char        what[160];

  PetscFunctionBeginUser;
  if (M->t_baij == 0.0) { /* seqbaij was not among the types: time the assembled BAIJ matrix for the target */
    PetscInt rb;
    PetscCall(TimeProduct(M->base, M->xref, NULL, M->yref, PETSC_FALSE, o->warmup, o->reps, o->trials, o->budget, &M->t_baij, &rb));
  }
  if (M->t_bsr1 > 0.0) {
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s 1 thread MatMult at least %.2fx as fast as seqbaij (1 rank)", bsr_type, (double)o->target_baij));
    PetscCall(AddTarget(R->tg, R->maxtg, &R->ntg, name, "bsrcustom_1thread_vs_baij", what, M->t_baij / M->t_bsr1, (double)o->target_baij, PETSC_TRUE));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (seqbaij %.3f ms, %s 1 thread %.3f ms): %s\n", name, what, M->t_baij / M->t_bsr1, 1e3 * M->t_baij, bsr_type, 1e3 * M->t_bsr1, R->tg[R->ntg - 1].pass ? "PASS" : "MISS"));
  } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s 1 thread vs seqbaij: not measured (no 1-thread run: use OMP_NUM_THREADS=1 or -bench_sweep)\n", name, bsr_type));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s %" PetscInt_FMT " thread(s) MatMult at least %.0f%% of the read reference with as many threads, paired", bsr_type, M->nt_bsr, (double)o->target_read));
  PetscCall(AddTarget(R->tg, R->maxtg, &R->ntg, name, "bsrcustom_allthreads_pct_read", what, M->pr_bsr.pct_med, (double)o->target_read, PETSC_TRUE));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.1f%% (median of %" PetscInt_FMT " pairs of a read and a MatMult, quartiles %.1f-%.1f%%; median GB/s %.2f MatMult, %.2f read; against the one best-of-10 read at start: %.1f%% = %.2f of %.2f GB/s): %s\n", name, what,
                        M->pr_bsr.pct_med, M->pr_bsr.pairs, M->pr_bsr.pct_q1, M->pr_bsr.pct_q3, M->pr_bsr.mult_med, M->pr_bsr.ref_med, 100.0 * M->gbs_bsr / M->read_bsr, M->gbs_bsr, M->read_bsr, R->tg[R->ntg - 1].pass ? "PASS" : "MISS"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-10s %s %" PetscInt_FMT " thread(s) MatMult against the STREAM triad, paired the same way (the seed thesis's reference, not judged): %.1f%% (median of %" PetscInt_FMT " pairs, quartiles %.1f-%.1f%%; median GB/s %.2f MatMult, %.2f triad; against the one best-of-10 triad at start: %.1f%% = %.2f of %.2f GB/s)\n", name, bsr_type, M->nt_bsr,
                        M->pt_bsr.pct_med, M->pt_bsr.pairs, M->pt_bsr.pct_q1, M->pt_bsr.pct_q3, M->pt_bsr.mult_med, M->pt_bsr.ref_med, 100.0 * M->gbs_bsr / M->triad_bsr, M->gbs_bsr, M->triad_bsr));
  PetscFunctionReturn(0);
}

/* 1 rank: seqbaij and ours on busy cores, and the fallback's cost on the idle machine */
static PetscErrorCode BenchLoaded(const BenchOptions *o, BenchRun *R, MatrixRun *M)
{
  LoadedRow  *l    = &R->loaded[R->nloaded];
  const char *name = M->spec.name, *bsr_type = M->bsr_type;
  char        what[160];

  PetscFunctionBeginUser;
  PetscCall(LoadedVsBAIJ(M->base, M->xref, bsr_type, o->warmup, o->reps, o->trials, o->budget, l));
  if (l->busy <= 0) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "busy cores, %s: not measured (needs Linux)\n", name));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscStrncpy(l->matrix, name, sizeof(l->matrix)));
  R->nloaded++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  busy cores, %s: seqbaij and %s (%" PetscInt_FMT " threads, default settings) in %" PetscInt_FMT " interleaved trials with a CPU-bound process on each of %" PetscInt_FMT " CPUs; idle before that: %s with and without the busy-core fallback\n", name, bsr_type, l->threads, o->trials, l->busy, bsr_type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %12s %14s %9s %16s %16s %9s\n", "matrix", "busy baij ms", "busy bsrc. ms", "ratio", "idle fallback ms", "idle without ms", "ratio"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %12.3f %14.3f %9.3f %16.3f %16.3f %9.3f\n", name, l->t_baij, l->t_bsr, l->ratio, l->t_on, l->t_off, l->idle));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s MatMult at least %.2fx as fast as seqbaij with a CPU-bound process on every CPU, paired", bsr_type, (double)o->target_loaded));
  PetscCall(AddTarget(R->tg, R->maxtg, &R->ntg, name, "bsrcustom_busy_vs_baij", what, l->ratio, (double)o->target_loaded, PETSC_TRUE));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (median of %" PetscInt_FMT " per-trial ratios, quartiles %.3f-%.3f; medians seqbaij %.3f ms, %s %.3f ms): %s\n", name, what, l->ratio, o->trials, l->q1, l->q3, l->t_baij, bsr_type, l->t_bsr,
                        R->tg[R->ntg - 1].pass ? "PASS" : "MISS"));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s MatMult with the busy-core fallback at least %.2fx as fast as without it, idle, paired", bsr_type, (double)o->target_idle_cost));
  PetscCall(AddTarget(R->tg, R->maxtg, &R->ntg, name, "bsrcustom_fallback_idle_cost", what, l->idle, (double)o->target_idle_cost, PETSC_TRUE));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s: %.3fx (median of %" PetscInt_FMT " per-trial ratios, quartiles %.3f-%.3f; medians %.3f ms with, %.3f ms without): %s\n", name, what, l->idle, o->trials, l->idle_q1, l->idle_q3, l->t_on, l->t_off,
                        R->tg[R->ntg - 1].pass ? "PASS" : "MISS"));
  PetscFunctionReturn(0);
}

/* MatMult of the BAIJ copies of ours against the BAIJ matrix assembled here */
static PetscErrorCode BenchCopies(const BenchOptions *o, BenchRun *R, MatrixRun *M)
{
  CopiesRow *c = &R->copies[R->ncopies++];

  PetscFunctionBeginUser;
  PetscCall(BenchBAIJCopies(M->base, M->xref, M->ours_type, o->warmup, o->reps, o->trials, o->budget, c));
  PetscCall(PetscStrncpy(c->matrix, M->spec.name, sizeof(c->matrix)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  BAIJ copies of %s, %s: MatMult of MatConvert(ours, MATBAIJ) and of MatConvert(MatDuplicate(ours), MATBAIJ) against the %s assembled here, in %" PetscInt_FMT " interleaved trials (ratio: median of the per-trial time ratios copy / assembled; 1 = as fast); products agree to %.1e\n", c->type,
                        M->spec.name, c->baij_type, o->trials, c->diff));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-10s %3s %12s %12s %7s %14s %7s\n", "matrix", "copies", "bs", "assembled ms", "converted ms", "ratio", "dup+conv. ms", "ratio"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-10s %3" PetscInt_FMT " %12.3f %12.3f %7.3f %14.3f %7.3f\n", M->spec.name, c->baij_type, c->bs, c->t[0], c->t[1], c->ratio[0], c->t[2], c->ratio[1]));
  PetscFunctionReturn(0);
}

/* Everything about one matrix: every type's products, then the comparisons and targets. */
static PetscErrorCode BenchMatrix(const BenchOptions *o, BenchRun *R, const char name[])
{
  MatrixRun M;

  PetscFunctionBeginUser;
  PetscCall(MatrixRunSetUp(o, name, &M));
  M.nov0 = R->nov;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %3s %9s %4s %9s %9s %8s %6s %6s %9s %8s %7s %7s %9s\n", "matrix", "type", "bs", "nblocks", "reps", "MB", "Mult ms", "GB/s", "%triad", "%read", "MAdd ms", "GB/s", "ratio", "ratioA", "reldiff"));
  for (PetscInt it = 0; it < o->ntypes; it++) PetscCall(BenchType(o, R, &M, it));
  PetscCall(PrintTransposeSpMM(M.spec.name, o->types[0], o->ntypes, R->trow, o->dotranspose, R->srow, o->nspmm, o->gpu_run, o->target_transpose, o->target_transpose_gpu, o->target_spmm, o->target_gpu_spmm));
  PetscCall(VecDestroy(&M.xtref));
  PetscCall(VecDestroy(&M.ytref));
  PetscCall(ReportOverlap(o, R, &M));
  if (o->size > 1 && o->doonerank && !o->gpu_run) PetscCall(BenchOneRank(o, R, &M));
  if (o->size == 1 && M.bsr_type[0]) {
    PetscCall(ReportCPUTargets(o, R, &M));
    if (o->doloaded) PetscCall(BenchLoaded(o, R, &M));
  }
  if (o->docopies && M.ours_type[0] && !o->gpu_run) PetscCall(BenchCopies(o, R, &M));
  if (o->ksp_its > 0) {
    PetscCall(BenchKSP(&M.spec, M.base, o->ntypes, o->types, o->ksp_its, o->ksp_type, o->pc_type, o->seed, o->trials, &R->kr[R->nkr]));
    R->nkr += o->ntypes;
  }
  PetscCall(VecDestroy(&M.xref));
  PetscCall(VecDestroy(&M.yref));
  PetscCall(VecDestroy(&M.zref));
  PetscCall(VecDestroy(&M.yaddref));
  PetscCall(MatDestroy(&M.base));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  BenchOptions o;
  BenchRun     R;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll()); /* bsrcustom, seqbsrcustom, mpibsrcustom without -dll_append */
  PetscCall(BenchOptionsGet(&o));
  PetscCall(BenchRunCreate(&o, &R));
  PetscCall(RefsGet(R.refs, o.stream_mb, o.nthreads, &R.triad, &R.read));
  PetscCall(PrintPreamble(&o, &R));
  for (PetscInt im = 0; im < o.nmats; im++) PetscCall(BenchMatrix(&o, &R, o.mats[im]));
  if (R.ntg) {
    PetscInt npass = 0;
    for (PetscInt k = 0; k < R.ntg; k++) npass += R.tg[k].pass;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGETS: %" PetscInt_FMT " of %" PetscInt_FMT " pass\n", npass, R.ntg));
  }
  if (o.hasjson && o.json[0]) {
    PetscCall(WriteJSON(o.json, R.res, R.nres, R.triad, R.read, R.paired, R.npaired, o.nthreads, o.reps, o.trials, o.budget, R.sw, R.nsw, R.ov, R.nov, R.one, R.none, R.loaded, R.nloaded, R.copies, R.ncopies, R.kr, R.nkr, R.tg, R.ntg));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Results written to %s\n", o.json));
  }
  PetscCall(BenchOptionsFree(&o));
  PetscCall(BenchRunDestroy(&R));
  PetscCall(PetscFinalize());
  return 0;
}
