"""petsc4py's Mat API on our type, selected by the options (-dll_append <plugin> -mat_type bsrcustom),
each case against the same calls on MATBAIJ (MATAIJ where the AIJ convention is the point) in this
process. The cases whose failure may be a PETSc error on every rank (products after new nonzeros) come
last: on several ranks an error aborts the run, and the cases after it would not be reported. petsc4py preallocates by the AIJ convention on our type (scalar-row counts, scalar CSR): it
asks the matrix for MatSeqAIJSetPreallocation_C / MatMPIAIJSetPreallocation_C first, and ours has them.

  mpiexec -n 2 python3 test_petsc4py_mat.py -dll_append build/.../libpetscbsrcustom.so -mat_type bsrcustom [-test_case ...]
"""
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clientcases import case, check, check_equal, check_ours, run, start  # noqa: E402

PETSc = start()
import numpy as np  # noqa: E402
from blockmatrices import BlockGrid, aggregation_prolongator  # noqa: E402
from collective_checks import all_ranks, rel_diff_mat, rel_diff_vec, total  # noqa: E402

TOL = 1e-13
GRID = BlockGrid(7, 5, 3)


def pair(grid=GRID, blocked=True, rows="own", ref_type="baij"):
    """Ours (type from the options, preallocated by the AIJ convention) and the reference, same values."""
    A = grid.create()
    A.setPreallocationNNZ(grid.aij_nnz(A))
    R = grid.create(ref_type)
    R.setPreallocationNNZ(grid.aij_nnz(R) if ref_type == "aij" else (5, 4))
    grid.fill(A, blocked=blocked, rows=rows)
    grid.fill(R, blocked=blocked, rows=rows)
    return A, R


def check_products(A, R, what):
    x, y = R.createVecs()
    x.setArray(np.cos(0.3 * np.arange(*x.getOwnershipRange())))
    ya, yr = y.duplicate(), y.duplicate()
    A.mult(x, ya)
    R.mult(x, yr)
    check(rel_diff_vec(ya, yr) < TOL, f"{what}: MatMult differs by {rel_diff_vec(ya, yr):.3g}")
    A.multTranspose(x, ya)
    R.multTranspose(x, yr)
    check(rel_diff_vec(ya, yr) < TOL, f"{what}: MatMultTranspose differs by {rel_diff_vec(ya, yr):.3g}")


@case
def type_and_block_size_from_options():
    A = GRID.create()
    A.setPreallocationNNZ(GRID.aij_nnz(A))
    check_ours(A, "a Mat after setFromOptions")
    check_equal(A.getBlockSize(), GRID.bs, "block size")
    B = PETSc.Mat().create()
    B.setSizes(((None, GRID.size), (None, GRID.size)))
    B.setBlockSize(GRID.bs)
    B.setFromOptions()
    B.setUp()
    check_ours(B, "a Mat after setBlockSize, setFromOptions, setUp")
    check_equal(B.getBlockSize(), GRID.bs, "block size after setBlockSize")


@case
def preallocation_nnz_aij_convention():
    # exact scalar-row counts: no malloc at assembly, and the values of BAIJ's
    for blocked in (True, False):
        A, R = pair(blocked=blocked)
        check_ours(A, "A")
        mallocs = A.getInfo()["mallocs"]
        check_equal(mallocs, 0.0, f"mallocs in assembly after exact AIJ-convention counts (blocked={blocked})")
        check(rel_diff_mat(A, R) < TOL, f"values (blocked={blocked}) differ from BAIJ's by {rel_diff_mat(A, R):.3g}")
        check_products(A, R, f"blocked={blocked}")


@case
def preallocation_nnz_scalar_counts():
    # one count for every row (d_nz, o_nz), in scalars: 5 nodes x bs
    A = GRID.create()
    A.setPreallocationNNZ((5 * GRID.bs, 4 * GRID.bs))
    R = GRID.create("aij")
    R.setPreallocationNNZ((5 * GRID.bs, 4 * GRID.bs))
    GRID.fill(A)
    GRID.fill(R)
    check_ours(A, "A")
    check_equal(A.getInfo()["mallocs"], 0.0, "mallocs in assembly")
    check(rel_diff_mat(A, R) < TOL, f"values differ from AIJ's by {rel_diff_mat(A, R):.3g}")


