static const char help[] = "bsrcustom on the CUDA vectors of a CUDA-enabled PETSc (3.21 or later), against MATAIJCUSPARSE and\n"
                           "MATBAIJ: MatCreateVecs gives CUDA vectors; MatMult / MatMultAdd to 1e-13 on block sizes 1, 3, 5;\n"
                           "KSP CG / GMRES / BCGS with none, jacobi, pbjacobi and bjacobi (ILU on the host) take MATBAIJ's\n"
                           "iteration counts (and MATAIJCUSPARSE's, but for the block ILU); a repeated solve moves no more\n"
                           "between host and device than MATAIJCUSPARSE's (nothing on one rank), while host vectors\n"
                           "(-vec_type standard) are staged and still give the same iterations; MatBindToCPU both ways;\n"
                           "MatScale, MatShift, MatDiagonalScale, MatZeroRows, MatAXPY, MatGetDiagonal between products, with\n"
                           "uploads only after a change. -n grid size, -bs block size of the KSP system.\n"
                           "Exits with 77 (CTest: skipped) where PETSc has no CUDA vectors or no GPU is visible.\n";

/* Coverage (cases, -test_list):
     products_bs<1,3,5>     random matrix (empty block rows, one long row) on CUDA vectors against
                            MATAIJCUSPARSE and MATBAIJ: MatMult, MatMultAdd, in place, to 1e-13; no
                            host<->device copies on one rank, halo bytes per iteration within 10 % of MATAIJCUSPARSE's on several
     solves                 CG (none, jacobi, pbjacobi, bjacobi), GMRES (jacobi, pbjacobi, bjacobi), BCGS
                            (none, jacobi, pbjacobi) on the block diffusion system (-n, -bs): iterations of
                            MATBAIJ (BCGS: +-max(2, 10 %)), MATAIJCUSPARSE (not for block ILU), residual 1e-6
                            (not BCGS), solution 1e-8 (BCGS 1e-6), copies, host vectors staged
     bind_to_cpu            MatBindToCPU both ways
     between_products       MatScale, MatShift, MatDiagonalScale, MatAXPY, MatZeroRows, MatGetDiagonal
                            between products; no upload of an unchanged matrix
     host_vectors_refused   host vectors after a GPU PBJacobi solve: PETSC_ERR_ARG_INCOMP (every rank)
   Ranks: 1, 2, 4, and 1 with -mat_bsrcustom_backend cusparse (CMakeLists.txt). Every case is skipped
   (visibly; exit 77 if all are) where PETSc has no CUDA vectors or no GPU is visible. */

#include "testutils.h"
#include <petscksp.h>
#include <string.h>

typedef struct {
  PetscInt n, bs; /* -n, -bs: the KSP system */
} Params;

#if defined(BSRC_HAVE_PETSC_CUDA)
/* Host <-> device copies PETSc has logged, summed over the ranks: counts and bytes (scalars that
   reductions bring back are logged apart and not included). */
typedef struct {
  PetscLogDouble to_gpu, to_cpu, bytes;
} Copies;

static PetscErrorCode CopiesNow(Copies *c)
{
  PetscLogDouble v[3] = {petsc_ctog_ct, petsc_gtoc_ct, petsc_ctog_sz + petsc_gtoc_sz};

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  c->to_gpu = v[0];
  c->to_cpu = v[1];
  c->bytes  = v[2];
  PetscFunctionReturn(0);
}

static PetscErrorCode CopiesSince(const Copies *before, Copies *moved)
{
  Copies now;

  PetscFunctionBegin;
  PetscCall(CopiesNow(&now));
  moved->to_gpu = now.to_gpu - before->to_gpu;
  moved->to_cpu = now.to_cpu - before->to_cpu;
  moved->bytes  = now.bytes - before->bytes;
  PetscFunctionReturn(0);
}

static PetscErrorCode IsCUDAVec(Vec v, PetscBool *cuda)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, cuda, VECSEQCUDA, VECMPICUDA, ""));
  PetscFunctionReturn(0);
}

