/* Transposes and SpMM beside MatMult (-bench_transpose, -bench_spmm). */
#include "bench_products.h"
#include "bench_matrices.h"
#include "bench_timing.h"

/* where A's MatMultTranspose runs (bsrcustom: its settings say; the library's MatView has the details),
   and whether that is the transposed copy on the GPU */
static PetscErrorCode TransposePath(Mat A, PetscBool *gpu_bsr, const char **path)
{
  MatBSRCustomBackend       backend = MAT_BSRCUSTOM_BACKEND_CPU;
  MatBSRCustomTransposeMode mode    = MAT_BSRCUSTOM_TRANSPOSE_CACHED;
  PetscBool                 bsr, bound = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &bsr, MATSEQBSRCUSTOM, MATMPIBSRCUSTOM, ""));
  *gpu_bsr = PETSC_FALSE;
  *path    = "the type's own";
  if (!bsr) PetscFunctionReturn(0);
  PetscCall(MatBSRCustomGetBackend(A, &backend));
  PetscCall(MatBSRCustomGetTranspose(A, &mode));
  PetscCall(MatBoundToCPU(A, &bound));
  if (mode == MAT_BSRCUSTOM_TRANSPOSE_BAIJ) *path = "BAIJ's serial code (host)";
  else if (backend == MAT_BSRCUSTOM_BACKEND_CPU || bound) *path = "cached copy, task kernel";
  else {
    *path    = "cached copy on the GPU";
    *gpu_bsr = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* MatMultTranspose(A, xt, yt) beside MatMult(A, x, y), in interleaved trials; the transpose product is
   checked against ytref (the first type's, kept there when *have_ref is still false) */
PetscErrorCode BenchTranspose(Mat A, Vec x, Vec y, Vec xtref, Vec ytref, PetscBool *have_ref, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, TransposeRow *row)
{
  Vec      xt, yt;
  double   t[2];
  PetscInt used[2];
  MatType  mtype;

  PetscFunctionBeginUser;
  PetscCall(MatGetType(A, &mtype));
  PetscCall(PetscStrncpy(row->type, mtype, sizeof(row->type)));
  PetscCall(IsCPUBSRCustom(A, &row->cpu_bsr));
  PetscCall(TransposePath(A, &row->gpu_bsr, &row->path));
  PetscCall(MatCreateVecs(A, &yt, &xt));
  PetscCall(VecCopy(xtref, xt));
  PetscCall(MatMultTranspose(A, xt, yt));
  row->diff = 0.0;
  if (!*have_ref) {
    PetscCall(VecCopy(yt, ytref));
    *have_ref = PETSC_TRUE;
  } else PetscCall(RelDiff(yt, ytref, &row->diff));
  PetscCheck(row->diff < 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Type %s: MatMultTranspose differs from the first type's by %g (relative max norm)", mtype, row->diff);
  {
    const Op ops[2] = {{OP_MULT, A, x, NULL, y, NULL, NULL}, {OP_MULTTRANSPOSE, A, xt, NULL, yt, NULL, NULL}};
    PetscCall(TimeOps(PetscObjectComm((PetscObject)A), 2, ops, warmup, reps, trials, budget, t, used, NULL));
  }
  row->t_mult  = t[0];
  row->t_trans = t[1];
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&yt));
  PetscFunctionReturn(0);
}

/* MatMatMult(A, B) with a dense B of k columns (its MAT_REUSE_MATRIX step, MatProductNumeric) beside MatMult(A, x, y), in
   interleaved trials; its first and last columns checked against MatMult */
PetscErrorCode BenchSpMM(Mat A, Vec x, Vec y, PetscInt k, PetscInt seed, PetscInt warmup, PetscInt reps, PetscInt trials, PetscReal budget, SpMMRow *row)
{
  Mat          B, C;
  PetscInt     m, N, rs, lda;
  PetscScalar *b;
  double       t[2];
  PetscInt     used[2];

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(A, NULL, &m));
  PetscCall(MatGetSize(A, NULL, &N));
  PetscCall(MatGetOwnershipRangeColumn(A, &rs, NULL));
  {
    VecType   vtype;
    PetscBool cuda;
    /* on CUDA vectors (a GPU backend of a CUDA PETSc) a MATDENSECUDA B, whose device arrays the GPU
       SpMM uses as MatMult uses the vectors' */
    PetscCall(VecGetType(x, &vtype));
    PetscCall(PetscStrbeginswith(vtype, VECCUDA, &cuda));
    if (!cuda) PetscCall(PetscStrbeginswith(vtype, VECSEQCUDA, &cuda));
    if (!cuda) PetscCall(PetscStrbeginswith(vtype, VECMPICUDA, &cuda));
    PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
    PetscCall(MatSetSizes(B, m, PETSC_DECIDE, N, k));
    PetscCall(MatSetType(B, cuda ? MATDENSECUDA : MATDENSE));
    PetscCall(MatSetUp(B));
  }
  PetscCall(MatDenseGetLDA(B, &lda));
  PetscCall(MatDenseGetArrayWrite(B, &b));
  for (PetscInt j = 0; j < k; j++)
    for (PetscInt i = 0; i < m; i++) {
      uint64_t s     = RowSeed(seed, 11 + j, rs + i);
      b[j * lda + i] = 2.0 * Uniform(&s) - 1.0;
    }
  PetscCall(MatDenseRestoreArrayWrite(B, &b));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatMatMult(A, B, MAT_INITIAL_MATRIX, 2.0, &C));
  row->k    = k;
  row->diff = 0.0;
  for (PetscInt j = 0; j < k; j += PetscMax(1, k - 1)) {
    Vec    bj, cj;
    double d;
    PetscCall(MatDenseGetColumnVecRead(B, j, &bj));
    PetscCall(VecCopy(bj, x));
    PetscCall(MatDenseRestoreColumnVecRead(B, j, &bj));
    PetscCall(MatMult(A, x, y));
    PetscCall(MatDenseGetColumnVecRead(C, j, &cj));
    PetscCall(RelDiff(cj, y, &d));
    PetscCall(MatDenseRestoreColumnVecRead(C, j, &cj));
    row->diff = PetscMax(row->diff, d);
  }
  PetscCheck(row->diff < 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatMatMult with %" PetscInt_FMT " columns differs from MatMult by %g (relative max norm)", k, row->diff);
  {
    const Op ops[2] = {{OP_MULT, A, x, NULL, y, NULL, NULL}, {OP_MATMATMULT, A, NULL, NULL, NULL, NULL, C}};
    PetscCall(TimeOps(PetscObjectComm((PetscObject)A), 2, ops, warmup, reps, trials, budget, t, used, NULL));
  }
  row->t_mult = t[0];
  row->t_spmm = t[1];
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

/* The transpose and SpMM tables of one matrix, and their TARGET lines (cpu backend; on a GPU run the
   GPU transposed copy's and the GPU block SpMM's) */
PetscErrorCode PrintTransposeSpMM(const char matrix[], const char ref_type[], PetscInt ntypes, const TransposeRow tr[], PetscBool dotranspose, const SpMMRow sp[], PetscInt nk, PetscBool gpu_run, PetscReal target_transpose, PetscReal target_transpose_gpu, PetscReal target_spmm, PetscReal target_gpu_spmm)
{
  PetscFunctionBeginUser;
  if (dotranspose) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  MatMultTranspose, %s (medians of interleaved trials with the type's own MatMult; throughput = Mult ms / MultT ms; MultT/Mult = MultT ms / Mult ms; vs %s = its transpose ms / this one's)\n", matrix, ref_type));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %9s %9s %10s %10s %9s %9s  %s\n", "matrix", "type", "Mult ms", "MultT ms", "throughput", "MultT/Mult", "vs ref", "reldiff", "transpose path"));
    for (PetscInt it = 0; it < ntypes; it++)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %9.3f %9.3f %10.3f %10.3f %9.3f %9.1e  %s\n", matrix, tr[it].type, 1e3 * tr[it].t_mult, 1e3 * tr[it].t_trans, tr[it].t_mult / tr[it].t_trans, tr[it].t_trans / tr[it].t_mult,
                            tr[0].t_trans / tr[it].t_trans, tr[it].diff, tr[it].path));
    for (PetscInt it = 0; it < ntypes && gpu_run; it++)
      if (tr[it].gpu_bsr)
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s MatMultTranspose on the GPU (transposed copy) throughput at least %.2fx its MatMult's: %.3fx (MatMult %.3f ms, MatMultTranspose %.3f ms, MultT/Mult %.3f; %.3fx %s's transpose): %s\n", matrix,
                              tr[it].type, (double)target_transpose_gpu, tr[it].t_mult / tr[it].t_trans, 1e3 * tr[it].t_mult, 1e3 * tr[it].t_trans, tr[it].t_trans / tr[it].t_mult, tr[0].t_trans / tr[it].t_trans, ref_type, tr[it].t_mult / tr[it].t_trans >= target_transpose_gpu ? "PASS" : "MISS"));
    for (PetscInt it = 0; it < ntypes && !gpu_run; it++)
      if (tr[it].cpu_bsr)
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s MatMultTranspose throughput at least %.2fx its MatMult's, all threads: %.3fx (MatMult %.3f ms, MatMultTranspose %.3f ms; %.3fx %s's transpose): %s\n", matrix, tr[it].type, (double)target_transpose,
                              tr[it].t_mult / tr[it].t_trans, 1e3 * tr[it].t_mult, 1e3 * tr[it].t_trans, tr[0].t_trans / tr[it].t_trans, ref_type, tr[it].t_mult / tr[it].t_trans >= target_transpose ? "PASS" : "MISS"));
  }
  if (nk > 0) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  MatMatMult with a dense matrix of k columns, %s (MAT_REUSE_MATRIX; medians of interleaved trials with one MatMult; per col = MatMatMult ms / k; ratio = per col / MatMult)\n", matrix));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %4s %9s %12s %10s %8s %9s\n", "matrix", "type", "k", "Mult ms", "MatMatMult", "per col", "ratio", "reldiff"));
    for (PetscInt it = 0; it < ntypes; it++)
      for (PetscInt ik = 0; ik < nk; ik++) {
        const SpMMRow *r = &sp[it * MAX_LIST + ik];
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-10s %-14s %4" PetscInt_FMT " %9.3f %12.3f %10.4f %8.3f %9.1e\n", matrix, tr[it].type, r->k, 1e3 * r->t_mult, 1e3 * r->t_spmm, 1e3 * r->t_spmm / (double)r->k, r->t_spmm / (double)r->k / r->t_mult, r->diff));
      }
    for (PetscInt it = 0; it < ntypes && !gpu_run; it++)
      for (PetscInt ik = 0; ik < nk; ik++) {
        const SpMMRow *r = &sp[it * MAX_LIST + ik];
        if (!tr[it].cpu_bsr || r->k != 8) continue;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s MatMatMult with 8 columns at most %.2fx a MatMult per column: %.3fx (MatMatMult %.3f ms = %.4f ms per column, MatMult %.3f ms): %s\n", matrix, tr[it].type, (double)target_spmm, r->t_spmm / 8.0 / r->t_mult, 1e3 * r->t_spmm, 1e3 * r->t_spmm / 8.0, 1e3 * r->t_mult, r->t_spmm / 8.0 / r->t_mult <= target_spmm ? "PASS" : "MISS"));
      }
    for (PetscInt it = 0; it < ntypes && gpu_run; it++) /* the block SpMM on the GPU, against the same backend's MatMult */
      for (PetscInt ik = 0; ik < nk; ik++) {
        const SpMMRow *r = &sp[it * MAX_LIST + ik];
        if (!tr[it].gpu_spmm || r->k != 8) continue;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TARGET %-10s %s GPU block SpMM: MatMatMult with 8 columns at most %.2fx a MatMult per column: %.3fx (MatMatMult %.3f ms = %.4f ms per column, MatMult %.3f ms): %s\n", matrix, tr[it].type, (double)target_gpu_spmm, r->t_spmm / 8.0 / r->t_mult, 1e3 * r->t_spmm, 1e3 * r->t_spmm / 8.0, 1e3 * r->t_mult, r->t_spmm / 8.0 / r->t_mult <= target_gpu_spmm ? "PASS" : "MISS"));
      }
  }
  PetscFunctionReturn(0);
}
