#!/usr/bin/env python3
"""The options the code reads are the options the documentation lists, with the same values.

The code's options are one table, BSRCOptions[] in src/mat/impls/bsrcustom/options/bsrcustomsettings.c: each
row names the option, the setter that does the same, and the kind (int, enum, boolean). A program of
ours run with -help prints them with the values of those that have a fixed set ("(one of: a, b)").
Checked, against the table and those values:
  - -help itself: the table's options, an enum with its values, a boolean with true and false;
  - README.md's options table (rows "| `-mat_bsrcustom_x <a,b>` | default | meaning |"): the same
    options, and for enums and booleans the same values;
  - the man pages of MATBSRCUSTOM (include/petscmatbsrcustom.h), MATSEQBSRCUSTOM and MATMPIBSRCUSTOM
    ("Options Database Keys"): every option, none other, and for enums and booleans the same values;
  - each option's setter (the table's third column): its man page names the option under
    "Options Database Key", with the same values for enums and booleans.

usage: check_options_doc.py --root <source tree> -- <command that prints -help>
"""
import argparse
import glob
import re
import subprocess
import sys

PKG = "src/mat/impls/bsrcustom"
TABLE_ROW = re.compile(r'\{\s*"(-mat_bsrcustom_\w+)",\s*"(?:[^"\\]|\\.)*",\s*"(MatBSRCustom\w+)",\s*BSRC_OPT_(INT|ENUM|BOOL)\b')
HELP_LINE = re.compile(r"^\s*(-mat_bsrcustom_\w+):? <[^>]*>: (.*)$")  # 3.25 puts a colon after the name
CHOICES = re.compile(r"\(one of: ([^)]*)\)")
README_ROW = re.compile(r"^\|\s*`(-mat_bsrcustom_\w+)(?:\s*<([^>]*)>)?`\s*\|")
MAN_KEY = re.compile(r"^[+.-]\s+(-mat_bsrcustom_\w+)(?:\s*<([^>]*)>)?\s+-", re.M)
TYPE_PAGES = [("MATBSRCUSTOM", "include/petscmatbsrcustom.h"),
              ("MATSEQBSRCUSTOM", f"{PKG}/seq/seqbsrcustom.c"),
              ("MATMPIBSRCUSTOM", f"{PKG}/mpi/mpibsrcustom.c")]


def split_values(text):
    return [v.strip() for v in text.split(",")] if text else None


def from_table(root):
    text = open(f"{root}/{PKG}/options/bsrcustomsettings.c", encoding="utf-8").read()
    body = text[text.index("BSRCOptions[] = {"):]
    body = body[:body.index("\n};")]
    table = {m.group(1): (m.group(2), m.group(3)) for m in TABLE_ROW.finditer(body)}
    if not table:
        sys.exit("FAIL: no option rows found in BSRCOptions[] of bsrcustomsettings.c")
    return table


def from_help(cmd):
    p = subprocess.run(cmd + ["-help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    options = {}
    for line in p.stdout.splitlines():
        m = HELP_LINE.match(line)
        if not m:
            continue
        c = CHOICES.search(m.group(2))
        options[m.group(1)] = split_values(c.group(1)) if c else None
    if p.returncode != 0 or not options:
        print(p.stdout[-4000:])
        sys.exit(f"FAIL: {' '.join(cmd)} -help exited with {p.returncode} and printed {len(options)} bsrcustom options")
    return options


def from_readme(path):
    rows = {}
    for line in open(path, encoding="utf-8"):
        m = README_ROW.match(line)
        if m:
            rows[m.group(1)] = split_values(m.group(2))
    return rows


def man_keys(block):
    """-mat_bsrcustom_ options of a man page's key list, with the values in <...>."""
    return {m.group(1): split_values(m.group(2)) for m in MAN_KEY.finditer(block)}


def from_type_page(path, name):
    text = open(path, encoding="utf-8").read()
    block = text[text.index(f"{name} - "):]
    block = block[:block.index("M*/")]
    block = block[block.index("Options Database Keys"):block.index("Level:")]
    return man_keys(block)


def setter_pages(root):
    """man page text of every public function of the package (not cuda/), by name"""
    pages = {}
    for path in glob.glob(f"{root}/{PKG}/**/*.c", recursive=True):
        for m in re.finditer(r"/\*@C?\n\s*(\w+) - (.*?)@\*/", open(path, encoding="utf-8").read(), re.S):
            pages[m.group(1)] = m.group(2)
    return pages


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    table = from_table(a.root)
    code = from_help(cmd)
    failures = []

    def listed(where, found, exact=True):
        """found: option -> values (or None) as `where` documents them"""
        for opt, (_, kind) in sorted(table.items()):
            if opt not in found:
                failures.append(f"{opt} is in the option table but missing from {where}")
            elif kind != "INT" and found[opt] != code.get(opt):
                failures.append(f"{opt}: {where} lists <{','.join(found[opt] or [])}>, the code takes <{','.join(code.get(opt) or [])}>")
        for opt in sorted(set(found) - set(table)) if exact else []:
            failures.append(f"{where} lists {opt}, which is not in the option table")

    # -help prints the table, with the values its kinds promise
    for opt, (_, kind) in sorted(table.items()):
        if opt not in code:
            failures.append(f"{opt} is in the option table but -help does not print it")
        elif kind == "BOOL" and code[opt] != ["true", "false"]:
            failures.append(f"{opt}: a boolean, but -help offers <{','.join(code[opt] or [])}>")
        elif kind == "ENUM" and not code[opt]:
            failures.append(f"{opt}: an enum, but -help offers no values")
        elif kind == "INT" and code[opt]:
            failures.append(f"{opt}: an integer, but -help offers values <{','.join(code[opt])}>")
    for opt in sorted(set(code) - set(table)):
        failures.append(f"-help prints {opt}, which is not in the option table")

    listed("README.md's options table", from_readme(f"{a.root}/README.md"))
    for name, path in TYPE_PAGES:
        listed(f"the {name} man page's Options Database Keys", from_type_page(f"{a.root}/{path}", name))
    pages = setter_pages(a.root)
    for opt, (setter, kind) in sorted(table.items()):
        page = pages.get(setter)
        if page is None:
            failures.append(f"{opt}: its setter {setter}() has no man page")
            continue
        keys = man_keys(page[page.index("Options Database Key"):] if "Options Database Key" in page else "")
        if opt not in keys:
            failures.append(f"{opt} is missing from the Options Database Key of {setter}()'s man page")
        elif kind != "INT" and keys[opt] != code.get(opt):
            failures.append(f"{opt}: {setter}()'s man page lists <{','.join(keys[opt] or [])}>, the code takes <{','.join(code.get(opt) or [])}>")

    for f in failures:
        print(f"FAIL: {f}")
    print(f"check_options_doc: {len(table)} options in the table; -help, README.md, {len(TYPE_PAGES)} type man pages and {len(table)} setter man pages checked; {len(failures)} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