/* b_i = sin(global i): the same values in every vector type */
static PetscErrorCode FillRhs(Vec b, PetscReal shift)
{
  PetscScalar *a;
  PetscInt     rs, re;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(b, &rs, &re));
  PetscCall(VecGetArrayWrite(b, &a));
  for (PetscInt i = rs; i < re; i++) a[i - rs] = PetscSinReal(0.37 * (PetscReal)i + shift);
  PetscCall(VecRestoreArrayWrite(b, &a));
  PetscFunctionReturn(0);
}

/* y = A x, z = A x + w, w = A x + w on vectors of A's MatCreateVecs, against Cu (MATAIJCUSPARSE) and
   Ref (MATBAIJ) on the same vectors; then the same products again with x already on the device must
   move nothing between host and device on one rank, and no more than Cu's on several. */
static PetscErrorCode Products(TestContext *ctx, Mat A, Mat Cu, Mat Ref, const char *what)
{
  Vec         x, y, z, w, w0, r;
  PetscReal   rel;
  PetscBool   cuda;
  PetscMPIInt size;
  Copies      before   = {0, 0, 0}, ours, theirs;
  Mat         refs[2]  = {Cu, Ref};
  const char *names[2] = {"MATAIJCUSPARSE", "MATBAIJ"};

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(IsCUDAVec(x, &cuda));
  {
    VecType vt;
    PetscCall(VecGetType(x, &vt));
    TEST_CHECK(PETSC_COMM_WORLD, cuda, ctx->failures, "%s: MatCreateVecs gave a %s vector, not a CUDA one", what, vt);
  }
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(VecDuplicate(y, &w0));
  PetscCall(VecDuplicate(y, &r));
  PetscCall(FillRhs(x, 0.0));
  PetscCall(FillRhs(w0, 1.0));
  for (int k = 0; k < 2; k++) {
    Vec zr, wr;
    PetscCall(VecDuplicate(y, &zr));
    PetscCall(VecDuplicate(y, &wr));
    PetscCall(VecSet(y, 1e300)); /* MatMult must overwrite it */
    PetscCall(MatMult(A, x, y));
    PetscCall(MatMult(refs[k], x, r));
    PetscCall(TestRelDiff(y, r, &rel));
    TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "%s: MatMult differs from %s's by %g", what, names[k], (double)rel);
    PetscCall(MatMultAdd(A, x, w0, z));
    PetscCall(MatMultAdd(refs[k], x, w0, zr));
    PetscCall(TestRelDiff(z, zr, &rel));
    TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "%s: MatMultAdd differs from %s's by %g", what, names[k], (double)rel);
    PetscCall(VecCopy(w0, w));
    PetscCall(VecCopy(w0, wr));
    PetscCall(MatMultAdd(A, x, w, w));
    PetscCall(MatMultAdd(refs[k], x, wr, wr));
    PetscCall(TestRelDiff(w, wr, &rel));
    TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "%s: MatMultAdd in place differs from %s's by %g", what, names[k], (double)rel);
    PetscCall(VecDestroy(&zr));
    PetscCall(VecDestroy(&wr));
  }
  /* the MATBAIJ products read x and w0 on the host; these put what the counted products read and
     write on the device again */
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMultAdd(A, x, w0, z));
  PetscCall(MatMult(Cu, x, r));
  PetscCall(CopiesNow(&before));
  for (int i = 0; i < 3; i++) {
    PetscCall(MatMult(A, x, y));
    PetscCall(MatMultAdd(A, x, w0, z));
    PetscCall(MatMultAdd(A, x, z, z));
  }
  PetscCall(CopiesSince(&before, &ours));
  PetscCall(CopiesNow(&before));
  for (int i = 0; i < 3; i++) {
    PetscCall(MatMult(Cu, x, y));
    PetscCall(MatMultAdd(Cu, x, w0, z));
    PetscCall(MatMultAdd(Cu, x, z, z));
  }
  PetscCall(CopiesSince(&before, &theirs));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: 9 products on device vectors moved %g+%g copies, %g bytes (MATAIJCUSPARSE: %g+%g, %g bytes)\n", what, ours.to_gpu, ours.to_cpu, ours.bytes, theirs.to_gpu, theirs.to_cpu, theirs.bytes));
  if (size == 1) TEST_CHECK(PETSC_COMM_WORLD, ours.to_gpu + ours.to_cpu == 0, ctx->failures, "%s: products on device vectors copied %g times between host and device", what, ours.to_gpu + ours.to_cpu);
  else TEST_CHECK(PETSC_COMM_WORLD, ours.bytes <= theirs.bytes, ctx->failures, "%s: products on device vectors moved %g bytes between host and device, MATAIJCUSPARSE %g", what, ours.bytes, theirs.bytes);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&w0));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

