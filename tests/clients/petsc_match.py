#!/usr/bin/env python3
"""Runs a client test only where the Python packages it needs are built for the PETSc of this build.

Debian's petsc4py, slepc4py and DOLFINx are built for Debian's PETSc 3.18: loading our plugin, built
against another PETSc (3.25.4, main), into them would put two PETSc libraries in one process. So the
command runs only when petsc4py's PETSC_DIR is the prefix this build's PETSc came from (and the other
modules and files named are there); otherwise this prints "skipped: <why>" and exits 77 (CTest's
SKIP_RETURN_CODE of the clients label).

usage: petsc_match.py --python PY --petsc-prefix DIR [--module NAME]... [--file PACKAGE:PATH]... -- command...
"""
import argparse
import os
import subprocess
import sys

SKIP = 77
# the Debian package that brings each module or file (scripts/setup.sh installs them)
PACKAGE = {"petsc4py": "python3-petsc4py", "slepc4py": "python3-slepc4py", "mpi4py": "python3-mpi4py",
           "dolfinx": "python3-dolfinx"}


def skip(why):
    print(f"skipped: {why}")
    sys.exit(SKIP)


def probe(python, code):
    """What `python -c code` prints, or None where it fails (module missing)."""
    try:
        p = subprocess.run([python, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    return p.stdout.strip(), ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True, help="the interpreter the command runs (the one that has petsc4py)")
    ap.add_argument("--petsc-prefix", required=True, help="the PETSc this build is against (pkg-config's prefix)")
    ap.add_argument("--module", action="append", default=[], help="another Python module the command needs")
    ap.add_argument("--file", action="append", default=[], help="PACKAGE:PATH, a file the command needs and the Debian package that brings it")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command")

    petsc_dir, why = probe(a.python, "import petsc4py; print(petsc4py.get_config()['PETSC_DIR'])")
    if petsc_dir is None:
        skip(f"{a.python} has no petsc4py ({why}); Debian: {PACKAGE['petsc4py']}, which scripts/setup.sh installs")
    if os.path.realpath(petsc_dir) != os.path.realpath(a.petsc_prefix):
        skip(f"petsc4py of {a.python} is built for the PETSc at {petsc_dir}, this build is against {a.petsc_prefix}")
    for m in a.module:
        found, why = probe(a.python, f"import {m}")
        if found is None:
            skip(f"{a.python} has no {m} ({why}); Debian: {PACKAGE.get(m, m)}, which scripts/setup.sh installs")
    for spec in a.file:
        package, _, path = spec.partition(":")
        if not os.path.exists(path):
            skip(f"{path} is missing; Debian: {package}, which scripts/setup.sh installs")
    sys.stdout.flush()
    os.execvp(cmd[0], cmd)


if __name__ == "__main__":
    main()
