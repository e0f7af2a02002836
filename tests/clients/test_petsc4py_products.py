"""Sparse products of our matrix (type from the options) with AIJ matrices through petsc4py, against the
same products of MATAIJ operands in this process: A P, A^T P, A R^T (R an AIJ matrix written directly,
not a transpose), P^T A P, A A; then A's values changed and the products redone into their results. A R^T comes last: where it fails
with a PETSc error on several ranks, the run is aborted there and no case after it would be reported.

  mpiexec -n 2 python3 test_petsc4py_products.py -dll_append build/.../libpetscbsrcustom.so -mat_type bsrcustom
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clientcases import case, check, check_equal, check_ours, run, start  # noqa: E402

PETSc = start()
from blockmatrices import BlockGrid, aggregation_prolongator, aggregation_restriction  # noqa: E402
from collective_checks import rel_diff_mat, rel_diff_vec  # noqa: E402

TOL = 1e-12
GRID = BlockGrid(8, 5, 3, symmetric=False)


def operands():
    """Ours (preallocated by the AIJ convention, filled blocked) and the same matrix as MATAIJ."""
    A = GRID.create()
    A.setPreallocationNNZ(GRID.aij_nnz(A))
    GRID.fill(A)
    Ref = GRID.create("aij")
    Ref.setPreallocationNNZ(GRID.aij_nnz(Ref))
    GRID.fill(Ref)
    check_ours(A, "A")
    return A, Ref


def check_product(C, Cref, what):
    check_equal(C.getSize(), Cref.getSize(), f"{what}: size")
    check(rel_diff_mat(C, Cref) < TOL, f"{what} differs from the product of MATAIJ operands by {rel_diff_mat(C, Cref):.3g}")
    # and as an operator (the result's own MatMult)
    x, y = Cref.createVecs()
    x.setArray([1.0 + 0.01 * i for i in range(*x.getOwnershipRange())])
    yc, yr = y.duplicate(), y.duplicate()
    C.mult(x, yc)
    Cref.mult(x, yr)
    check(rel_diff_vec(yc, yr) < TOL, f"{what}: MatMult of the result differs by {rel_diff_vec(yc, yr):.3g}")


@case
def mat_mult_aij():
    A, Ref = operands()
    P = aggregation_prolongator(GRID)
    check_product(A.matMult(P), Ref.matMult(P), "A*P (P MATAIJ)")


@case
def transpose_mat_mult_aij():
    A, Ref = operands()
    P = aggregation_prolongator(GRID)
    check_product(A.transposeMatMult(P), Ref.transposeMatMult(P), "A^T*P (P MATAIJ)")


@case
def ptap_aij():
    A, Ref = operands()
    P = aggregation_prolongator(GRID)
    check_product(A.PtAP(P), Ref.PtAP(P), "P^T*A*P (P MATAIJ)")


@case
def mat_mult_ours_ours():
    A, Ref = operands()
    check_product(A.matMult(A), Ref.matMult(Ref), "A*A (both ours)")


@case
def products_reused_after_new_values():
    # the results kept, A scaled and a diagonal shifted, the products redone into the same results
    A, Ref = operands()
    P = aggregation_prolongator(GRID)
    C, Cref = A.matMult(P), Ref.matMult(P)
    D, Dref = A.PtAP(P), Ref.PtAP(P)
    for M in (A, Ref):
        M.scale(0.5)
        M.shift(3.0)
    A.matMult(P, result=C)
    Ref.matMult(P, result=Cref)
    A.PtAP(P, result=D)
    Ref.PtAP(P, result=Dref)
    check_product(C, Cref, "A*P redone after new values")
    check_product(D, Dref, "P^T*A*P redone after new values")


@case
def mat_transpose_mult_aij():
    A, Ref = operands()
    R = aggregation_restriction(GRID)
    check_product(A.matTransposeMult(R), Ref.matTransposeMult(R), "A*R^T (R MATAIJ)")


sys.exit(run())
