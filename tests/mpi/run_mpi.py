#!/usr/bin/env python3
"""MPI ranks (Note [MPI ranks] in runtime/mpi_world.cpp): a plan run by `mpirun -np 2 dmlrt -f ...`
prints what the single process prints (numbers within 1e-9; PARFOR tasks spread over the ranks, results merged on all,
rank 0's output only), writes its files once (rank 0), fails with the single process's error, and
`rand` with seed -1 agrees across ranks (a sum printed after a PARFOR that every rank ran part of);
paramserv's conformance cases give one process's outputs within 1e-9 (Note [paramserv over MPI
ranks]).

    python3 tests/mpi/run_mpi.py --dmlrt build/runtime/dmlrt [--ranks 2]

Exit code 77 (ctest: skipped) when mpirun is missing or this dmlrt was built without MPI.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)


def mpirun_cmd(ranks):
    cmd = ["mpirun", "-np", str(ranks), "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd + ["--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include", "lo"]


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def numbers_close(got, ref, rtol=1e-9, atol=1e-9):
    """Same text outside numbers, numbers within tolerance."""
    if NUMBER.sub("#", got) != NUMBER.sub("#", ref):
        return False
    for g, r in zip(NUMBER.findall(got), NUMBER.findall(ref)):
        g, r = float(g), float(r)
        if abs(g - r) > atol + rtol * abs(r):
            return False
    return True


def case_run(cmd, case_dir, work):
    """Runs a conformance case's plan in `work` (with its in/ copied, an empty out/)."""
    shutil.copytree(os.path.join(case_dir, "in"), os.path.join(work, "in"))
    os.makedirs(os.path.join(work, "out"))
    return run(cmd + ["-f", os.path.join(case_dir, "plan.plan"), "-seed", "7"], work)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dmlrt", required=True)
    ap.add_argument("--ranks", type=int, default=2)
    a = ap.parse_args()
    dmlrt = os.path.abspath(a.dmlrt)
    if shutil.which("mpirun") is None:
        print("skipped: no mpirun")
        return 77
    ldd = subprocess.run(["ldd", dmlrt], capture_output=True, text=True).stdout
    if "libmpi" not in ldd:
        print("skipped: dmlrt was built without MPI")
        return 77
    failures = []
    cases = [("unit/data/parfor/results.plan", 0), ("unit/data/parfor/params.plan", 0),
             ("unit/data/parfor/error.plan", 1), ("mpi/data/write_rand.plan", 0),
             ("mpi/data/write_in_parfor.plan", 0),
             ("unit/data/paramserv/v_sbp.plan", 0), ("unit/data/paramserv/v_uneven.plan", 0),
             ("unit/data/paramserv/v_modelavg.plan", 0),
             ("unit/data/paramserv/err_upd_fails.plan", 1)]
    for plan, want_rc in cases:
        path = os.path.join(TESTS, plan)
        with tempfile.TemporaryDirectory() as one_dir, tempfile.TemporaryDirectory() as mpi_dir:
            rc1, out1, err1 = run([dmlrt, "-f", path, "-threads", "1", "-seed", "7"], one_dir)
            rcn, outn, errn = run(mpirun_cmd(a.ranks) + [dmlrt, "-f", path, "-threads", "1",
                                                        "-seed", "7"], mpi_dir)
            label = f"{plan} ({a.ranks} ranks)"
            if rc1 != want_rc:
                failures.append(f"{label}: one process exits {rc1}, expected {want_rc}: {err1}")
            elif (rcn == 0) != (rc1 == 0):
                failures.append(f"{label}: exit {rcn} under mpirun, {rc1} alone\n{errn}")
            elif not numbers_close(outn, out1):
                failures.append(f"{label}: output differs\n--- alone ---\n{out1}\n--- mpirun ---\n"
                                f"{outn}\n{errn}")
            elif rc1 != 0 and err1.strip().splitlines()[-1] not in errn:
                failures.append(f"{label}: the error differs\n--- alone ---\n{err1}\n"
                                f"--- mpirun ---\n{errn}")
            files1 = sorted(os.listdir(one_dir))
            filesn = sorted(os.listdir(mpi_dir))
            if files1 != filesn:
                failures.append(f"{label}: written files differ: {files1} alone, {filesn}")
            for f in files1:
                p1, pn = os.path.join(one_dir, f), os.path.join(mpi_dir, f)
                if not os.path.isfile(p1):
                    continue
                if f.endswith(".mtd"):  # the same metadata but for the time it was written
                    a1, an = json.load(open(p1)), json.load(open(pn))
                    a1.pop("created", None)
                    an.pop("created", None)
                    if a1 != an:
                        failures.append(f"{label}: {f} differs")
                elif open(p1, "rb").read() != open(pn, "rb").read():
                    failures.append(f"{label}: {f} differs")
            print(("FAIL " if failures and failures[-1].startswith(label) else "PASS ") + label)
    # paramserv (Note [paramserv over MPI ranks]): BSP workers spread over the ranks, the other
    # update types on rank 0; the outputs within 1e-9 of one process's (the ranks add their
    # workers' sums in rank order).
    for case in ["paramserv_bsp_batch", "paramserv_schemes", "paramserv_bsp_epoch"]:
        case_dir = os.path.join(TESTS, "conformance", "cases", case)
        with tempfile.TemporaryDirectory() as one_dir, tempfile.TemporaryDirectory() as mpi_dir:
            rc1, out1, err1 = case_run([dmlrt], case_dir, one_dir)
            rcn, outn, errn = case_run(mpirun_cmd(a.ranks) + [dmlrt], case_dir, mpi_dir)
            problems = []
            if rc1 != 0 or rcn != 0:
                problems.append(f"exit {rc1} alone, {rcn} under mpirun\n{err1}\n{errn}")
            elif not numbers_close(outn, out1):
                problems.append(f"output differs\n--- alone ---\n{out1}\n--- mpirun ---\n{outn}")
            else:
                outs = sorted(os.listdir(os.path.join(one_dir, "out")))
                if outs != sorted(os.listdir(os.path.join(mpi_dir, "out"))):
                    problems.append("written files differ")
                for f in outs:
                    if f.endswith(".csv"):
                        g = open(os.path.join(mpi_dir, "out", f)).read()
                        r = open(os.path.join(one_dir, "out", f)).read()
                        if not numbers_close(g, r):
                            problems.append(f"out/{f} differs")
            label = f"{case} ({a.ranks} ranks)"
            print(("FAIL " if problems else "PASS ") + label)
            failures += [f"{label}: {p}" for p in problems]
    # Gradients of different shapes on different ranks: the cross-rank sum names both.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(TESTS, "mpi/data/err_rank_shapes.plan")
        rc, out, err = run(mpirun_cmd(a.ranks) + [dmlrt, "-f", path], d)
        want = ("err_rank_shapes.plan:37: instruction 'CP°paramserv°", "epoch 1, batch 1: sum of "
                "lists across MPI ranks: rank 1 has 1 entry (2x1), rank 0 has 1 entry (3x1)")
        ok = rc != 0 and all(w in err for w in want)
        print(("PASS " if ok else "FAIL ") + "err_rank_shapes.plan: the error names both shapes")
        if not ok:
            failures.append(f"err_rank_shapes.plan: exit {rc}\n{out}\n{err}")
    # No -seed: every rank must draw the same data (rank 0's base seed).
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(TESTS, "mpi/data/write_rand.plan")
        rc, out, err = run(mpirun_cmd(a.ranks) + [dmlrt, "-f", path], d)
        ok = rc == 0 and "consistent: TRUE" in out
        print(("PASS " if ok else "FAIL ") + "write_rand.plan without -seed")
        if not ok:
            failures.append(f"write_rand.plan without -seed: exit {rc}\n{out}\n{err}")
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