/* Two solves of A x = b from zero (the second measured: no setup left), b and x of A's MatCreateVecs
   unless host is set (VECSTANDARD vectors). */
static PetscErrorCode Solve(TestContext *ctx, Mat A, KSPType ksptype, PCType pctype, PetscBool host, PetscInt *its, PetscReal *rnorm, Copies *moved, Vec *sol)
{
  KSP                ksp;
  PC                 pc;
  KSPConvergedReason reason;
  Vec                b, x;
  Copies             before;

  PetscFunctionBegin;
  if (host) {
    PetscInt n, N;
    PetscCall(MatGetLocalSize(A, &n, NULL));
    PetscCall(MatGetSize(A, &N, NULL));
    PetscCall(VecCreateMPI(PETSC_COMM_WORLD, n, N, &b));
    PetscCall(VecDuplicate(b, &x));
  } else PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(FillRhs(b, 0.5));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, ksptype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecZeroEntries(x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(VecZeroEntries(x));
  PetscCall(CopiesNow(&before));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(CopiesSince(&before, moved));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  {
    MatType mt;
    PetscCall(MatGetType(A, &mt));
    TEST_CHECK(PETSC_COMM_WORLD, reason > 0, ctx->failures, "%s/%s on %s did not converge (%s)", ksptype, pctype, mt, KSPConvergedReasons[reason]);
  }
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetResidualNorm(ksp, rnorm));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  *sol = x;
  PetscFunctionReturn(0);
}

/* After a solve with PBJacobi on the GPU, a product on host vectors stops with a clear error
   (PETSc's GPU PBJacobi would read them as CUDA vectors) */
static PetscErrorCode HostVectorsRefused(TestContext *ctx, Mat A, KSPType ksptype)
{
  KSP            ksp;
  PC             pc;
  Vec            b, x, bh, xh;
  PetscErrorCode ierr;
  PetscInt       n, N;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(FillRhs(b, 0.1));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, ksptype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCPBJACOBI));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, n, N, &bh));
  PetscCall(VecDuplicate(bh, &xh));
  PetscCall(FillRhs(bh, 0.1));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatMult(A, bh, xh);
  PetscCall(PetscPopErrorHandler());
  TEST_CHECK(PETSC_COMM_WORLD, ierr == PETSC_ERR_ARG_INCOMP, ctx->failures, "%s/pbjacobi on the GPU then host vectors: error %d, expected PETSC_ERR_ARG_INCOMP (%d)", ksptype, (int)ierr, (int)PETSC_ERR_ARG_INCOMP);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&bh));
  PetscCall(VecDestroy(&xh));
  PetscFunctionReturn(0);
}

/* the KSP/PC pairs one after the other on the same three matrices (as a program solving several
   systems with one matrix would) */
