#!/usr/bin/env python3
"""PETSc's own example programs, run once as their TEST blocks say with BAIJ and once with bsrcustom.

For a PETSc installation's examples (share/petsc/examples), every TEST block of the programs under the
chosen folders whose arguments give some option the value baij, seqbaij or mpibaij (-mat_type baij,
-dm_mat_type baij, -convname baij, ...) is a case. Each case runs twice under mpiexec with the TEST's
ranks (1 to 4): as written, and with those values replaced by bsrcustom, seqbsrcustom, mpibsrcustom and
the plugin loaded with -dll_append. The two outputs are compared after the TEST's own filter, with type
names made alike and our MatView lines dropped: integers and words must be equal, floating-point
numbers equal to a relative tolerance (rounding differs: our kernels sum in another order).

A case counts as run with bsrcustom only if -info (to a file) shows our matrices were assembled;
otherwise it is skipped, as are cases whose `requires` this PETSc does not meet (data files, other
precisions, missing packages), marked TODO, or needing more than 4 ranks. Differences PETSc's BAIJ
has as well, or that are not bsrcustom's to fix, are listed with their reason in the known-differences
file; they are reported as such, never as passes.

PETSc's own parser of TEST blocks (config/testparse.py of the examples) reads the blocks.

Cases of the solver folders (ksp, snes, dm) run at the extra rank counts too (default 3 and 4), where
the baij run succeeds: coarse multigrid levels and halos with few rows per rank are found there. Their
lines are compared in sorted order, since ranks that print on their own interleave differently.

--ours-args adds options to every bsrcustom run: with "-mat_bsrcustom_backend cuda" the same sweep runs
our products on the GPU (and, in a CUDA-enabled PETSc, on the CUDA vectors our matrices create), against
the same BAIJ runs on the host; VecView's seqcuda and mpicuda then count as seq and mpi.

usage: petsc_examples.py --examples DIR --petscconf FILE --lib LIB --build DIR [--mpiexec CMD]
                         [--folders a,b] [--extra-ranks 3,4] [--known FILE] [--filter REGEX] [--jobs N] [--list]
                         [--ours-args OPTIONS] [--require-gpu]
"""
import argparse
import concurrent.futures
import itertools
import os
import re
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_runs import gpu_visible, tokens, same_token  # noqa: E402

FOLDERS = ["mat/tests", "mat/tutorials", "ksp/ksp/tutorials", "ksp/ksp/tests", "ksp/pc/tests",
           "ksp/pc/tutorials", "snes/tutorials", "snes/tests", "dm/tests", "dm/tutorials"]
BAIJ_VALUE = re.compile(r"(-[\w.]+\s+)(seq|mpi)?baij\b")
REDIRECT = re.compile(r"\s*\d?>.*$")
LOOP = re.compile(r"\{\{(.*?)\}(?:shared output|separate output)?\}")
# lines our type adds to MatView (ascii_info) and the per-rank lines of mpibsrcustom's view
OURS_ONLY = re.compile(r"^\s*(bsrcustom:|\[\d+\] (local block|CUDA device))")


def substitute(args):
    return BAIJ_VALUE.sub(lambda m: m.group(1) + (m.group(2) or "") + "bsrcustom", args)


# with the GPU backends our matrices create CUDA vectors (as MATAIJCUSPARSE does), which VecView names
CUDA_VEC = re.compile(r"\b(seq|mpi)cuda\b")


def normalise(text, cuda_vecs=False):
    out = []
    for line in text.splitlines():
        if OURS_ONLY.match(line):
            continue
        line = line.replace("bsrcustom", "baij")
        if cuda_vecs:
            line = CUDA_VEC.sub(r"\1", line)
        out.append(line)
    return out


