#!/usr/bin/env python3
"""Self-test of mutate_plans.py (python3 -m unittest, standard library only): mutants are
deterministic for a seed, and the run checks report a changed file outside the scratch folder, a
damaged input, a signal, a hang, a bad exit status and a sanitizer report, while a legitimate
overwrite of an input named as the write target is not a finding. The runs use small shell
scripts in place of dmlrt, so the test needs no build."""
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate_plans as mp  # noqa: E402

PLAN = """# a tiny plan: read X, write it to $out
PROGRAM
--MAIN PROGRAM
----GENERIC (lines 1-2) [recompile=false]
------CP°createvar°pREADX°$X°false°MATRIX°csv°2°2°-1°4°copy°false°,°true°0.0
------CP°+°pREADX·MATRIX·FP64°1·SCALAR·INT64·true°_mVar0·MATRIX·FP64°2
------CP°write°_mVar0·MATRIX·FP64°$out·SCALAR·STRING·true°csv·SCALAR·STRING·true°false°,°false°·SCALAR·STRING·true°-1
------CP°rmvar°_mVar0
"""


class MutatorTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dmlrt-robust-selftest-")
        os.chmod(self.tmp, 0o755)
        case_dir = os.path.join(self.tmp, "case")
        os.makedirs(os.path.join(case_dir, "in"))
        with open(os.path.join(case_dir, "plan.plan"), "w") as f:
            f.write(PLAN)
        with open(os.path.join(case_dir, "in", "X.csv"), "w") as f:
            f.write("1,2\n3,4\n")
        self.case = mp.Case("selftest/tiny", os.path.join(case_dir, "plan.plan"),
                            [(os.path.join(case_dir, "in", "X.csv"), "in/X.csv")], [],
                            {"X": "in/X.csv", "out": "out/Y.csv"}, None)
        self.base = os.path.join(self.tmp, "runs")
        os.makedirs(self.base)
        self.n = 0

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def fake(self, body, timeout=10.0):
        """A Runner whose 'dmlrt' is a shell script with this body (run in the scratch folder)."""
        self.n += 1
        path = os.path.join(self.tmp, f"fake{self.n}.sh")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, 0o755)
        return mp.Runner(path, self.base, timeout, 1024, 64, None)

    def run_fake(self, body, nvargs=None, timeout=10.0):
        runner = self.fake(body, timeout)
        m = mp.Mutant(self.case)
        if nvargs:
            m.nvargs.update(nvargs)
        res = runner.run(str(self.n), m)
        runner.cleanup(res)
        return res

    def kinds(self, res):
        return [k for k, _d in res["findings"]]

    # -- mutants ---------------------------------------------------------------------------------

    def test_mutants_are_deterministic_for_a_seed(self):
        cases = mp.collect_cases(self.tmp) + [self.case]
        ctx = {"opcodes": mp.load_opcodes(),
               "by_arity": mp.opcodes_by_arity([self.case])}
        self.assertIn("ba+*", ctx["opcodes"])
        for i in range(60):
            a, b = mp.make_mutant(cases, 42, i, ctx), mp.make_mutant(cases, 42, i, ctx)
            self.assertEqual((a.case.name, a.text(), a.log, a.cli, a.nvargs, a.args),
                             (b.case.name, b.text(), b.log, b.cli, b.nvargs, b.args))
            self.assertTrue(1 <= len(a.log) <= 4, a.log)
        differ = sum(mp.make_mutant(cases, 42, i, ctx).text() !=
                     mp.make_mutant(cases, 43, i, ctx).text() for i in range(20))
        self.assertGreater(differ, 10)

    def test_every_mutation_applies_to_a_raw_plan(self):
        import random
        ctx = {"opcodes": mp.load_opcodes(),
               "by_arity": mp.opcodes_by_arity([self.case])}
        for f, _w in mp.MUTATIONS:
            hits = 0
            for i in range(20):
                m = mp.Mutant(self.case)
                if f(m, random.Random(i), ctx):
                    hits += 1
                    self.assertTrue(m.text() != self.case.text or m.cli or
                                    m.nvargs != self.case.nvargs or m.args is not None or
                                    m.input_edits, f.__name__)
            self.assertGreater(hits, 0, f.__name__)

    # -- run checks ------------------------------------------------------------------------------

    def test_clean_run_has_no_findings(self):
        res = self.run_fake("mkdir -p out; cp in/X.csv out/Y.csv; exit 1")
        self.assertEqual(res["findings"], [])
        self.assertEqual(res["rc"], 1)

    def test_changed_file_outside_the_scratch_is_reported(self):
        res = self.run_fake("echo changed > ../sentinel.txt; exit 0")
        self.assertIn("outside-change", self.kinds(res))
        res = self.run_fake("touch ../new_file; exit 0")
        self.assertIn("outside-change", self.kinds(res))
        detail = dict(res["findings"])["outside-change"]
        self.assertIn("created new_file", detail)

    def test_write_through_a_symlink_to_outside_is_reported(self):
        res = self.run_fake("echo x >> link_to_outside; exit 0")
        self.assertIn("outside-change", self.kinds(res))

    def test_write_through_a_symlink_named_as_the_target_is_not_a_finding(self):
        # Note [Safe writes]: a symlink target is written through; the plan asked for it.
        res = self.run_fake("echo x >> link_to_outside; exit 0", nvargs={"out": "link_to_outside"})
        self.assertEqual(res["findings"], [])
        self.assertTrue(res["overwritten"])

    def test_deleted_input_is_reported_unless_it_was_the_write_target(self):
        res = self.run_fake("rm in/X.csv; exit 1")
        self.assertIn("damaged-in-scratch", self.kinds(res))
        res = self.run_fake("rm -r keep; exit 1")
        self.assertIn("damaged-in-scratch", self.kinds(res))
        res = self.run_fake("rm fifo; echo x > fifo; exit 1")
        self.assertIn("damaged-in-scratch", self.kinds(res))
        # The plan writes to $out = in/X.csv: replacing that regular file is its job.
        res = self.run_fake("echo 9 > in/X.csv.new && mv in/X.csv.new in/X.csv; exit 0",
                            nvargs={"out": "in/X.csv"})
        self.assertEqual(res["findings"], [])
        self.assertTrue(res["overwritten"])

    def test_signal_killed_run_is_reported(self):
        res = self.run_fake("kill -SEGV $$")
        self.assertIn(("signal", "SIGSEGV"), res["findings"])
        res = self.run_fake("kill -ABRT $$")
        self.assertIn(("signal", "SIGABRT"), res["findings"])

    def test_hang_is_reported_and_killed(self):
        res = self.run_fake("sleep 30", timeout=0.5)
        self.assertIn("hang", self.kinds(res))
        self.assertLess(res["secs"], 10)

    def test_input_edits_reach_the_scratch_copy_only(self):
        m = mp.Mutant(self.case)
        m.input_edits.append(("in/X.csv", "empty", 0))
        runner = self.fake("test -s in/X.csv && exit 3; exit 1")
        res = runner.run("edit", m)
        runner.cleanup(res)
        self.assertEqual(res["findings"], [])
        with open(self.case.inputs[0][0]) as f:
            self.assertEqual(f.read(), "1,2\n3,4\n")

    def test_bad_exit_status_and_sanitizer_report(self):
        self.assertIn("exit-code", self.kinds(self.run_fake("exit 3")))
        self.assertEqual(self.run_fake("exit 2")["findings"], [])
        res = self.run_fake("echo 'x.cpp:1:2: runtime error: signed integer overflow' >&2; exit 1")
        self.assertIn("sanitizer", self.kinds(res))

    def test_leftover_temporary_is_reported(self):
        res = self.run_fake("touch out/.Y.csv.dmlrt-tmp-1-0; exit 1")
        self.assertIn("tmp-left", self.kinds(res))

    def test_saved_finding_reproduces(self):
        runner = self.fake("test -f in/X.csv || exit 4; grep -q write \"$2\" || exit 5; "
                           "kill -SEGV $$")
        m = mp.Mutant(self.case)
        m.log.append("nothing")
        res = runner.run("saved", m)
        runner.cleanup(res)
        out = os.path.join(self.tmp, "findings")
        d = mp.save_finding(out, res, self.case, 1, 2, {"runs": 0, "lines": 3, "plan": PLAN})
        for plan in ([], [os.path.join(d, "minimized.plan")]):
            proc = subprocess.run([os.path.join(d, "repro.sh"), runner.binary] + plan,
                                  capture_output=True, text=True, timeout=60)
            self.assertIn("exit status 139", proc.stdout, proc.stdout + proc.stderr)

    def test_snapshot_diff(self):
        d = os.path.join(self.tmp, "snap")
        os.makedirs(os.path.join(d, "sub"))
        with open(os.path.join(d, "sub", "f"), "w") as f:
            f.write("a")
        before = mp.snapshot(d)
        self.assertEqual(mp.diff_snapshots(before, mp.snapshot(d)), [])
        os.chmod(os.path.join(d, "sub", "f"), 0o600)
        changes = mp.diff_snapshots(before, mp.snapshot(d))
        self.assertEqual(len(changes), 1)
        self.assertTrue(changes[0].startswith("changed sub/f"))
        self.assertTrue(stat.S_ISDIR(os.stat(d).st_mode))


if __name__ == "__main__":
    unittest.main()