static PetscErrorCode Solves(TestContext *ctx)
{
  const PetscInt n = ((const Params *)ctx->data)->n, bs = ((const Params *)ctx->data)->bs;
  Mat            A, Ah, Cu, Ref; /* Ah: the same as A, multiplying host vectors only */
  const struct {
    KSPType ksp;
    PCType  pc;
  } cases[] = {
    {KSPCG, PCNONE}, {KSPCG, PCJACOBI}, {KSPCG, PCPBJACOBI}, {KSPCG, PCBJACOBI}, {KSPGMRES, PCJACOBI}, {KSPGMRES, PCPBJACOBI}, {KSPGMRES, PCBJACOBI}, {KSPBCGS, PCNONE}, {KSPBCGS, PCJACOBI}, {KSPBCGS, PCPBJACOBI},
  };
  PetscInt N;

  PetscFunctionBegin;
  PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, n, bs, &A));
  PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, n, bs, &Ah));
  PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, MATBAIJ, n, bs, &Ref));
  PetscCall(MatConvert(Ref, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &Cu));
  PetscCall(MatGetSize(A, &N, NULL));
  for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(cases); c++) {
    PetscInt        its, itsc, itsr, itsh;
    PetscReal       rn, rnc, rnr, rnh, rel;
    Copies          ours, theirs, baij, host;
    Vec             x, xc, xr, xh;
    const PetscBool point_ilu = (PetscBool)!strcmp(cases[c].pc, PCBJACOBI); /* AIJ's ILU(0) is by entries, BAIJ's by blocks */
    const PetscBool bcgs      = (PetscBool)!strcmp(cases[c].ksp, KSPBCGS);

    PetscCall(Solve(ctx, A, cases[c].ksp, cases[c].pc, PETSC_FALSE, &its, &rn, &ours, &x));
    PetscCall(Solve(ctx, Cu, cases[c].ksp, cases[c].pc, PETSC_FALSE, &itsc, &rnc, &theirs, &xc));
    PetscCall(Solve(ctx, Ref, cases[c].ksp, cases[c].pc, PETSC_FALSE, &itsr, &rnr, &baij, &xr));
    /* host vectors, default settings, on a matrix that multiplies host vectors only: PBJacobi applies on
       the host by itself (its GPU apply would read them as CUDA vectors) */
    PetscCall(Solve(ctx, Ah, cases[c].ksp, cases[c].pc, PETSC_TRUE, &itsh, &rnh, &host, &xh));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-6s %-9s bs %" PetscInt_FMT ": iterations %4" PetscInt_FMT " (aijcusparse %4" PetscInt_FMT ", baij %4" PetscInt_FMT ", ours on host vectors %4" PetscInt_FMT "); copies in the repeated solve: %g+%g, %g bytes (aijcusparse %g+%g, %g bytes; host vectors %g bytes)\n",
                          cases[c].ksp, cases[c].pc, bs, its, itsc, itsr, itsh, ours.to_gpu, ours.to_cpu, ours.bytes, theirs.to_gpu, theirs.to_cpu, theirs.bytes, host.bytes));
    /* BiCGStab is not monotone: rounding (MATAIJCUSPARSE against MATBAIJ too; on several ranks the
       GPU's PBJacobi and halo sums too) moves its stop by a few iterations and its last residual by up
       to a factor 10; CG and GMRES must agree exactly */
    const PetscInt  slack = bcgs ? PetscMax(2, itsr / 10) : 0;
    const PetscReal rtol  = 1e-6;
    TEST_CHECK(PETSC_COMM_WORLD, PetscAbsInt(its - itsr) <= slack, ctx->failures, "%s/%s: %" PetscInt_FMT " iterations on CUDA vectors, MATBAIJ %" PetscInt_FMT, cases[c].ksp, cases[c].pc, its, itsr);
    TEST_CHECK(PETSC_COMM_WORLD, PetscAbsInt(itsh - itsr) <= slack, ctx->failures, "%s/%s: %" PetscInt_FMT " iterations on host vectors, MATBAIJ %" PetscInt_FMT, cases[c].ksp, cases[c].pc, itsh, itsr);
    if (!point_ilu) TEST_CHECK(PETSC_COMM_WORLD, PetscAbsInt(its - itsc) <= slack, ctx->failures, "%s/%s: %" PetscInt_FMT " iterations, MATAIJCUSPARSE %" PetscInt_FMT, cases[c].ksp, cases[c].pc, its, itsc);
    if (!bcgs) TEST_CHECK(PETSC_COMM_WORLD, PetscAbsReal(rn - rnr) <= rtol * rnr, ctx->failures, "%s/%s: residual %g, MATBAIJ %g", cases[c].ksp, cases[c].pc, (double)rn, (double)rnr);
    PetscCall(TestRelDiff(x, xr, &rel));
    TEST_CHECK(PETSC_COMM_WORLD, rel <= (bcgs ? 1e-6 : 1e-8), ctx->failures, "%s/%s: solution differs from MATBAIJ's by %g", cases[c].ksp, cases[c].pc, (double)rel);
    if (!point_ilu) {
      /* the block ILU applies on the host with either type; elsewhere a solve on CUDA vectors moves
         nothing that MATAIJCUSPARSE's does not (halo buffers on several ranks without CUDA-aware MPI).
         Per iteration (the two solves may stop at different iterations: BiCGStab); both move the
         halo only, ours through its staged halo and MATAIJCUSPARSE's through PetscSF, which count
         their copies their own way: 10 % apart at most, where one vector copy an iteration would
         add far more */
      TEST_CHECK(PETSC_COMM_WORLD, ours.bytes * itsc <= 1.1 * theirs.bytes * its, ctx->failures, "%s/%s: the repeated solve moved %g bytes between host and device in %" PetscInt_FMT " iterations (%g+%g copies), MATAIJCUSPARSE %g in %" PetscInt_FMT,
                 cases[c].ksp, cases[c].pc, ours.bytes, its, ours.to_gpu, ours.to_cpu, theirs.bytes, itsc);
    }
    /* the counters see copies: host vectors on a GPU backend are staged at every product */
    TEST_CHECK(PETSC_COMM_WORLD, host.bytes >= (PetscLogDouble)itsh * N * sizeof(PetscScalar), ctx->failures, "%s/%s: host vectors moved only %g bytes in %" PetscInt_FMT " iterations: the copy counters do not see the staging", cases[c].ksp, cases[c].pc,
               host.bytes, itsh);
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&xc));
    PetscCall(VecDestroy(&xr));
    PetscCall(VecDestroy(&xh));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ah));
  PetscCall(MatDestroy(&Cu));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* MatBindToCPU both ways: host vectors and the CPU kernel while bound, CUDA vectors after */
