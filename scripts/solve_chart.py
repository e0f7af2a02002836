#!/usr/bin/env python3
"""Draws the main job's KSPSolve times on CUDA vectors as an SVG bar chart (no plotting package needed).

   scripts/solve_chart.py <folder> [out.svg]

Reads the `solve-gpu-<n>.log` (bsrcustom cuda against MATAIJCUSPARSE) and `solve-cpu16-<n>.log`
(bsrcustom cpu against MATBAIJ, 16 ranks) files that `scripts/gpu-host.sh solve-325` writes, takes
their "Timing: KSPSolve s" lines and draws, for each size n^3, the time of each solve relative to
bsrcustom cuda (so bsrcustom cuda is 1 and a bar of 1.27 is a solve 1.27x as long), on a log scale.
"""
import math
import os
import re
import sys

SERIES = [("bsrcustom, cuda", "#1b6ca8"), ("MATAIJCUSPARSE", "#f28e2b"), ("bsrcustom, cpu, 16 ranks", "#59a14f"), ("MATBAIJ, 16 ranks", "#b07aa1")]


def ksp_times(path):
    """(ours, compare) KSPSolve seconds of one log, or None."""
    if not os.path.exists(path):
        return None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"Timing: KSPSolve s\s+([0-9.eE+-]+)\s+([0-9.eE+-]+)", line)
        if m:
            return float(m.group(1)), float(m.group(2))
    return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(folder, "ksp-solve.svg")
    sizes = sorted({int(m.group(1)) for f in os.listdir(folder) for m in [re.match(r"solve-(?:gpu|cpu16)-(\d+)\.log$", f)] if m})
    rows = []
    for n in sizes:
        gpu, cpu = ksp_times(os.path.join(folder, f"solve-gpu-{n}.log")), ksp_times(os.path.join(folder, f"solve-cpu16-{n}.log"))
        if not gpu:
            continue
        t = [gpu[0], gpu[1], cpu[0] if cpu else None, cpu[1] if cpu else None]
        rows.append((n, [x / gpu[0] if x else None for x in t], t))
    if not rows:
        sys.exit(f"no solve-gpu-<n>.log with a 'Timing: KSPSolve s' line in {folder}")
    W, H, left, top, bottom = 820, 380, 70, 40, 70
    ymax = max(r for _, rel, _ in rows for r in rel if r)
    lmax = math.ceil(math.log10(ymax * 1.2) * 2) / 2  # log10 of the top of the axis, in half decades
    def y(v):
        return top + (H - top - bottom) * (1 - math.log10(v) / lmax)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">KSPSolve time relative to bsrcustom, cuda (CG + PBJacobi, rtol 1e-8; log scale)</text>']
    for v in [1, 2, 5, 10, 20, 50, 100]:
        if math.log10(v) <= lmax:
            svg.append(f'<line x1="{left}" x2="{W - 10}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/><text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v}x</text>')
    gw = (W - left - 10) / len(rows)
    bw = gw * 0.8 / len(SERIES)
    for i, (n, rel, t) in enumerate(rows):
        x0 = left + i * gw + gw * 0.1
        for j, ((name, color), r, s) in enumerate(zip(SERIES, rel, t)):
            if not r:
                continue
            x = x0 + j * bw
            svg.append(f'<rect x="{x:.1f}" y="{y(r):.1f}" width="{bw - 2:.1f}" height="{y(1) - y(r) + 2:.1f}" fill="{color}"><title>{name}: {s:.3f} s</title></rect>')
            svg.append(f'<text x="{x + bw / 2 - 1:.1f}" y="{y(r) - 4:.1f}" text-anchor="middle" font-size="10">{s:.2f} s</text>')
        svg.append(f'<text x="{left + i * gw + gw / 2:.1f}" y="{H - bottom + 18}" text-anchor="middle">{n}^3 nodes ({3 * n ** 3:,} unknowns)</text>')
    for j, (name, color) in enumerate(SERIES):
        svg.append(f'<rect x="{left + j * 175}" y="{H - 30}" width="12" height="12" fill="{color}"/><text x="{left + j * 175 + 16}" y="{H - 20}">{name}</text>')
    svg.append("</svg>")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(svg) + "\n")
    print(f"wrote {out}: {len(rows)} sizes")


if __name__ == "__main__":
    main()
