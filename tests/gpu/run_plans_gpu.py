#!/usr/bin/env python3
"""Plan-level GPU check: runs every plan case twice through the dmlrt CLI and compares the runs.

For each case folder of tests/plans/cases and tests/conformance/cases (those with a case.json),
the plan runs once as is (CPU) and once with `-gpu force` added; every file the run writes (output
matrices, scalars, .mtd metadata) and stdout must agree between the two runs: matrices cell by cell
within 1e-9 (|gpu - cpu| <= atol + rtol*|cpu|, NaN equal to NaN, infinities exactly), stdout in
run_plan.py's numeric mode (same text, numbers within the tolerance). Cases whose tolerance is at
least 1e-4 run a third time with `-gpu force -precision single` and are compared at
max(their tolerance, 1e-4). Both runs get the same `-seed` (unless the case sets one), so rands
with seed -1 draw the same values. Cases marked "xfail" or expecting a failing exit code are
skipped. Without a usable device `-gpu force` falls back to the CPU with a warning, so every case
passes trivially; on the H200 this is the end-to-end check of the GPU backend.

With --graphs the reference run is `-gpu force` with CUDA graphs off and the compared run the same
with dmlrt.gpu.graphs on (-config files): outputs must be bit-identical (tolerance 0), stdout the
same text (issue #19, Note [CUDA graphs] in runtime/cuda_graphs.cpp). Both runs use deterministic
cuDNN algorithms (dmlrt.gpu.cudnn.deterministic): the others add with atomics, and two eager runs
of a convolution's backward pass differ in the last bits. When they differ, the reference runs once
more and that run is compared: the first may have timed algorithms (among deterministic ones of
different rounding) that later runs load from the tuning cache.

With --jobs N, N cases run at once (each dmlrt process sizes its GPU budget from the memory free
when it starts; the cases are small). Each case then has a tuning cache of its own
($XDG_CACHE_HOME set to a folder of the case), shared by its runs only, so that one case's timed
algorithms never reach another's runs half-written. Lines are printed in case order.

Usage: python3 tests/gpu/run_plans_gpu.py --dmlrt build/runtime/dmlrt [--case NAME ...] [--keep]
       [--graphs] [--jobs N]
Prints PASS/FAIL/SKIP per case and a final line "N passed, M failed". Python standard library only;
the file readers and comparisons are tests/plans/run_plan.py's.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "plans"))
import run_plan as rp  # noqa: E402  (reading and comparison functions)

SUITES = [os.path.join(ROOT, "tests", "plans", "cases"),
          os.path.join(ROOT, "tests", "conformance", "cases")]
FP64_TOL = 1e-9
FP32_TOL = 1e-4
SEED = "20240613"
# .mtd keys that may legitimately differ between two runs (provenance, not data).
VOLATILE_MTD_KEYS = {"author", "created"}


class Run:
    """One dmlrt execution of a case in its own temporary working directory."""

    def __init__(self, dmlrt, case_dir, spec, extra, label, env=None):
        self.label = label
        self.work = tempfile.mkdtemp(prefix=f"dmlrt_gpuplan_{os.path.basename(case_dir)}_{label}_")
        out_dir = os.path.join(self.work, "out")
        os.makedirs(out_dir)
        if os.path.isdir(os.path.join(case_dir, "in")):
            os.symlink(os.path.join(case_dir, "in"), os.path.join(self.work, "in"))
        cmd = rp.build_command(dmlrt, case_dir, spec, out_dir)
        # Extra flags go right after the executable, before the case's own options and -f.
        self.cmd = [cmd[0]] + extra + cmd[1:]
        timeout = spec.get("timeout_s", 120)
        try:
            proc = subprocess.run(self.cmd, cwd=self.work, capture_output=True, timeout=timeout,
                                  env=env)
        except subprocess.TimeoutExpired:
            raise rp.CaseFailure(f"{label} run timed out after {timeout} s: {' '.join(self.cmd)}")
        self.rc = proc.returncode
        self.stdout = proc.stdout.decode("utf-8", "replace")
        self.stderr = proc.stderr.decode("utf-8", "replace")

    def files(self):
        """Relative paths of every regular file the run wrote (the linked in/ excluded)."""
        found = set()
        for dirpath, dirnames, filenames in os.walk(self.work):
            rel_dir = os.path.relpath(dirpath, self.work)
            if rel_dir == ".":
                dirnames[:] = [d for d in dirnames if d != "in"]
            for f in filenames:
                p = os.path.join(dirpath, f)
                if os.path.isfile(p) and not os.path.islink(p):
                    found.add(os.path.normpath(os.path.join(rel_dir, f)))
        return found

    def cleanup(self):
        shutil.rmtree(self.work, ignore_errors=True)


def output_spec(spec, rel):
    """The case.json outputs entry for a written file, matched by name (or {})."""
    base = os.path.basename(rel)
    for out in spec.get("outputs", []):
        if out.get("name") in (rel, base) or os.path.basename(out.get("name", "")) == base:
            return out
    return {}


def compare_text(label, got, ref, rtol, atol):
    """Same text outside numbers, numbers within tolerance (run_plan.py's numeric stdout mode)."""
    try:
        rp.compare_stdout(got, ref, "numeric", rtol, atol)
    except rp.CaseFailure as e:
        raise rp.CaseFailure(f"{label}: {e}")


def compare_file(rel, cpu, gpu, spec, rtol, atol, check_nnz):
    cpu_path, gpu_path = os.path.join(cpu.work, rel), os.path.join(gpu.work, rel)
    by_properties = "properties" in output_spec(spec, rel[:-4] if rel.endswith(".mtd") else rel)
    if by_properties:
        # An output the case checks by properties (a result that depends on timing, e.g.
        # paramserv's ASP): the two runs agree on its shape, not its values.
        if rel.endswith(".mtd"):
            with open(cpu_path) as f:
                ref = json.load(f)
            with open(gpu_path) as f:
                got = json.load(f)
            if (ref.get("rows"), ref.get("cols")) != (got.get("rows"), got.get("cols")):
                raise rp.CaseFailure(f"{rel}: shape differs: CPU {ref.get('rows')}x"
                                     f"{ref.get('cols')}, GPU {got.get('rows')}x{got.get('cols')}")
        return
    if rel.endswith(".mtd"):
        with open(cpu_path) as f:
            ref = json.load(f)
        with open(gpu_path) as f:
            got = json.load(f)
        keys = (set(ref) | set(got)) - VOLATILE_MTD_KEYS - (set() if check_nnz else {"nnz"})
        diff = [k for k in sorted(keys) if ref.get(k) != got.get(k)]
        if diff:
            raise rp.CaseFailure(f"{rel}: metadata differs in {diff}: "
                                 f"CPU {[ref.get(k) for k in diff]}, GPU {[got.get(k) for k in diff]}")
        return
    ospec = output_spec(spec, rel)
    fmt = ospec.get("format")
    if fmt is None:
        mtd = rp.read_mtd(cpu_path) or {}
        fmt = {"csv": "csv", "text": "text", "mm": "mm", "matrixmarket": "mm",
               "npy": "npy"}.get(str(mtd.get("format", "")).lower())
        if fmt is None and mtd.get("data_type") == "scalar":
            fmt = "scalar"
    if fmt is None:
        fmt = rp.format_of(rel, {})
        ext = os.path.splitext(rel)[1].lower()
        if ext not in (".csv", ".txt", ".ijv", ".text", ".mtx", ".mm", ".npy"):
            fmt = "scalar"  # no format known: compare as text with numbers
    if fmt == "scalar":
        with open(cpu_path, encoding="utf-8", errors="replace") as f:
            ref = f.read()
        with open(gpu_path, encoding="utf-8", errors="replace") as f:
            got = f.read()
        compare_text(rel, got, ref, rtol, atol)
        return
    ref = rp.read_matrix(cpu_path, fmt, ospec)
    got = rp.read_matrix(gpu_path, fmt, ospec)
    rp.compare_matrices(rel, got, ref, rtol, atol)


def compare_runs(cpu, gpu, spec, rtol, atol, check_nnz):
    if cpu.rc != gpu.rc:
        raise rp.CaseFailure(f"exit code: CPU {cpu.rc}, {gpu.label} {gpu.rc}\n"
                             f"--- {gpu.label} stderr ---\n{gpu.stderr}")
    want_rc = spec.get("exit_code", 0)
    if cpu.rc != want_rc:
        raise rp.CaseFailure(f"both runs exit {cpu.rc}, the case expects {want_rc}\n"
                             f"--- CPU stderr ---\n{cpu.stderr}")
    if spec.get("stdout", "exact") != "ignore":
        compare_text("stdout", gpu.stdout, cpu.stdout, rtol, atol)
    cpu_files, gpu_files = cpu.files(), gpu.files()
    if cpu_files != gpu_files:
        raise rp.CaseFailure(f"written files differ: only CPU {sorted(cpu_files - gpu_files)}, "
                             f"only {gpu.label} {sorted(gpu_files - cpu_files)}")
    for rel in sorted(cpu_files):
        compare_file(rel, cpu, gpu, spec, rtol, atol, check_nnz)
    return len(cpu_files)


def skip_reason(spec):
    if "xfail" in spec:
        return f"xfail: {spec['xfail']}"
    rc = spec.get("exit_code", 0)
    if rc != 0:
        return f"expects exit code {rc}"
    return None


GRAPHS_CONFIG = None  # --graphs: -config files with dmlrt.gpu.graphs on, and off
EAGER_CONFIG = None


def run_case(dmlrt, case_dir, keep, own_cache=False):
    """Returns (status, message, details): status PASS, FAIL or SKIP; details are lines to print
    after the status line (the commands and kept folders of a failing or --keep case). With
    own_cache the case's runs share a tuning cache folder of their own (removed afterwards)."""
    if not own_cache:
        return run_case_with(dmlrt, case_dir, keep, None)
    cache = tempfile.mkdtemp(prefix="dmlrt_gpuplan_cache_")
    try:
        return run_case_with(dmlrt, case_dir, keep, dict(os.environ, XDG_CACHE_HOME=cache))
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def run_case_with(dmlrt, case_dir, keep, env):
    dmlrt, case_dir = os.path.abspath(dmlrt), os.path.abspath(case_dir)
    with open(os.path.join(case_dir, "case.json")) as f:
        spec = json.load(f)
    reason = skip_reason(spec)
    if reason:
        return "SKIP", reason, []
    tol = spec.get("tolerance", {})
    case_rtol = tol.get("rtol", rp.DEFAULT_RTOL)
    case_atol = tol.get("atol", rp.DEFAULT_ATOL)
    seed = [] if "-seed" in spec.get("cli", []) else ["-seed", SEED]
    variants = [("gpu", ["-gpu", "force"], FP64_TOL, FP64_TOL, True)]
    reference = []
    if GRAPHS_CONFIG is not None:
        if "-config" in spec.get("cli", []):
            return "SKIP", "the case has a -config of its own", []
        reference = ["-gpu", "force", "-config", EAGER_CONFIG]
        variants = [("gpu-graphs", ["-gpu", "force", "-config", GRAPHS_CONFIG], 0.0, 0.0, True)]
    elif case_rtol >= FP32_TOL:
        variants.append(("gpu-fp32", ["-gpu", "force", "-precision", "single"],
                         max(case_rtol, FP32_TOL), max(case_atol, FP32_TOL), False))
    runs = []
    notes = []
    status, message = "PASS", ""
    try:
        cpu = Run(dmlrt, case_dir, spec, seed + reference, "gpu" if reference else "cpu", env)
        runs.append(cpu)
        for label, flags, rtol, atol, check_nnz in variants:
            gpu = Run(dmlrt, case_dir, spec, seed + flags, label, env)
            runs.append(gpu)
            try:
                n = compare_runs(cpu, gpu, spec, rtol, atol, check_nnz)
            except rp.CaseFailure:
                if not reference:
                    raise
                # The first reference run may have timed cuDNN algorithms and GEMM plans that the
                # graphs run then loaded from the tuning cache (PARFOR/paramserv workers time
                # theirs concurrently): another reference run uses the same choices. Graphs and
                # eager launches must then agree bit for bit.
                again = Run(dmlrt, case_dir, spec, seed + reference, "gpu-again", env)
                runs.append(again)
                n = compare_runs(again, gpu, spec, rtol, atol, check_nnz)
                notes.append("a second reference run (the first timed algorithms)")
            notes.append(f"{label}: {n} files + stdout agree")
        message = "; ".join(notes)
    except rp.CaseFailure as e:
        status, message = "FAIL", str(e)
    details = []
    for r in runs:
        if keep or status == "FAIL":
            # The run's streams are saved beside its outputs (after the comparison).
            for stream, text in (("stdout", r.stdout), ("stderr", r.stderr)):
                with open(os.path.join(r.work, f"dmlrt.{stream}"), "w") as f:
                    f.write(text)
            details.append(f"    {r.label}: {' '.join(r.cmd)}  (kept in {r.work}, "
                           f"exit {r.rc}, streams in dmlrt.stdout/dmlrt.stderr)")
        else:
            r.cleanup()
    return status, message, details


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dmlrt", required=True, help="path to the dmlrt executable")
    ap.add_argument("--case", action="append", default=[],
                    help="run only cases whose folder name contains this (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep every run's working folder")
    ap.add_argument("--graphs", action="store_true",
                    help="compare -gpu force with CUDA graphs on against off, bit for bit")
    ap.add_argument("--jobs", type=int, default=1,
                    help="cases run at once, each with a tuning cache of its own (default 1)")
    a = ap.parse_args()
    if a.jobs < 1:
        ap.error(f"--jobs must be at least 1, got {a.jobs}")
    if a.graphs:
        global GRAPHS_CONFIG, EAGER_CONFIG
        cfg_dir = tempfile.mkdtemp(prefix="dmlrt_graphs_cfg_")
        GRAPHS_CONFIG = os.path.join(cfg_dir, "graphs-on.xml")
        EAGER_CONFIG = os.path.join(cfg_dir, "graphs-off.xml")
        det = "<dmlrt.gpu.cudnn.deterministic>true</dmlrt.gpu.cudnn.deterministic>"
        for path, mode in ((GRAPHS_CONFIG, "on"), (EAGER_CONFIG, "off")):
            with open(path, "w") as f:
                f.write(f"<root>{det}<dmlrt.gpu.graphs>{mode}</dmlrt.gpu.graphs></root>\n")
    dmlrt = os.path.abspath(a.dmlrt)
    if not os.access(dmlrt, os.X_OK):
        print(f"dmlrt executable not found: {dmlrt}")
        return 2
    cases = []
    for suite in SUITES:
        if not os.path.isdir(suite):
            continue
        for name in sorted(os.listdir(suite)):
            d = os.path.join(suite, name)
            if os.path.isfile(os.path.join(d, "case.json")):
                if not a.case or any(s in name for s in a.case):
                    cases.append(d)
    passed = failed = skipped = 0
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs)
    results = pool.map(lambda d: run_case(dmlrt, d, a.keep, a.jobs > 1), cases)
    for d, (status, msg, details) in zip(cases, results):
        name = f"{os.path.basename(os.path.dirname(os.path.dirname(d)))}/{os.path.basename(d)}"
        print(f"{status} {name}: {msg}", flush=True)
        for line in details:
            print(line, flush=True)
        if status == "PASS":
            passed += 1
        elif status == "FAIL":
            failed += 1
        else:
            skipped += 1
    pool.shutdown()
    print(f"{passed} passed, {failed} failed" + (f" ({skipped} skipped)" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
