#!/usr/bin/env python3
"""Summarises a benchmark folder (what scripts/bench.sh writes) and draws its charts.

    bench/report.py <folder> [<folder> ...]

Reads every JSON of bench_matmult (cpu-*.json, gpu-petsc*.json, scale-*.json) and of bench_cuda
(gpu.json), and the logs of bench_cuda --staging (gpu-staging.log) and of the end-to-end KSP runs
(ksp-*.log). Prints every TARGET (the programs' own, and those that compare several runs) with PASS or
MISS, writes them to <folder>/targets.md, and draws PNG charts into the folder (python3-matplotlib):

    gpu_pct_copy.png      throughput of every GPU product as % of the copy bandwidth, per matrix
    cpu_threads.png       MatMult GB/s of the OpenMP kernel against threads, with the STREAM triad and the read
    cpu_chunks.png        MatMult time against chunks per thread (thesis Tables 1-3)
    mpi_gpu_scaling.png   weak and strong scaling efficiency of MatMult over GPUs
"""
import glob
import json
import os
import re
import sys

targets = []  # (source, what, value, threshold, unit, pass)


def target(source, what, value, threshold, unit, higher_is_better=True):
    ok = value >= threshold if higher_is_better else value <= threshold
    targets.append((source, what, value, ("≥ " if higher_is_better else "≤ ") + f"{threshold:g}{unit}", unit, ok))


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"report: cannot read {path}: {e}")
        return None


def cpu_section(folder, charts):
    runs = {}
    for path in sorted(glob.glob(os.path.join(folder, "cpu-*.json"))):
        d = load(path)
        if d:
            runs[os.path.basename(path)[:-5]] = d
            for t in d.get("targets", []):
                target(os.path.basename(path), f'{t["matrix"]}: {t["description"]}', t["value"], t["threshold"], "", True if t["target"] != "overlap" else False)
    if not runs:
        return
    # "1 rank x N threads against MATBAIJ on N ranks (and on 1 rank)" is a target of the N-rank run
    # itself (-bench_one_rank): both sides are timed there in interleaved trials. A ratio of two runs
    # would carry the drift of the machine between them.
    allthreads = [k for k in runs if re.fullmatch(r"cpu-1rank-\d+threads", k)]
    if not charts:
        return
    plt = charts
    for k in allthreads:
        sw = runs[k].get("sweeps", [])
        mats = sorted({s["matrix"] for s in sw})
        if not mats:
            continue
        fig, axes = plt.subplots(1, len(mats), figsize=(5.5 * len(mats), 4), squeeze=False)
        for ax, m in zip(axes[0], mats):
            pts = sorted((s["threads"], s["matmult_gbs"], s["stream_triad_gbs"], s.get("stream_read_gbs")) for s in sw if s["matrix"] == m and s["sweep"] == "threads")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label="bsrcustom MatMult")
            ax.plot([p[0] for p in pts], [p[2] for p in pts], "s--", label="STREAM triad")
            if all(p[3] for p in pts):  # runs before the read reference lack it
                ax.plot([p[0] for p in pts], [p[3] for p in pts], "^:", label="read (sum of one array)")
            ax.set_xlabel("OpenMP threads")
            ax.set_ylabel("GB/s")
            ax.set_title(m)
            ax.grid(alpha=0.3)
            ax.legend()
        fig.suptitle(f"CPU: MatMult bandwidth against threads ({k})")
        fig.tight_layout()
        fig.savefig(os.path.join(folder, "cpu_threads.png"), dpi=110)
        plt.close(fig)
        fig, axes = plt.subplots(1, len(mats), figsize=(5.5 * len(mats), 4), squeeze=False)
        for ax, m in zip(axes[0], mats):
            pts = sorted((s["chunks_per_thread"], s["matmult_ms"]) for s in sw if s["matrix"] == m and s["sweep"] == "chunks")
            ax.semilogx([p[0] for p in pts], [p[1] for p in pts], "o-", base=2)
            ax.set_xlabel("chunks per thread")
            ax.set_ylabel("MatMult ms")
            ax.set_title(m)
            ax.grid(alpha=0.3)
        fig.suptitle(f"CPU: chunks-per-thread sensitivity ({k})")
        fig.tight_layout()
        fig.savefig(os.path.join(folder, "cpu_chunks.png"), dpi=110)
        plt.close(fig)


