#!/usr/bin/env python3
"""Runs bench/bench_matmult on small matrices and checks what its JSON says.

bench_matmult stops with an error when a product differs from the reference type's; this adds what an
exit code cannot show: every requested type was timed on every matrix, the BAIJ copies of bsrcustom
(MatConvert to BAIJ, of the matrix and of a MatDuplicate) beside the BAIJ assembled, the bandwidth references
(STREAM triad and read, with MatMult's percentages of both, and on 1 rank MatMult paired with each), the sweeps and the busy-cores case
(1 rank) or the overlap table and the one-rank comparison (several ranks) are there, with positive times and agreeing products,
the fixed-iteration KSP solves of every type (--ksp N: the run has -bench_ksp N) made N iterations and their residuals agree with the first
type's, and every target the run promises is listed. Timings are not judged: benchmarks do that, not tests.

usage: check_bench_json.py --json FILE --ranks N --types baij,bsrcustom --matrices thesis,stencil27 [--ksp ITS] -- <command...>
"""
import argparse
import json
import subprocess
import sys


def fail(msg):
    print(f"check_bench_json: FAIL: {msg}")
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--types", required=True)
    ap.add_argument("--matrices", required=True)
    ap.add_argument("--ksp", type=int, default=0, help="the run's -bench_ksp (0: no KSP rows expected)")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(proc.stdout)
    if proc.returncode != 0:
        fail(f"bench_matmult exited with {proc.returncode}")
    with open(a.json) as f:
        d = json.load(f)
    mats = a.matrices.split(",")
    types = a.types.split(",")
    if d["ranks"] != a.ranks:
        fail(f"JSON says {d['ranks']} ranks, ran on {a.ranks}")
    prefix = "seq" if a.ranks == 1 else "mpi"
    if not (d["stream_triad_gbs"] > 0 and d["stream_read_gbs"] > 0):
        fail(f"bandwidth references missing: triad {d.get('stream_triad_gbs')}, read {d.get('stream_read_gbs')} GB/s")
    for m in mats:
        for t in types:
            rows = [r for r in d["results"] if r["matrix"] == m and r["type"] == prefix + t]
            if len(rows) != 1:
                fail(f"{m}: expected one result of type {prefix + t}, got {len(rows)}")
            r = rows[0]
            if not (r["matmult_ms"] > 0 and r["matmultadd_ms"] > 0):
                fail(f"{m} {r['type']}: times {r['matmult_ms']}, {r['matmultadd_ms']}")
            # a product on the host has both percentages, one on a GPU neither (null)
            pct = (r["matmult_pct_triad"], r["matmult_pct_read"])
            if not (all(p is not None and p > 0 for p in pct) or all(p is None for p in pct)):
                fail(f"{m} {r['type']}: percentages of the triad and the read {pct}")
            if not (r["reldiff_matmult"] < 1e-13 and r["reldiff_matmultadd"] < 1e-13):
                fail(f"{m} {r['type']}: products differ from {types[0]} by {r['reldiff_matmult']}, {r['reldiff_matmultadd']}")
            if a.ksp > 0:
                ks = [k for k in d["ksp"] if k["matrix"] == m and k["type"] == prefix + t]
                if len(ks) != 1:
                    fail(f"{m}: expected one KSP row of type {prefix + t}, got {len(ks)}")
                k = ks[0]
                ref = [r for r in d["ksp"] if r["matrix"] == m][0]["relative_residual"]
                if not (k["its"] == a.ksp and k["solve_ms"] > 0 and abs(k["relative_residual"] - ref) <= 1e-4 * ref):
                    fail(f"{m} {k['type']}: KSP row with {k['its']} iterations (asked {a.ksp}), {k['solve_ms']} ms, residual {k['relative_residual']} against the first type's {ref}")
    ours = [t for t in types if t == "bsrcustom"]
    for m in mats:
        # the BAIJ copies of ours (-bench_copies, on by default): timed beside the assembled BAIJ
        cp = [c for c in d["baij_copies"] if c["matrix"] == m]
        if len(cp) != len(ours):
            fail(f"{m}: expected {len(ours)} row(s) of BAIJ copies, got {len(cp)}")
        for c in cp:
            if c["type"] != prefix + "bsrcustom" or c["baij_type"] != prefix + "baij":
                fail(f"{m}: BAIJ copies of {c['type']} as {c['baij_type']}")
            if not all(c[k] > 0 for k in ("assembled_ms", "converted_ms", "duplicated_converted_ms")):
                fail(f"{m}: BAIJ copies without times: {c}")
            if not c["reldiff"] < 1e-13:
                fail(f"{m}: the BAIJ copies' products differ from the assembled BAIJ's by {c['reldiff']}")
            for k in ("converted", "duplicated_converted"):
                if not c[f"{k}_q1"] <= c[f"{k}_over_assembled_paired"] <= c[f"{k}_q3"]:
                    fail(f"{m}: inconsistent ratios of the BAIJ copies: {c}")
    if a.ksp == 0 and d.get("ksp"):
        fail("KSP rows in the JSON of a run without -bench_ksp")
    names = {(t["matrix"], t["target"]) for t in d["targets"]}
    if a.ranks == 1:
        want = ["bsrcustom_1thread_vs_baij", "bsrcustom_allthreads_pct_read", "bsrcustom_busy_vs_baij", "bsrcustom_fallback_idle_cost"]
        for m in mats:
            busy = [b for b in d["busy_cores"] if b["matrix"] == m]
            if len(busy) != 1:
                fail(f"{m}: expected one busy-cores row, got {len(busy)}")
            b = busy[0]
            if not (b["busy_processes"] >= 1 and all(b[k] > 0 for k in ("busy_seqbaij_ms", "busy_bsrcustom_ms", "idle_fallback_ms", "idle_without_ms"))):
                fail(f"{m}: busy-cores row without times or busy processes: {b}")
            if not (b["busy_ratio_q1"] <= b["busy_ratio_paired"] <= b["busy_ratio_q3"] and b["idle_ratio_q1"] <= b["idle_ratio_paired"] <= b["idle_ratio_q3"]):
                fail(f"{m}: inconsistent busy-cores ratios: {b}")
            sw = [s for s in d["sweeps"] if s["matrix"] == m]
            if not any(s["sweep"] == "threads" for s in sw) or not any(s["sweep"] == "chunks" for s in sw):
                fail(f"{m}: thread or chunk sweep missing")
            if any(not (s["matmult_ms"] > 0 and s["stream_triad_gbs"] > 0 and s["stream_read_gbs"] > 0) for s in sw):
                fail(f"{m}: a sweep point without a time or a reference")
            # the all-threads product paired with the read (the target) and with the triad
            for ref in ("read", "triad"):
                pr = [p for p in d["paired_references"] if p["matrix"] == m and p["reference"] == ref]
                if len(pr) != 1:
                    fail(f"{m}: expected one MatMult paired with the {ref}, got {len(pr)}")
                p = pr[0]
                if not (p["pairs"] >= 1 and p["reference_gbs_median"] > 0 and p["matmult_gbs_median"] > 0 and p["pct_q1"] <= p["pct_paired"] <= p["pct_q3"]):
                    fail(f"{m}: inconsistent MatMult paired with the {ref}: {p}")
    else:
        want = ["overlap", "one_rank_vs_ranks"] + (["one_rank_vs_one"] if a.ranks >= 8 else [])
        for m in mats:
            ov = [o for o in d["overlap"] if o["matrix"] == m]
            if len(ov) != 1 or not ov[0]["t_full_ms"] > 0 or not ov[0]["bound_ms"] > 0:
                fail(f"{m}: overlap row missing or without times: {ov}")
            one = [o for o in d["one_rank_vs_ranks"] if o["matrix"] == m]
            if len(one) != 1:
                fail(f"{m}: expected one row of the one-rank comparison, got {len(one)}")
            o = one[0]
            if o["threads"] != a.ranks or o["mpibaij_ranks"] != a.ranks:
                fail(f"{m}: one-rank comparison with {o['threads']} threads against {o['mpibaij_ranks']} ranks")
            if not (o["t_mpibaij_ms"] > 0 and o["t_seqbaij_ms"] > 0 and o["t_bsrcustom_ms"] > 0):
                fail(f"{m}: one-rank comparison without times: {o}")
            if not o["reldiff"] < 1e-13:
                fail(f"{m}: rank 0's products differ from mpibaij's by {o['reldiff']}")
            ratio = o["t_mpibaij_ms"] / o["t_bsrcustom_ms"]
            if not (o["vs_ranks_q1"] <= o["vs_ranks_paired"] <= o["vs_ranks_q3"]) or not 0.01 < ratio < 100:
                fail(f"{m}: inconsistent ratios: {o}")
    for m in mats:
        for w in want:
            if (m, w) not in names:
                fail(f"{m}: target {w} missing")
    print(f"check_bench_json: OK ({len(d['results'])} results, {len(d['targets'])} targets, {a.ranks} rank(s))")


if __name__ == "__main__":
    main()