@case
def preallocation_csr_aij_convention():
    A = GRID.create()
    A.setPreallocationCSR(GRID.aij_csr(A))  # values too: assembled by it
    R = GRID.create("baij")
    R.setPreallocationNNZ((5, 4))
    GRID.fill(R)
    check_ours(A, "A")
    # MATAIJ and MATBAIJ are assembled by a CSR with values (the same on every rank: no collective skipped)
    if not check(A.isAssembled(), "not assembled after setPreallocationCSR with values (MATAIJ and MATBAIJ are)"):
        return  # the CSR was not taken: the pattern-only one below would write into an unallocated matrix
    check(rel_diff_mat(A, R) < TOL, f"values from the CSR differ from BAIJ's by {rel_diff_mat(A, R):.3g}")
    check_products(A, R, "CSR")
    # the pattern alone, then the values written blocked: no malloc
    B = GRID.create()
    i, j, _ = GRID.aij_csr(B)
    B.setPreallocationCSR((i, j))
    GRID.fill(B)
    check_equal(B.getInfo()["mallocs"], 0.0, "mallocs after a pattern-only CSR preallocation")
    check(rel_diff_mat(B, R) < TOL, f"values after a pattern-only CSR differ from BAIJ's by {rel_diff_mat(B, R):.3g}")


@case
def set_values_other_ranks_rows():
    # ADD_VALUES from every rank into anyone's rows (the stash), blocked and scalar
    for blocked in (True, False):
        A, R = pair(blocked=blocked, rows="round_robin")
        check(rel_diff_mat(A, R) < TOL, f"values added through the stash (blocked={blocked}) differ by {rel_diff_mat(A, R):.3g}")
        check_products(A, R, f"stash, blocked={blocked}")


@case
def mult_and_mult_transpose_nonsymmetric():
    grid = BlockGrid(6, 6, 2, symmetric=False)
    A, R = pair(grid)
    check_ours(A, "A")
    x, y = R.createVecs()
    x.setArray(np.sin(np.arange(*x.getOwnershipRange()) + 1.0))
    for name in ("mult", "multTranspose"):
        ya, yr = y.duplicate(), y.duplicate()
        getattr(A, name)(x, ya)
        getattr(R, name)(x, yr)
        check(rel_diff_vec(ya, yr) < TOL, f"{name} differs from BAIJ's by {rel_diff_vec(ya, yr):.3g}")
    z, za, zr = y.duplicate(), y.duplicate(), y.duplicate()
    z.set(0.5)
    A.multAdd(x, z, za)
    R.multAdd(x, z, zr)
    check(rel_diff_vec(za, zr) < TOL, f"multAdd differs from BAIJ's by {rel_diff_vec(za, zr):.3g}")
    A.multTransposeAdd(x, z, za)
    R.multTransposeAdd(x, z, zr)
    check(rel_diff_vec(za, zr) < TOL, f"multTransposeAdd differs from BAIJ's by {rel_diff_vec(za, zr):.3g}")


@case
def get_values():
    A, R = pair()
    r0, r1 = A.getOwnershipRange()
    rows = list(range(r0, r1, 2))
    cols = list(range(0, GRID.size, 3))
    va, vr = A.getValues(rows, cols), R.getValues(rows, cols)
    ok = np.allclose(va, vr, rtol=0, atol=0)
    check(all_ranks(ok, A.getComm()), "getValues differ from BAIJ's")
    check(all_ranks(np.count_nonzero(vr) > 0 or r0 == r1, A.getComm()), "getValues read only zeros (the case tests nothing)")
    a, b = A.getValue(r0, r0) if r1 > r0 else 0.0, R.getValue(r0, r0) if r1 > r0 else 0.0
    check(all_ranks(a == b, A.getComm()), "getValue of a diagonal entry differs")


@case
def duplicate_copy_convert():
    A, R = pair()
    D = A.duplicate(copy=True)
    check_ours(D, "duplicate(copy=True)")
    check(rel_diff_mat(D, R) < TOL, "duplicate(copy=True) differs")
    E = A.duplicate()
    check_ours(E, "duplicate()")
    A.copy(E)
    check(rel_diff_mat(E, R) < TOL, "copy into a duplicate differs")
    E.scale(2.0)
    A.copy(E, structure=PETSc.Mat.Structure.SAME_NONZERO_PATTERN)
    check(rel_diff_mat(E, R) < TOL, "copy (same pattern) after a scale differs")
    for t in ("aij", "baij"):
        C = A.convert(t)
        check(C.getType().endswith(t), f"convert('{t}') gave {C.getType()}")
        check(rel_diff_mat(C, R) < TOL, f"convert('{t}') differs")
    back = R.convert("aij").convert("bsrcustom")
    check_ours(back, "convert('bsrcustom') of an AIJ matrix")
    check_equal(back.getBlockSize(), GRID.bs, "block size after convert('bsrcustom')")
    check(rel_diff_mat(back, R) < TOL, "convert('bsrcustom') of an AIJ matrix differs")
    check_products(back, R, "converted")