def gpu_section(folder, charts):
    d = load(os.path.join(folder, "gpu.json")) if os.path.exists(os.path.join(folder, "gpu.json")) else None
    if d:
        for t in d["targets"]:
            target("gpu.json", t["what"], t["value"], t["threshold"], t["unit"], not t["what"].endswith("twin's (same rows and blocks)"))
    # host vectors through PETSc: MatMult of the cuda backend against kernel + pinned transfers
    log = os.path.join(folder, "gpu-staging.log")
    bounds = {}
    if os.path.exists(log):
        name = None
        for line in open(log):
            m = re.match(r"== staging, (\S+):", line)
            if m:
                name = m.group(1)
            m = re.match(r"bound = kernel \+ pinned transfers: beta=0 ([\d.]+) ms", line)
            if m and name:
                bounds[name] = float(m.group(1))
            m = re.match(r"TARGET (.*?)\s+([\d.]+)x \(<= ([\d.]+)x\) (PASS|MISS)", line)
            if m:
                target("gpu-staging.log", m.group(1), float(m.group(2)), float(m.group(3)), "x", False)
    p = load(os.path.join(folder, "gpu-petsc.json")) if os.path.exists(os.path.join(folder, "gpu-petsc.json")) else None
    if p:
        for r in p["results"]:
            if r["type"].endswith("bsrcustom"):
                key = {"thesis": "thesis", "stencil27": "stencil27_bs3"}.get(r["matrix"])
                if key in bounds:
                    target("gpu-petsc.json + gpu-staging.log", f'{r["matrix"]}: PETSc MatMult, host vectors / (kernel + pinned transfers)', r["matmult_ms"] / bounds[key], 1.10, "x", False)
    if d and charts:
        plt = charts
        mats = [m["name"] for m in d["matrices"]]
        prods = ["rowmajor_shared", "thread_private", "team_scalar", "vector_unrolled", "warp_row", "hybrid", "segmented", "sliced", "auto", "cusparse_bsrmv_col", "cusparse_bsrmv_row", "cusparse_spmv_bsr", "cusparse_spmv_csr_alg1", "cusparse_spmv_csr_alg2"]
        val = {(r["matrix"], r["product"]): r["pct_copy"] for r in d["products"] if r["ok"] and r["beta"] == 0}
        fig, ax = plt.subplots(figsize=(max(10, 1.1 * len(mats)), 5))
        w = 0.8 / len(prods)
        for i, pr in enumerate(prods):
            xs = [j + (i - len(prods) / 2) * w for j in range(len(mats))]
            ax.bar(xs, [val.get((m, pr), 0) for m in mats], w, label=pr, hatch="//" if pr.startswith("cusparse") else None)
        ax.axhline(95, color="k", lw=0.8, ls="--")
        ax.set_xticks(range(len(mats)))
        ax.set_xticklabels(mats, rotation=35, ha="right")
        ax.set_ylabel("% of device copy bandwidth")
        ax.set_title(f'{d["device"]}: MatMult throughput ({d["date"]}; copy {d["copy_gbs"]:.0f} GB/s)')
        ax.legend(ncol=4, fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(folder, "gpu_pct_copy.png"), dpi=110)
        plt.close(fig)


