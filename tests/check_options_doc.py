#!/usr/bin/env python3
"""The options the code reads are the options the documentation lists, with the same values.

Runs a program of ours with -help and reads every -mat_bsrcustom_ option it prints, with the values of
those that have a fixed set ("(one of: a, b)"). Then checks, against that list:
  - README.md's options table (rows "| `-mat_bsrcustom_x <a,b>` | default | meaning |"): the same
    options, and for enums and booleans the same values;
  - the man page of MATSEQBSRCUSTOM ("Options Database Keys" in seqbsrcustom.c): every option.

usage: check_options_doc.py --root <source tree> -- <command that prints -help>
"""
import argparse
import re
import subprocess
import sys

HELP_LINE = re.compile(r"^\s*(-mat_bsrcustom_\w+):? <[^>]*>: (.*)$")  # 3.25 puts a colon after the name
CHOICES = re.compile(r"\(one of: ([^)]*)\)")
README_ROW = re.compile(r"^\|\s*`(-mat_bsrcustom_\w+)(?:\s*<([^>]*)>)?`\s*\|")


def from_help(cmd):
    p = subprocess.run(cmd + ["-help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    options = {}
    for line in p.stdout.splitlines():
        m = HELP_LINE.match(line)
        if not m:
            continue
        c = CHOICES.search(m.group(2))
        options[m.group(1)] = [v.strip() for v in c.group(1).split(",")] if c else None
    if p.returncode != 0 or not options:
        print(p.stdout[-4000:])
        sys.exit(f"FAIL: {' '.join(cmd)} -help exited with {p.returncode} and printed {len(options)} bsrcustom options")
    return options


def from_readme(path):
    rows = {}
    for line in open(path, encoding="utf-8"):
        m = README_ROW.match(line)
        if m:
            rows[m.group(1)] = [v.strip() for v in m.group(2).split(",")] if m.group(2) else None
    return rows


def from_man_page(path):
    text = open(path, encoding="utf-8").read()
    block = text[text.index("MATSEQBSRCUSTOM - "):]
    block = block[block.index("Options Database Keys"):block.index("Level:")]
    return set(re.findall(r"(-mat_bsrcustom_\w+)", block))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    code = from_help(cmd)
    readme = from_readme(f"{a.root}/README.md")
    man = from_man_page(f"{a.root}/src/mat/impls/bsrcustom/seq/seqbsrcustom.c")
    failures = 0
    for opt, values in sorted(code.items()):
        if opt not in readme:
            print(f"FAIL: {opt} is read by the code but missing from README.md's options table")
            failures += 1
        elif values is not None and readme[opt] != values:
            print(f"FAIL: {opt}: README.md lists <{','.join(readme[opt] or [])}>, the code takes <{','.join(values)}>")
            failures += 1
        if opt not in man:
            print(f"FAIL: {opt} is missing from the MATSEQBSRCUSTOM man page's Options Database Keys")
            failures += 1
    for opt in sorted(set(readme) - set(code)):
        print(f"FAIL: README.md lists {opt}, which the code does not read")
        failures += 1
    for opt in sorted(man - set(code)):
        print(f"FAIL: the MATSEQBSRCUSTOM man page lists {opt}, which the code does not read")
        failures += 1
    print(f"check_options_doc: {len(code)} options, {failures} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