class Config:
    """What the PETSc under test was built with (petscconf.h), for the TEST blocks' `requires`."""

    def __init__(self, conf_h):
        self.defines = set()
        for line in open(conf_h, encoding="utf-8", errors="replace"):
            m = re.match(r"#define (PETSC_\w+)", line)
            if m:
                self.defines.add(m.group(1))

    def has(self, word):
        neg = word.startswith("!")
        word = word.lstrip("!")
        m = re.match(r"defined\((\w+)\)$", word)
        if m:
            ok = m.group(1) in self.defines
        elif word == "datafilespath":
            ok = False  # the data files are not shipped
        elif word in ("double", "single", "__float128", "__fp16"):
            prec = {"double": "PETSC_USE_REAL_DOUBLE", "single": "PETSC_USE_REAL_SINGLE", "__float128": "PETSC_USE_REAL___FLOAT128", "__fp16": "PETSC_USE_REAL___FP16"}[word]
            ok = prec in self.defines
        elif word == "complex":
            ok = "PETSC_USE_COMPLEX" in self.defines
        elif word == "real":
            ok = "PETSC_USE_COMPLEX" not in self.defines
        elif word in ("64bitindices", "defined(PETSC_USE_64BIT_INDICES)"):
            ok = "PETSC_USE_64BIT_INDICES" in self.defines
        elif word == "x":
            ok = "PETSC_HAVE_X" in self.defines
        else:
            ok = "PETSC_HAVE_" + word.upper() in self.defines
        return ok != neg

    def meets(self, requires):
        return all(self.has(w) for w in requires.replace(",", " ").split())


