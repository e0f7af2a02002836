"""Named cases of a client test program (petsc4py, slepc4py, DOLFINx scripts), as tests/petsc/testutils.h
runs those of the C programs.

A program registers functions with @case and calls run(); each case prints on rank 0
    ok <name>                          every check passed on every rank
    FAIL <name>: <first failed check>  (the failure counts summed over the ranks)
then "<program>: p passed, f failed". Exit status 1 if a case failed, else 0. Checks (check(),
check_close()) never stop a case: every rank goes on through the same collective calls. A case that
raises (a PETSc error) is a failure; on several ranks the others may be waiting in a collective call
it never reaches, so the run is aborted there (MPI_Abort), never left to hang.
Options: -test_case <name>[,<name>...] runs only those; -test_list prints the names.

start() must come before anything imports petsc4py.PETSc: it hands the command line (which loads our
plugin with -dll_append <libpetscbsrcustom.so> and may select it with -mat_type bsrcustom) to
petsc4py.init, the only place PETSc reads -dll_append.
"""
import os
import sys
import traceback

_cases = []
_state = {"failures": 0, "first": None}


def start(with_slepc=False):
    """Initialises PETSc (and SLEPc) from sys.argv; returns the PETSc module."""
    import petsc4py

    petsc4py.init(sys.argv)
    if with_slepc:
        import slepc4py

        slepc4py.init(sys.argv)
    from petsc4py import PETSc

    return PETSc


def case(fn):
    _cases.append(fn)
    return fn


def check(cond, message):
    """Counts a failure (this rank) where cond is false; the first one is the case's reason."""
    if not cond:
        _state["failures"] += 1
        if _state["first"] is None:
            _state["first"] = message
    return bool(cond)


def check_close(value, reference, rtol, what, atol=0.0):
    """|value - reference| <= atol + rtol |reference|, for numbers both runs computed."""
    ok = abs(value - reference) <= atol + rtol * abs(reference)
    return check(ok, f"{what}: {value!r}, reference {reference!r} (rtol {rtol:g})")


def check_equal(value, reference, what):
    return check(value == reference, f"{what}: {value!r}, reference {reference!r}")


def is_ours(mat):
    """Whether mat is of our type (so that a case cannot pass on BAIJ that the options failed to change)."""
    return mat.getType() in ("seqbsrcustom", "mpibsrcustom")


def check_ours(mat, what):
    return check(is_ours(mat), f"{what} is {mat.getType()}, not bsrcustom (is the plugin loaded, -dll_append?)")


def _world():
    from mpi4py import MPI

    return MPI.COMM_WORLD


def run():
    from petsc4py import PETSc

    comm = _world()
    rank = comm.Get_rank()
    opts = PETSc.Options()
    program = os.path.basename(sys.argv[0])
    if opts.getBool("test_list", False):
        if rank == 0:
            print("\n".join(fn.__name__ for fn in _cases))
        return 0
    wanted = opts.getString("test_case", "")
    names = [n for n in wanted.split(",") if n] if wanted else [fn.__name__ for fn in _cases]
    unknown = [n for n in names if n not in {fn.__name__ for fn in _cases}]
    if unknown:
        if rank == 0:
            print(f"{program}: no case named {', '.join(unknown)} (-test_list names them)")
        return 1
    passed = failed = 0
    for fn in _cases:
        if fn.__name__ not in names:
            continue
        _state["failures"], _state["first"] = 0, None
        try:
            fn()
        except Exception as e:  # a PETSc error (or a bug of the case): its message, then no hang
            reason = f"{type(e).__name__}: {e}" if not isinstance(e, PETSc.Error) else f"PETSc error {e.ierr} (message on stderr)"
            print(f"FAIL {fn.__name__}: raised {reason} on rank {rank}", flush=True)
            traceback.print_exc()
            if comm.Get_size() > 1:
                comm.Abort(1)
            failed += 1
            continue
        total = comm.allreduce(_state["failures"])
        # the first reason of the lowest rank that failed
        reasons = comm.gather(_state["first"], root=0)
        if rank == 0:
            if total:
                first = next((r for r in reasons if r), "")
                print(f"FAIL {fn.__name__}: {first} ({total} failed checks summed over the ranks)", flush=True)
            else:
                print(f"ok {fn.__name__}", flush=True)
        if total:
            failed += 1
        else:
            passed += 1
    if rank == 0:
        print(f"{program}: {passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0