static PetscErrorCode Binding(TestContext *ctx)
{
  const PetscInt bs = ((const Params *)ctx->data)->bs;
  Mat            A, Ref;
  Vec            x, y, r;
  PetscBool      cuda, bound;
  PetscReal      rel;
  PetscLogDouble up0, up1;
  PetscMPIInt    size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, bs, 40, 40 * size, 6, PETSC_TRUE, PETSC_FALSE, 11, &A));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, bs, 40, 40 * size, 6, PETSC_TRUE, PETSC_FALSE, 11, &Ref));
  PetscCall(MatBindToCPU(A, PETSC_TRUE));
  PetscCall(MatBoundToCPU(A, &bound));
  TEST_CHECK(PETSC_COMM_WORLD, bound, ctx->failures, "MatBoundToCPU after MatBindToCPU(A, PETSC_TRUE) says false");
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(IsCUDAVec(x, &cuda));
  {
    VecType vt;
    PetscCall(VecGetType(x, &vt));
    TEST_CHECK(PETSC_COMM_WORLD, !cuda, ctx->failures, "bound to the CPU, MatCreateVecs still gave a %s vector", vt);
  }
  PetscCall(VecDuplicate(y, &r));
  PetscCall(FillRhs(x, 0.2));
  PetscCall(TestEventCount("BSRCustomUpload", &up0));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(Ref, x, r));
  PetscCall(TestEventCount("BSRCustomUpload", &up1));
  PetscCall(TestRelDiff(y, r, &rel));
  TEST_CHECK(PETSC_COMM_WORLD, rel <= 1e-13, ctx->failures, "bound to the CPU: MatMult differs from MATBAIJ's by %g", (double)rel);
  TEST_CHECK(PETSC_COMM_WORLD, up1 == up0, ctx->failures, "bound to the CPU, the product still uploaded the matrix to the GPU");
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&r));
  PetscCall(MatBindToCPU(A, PETSC_FALSE));
  PetscCall(MatBoundToCPU(A, &bound));
  TEST_CHECK(PETSC_COMM_WORLD, !bound, ctx->failures, "MatBoundToCPU after MatBindToCPU(A, PETSC_FALSE) says true");
  {
    Mat Cu;
    PetscCall(MatConvert(Ref, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &Cu));
    PetscCall(Products(ctx, A, Cu, Ref, "after MatBindToCPU(A, PETSC_FALSE)"));
    PetscCall(MatDestroy(&Cu));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* What KSPs and PCs call between products changes the values; the device copy follows them, and only
   them: two products of an unchanged matrix upload nothing. */
static PetscErrorCode BetweenProducts(TestContext *ctx)
{
  const PetscInt bs = ((const Params *)ctx->data)->bs;
  Mat            A, Ref, Cu, X;
  Vec            l, r, d, dr;
  PetscInt       rows[3], rs, re;
  PetscReal      rel;
  PetscLogDouble up0, up1;

  PetscFunctionBegin;
  PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, 6, bs, &A));
  PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, MATBAIJ, 6, bs, &Ref));
  PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, MATBAIJ, 6, bs, &X)); /* same pattern */
  PetscCall(MatScale(X, -0.25));
  PetscCall(MatConvert(Ref, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &Cu));
  PetscCall(Products(ctx, A, Cu, Ref, "as assembled"));
  PetscCall(TestEventCount("BSRCustomUpload", &up0));
  PetscCall(Products(ctx, A, Cu, Ref, "unchanged"));
  PetscCall(TestEventCount("BSRCustomUpload", &up1));
  TEST_CHECK(PETSC_COMM_WORLD, up1 == up0, ctx->failures, "products of an unchanged matrix uploaded it again (%g uploads)", up1 - up0);
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatScale(Ref, 2.0));
  PetscCall(MatScale(Cu, 2.0));
  PetscCall(Products(ctx, A, Cu, Ref, "after MatScale"));
  PetscCall(MatShift(A, 1.5));
  PetscCall(MatShift(Ref, 1.5));
  PetscCall(MatShift(Cu, 1.5));
  PetscCall(Products(ctx, A, Cu, Ref, "after MatShift"));
  PetscCall(MatCreateVecs(A, &r, &l));
  PetscCall(FillRhs(l, 0.3));
  PetscCall(FillRhs(r, 0.9));
  PetscCall(MatDiagonalScale(A, l, r));
  PetscCall(MatDiagonalScale(Ref, l, r));
  PetscCall(MatDiagonalScale(Cu, l, r));
  PetscCall(Products(ctx, A, Cu, Ref, "after MatDiagonalScale"));
  PetscCall(MatAXPY(A, 0.5, X, SAME_NONZERO_PATTERN));
  PetscCall(MatAXPY(Ref, 0.5, X, SAME_NONZERO_PATTERN));
  PetscCall(MatAXPY(Cu, 0.5, X, DIFFERENT_NONZERO_PATTERN));
  PetscCall(Products(ctx, A, Cu, Ref, "after MatAXPY"));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  rows[0] = rs;
  rows[1] = rs + 1;
  rows[2] = re - 1;
  PetscCall(MatZeroRows(A, re - rs > 2 ? 3 : 0, rows, 3.0, NULL, NULL));
  PetscCall(MatZeroRows(Ref, re - rs > 2 ? 3 : 0, rows, 3.0, NULL, NULL));
  PetscCall(MatZeroRows(Cu, re - rs > 2 ? 3 : 0, rows, 3.0, NULL, NULL));
  PetscCall(Products(ctx, A, Cu, Ref, "after MatZeroRows"));
  PetscCall(VecDuplicate(l, &d));
  PetscCall(VecDuplicate(l, &dr));
  PetscCall(MatGetDiagonal(A, d));
  PetscCall(MatGetDiagonal(Ref, dr));
  PetscCall(TestRelDiff(d, dr, &rel));
  TEST_CHECK(PETSC_COMM_WORLD, rel == 0, ctx->failures, "MatGetDiagonal differs from MATBAIJ's by %g", (double)rel);
  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&dr));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ref));
  PetscCall(MatDestroy(&Cu));
  PetscCall(MatDestroy(&X));
  PetscFunctionReturn(0);
}

