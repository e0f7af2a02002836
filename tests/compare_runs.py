#!/usr/bin/env python3
"""Runs one program twice -- with a reference matrix type and with bsrcustom -- and compares what it prints.

Lines are compared token by token: integers (iteration counts, sizes) must be equal, floating-point numbers
must agree to a relative tolerance (rounding may differ: the kernels sum in another order), words must be equal.
Lines matching --ignore (timings, type names, addresses) are dropped from both outputs first.

usage: compare_runs.py --ref "<options>" --ours "<options>" [--rtol 1e-6] [--atol 1e-12] [--ignore REGEX]...
                       [--loose REGEX]... [--loose-rtol 1e-2]
                       [--strip REGEX]... [--expect REGEX]... [--reject REGEX]... [--expect-out REGEX]...
                       [--reject-out REGEX]... -- <command...>
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys

NUM = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
INT = re.compile(r"^[-+]?\d+$")


def run(cmd, timeout):
    # stdout only is compared: MPI runtimes and drivers write warnings of their own to stderr
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def gpu_visible():
    try:
        p = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=60)
        return p.returncode == 0 and "GPU" in p.stdout
    except (OSError, subprocess.TimeoutExpired):
        return False


def tokens(line):
    return re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[A-Za-z_]+|\S", line)


def same_token(a, b, rtol, atol, int_rtol=0.0):
    if a == b:
        return True
    if NUM.match(a) and NUM.match(b):
        if INT.match(a) and INT.match(b):
            return abs(int(a) - int(b)) <= int_rtol * max(abs(int(a)), abs(int(b)))
        x, y = float(a), float(b)
        return abs(x - y) <= atol + rtol * max(abs(x), abs(y))
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", required=True)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--atol", type=float, default=1e-12)
    ap.add_argument("--int-rtol", type=float, default=0.0, help="relative tolerance for integers (iteration counts), exact by default")
    ap.add_argument("--ignore", action="append", default=[])
    ap.add_argument("--loose", action="append", default=[], help="regex: matching lines compare their floating-point numbers to --loose-rtol")
    ap.add_argument("--loose-rtol", type=float, default=1e-2)
    ap.add_argument("--strip", action="append", default=[], help="regex removed from every line before comparing (e.g. type names in brackets)")
    ap.add_argument("--expect", action="append", default=[], help="regex that must appear in our run's output (with --info-dir: in its -info log)")
    ap.add_argument("--reject", action="append", default=[], help="regex that must not appear in our run's output (with --info-dir: in its -info log)")
    ap.add_argument("--expect-out", action="append", default=[], help="regex that must appear in our run's standard output (e.g. -ksp_view's)")
    ap.add_argument("--reject-out", action="append", default=[], help="regex that must not appear in our run's standard output")
    ap.add_argument("--info-dir", help="our run logs -info of the Mat class to files here (not to stdout, where ranks would interleave it with the program's lines)")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--require-gpu", action="store_true", help="exit 77 (CTest: skipped) where no NVIDIA GPU is visible")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command")
    ignore = [re.compile(r) for r in a.ignore]
    loose = [re.compile(r) for r in a.loose]
    strip = [re.compile(r) for r in a.strip]
    if a.require_gpu and not gpu_visible():
        print("SKIPPED: no NVIDIA GPU visible")
        return 77

    outs, raw = [], []
    info = ""
    if a.info_dir:
        os.makedirs(a.info_dir, exist_ok=True)
        for f in glob.glob(os.path.join(a.info_dir, "info*")):
            os.remove(f)
    for label, opts in (("reference", a.ref), ("bsrcustom", a.ours)):
        full = cmd + shlex.split(opts)
        if label == "bsrcustom" and a.info_dir:
            full += ["-info", os.path.join(a.info_dir, "info") + ":mat"]
        rc, out, err = run(full, a.timeout)
        print(f"--- {label}: {' '.join(full)} (exit {rc})")
        print(out.rstrip())
        if err.strip():
            print(f"--- {label}, stderr:")
            print(err.rstrip())
        if rc != 0:
            print(f"FAIL: the {label} run exited with {rc}")
            return 1
        raw.append(out)
        kept = [l for l in out.splitlines() if l.strip() and not any(r.search(l) for r in ignore)]
        for rx in strip:
            kept = [rx.sub("", l) for l in kept]
        outs.append(kept)

    if a.info_dir:
        for f in sorted(glob.glob(os.path.join(a.info_dir, "info*"))):
            info += open(f, errors="replace").read()
    failures = 0
    for rx in a.expect:
        if not re.search(rx, info if a.info_dir else raw[1]):
            print(f"FAIL: expected /{rx}/ in the bsrcustom run")
            failures += 1
    for rx in a.reject:
        m = re.search(rx, info if a.info_dir else raw[1])
        if m:
            print(f"FAIL: /{rx}/ in the bsrcustom run: {m.group(0)}")
            failures += 1
    for rx in a.expect_out:
        if not re.search(rx, raw[1], re.M):
            print(f"FAIL: expected /{rx}/ in the bsrcustom run's output")
            failures += 1
    for rx in a.reject_out:
        m = re.search(rx, raw[1], re.M)
        if m:
            print(f"FAIL: /{rx}/ in the bsrcustom run's output: {m.group(0)}")
            failures += 1
    ref, ours = outs
    if len(ref) != len(ours):
        print(f"FAIL: {len(ref)} lines from the reference, {len(ours)} from bsrcustom")
        failures += 1
    for i, (lr, lo) in enumerate(zip(ref, ours)):
        tr, to = tokens(lr), tokens(lo)
        rtol = a.loose_rtol if any(r.search(lr) for r in loose) else a.rtol
        if len(tr) != len(to) or not all(same_token(x, y, rtol, a.atol, a.int_rtol) for x, y in zip(tr, to)):
            print(f"FAIL: line {i + 1} differs:\n  reference: {lr}\n  bsrcustom: {lo}")
            failures += 1
    compared = min(len(ref), len(ours))
    print(f"compare_runs: {compared} lines compared, {failures} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