def scaling_section(folder, charts):
    """scale-<weak|strong>-<g>gpu.json from scripts/gpu-host.sh scale: bench_matmult on g GPUs, one rank each."""
    runs = {}
    for path in glob.glob(os.path.join(folder, "scale-*.json")):
        m = re.match(r"scale-(weak|strong)-(\d+)gpu\.json", os.path.basename(path))
        d = load(path)
        if m and d:
            for r in d["results"]:
                if r["type"].endswith("bsrcustom"):
                    runs[(r["matrix"], m.group(1), int(m.group(2)))] = r["matmult_ms"]
    if not runs:
        return
    eff = {}
    for (mat, kind, g), ms in sorted(runs.items()):
        base = runs.get((mat, kind, 1))
        if base and g > 1:
            e = base / ms if kind == "weak" else base / (g * ms)
            eff[(mat, kind, g)] = e
            target("scale-*.json", f"{mat}: MatMult {kind} scaling efficiency, 1 -> {g} GPUs", 100 * e, 90.0 if kind == "weak" else 80.0, "%")
    if charts and eff:
        plt = charts
        fig, ax = plt.subplots(figsize=(6, 4))
        for mat in sorted({k[0] for k in runs}):
            for kind in ("weak", "strong"):
                pts = sorted((g, 100 * (runs[(mat, kind, 1)] / ms if kind == "weak" else runs[(mat, kind, 1)] / (g * ms))) for (m2, k2, g), ms in runs.items() if m2 == mat and k2 == kind and (mat, kind, 1) in runs)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"{mat} {kind}")
        ax.set_xlabel("GPUs (one rank each)")
        ax.set_ylabel("parallel efficiency %")
        ax.set_ylim(0, 110)
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(folder, "mpi_gpu_scaling.png"), dpi=110)
        plt.close(fig)


def ksp_section(folder):
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "ksp-*.log"))):
        text = open(path).read()
        s = re.search(r"Solve \[(\S+)\]: iterations (\d+).*?= ([\d.e+-]+)", text)
        t = re.search(r"Timing: \[\S+\] MatMult count (\d+), total ([\d.]+) s, avg ([\d.]+) us/call; KSPSolve ([\d.]+) s", text)
        if s and t:
            rows.append((os.path.basename(path)[4:-4], s.group(1), int(s.group(2)), float(s.group(3)), float(t.group(3)), float(t.group(4))))
    if rows:
        print("\nEnd to end (KSP): case, type, iterations, true residual, MatMult us/call, KSPSolve s")
        for r in rows:
            print(f"  {r[0]:<28} {r[1]:<14} {r[2]:5d} {r[3]:10.3e} {r[4]:12.1f} {r[5]:10.3f}")
    return rows


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        charts = plt
    except ImportError:
        charts = None
        print("report: python3-matplotlib is missing: no charts (scripts/setup.sh installs it)")
    for folder in sys.argv[1:]:
        targets.clear()
        cpu_section(folder, charts)
        gpu_section(folder, charts)
        scaling_section(folder, charts)
        ksp = ksp_section(folder)
        print(f"\nTargets ({folder}):")
        with open(os.path.join(folder, "targets.md"), "w") as md:
            md.write("| source | target | measured | goal | verdict |\n|---|---|---:|---|---|\n")
            for src, what, value, goal, unit, ok in targets:
                print(f"  {'PASS' if ok else 'MISS'}  {what}: {value:.3f}{unit} ({goal})   [{src}]")
                md.write(f"| {src} | {what} | {value:.3f}{unit} | {goal} | {'PASS' if ok else '**MISS**'} |\n")
            if ksp:
                md.write("\n| case | type | iterations | true residual | MatMult µs/call | KSPSolve s |\n|---|---|---:|---:|---:|---:|\n")
                for r in ksp:
                    md.write(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.3e} | {r[4]:.1f} | {r[5]:.3f} |\n")
        pngs = sorted(glob.glob(os.path.join(folder, "*.png")))
        print(f"written: {os.path.join(folder, 'targets.md')}" + (", " + ", ".join(os.path.basename(p) for p in pngs) if pngs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