/* random block matrices of block size ctx->param */
static PetscErrorCode RandomProducts(TestContext *ctx)
{
  const PetscInt bs = ctx->param;
  Mat            A, Cu, Ref;
  char           what[64];

  PetscFunctionBegin;
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, bs, 50, 60 * ctx->size, 7, PETSC_TRUE, PETSC_TRUE, 3, &A));
  PetscCall(TestRandomBlockMatrix(PETSC_COMM_WORLD, MATBAIJ, bs, 50, 60 * ctx->size, 7, PETSC_TRUE, PETSC_TRUE, 3, &Ref));
  PetscCall(MatConvert(Ref, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &Cu));
  PetscCall(PetscSNPrintf(what, sizeof(what), "random, bs %" PetscInt_FMT, bs));
  PetscCall(Products(ctx, A, Cu, Ref, what));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Cu));
  PetscCall(MatDestroy(&Ref));
  PetscFunctionReturn(0);
}

/* last: it leaves a MatMult stopped by an error (on every rank, before any message) */
static PetscErrorCode HostVectorsRefusedCase(TestContext *ctx)
{
  Mat A;

  PetscFunctionBegin;
  PetscCall(TestBlockDiffusionMatrix(PETSC_COMM_WORLD, MATBSRCUSTOM, 6, ((const Params *)ctx->data)->bs, &A));
  PetscCall(HostVectorsRefused(ctx, A, KSPCG));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}
  #define CASE(f) f