@case
def new_nonzero_allocation_err_after_aij_preallocation():
    # exact AIJ-convention counts, then one block more in a row: MATAIJ (same petsc4py calls) stops
    # with PETSC_ERR_ARG_OUTOFRANGE ("caused a malloc"); ours must too
    results = {}
    for label, mat_type in (("ours", None), ("aij", "aij")):
        M = GRID.create(mat_type)
        M.setPreallocationNNZ(GRID.aij_nnz(M))
        GRID.fill(M, assemble=False)
        rows = GRID.owned_block_rows(M)
        err = None
        if len(rows):
            p = rows[0]
            q = next(q for q in rows if q not in GRID.neighbours(p))  # a column of the diagonal part
            try:
                M.setValuesBlocked([p], [q], np.ones((GRID.bs, GRID.bs)))
            except PETSc.Error as e:
                err = e.ierr
        results[label] = err
        if label == "ours":
            check_ours(M, "M")
        M.setOption(PETSc.Mat.Option.NEW_NONZERO_ALLOCATION_ERR, False)
        M.assemble()
    check(results["aij"] is not None, "MATAIJ took a nonzero beyond its preallocation (the case tests nothing)")
    check(all_ranks(results["ours"] == results["aij"], PETSc.COMM_WORLD),
          f"a nonzero beyond the AIJ-convention preallocation: ours gave {'no error' if results['ours'] is None else 'PETSc error %d' % results['ours']}, "
          f"MATAIJ PETSc error {results['aij']}")


@case
def new_nonzeros_after_assembly_then_product():
    # products (so that every copy of ours is made: transposed, AIJ), then, after assembly, new nonzero
    # blocks (in the rank's own columns and in another rank's) with the allocation error off, assembled
    # again, then the same products as on MATAIJ (not MATMPIBAIJ: PETSc 3.18's puts a new block of an
    # off-rank column into ghost column 0)
    A, R = pair(ref_type="aij")
    B = aggregation_prolongator(GRID)
    check_products(A, R, "before new nonzeros")
    for op in ("matMult", "transposeMatMult"):
        C, Cr = getattr(A, op)(B), getattr(R, op)(B)
        check(rel_diff_mat(C, Cr) < 1e-12, f"{op} with AIJ before new nonzeros differs from AIJ's by {rel_diff_mat(C, Cr):.3g}")
    n = GRID.nodes
    added = 0
    for M in (A, R):
        M.setOption(PETSc.Mat.Option.NEW_NONZERO_ALLOCATION_ERR, False)
        for p in GRID.owned_block_rows(M):
            for q in ((p + n // 2) % n, (p + 3) % n):
                if q not in GRID.neighbours(p):
                    M.setValuesBlocked([p], [q], 0.01 * (1 + p % 3) * np.ones((GRID.bs, GRID.bs)), addv=True)
                    added += 1
        M.assemble()
    check(total(added, PETSc.COMM_WORLD) > 0, "no new nonzero block (the case tests nothing)")
    check(rel_diff_mat(A, R) < TOL, f"values after new nonzeros differ from AIJ's by {rel_diff_mat(A, R):.3g}")
    check_products(A, R, "after new nonzeros")
    for op in ("matMult", "transposeMatMult"):
        C, Cr = getattr(A, op)(B), getattr(R, op)(B)
        check(rel_diff_mat(C, Cr) < 1e-12, f"{op} with AIJ after new nonzeros differs from AIJ's by {rel_diff_mat(C, Cr):.3g}")
    C, Cr = A.matMult(A), R.matMult(R)
    check(rel_diff_mat(C, Cr) < 1e-12, f"A*A after new nonzeros differs from AIJ's by {rel_diff_mat(C, Cr):.3g}")


sys.exit(run())