def expand_loops(args):
    """-a {{x y}} -b {{1 2}shared output} -> every combination, as plain argument strings."""
    loops = LOOP.findall(args)
    if not loops:
        return [args]
    parts = LOOP.split(args)
    combos = []
    for values in itertools.product(*[l.split() for l in loops]):
        text = "".join(p if i % 2 == 0 else values[i // 2] for i, p in enumerate(parts))
        combos.append(text)
    return combos


def collect(examples, folders, config, flt, extra_ranks):
    sys.path.insert(0, os.path.join(examples, "config"))
    import testparse  # PETSc's own, from the installation under test

    cases, skipped = [], []
    for folder in folders:
        d = os.path.join(examples, "src", folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith(".c"):
                continue
            src = os.path.join(d, name)
            if "baij" not in open(src, encoding="utf-8", errors="replace").read():
                continue
            try:
                parsed = testparse.parseTestFile(src, 0)
            except Exception as e:  # a block PETSc's parser of this version cannot read
                skipped.append((f"{folder}/{name}", f"TEST block not parsed: {e}"))
                continue
            tests = parsed.get(name, {})
            build_requires = tests.get("build", {}).get("requires", "") if isinstance(tests.get("build"), dict) else ""
            for tname, t in sorted(tests.items()):
                if not isinstance(t, dict) or tname == "build":
                    continue
                subs = [t] + [t[k] for k in t.get("subtests", []) if isinstance(t.get(k), dict)]
                for sub in subs:
                    args_all = " ".join(x for x in (t.get("args", ""), sub.get("args", "") if sub is not t else "") if x)
                    nsizes = expand_loops(str(sub.get("nsize", t.get("nsize", "1"))))
                    if not folder.startswith("mat/"):  # solvers: their parallel paths on more rank counts
                        nsizes += [str(n) for n in extra_ranks if str(n) not in nsizes]
                    args_all = REDIRECT.sub("", args_all)  # a few TEST blocks send output to a file themselves
                    for i, (args, nsize) in enumerate(itertools.product(expand_loops(args_all), nsizes)):
                        if not BAIJ_VALUE.search(args):
                            continue
                        cid = f"{folder}/{tname}" + (f"/{sub.get('suffix', 'sub')}" if sub is not t else "") + (f"#{i}" if i else "") + f"@{nsize}"
                        if flt and not re.search(flt, cid):
                            continue
                        nsize = int(nsize)
                        requires = " ".join(x for x in (build_requires, t.get("requires", ""), sub.get("requires", "") if sub is not t else "") if x)
                        why = None
                        if "TODO" in t or "TODO" in sub:
                            why = "TODO in PETSc: " + str(t.get("TODO", sub.get("TODO")))
                        elif nsize > 4:
                            why = f"{nsize} ranks"
                        elif not config.meets(requires):
                            why = f"requires {requires}"
                        elif "${" in args or "DATAFILESPATH" in args:
                            why = "needs data files"
                        if why:
                            skipped.append((cid, why))
                            continue
                        filt = sub.get("filter", t.get("filter", ""))
                        extra = str(nsize) not in expand_loops(str(sub.get("nsize", t.get("nsize", "1"))))
                        cases.append(dict(id=cid, src=src, exe=name[:-2], folder=folder, args=args, nsize=nsize, filter=filt, extra=extra))
    return cases, skipped


def build(case_srcs, bdir, cc, cflags, libs, jobs):
    os.makedirs(bdir, exist_ok=True)
    exes = {}

    # the library folders also as run paths: a PETSc outside the loader's search path is found at run time
    rpaths = ["-Wl,-rpath," + f[2:] for f in libs if f.startswith("-L")]

    def one(src):
        exe = os.path.join(bdir, re.sub(r"\W", "_", src.split("/src/", 1)[-1])[:-2])
        if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
            cmd = [cc, "-w", "-O1"] + cflags + [src, "-o", exe] + libs + rpaths + ["-lm"]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode:
                return src, None, p.stdout[-2000:]
        return src, exe, ""

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for src, exe, err in pool.map(one, sorted(set(case_srcs))):
            exes[src] = (exe, err)
    return exes


def run(cmd, cwd, filt, timeout):
    t = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout} s", time.time() - t
    out = p.stdout
    if filt and p.returncode == 0:
        f = subprocess.run(["sh", "-c", filt], input=out, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd)
        out = f.stdout
    return p.returncode, out, p.stderr, time.time() - t


def compare(ref, ours, rtol, atol, any_order, cuda_vecs=False):
    a, b = normalise(ref), normalise(ours, cuda_vecs)
    a = [l for l in a if l.strip()]
    b = [l for l in b if l.strip()]
    if any_order:  # ranks that print on their own interleave their lines differently from run to run
        a, b = sorted(a), sorted(b)
    if len(a) != len(b):
        return f"{len(a)} lines from baij, {len(b)} from bsrcustom"
    for i, (x, y) in enumerate(zip(a, b)):
        tx, ty = tokens(x), tokens(y)
        if len(tx) != len(ty) or not all(same_token(p, q, rtol, atol) for p, q in zip(tx, ty)):
            return f"line {i + 1} differs:\n      baij:      {x}\n      bsrcustom: {y}"
    return None


def used_ours(infodir):
    for f in os.listdir(infodir):
        if "Partitioned" in open(os.path.join(infodir, f), errors="replace").read():
            return True
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", required=True, help="share/petsc/examples of the PETSc under test")
    ap.add_argument("--petscconf", required=True, help="petscconf.h of the PETSc under test")
    ap.add_argument("--lib", required=True, help="libpetscbsrcustom.so")
    ap.add_argument("--build", required=True, help="where the example programs are built and run")
    ap.add_argument("--cc", default="mpicc")
    ap.add_argument("--cflags", default="")
    ap.add_argument("--libs", default="")
    ap.add_argument("--mpiexec", default="mpiexec --oversubscribe")
    ap.add_argument("--folders", default=",".join(FOLDERS))
    ap.add_argument("--extra-ranks", default="3,4", help="rank counts at which the ksp, snes and dm cases run too (the baij run must succeed there)")
    ap.add_argument("--known", action="append", default=[], help="known differences: lines 'case-id-regex | reason' (may be given more than once)")
    ap.add_argument("--filter", help="only cases whose id matches")
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--atol", type=float, default=1e-10)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--list", action="store_true", help="list the cases and stop")
    ap.add_argument("--ours-args", default="", help="options added to every bsrcustom run, e.g. -mat_bsrcustom_backend cuda")
    ap.add_argument("--require-gpu", action="store_true", help="exit 77 (CTest: skipped) where no NVIDIA GPU is visible")
    a = ap.parse_args()
    if a.require_gpu and not gpu_visible() and not a.list:
        print("SKIPPED: no NVIDIA GPU visible")
        return 77

    config = Config(a.petscconf)
    extra = [int(n) for n in a.extra_ranks.split(",") if n]
    cases, skipped = collect(a.examples, a.folders.split(","), config, a.filter, extra)
    known = []
    for known_file in a.known:
        for line in open(known_file, encoding="utf-8"):
            line = line.strip()
            if line and not line.startswith("#"):
                rx, _, reason = line.partition("|")
                known.append((re.compile(rx.strip()), reason.strip()))
    if a.list:
        for c in cases:
            print(f"{c['id']}: -n {c['nsize']} {c['exe']} {c['args']}")
        for cid, why in skipped:
            print(f"{cid}: skipped ({why})")
        print(f"{len(cases)} cases, {len(skipped)} skipped")
        return 0

    exes = build([c["src"] for c in cases], a.build, a.cc, shlex.split(a.cflags), shlex.split(a.libs), a.jobs)
    mpiexec = shlex.split(a.mpiexec)
    results = {"passed": 0, "failed": 0, "known": 0, "skipped": len(skipped)}
    for cid, why in skipped:
        print(f"SKIP {cid}: {why}")

    def one(case):
        exe, err = exes[case["src"]]
        if not exe:
            return case, "failed", f"does not build:\n{err}"
        rundir = os.path.join(a.build, "run", re.sub(r"\W", "_", case["id"]))
        infodir = os.path.join(rundir, "info")
        os.makedirs(infodir, exist_ok=True)
        for f in os.listdir(infodir):
            os.remove(os.path.join(infodir, f))
        base = mpiexec + ["-n", str(case["nsize"]), exe]
        rc1, ref, err1, t1 = run(base + shlex.split(case["args"]), rundir, case["filter"], a.timeout)
        if rc1 != 0 and case["extra"]:  # a rank count the TEST does not name: the program may not take it
            return case, "skipped", f"the baij run fails on {case['nsize']} ranks too (exit {rc1}): {err1.strip()[-300:]}"
        if rc1 != 0:
            return case, "failed", f"the baij run of the TEST as written fails (exit {rc1}): {(ref + err1).strip()[-1000:]}"
        # our -info to a file shows that bsrcustom was assembled; a program run with -info of its own
        # keeps it (its output is what the TEST compares), and the check is left to the comparison
        own_info = re.search(r"(^|\s)-info(\s|$)", case["args"]) is not None
        ours_args = ["-dll_append", a.lib] + shlex.split(substitute(case["args"])) + shlex.split(a.ours_args)
        if not own_info:
            ours_args += ["-info", os.path.join(infodir, "info") + ":mat"]
        rc2, ours, err2, t2 = run(base + ours_args, rundir, case["filter"], a.timeout)
        if rc2 != 0:
            return case, "failed", f"the bsrcustom run exits with {rc2}:\n{(ours + err2).strip()[-1500:]}"
        if not own_info and not used_ours(infodir):
            return case, "skipped", "no bsrcustom matrix was assembled (the program ignores the option for its matrices)"
        diff = compare(ref, ours, a.rtol, a.atol, case["extra"], "-mat_bsrcustom_backend cuda" in a.ours_args or "-mat_bsrcustom_backend cusparse" in a.ours_args)
        if diff:
            return case, "failed", diff
        return case, "passed", f"{t1:.1f} s / {t2:.1f} s" + (" (the program's own -info: bsrcustom's use not checked)" if own_info else "")

    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs // 2)) as pool:
        for case, status, detail in pool.map(one, cases):
            cmd = f"-n {case['nsize']} {case['exe']} {case['args']}"
            if status == "failed":
                reason = next((r for rx, r in known if rx.search(case["id"])), None)
                if reason:
                    status = "known"
                    detail = f"known difference: {reason}\n    {detail}"
            tag = {"passed": "PASS", "failed": "FAIL", "known": "KNOWN", "skipped": "SKIP"}[status]
            print(f"{tag} {case['id']} ({cmd}): {detail}", flush=True)
            results[status] += 1
    print(f"petsc_examples: {len(cases) + len(skipped)} cases: {results['passed']} passed, {results['failed']} failed, "
          f"{results['known']} known differences, {results['skipped']} skipped")
    print(f"{results['passed']} passed, {results['failed']} failed, {results['skipped'] + results['known']} skipped")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