#else
/* every case, where this PETSc has no CUDA vectors */
static PetscErrorCode NoCUDAVectors(TestContext *ctx)
{
  PetscFunctionBegin;
  PetscCall(TestSkip(ctx, "this PETSc (%d.%d) has no CUDA vectors; the test needs one configured with CUDA, 3.21 or later", PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR));
  PetscFunctionReturn(0);
}
  #define CASE(f) NoCUDAVectors
#endif

int main(int argc, char **argv)
{
  const TestCase cases[] = {
    {"products_bs1", CASE(RandomProducts), 1},
    {"products_bs3", CASE(RandomProducts), 3},
    {"products_bs5", CASE(RandomProducts), 5},
    {"solves", CASE(Solves), 0},
    {"bind_to_cpu", CASE(Binding), 0},
    {"between_products", CASE(BetweenProducts), 0},
    {"host_vectors_refused", CASE(HostVectorsRefusedCase), 0},
  };
  Params    prm = {10, 3};
  PetscBool given;
  int       status;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatBSRCustomRegisterAll());
#if defined(BSRC_HAVE_PETSC_CUDA)
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_bsrcustom_backend", &given));
  if (!given) PetscCall(PetscOptionsSetValue(NULL, "-mat_bsrcustom_backend", "cuda")); /* the runner skips every case without a GPU */
#else
  (void)given;
#endif
  PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &prm.n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &prm.bs, NULL));
  PetscCall(TestRunCases("device vectors", PETSC_STATIC_ARRAY_LENGTH(cases), cases, &prm, &status));
  PetscCall(PetscFinalize());
  return status;
}
