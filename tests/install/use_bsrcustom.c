/* A program that links the installed plugin (not through -dll_append): registers the types, builds a
   block matrix with MatCreateBSRCustom() and checks its product against MATBAIJ's. */
#include <petscmatbsrcustom.h>

int main(int argc, char **argv)
{
  const PetscInt bs = 3, nb = 50;
  Mat            A[2];
  Vec            x, y[2];
  PetscReal      diff, ref;
  MatType        type;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatBSRCustomRegisterAll());
  for (int k = 0; k < 2; k++) {
    if (k == 0) PetscCall(MatCreateBSRCustom(PETSC_COMM_WORLD, bs, nb * bs, nb * bs, PETSC_DETERMINE, PETSC_DETERMINE, 3, NULL, 2, NULL, &A[k]));
    else PetscCall(MatCreateBAIJ(PETSC_COMM_WORLD, bs, nb * bs, nb * bs, PETSC_DETERMINE, PETSC_DETERMINE, 3, NULL, 2, NULL, &A[k]));
    PetscInt rs, re, N;
    PetscCall(MatGetOwnershipRange(A[k], &rs, &re));
    PetscCall(MatGetSize(A[k], &N, NULL));
    for (PetscInt ib = rs / bs; ib < re / bs; ib++)
      for (PetscInt d = -1; d <= 1; d++) {
        PetscInt    jb = ib + d;
        PetscScalar v[9];
        if (jb < 0 || jb >= N / bs) continue;
        for (int e = 0; e < 9; e++) v[e] = (PetscScalar)(1 + (ib * 7 + jb * 3 + e) % 11) * (d ? -0.1 : 1.0);
        PetscCall(MatSetValuesBlocked(A[k], 1, &ib, 1, &jb, v, INSERT_VALUES));
      }
    PetscCall(MatAssemblyBegin(A[k], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A[k], MAT_FINAL_ASSEMBLY));
    PetscCall(MatCreateVecs(A[k], k ? NULL : &x, &y[k]));
  }
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A[0], x, y[0]));
  PetscCall(MatMult(A[1], x, y[1]));
  PetscCall(VecNorm(y[1], NORM_INFINITY, &ref));
  PetscCall(VecAXPY(y[0], -1.0, y[1]));
  PetscCall(VecNorm(y[0], NORM_INFINITY, &diff));
  PetscCall(MatGetType(A[0], &type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: MatMult differs from MATBAIJ's by %g (relative)\n", type, (double)(diff / ref)));
  PetscCheck(diff <= 1e-14 * ref, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the installed plugin's product differs from MATBAIJ's");
  for (int k = 0; k < 2; k++) {
    PetscCall(MatDestroy(&A[k]));
    PetscCall(VecDestroy(&y[k]));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(PetscFinalize());
  return 0;
}
