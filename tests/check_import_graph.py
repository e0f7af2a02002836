#!/usr/bin/env python3
"""The plugin's import graph, drawn from its object files: an arrow a -> b when a's object references a
symbol (function or data) that b's object defines (nm). Checks that the graph has no circle and that
no arrow runs back up the layers below (a file calls files of its own layer, without a circle, or
of lower layers). The MatMult benchmark's parts (bench/bench_matmult.c and the files it links) are
checked for circles too, with an arrow also where a file includes another's header (bench_x.c and
bench_x.h are one part), so that a header declaring everyone's functions counts as the circle it is.

    check_import_graph.py <build dir> <source dir> [--print]

Layers, top to bottom (docs/design.md draws them):
    bsrcustom.c, cooblocked      the package: registration, public constructors, block COO
    mpi/                         MATMPIBSRCUSTOM
    seq/                         MATSEQBSRCUSTOM (also the MPI type's blocks)
    lifecycle, derived, submatrixroute, convertviaaij, gamgclassical, aijtwin, factor, coo  what both types share
    options/                     settings, their options and public setters
    backends/                    the seam (bsrcustombackend.c) and the cpu/ and gpu/ backends behind it
    common, utils, node          log events, helpers every layer uses, the node and default threads
The PETSc-free kernels/ and cuda/ are libraries of their own, below all of these.
"""
import collections
import os
import re
import subprocess
import sys

PKG = "src/mat/impls/bsrcustom"
LAYERS = [("bsrcustom.c", "bsrcustomcooblocked.c"), ("mpi/",), ("seq/",), ("bsrcustomlifecycle.c", "bsrcustomderived.c", "bsrcustomsubmatrixroute.c", "bsrcustomconvertviaaij.c", "bsrcustomgamgclassical.c", "bsrcustomaijtwin.c", "bsrcustomfactor.c", "bsrcustomcoo.c"), ("options/",), ("backends/",), ("bsrcustomcommon.c", "bsrcustomutils.c", "bsrcustomnode.c")]


def layer(f):
    for i, names in enumerate(LAYERS):
        if any(f == n or (n.endswith("/") and f.startswith(n)) for n in names):
            return i
    sys.exit(f"FAIL: {f} is in no layer of check_import_graph.py")


def circles(edges, nodes):
    """strongly connected components of more than one node"""
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return comps


def nm_symbols(path):
    """(defined, undefined) symbols of an object file"""
    defined, undefined = set(), set()
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBRC":
            defined.add(p[2])
        elif len(p) == 2 and p[0] == "U":
            undefined.add(p[1])
    return defined, undefined


def bench_check(build, src):
    """the MatMult benchmark's parts: symbol and include arrows, no circle; (parts, arrows, failures)"""
    objdir = os.path.join(build, "bench", "CMakeFiles", "bench_matmult.dir")
    if not os.path.isdir(objdir):
        return 0, 0, [f"no object files of bench_matmult under {objdir}"]
    defs, uses, edges = {}, {}, collections.defaultdict(set)
    for f in sorted(os.listdir(objdir)):
        if f.endswith(".c.o"):
            part = f[:-4]
            d, u = nm_symbols(os.path.join(objdir, f))
            uses[part] = u
            for sym in d:
                defs.setdefault(sym, part)
    for a, syms in uses.items():
        edges[a] |= {defs[x] for x in syms if x in defs and defs[x] != a}
    parts, todo = set(), [p + ".c" for p in uses]
    while todo:  # the files the benchmark's sources include, and theirs
        f = todo.pop()
        if f in parts or not os.path.exists(os.path.join(src, "bench", f)):
            continue
        parts.add(f)
        with open(os.path.join(src, "bench", f)) as fh:
            for h in re.findall(r'^\s*#\s*include\s+"(bench_[a-z0-9_]+\.h)"', fh.read(), re.M):
                if h[:-2] != f.rsplit(".", 1)[0]:
                    edges[f.rsplit(".", 1)[0]].add(h[:-2])
                todo.append(h)
    nodes = {f.rsplit(".", 1)[0] for f in parts} | set(uses)
    comps = circles(edges, nodes)
    return len(nodes), sum(len(e) for e in edges.values()), [f"bench circle: {' <-> '.join(c)}" for c in comps]


def main():
    build, src = sys.argv[1], sys.argv[2]
    objdir = os.path.join(build, PKG, "CMakeFiles", "petscbsrcustom.dir")
    defs, uses = {}, collections.defaultdict(set)
    for root, _, files in os.walk(objdir):
        for f in files:
            if not f.endswith(".c.o"):
                continue
            name = os.path.relpath(os.path.join(root, f), objdir)[:-2]
            if not os.path.exists(os.path.join(src, PKG, name)):
                continue  # a stale object of a source that moved
            out = subprocess.run(["nm", os.path.join(root, f)], capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                p = line.split()
                if len(p) == 3 and p[1] in "TDBRC":
                    defs.setdefault(p[2], name)
                elif len(p) == 2 and p[0] == "U":
                    uses[name].add(p[1])
    if not uses:
        sys.exit(f"FAIL: no object files under {objdir}")
    edges = collections.defaultdict(set)
    for a, syms in uses.items():
        for s in syms:
            b = defs.get(s)
            if b and b != a:
                edges[a].add(b)
    bad = []
    for a in sorted(edges):
        for b in sorted(edges[a]):
            if "--print" in sys.argv:
                print(f"{a} -> {b}")
            if layer(b) < layer(a):
                bad.append(f"{a} -> {b} runs back up")
    comps = circles(edges, set(edges) | set(uses))
    bad += [f"circle: {' <-> '.join(c)}" for c in comps]
    nfiles, narrows = len(uses), sum(len(e) for e in edges.values())
    nparts, nbench, bench_bad = bench_check(build, src)
    bad += bench_bad
    if bad:
        print("\n".join("FAIL: " + b for b in bad))
        sys.exit(1)
    print(f"import graph: {nfiles} files, {narrows} arrows, no circle, none running back up; the MatMult benchmark: {nparts} parts, {nbench} arrows, no circle")


if __name__ == "__main__":
    main()
