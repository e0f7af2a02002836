"""DOLFINx 0.5: 3D linear elasticity (vector P1 on a box mesh of tetrahedra, clamped at x = 0, gravity),
its matrix created and assembled by DOLFINx (fem.petsc.assemble_matrix: MatSetFromOptions, then
MatXAIJSetPreallocation and MatSetValuesBlockedLocal), of our type where the options say
-mat_type bsrcustom, against the same with -mat_type aij in this process: the same matrix, and KSP CG +
PCGAMG (the rigid body modes as near null space) with the same iterations and solution.

  mpiexec -n 2 python3 test_dolfinx_elasticity.py -dll_append build/.../libpetscbsrcustom.so -mat_type bsrcustom
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clientcases import case, check, check_equal, check_ours, run, start  # noqa: E402

PETSc = start()
import numpy as np  # noqa: E402
import ufl  # noqa: E402
from dolfinx import fem, mesh  # noqa: E402
import dolfinx.fem.petsc  # noqa: E402,F401
from mpi4py import MPI  # noqa: E402
from collective_checks import rel_diff_mat, rel_diff_vec  # noqa: E402

MU, LMBDA = 1.0, 1.25


def problem(cells):
    msh = mesh.create_box(MPI.COMM_WORLD, [np.array([0.0, 0.0, 0.0]), np.array([2.0, 1.0, 1.0])], cells, mesh.CellType.tetrahedron)
    V = fem.VectorFunctionSpace(msh, ("Lagrange", 1))
    u, v = ufl.TrialFunction(V), ufl.TestFunction(V)

    def strain(w):
        return ufl.sym(ufl.grad(w))

    def stress(w):
        return 2.0 * MU * strain(w) + LMBDA * ufl.tr(strain(w)) * ufl.Identity(3)

    a = fem.form(ufl.inner(stress(u), strain(v)) * ufl.dx)
    L = fem.form(ufl.inner(fem.Constant(msh, np.array([0.0, 0.0, -1.0], dtype=PETSc.ScalarType)), v) * ufl.dx)
    clamped = mesh.locate_entities_boundary(msh, 2, lambda x: np.isclose(x[0], 0.0))
    zero = np.zeros(3, dtype=PETSc.ScalarType)
    bc = fem.dirichletbc(zero, fem.locate_dofs_topological(V, 2, clamped), V)
    return V, a, L, bc


def assembled_with_mat_type(mat_type, a, bcs):
    """DOLFINx's matrix, created while the options' -mat_type is mat_type (None: as the command line says)."""
    opts = PETSc.Options()
    saved = opts.getString("mat_type", None)
    if mat_type:
        opts["mat_type"] = mat_type
    try:
        A = fem.petsc.assemble_matrix(a, bcs=bcs)
    finally:
        if saved is None:
            opts.delValue("mat_type")
        else:
            opts["mat_type"] = saved
    A.assemble()
    return A


def rigid_body_modes(V, A):
    """Three translations and three rotations about the origin on the owned nodes, orthonormalised."""
    owned = V.dofmap.index_map.size_local
    x = V.tabulate_dof_coordinates()[:owned]
    fields = np.zeros((6, owned, 3))
    for k in range(3):
        fields[k, :, k] = 1.0
    fields[3, :, 0], fields[3, :, 1] = -x[:, 1], x[:, 0]
    fields[4, :, 0], fields[4, :, 2] = x[:, 2], -x[:, 0]
    fields[5, :, 1], fields[5, :, 2] = -x[:, 2], x[:, 1]
    modes = []
    for f in fields:
        v = A.createVecLeft()
        v.setArray(f.reshape(-1))
        for w in modes:  # Gram-Schmidt
            v.axpy(-v.dot(w), w)
        v.normalize()
        modes.append(v)
    return PETSc.NullSpace().create(vectors=modes, comm=A.getComm())


def solve_gamg(A, b, modes):
    A.setNearNullSpace(modes)
    ksp = PETSc.KSP().create(comm=A.getComm())
    ksp.setOperators(A)
    ksp.setType("cg")
    ksp.getPC().setType("gamg")
    ksp.setTolerances(rtol=1e-10, atol=0.0, max_it=300)
    x = A.createVecRight()
    ksp.solve(b, x)
    return ksp.getConvergedReason(), ksp.getIterationNumber(), x


@case
def elasticity_cg_gamg():
    V, a, L, bc = problem([10, 5, 5])
    A = assembled_with_mat_type(None, a, [bc])
    Ref = assembled_with_mat_type("aij", a, [bc])
    check_ours(A, "DOLFINx's matrix")
    check_equal(Ref.getType() in ("seqaij", "mpiaij"), True, f"the reference is {Ref.getType()}: aij")
    check_equal(A.getBlockSize(), 3, "block size of DOLFINx's matrix")
    check(rel_diff_mat(A, Ref) < 1e-14, f"DOLFINx's assembly differs from AIJ's by {rel_diff_mat(A, Ref):.3g}")

    b = fem.petsc.assemble_vector(L)
    fem.petsc.apply_lifting(b, [a], bcs=[[bc]])
    b.ghostUpdate(addv=PETSc.InsertMode.ADD, mode=PETSc.ScatterMode.REVERSE)
    fem.petsc.set_bc(b, [bc])
    modes = rigid_body_modes(V, Ref)
    reason, its, x = solve_gamg(A, b, modes)
    ref_reason, ref_its, ref_x = solve_gamg(Ref, b, modes)
    check(ref_reason > 0 and ref_its > 2, f"the AIJ solve: reason {ref_reason} after {ref_its} iterations (the case tests nothing)")
    check_equal(reason, ref_reason, "converged reason")
    check_equal(its, ref_its, "CG + GAMG iterations")
    check(rel_diff_vec(x, ref_x) < 1e-8, f"solution differs from AIJ's by {rel_diff_vec(x, ref_x):.3g}")


sys.exit(run())
