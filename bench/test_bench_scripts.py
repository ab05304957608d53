#!/usr/bin/env python3
"""Host tests of the benchmark's Python parts (no GPU, no torch needed):
report.py on the crafted inputs of testdata/ (statuses, anchors, Markdown), on missing and dry-run
inputs; lenet_time.py against a fake dmlrt and make_inputs.py (short and long run, step-count
check, failures, plans it cannot read, missing folder) and on the checked-in plan's header and
loop; torch_anchor.py --dry-run and its argument checks.

    python3 bench/test_bench_scripts.py      (or python3 -m pytest bench)
"""
import argparse
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "testdata")
sys.path.insert(0, HERE)

import algo_bench  # noqa: E402
import lenet_time  # noqa: E402
import report  # noqa: E402


def run_py(script, *args):
    return subprocess.run([sys.executable, os.path.join(HERE, script), *args], capture_output=True, text=True)


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def report(self, *extra, bench="sample_bench.json", torch="sample_torch.json", lenet="sample_lenet.json"):
        out = os.path.join(self.tmp.name, "results.json")
        md = os.path.join(self.tmp.name, "RESULTS.md")
        args = ["--out", out, "--markdown", md, "--commit", "abc1234", "--command", "bench/run.sh"]
        for flag, name in (("--bench", bench), ("--torch", torch), ("--lenet", lenet)):
            if name:
                args += [flag, name if os.path.isabs(name) else os.path.join(DATA, name)]
        p = run_py("report.py", *args, *extra)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            doc = json.load(f)
        with open(md) as f:
            text = f.read()
        rows = {(r["section"], r["name"], r["dtype"]): r for r in doc["rows"]}
        return doc, rows, text, p.stdout

    def test_lenet_anchor_without_the_plans_step(self):
        # PyTorch's step as the plan failed: the bare step is the anchor, and the note says so.
        key = {"section": "lenet", "name": "train_step_b64", "dtype": "fp64"}
        torch = {"records": [dict(key, torch_ms=1.8, extra={"as_plan_error": "RuntimeError: x"})]}
        lenet = {"records": [dict(key, dmlrt_ms=1.5, extra={})]}
        (row,) = report.build_rows({"records": []}, torch, lenet)
        self.assertEqual((row["anchor"], row["anchor_ms"], row["status"]), ("torch eager, bare step", 1.8, "PASS"))
        self.assertEqual(row["note"], "no L2 terms or loss reads in torch's step (RuntimeError: x)")

    def test_statuses_and_anchors(self):
        doc, rows, _, _ = self.report()
        r = rows[("conv", "lenet.conv1.fwd", "fp64")]
        # The conv anchor is the faster of PyTorch (0.034) and the best cuDNN algorithm (0.040).
        self.assertEqual(r["anchor"], "torch")
        self.assertAlmostEqual(r["anchor_ms"], 0.034)
        self.assertAlmostEqual(r["ratio"], 0.036 / 0.034)
        self.assertEqual(r["status"], "PASS")
        r = rows[("conv", "lenet.conv1.bwd_data", "fp64")]  # the fastest repetitions beside a miss
        self.assertEqual(r["status"], "FAIL")
        self.assertTrue(r["note"].endswith("; fastest reps 0.13 vs 0.127 (1.02)"), r["note"])
        r = rows[("conv", "r50.s2_1x1.fwd", "fp32")]
        self.assertEqual((r["anchor"], r["anchor_ms"]), ("cudnn:IMPLICIT_GEMM", 0.2))
        self.assertEqual(r["status"], "NO DATA")
        self.assertIn("no GPU implementation", r["note"])
        self.assertEqual(rows[("conv", "vgg.conv1_2.fwd", "fp32")]["status"], "WRONG")
        # dmlrt is checked against a GEMM-ordered result; a fastest cuDNN algorithm outside FP32's
        # 1e-4 is named in the note, and so is PyTorch's pick (its distance from FP64).
        r = rows[("conv", "lenet.conv2.bwd_filter", "fp32")]
        self.assertEqual((r["status"], r["anchor"]), ("FAIL", "torch"))  # 0.052 vs torch 0.037
        self.assertIn("cuDNN's pick is 1.4e-03 from GEMM order", r["note"])
        self.assertTrue(r["note"].endswith("; torch's pick is 1.3e-03 from FP64"), r["note"])
        self.assertNotIn("from FP64", rows[("conv", "r50.s2_1x1.fwd", "fp32")]["note"])  # 3.1e-07
        r = rows[("conv", "r50.conv1.fwd", "fp64")]  # only PyTorch measured it
        self.assertEqual(r["status"], "NO DATA")
        self.assertTrue(r["note"].startswith("missing dmlrt time"), r["note"])
        self.assertEqual(rows[("gemm", "gemm_4096x4096x4096", "fp64")]["status"], "PASS")  # 1.02 <= 1.05
        self.assertEqual(rows[("gemm", "gemv_131072x1024", "fp32")]["status"], "FAIL")  # 1.2
        r = rows[("gemm", "lenet_affine2_64x512x10", "fp32")]  # the anchor's device time beside it
        self.assertTrue(r["note"].endswith("; cuBLAS in a CUDA graph 4.8 us/call, 2 launches/call"
                                           "; dmlrt runs cublasLt #4"), r["note"])
        self.assertEqual(rows[("cell", "d2d_copy_2^27", "fp64")]["status"], "INFO")
        self.assertEqual(rows[("cell", "plus_XY_2^27", "fp64")]["status"], "PASS")  # 90% of copy
        self.assertEqual(rows[("cell", "exp_X_2^27", "fp64")]["status"], "FAIL")  # 50%
        r = rows[("cell", "fused_sgd_chain_2^27", "fp32")]  # the chain written by hand beside it
        self.assertEqual((r["status"], r["note"]), ("PASS", "3580 GB/s = 86% of copy; by hand 88% of copy"))
        r = rows[("overhead", "instr_loop_1x1_plus_scalar", "fp64")]  # 3.2 us, the loops' spread
        self.assertEqual((r["status"], r["note"]),
                         ("PASS", "3.20 us/instruction (median of loops 3.10-3.90); bare launch 2.90"))
        self.assertEqual(rows[("overhead", "api_for_loop_1x1_plus_scalar", "fp64")]["status"], "FAIL")  # 7.5 us
        # LeNet: the anchor is PyTorch's step doing what the plan does (as_plan_ms), the bare step
        # in the note; without as_plan_ms, the bare step, said so.
        r = rows[("lenet", "train_step_b64", "fp64")]
        self.assertEqual((r["anchor"], r["anchor_ms"]), ("torch eager, as the plan", 2.0))
        self.assertAlmostEqual(r["ratio"], 1.5 / 2.0)
        self.assertEqual((r["status"], r["note"]), ("PASS", "torch bare step 1.86"))
        r = rows[("lenet", "train_step_b64", "fp32")]
        self.assertEqual((r["anchor"], r["anchor_ms"]), ("torch eager, bare step", 2.09))
        self.assertEqual(r["status"], "NO DATA")  # dmlrt's run failed: its error is the note
        self.assertEqual(rows[("session", "gpu_session", "fp32")]["status"], "ERROR")
        s = doc["summary"]
        self.assertEqual((s["conv"]["PASS"], s["conv"]["FAIL"], s["conv"]["WRONG"], s["conv"]["NO DATA"]),
                         (1, 2, 1, 2))
        self.assertEqual(doc["meta"]["commit"], "abc1234")
        self.assertEqual(doc["meta"]["device"], "NVIDIA H200")  # torch's name wins over the summary line

    def test_rows_are_ordered_by_section_then_precision(self):
        doc, _, _, _ = self.report()
        sections = [r["section"] for r in doc["rows"]]
        self.assertEqual(sections, sorted(sections, key=report.SECTION_ORDER.index))
        conv_dtypes = [r["dtype"] for r in doc["rows"] if r["section"] == "conv"]
        self.assertEqual(conv_dtypes, sorted(conv_dtypes, key=["fp64", "fp32"].index))

    def test_markdown_is_filled(self):
        _, _, text, stdout = self.report()
        self.assertNotIn("{{", text)
        for want in ("Commit: abc1234", "Command: `bench/run.sh`", "Date: 2026-01-01T00:00:00Z",
                     "| conv | lenet.conv1.fwd | fp64 | 0.036 | 0.034 | torch | 1.06 | PASS |",
                     "| overhead | < 5 us per instruction | 1 | 1 | 0 | 0 | 0 |"):
            self.assertIn(want, text)
        # The table is printed last, ending with the summary.
        self.assertIn("summary:", stdout.strip().splitlines()[-7])

    def test_algorithm_sections_survive_a_new_report(self):
        md = os.path.join(self.tmp.name, "RESULTS.md")
        block = ("<!-- algorithms-cpu:begin -->\n## Algorithms\n| lmCG | small |\n"
                 "<!-- algorithms-cpu:end -->")
        ttr = "<!-- time-to-result:begin -->\n## Time to result\n<!-- time-to-result:end -->"
        with open(md, "w") as f:
            f.write("# old\n\n" + block + "\n\n" + ttr + "\n")
        _, _, text, _ = self.report()
        self.assertIn(block, text)
        self.assertIn(ttr, text)
        self.assertNotIn("# old", text)
        self.assertNotIn("{{", text)

    def test_missing_inputs_give_notes_not_failures(self):
        missing = os.path.join(self.tmp.name, "nope.json")
        doc, rows, text, _ = self.report(bench=missing, lenet=None)
        self.assertTrue(any("not found" in n for n in doc["notes"]))
        self.assertEqual(rows[("conv", "lenet.conv1.fwd", "fp64")]["status"], "NO DATA")
        self.assertIn("not found", text)

    def test_per_section_parts_are_merged(self):
        with open(os.path.join(DATA, "sample_bench.json")) as f:
            whole = json.load(f)
        paths = []
        for i, section in enumerate(("conv", "gemm", "cell", "overhead", "session")):
            part = dict(whole, records=[r for r in whole["records"] if r["section"] == section], seconds=10.0 + i)
            if section == "session":
                part["error"] = "no usable CUDA device (sample)"
            paths.append(os.path.join(self.tmp.name, f"bench_{section}.json"))
            with open(paths[-1], "w") as f:
                json.dump(part, f)
        merged_path = os.path.join(self.tmp.name, "merged.json")
        out = os.path.join(self.tmp.name, "results.json")
        args = ["--out", out, "--merged-bench-out", merged_path, "--torch", os.path.join(DATA, "sample_torch.json")]
        for p in paths:
            args += ["--bench", p]
        p = run_py("report.py", *args)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(merged_path) as f:
            merged = json.load(f)
        self.assertEqual([r["name"] for r in merged["records"]], [r["name"] for r in whole["records"]])
        self.assertEqual(merged["seconds"], 10 + 11 + 12 + 13 + 14)
        self.assertEqual(merged["cudnn_version"], 91900)
        with open(out) as f:
            doc = json.load(f)
        self.assertIn("dmlrt_bench: no usable CUDA device (sample)", doc["notes"])
        rows = {(r["section"], r["name"], r["dtype"]): r for r in doc["rows"]}
        self.assertEqual(rows[("gemm", "gemv_131072x1024", "fp32")]["status"], "FAIL")

    def test_dry_run_torch_input(self):
        dry = os.path.join(self.tmp.name, "dry.json")
        p = run_py("torch_anchor.py", dry, "--dry-run")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc, rows, _, _ = self.report(torch=dry)
        self.assertIn("torch_anchor: dry run (no times)", doc["notes"])
        # 10 shapes x 3 passes x 2 precisions and a LeNet step per precision.
        self.assertEqual(sum(1 for k in rows if k[0] == "conv"), 60)
        r = rows[("conv", "lenet.conv1.fwd", "fp64")]
        self.assertEqual(r["anchor"], "cudnn:IMPLICIT_PRECOMP_GEMM")  # the only anchor with a time


class TorchAnchorArgsTest(unittest.TestCase):
    def test_dry_run_lists_every_measurement(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "t.json")
            p = run_py("torch_anchor.py", out, "--dry-run", "--dtypes", "fp32", "--conv-shapes", "vgg.conv4_2")
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out) as f:
                doc = json.load(f)
        names = [(r["section"], r["name"], r["dtype"]) for r in doc["records"]]
        self.assertEqual(names, [("conv", "vgg.conv4_2.fwd", "fp32"), ("conv", "vgg.conv4_2.bwd_data", "fp32"),
                                 ("conv", "vgg.conv4_2.bwd_filter", "fp32"), ("lenet", "train_step_b64", "fp32")])
        self.assertEqual(doc["records"][0]["extra"]["shape"]["K"], 512)

    def test_bad_arguments_are_rejected(self):
        for args in (["--dtypes", "fp16"], ["--conv-shapes", "nope"], ["--sections", "gemm"]):
            p = run_py("torch_anchor.py", "/dev/null", "--dry-run", *args)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn("error:", p.stderr)

    def test_shapes_match_the_cpp_driver(self):
        """torch_anchor.py and dmlrt_bench.cpp must list the same shapes under the same names."""
        import torch_anchor
        with open(os.path.join(HERE, "dmlrt_bench.cpp")) as f:
            cpp = f.read()
        for name, n, c, h, w, k, r, s, stride, pad in torch_anchor.CONV_SHAPES:
            self.assertIn(f'{{"{name}", {n}, {c}, {h}, {w}, {k}, {r}, {s}, {stride}, {pad}}}', cpp)


FAKE_DMLRT = r"""#!/usr/bin/env python3
# A stand-in for the dmlrt CLI: reads the plan's training-loop trip count (the TO literal) and
# prints -stats with an execution time of 0.5 s + 2 ms per step (FP32: 1.5 ms) and two
# conv2d_backward_filter per step. Needs the inputs make_inputs.py wrote (in/ under the cwd).
import os, re, sys
args = sys.argv[1:]
assert args[0] == "-f" and "-gpu" in args and "force" in args and "-stats" in args, args
text = open(args[1]).read()
if "FAIL" in text:
    print("error: planned failure", file=sys.stderr)
    sys.exit(3)
assert os.path.isfile("in/X.csv") and os.path.isdir("out"), os.getcwd()
steps = int(re.search(r"TO\n-+CP°assignvar°(\d+)·", text).group(1))
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs.log"), "a") as log:
    events = "off" if "-config" in args and "false" in open(args[args.index("-config") + 1]).read() else "on"
    log.write("%d %s %s\n" % (steps, os.environ.get("XDG_CACHE_HOME", "-"), events))
t = 0.5 + (0.0015 if "-precision" in args else 0.002) * steps
print("SystemDS Statistics:")
print("Total elapsed time:\t\t%.3f sec." % (t + 0.01))
print("Total execution time:\t\t%.3f sec." % t)
print("Heavy hitter instructions:")
print("  #  Instruction                     Time(s)  Count")
print("  1  gpu_conv2d_backward_filter        0.100  %5d" % ((1 if "ONE_CONV" in text else 2) * steps))
print("  2  gpu_ba+*                          0.050  %5d" % (4 * steps))
print("  3  createvar                         0.001      7")
"""

FAKE_MAKE_INPUTS = r"""import argparse, os
ap = argparse.ArgumentParser()
ap.add_argument("--batch", type=int)
ap.add_argument("--iters", type=int)
ap.add_argument("--dir")
a = ap.parse_args()
assert (a.batch, a.iters) == (64, 20), (a.batch, a.iters)
os.makedirs(a.dir, exist_ok=True)
open(os.path.join(a.dir, "X.csv"), "w").write("0\n")
"""

PLAN = """# arguments: -nvargs X=in/X.csv iters=20 batch=64 probs=out/probs.csv
PROGRAM
--MAIN PROGRAM
----FOR (lines 57-114) [iter=i]
------FROM
------CP°assignvar°1·SCALAR·INT64·true°__pred·SCALAR·INT64
------TO
------CP°assignvar°20·SCALAR·INT64·true°__pred·SCALAR·INT64
------INCR
------CP°assignvar°1·SCALAR·INT64·true°__pred·SCALAR·INT64
------GENERIC (lines 58-113) [recompile=true]
--------CP°+°i·SCALAR·INT64·false°20·SCALAR·INT64·true°j·SCALAR·INT64
"""


class LenetTimeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dmlrt = os.path.join(self.tmp.name, "dmlrt")
        with open(self.dmlrt, "w") as f:
            f.write(FAKE_DMLRT)
        os.chmod(self.dmlrt, os.stat(self.dmlrt).st_mode | stat.S_IEXEC)
        self.lenet = os.path.join(self.tmp.name, "lenet")
        os.mkdir(self.lenet)
        self.write("make_inputs.py", FAKE_MAKE_INPUTS)
        self.out = os.path.join(self.tmp.name, "lenet.json")

    def write(self, name, text):
        with open(os.path.join(self.lenet, name), "w") as f:
            f.write(text)

    def run_tool(self, *extra):
        p = run_py("lenet_time.py", "--dmlrt", self.dmlrt, "--out", self.out, "--lenet-dir", self.lenet, *extra)
        with open(self.out) as f:
            return p.returncode, json.load(f)

    def test_difference_of_a_short_and_a_long_run(self):
        self.write("lenet.plan", PLAN)
        rc, doc = self.run_tool()
        self.assertEqual(rc, 0)
        recs = {r["dtype"]: r for r in doc["records"]}
        self.assertEqual(set(recs), {"fp64", "fp32"})
        # 20 and 2020 steps: (0.5 + 0.002 * 2020) - (0.5 + 0.002 * 20) = 4.0 s over 2000 steps.
        self.assertAlmostEqual(recs["fp64"]["dmlrt_ms"], 2.0, places=6)
        self.assertAlmostEqual(recs["fp32"]["dmlrt_ms"], 1.5, places=6)
        self.assertIn("-precision single", recs["fp32"]["extra"]["cmd"])
        self.assertEqual(recs["fp64"]["extra"]["steps"], [20, 2020])
        self.assertAlmostEqual(recs["fp64"]["extra"]["whole_run_ms_per_step"], 540 / 20)
        self.assertAlmostEqual(recs["fp64"]["extra"]["gpu_time_share"], 0.15 / 0.151)
        self.assertAlmostEqual(recs["fp64"]["extra"]["with_gpu_events_ms"], 2.0, places=6)
        # Per precision: an untimed warm-up of the short plan, three timed runs of each plan
        # without CUDA events per instruction, and one with them after each plan's three (the
        # breakdown), all with one algorithm cache of their own.
        with open(os.path.join(self.tmp.name, "runs.log")) as f:
            runs = [line.split() for line in f]
        self.assertEqual([int(r[0]) for r in runs], [20] * 5 + [2020] * 4 + [20] * 5 + [2020] * 4)
        self.assertEqual([r[2] for r in runs], (["off"] * 4 + ["on"] + ["off"] * 3 + ["on"]) * 2)
        caches = [r[1] for r in runs]
        self.assertEqual(len(set(caches[:9])), 1)
        self.assertEqual(len(set(caches[9:])), 1)
        self.assertNotEqual(caches[0], caches[9])
        self.assertTrue(caches[0].endswith("cache-fp64"), caches[0])

    def test_extra_steps_and_step_count_check(self):
        self.write("lenet.plan", PLAN)
        rc, doc = self.run_tool("--dtypes", "fp64", "--extra-steps", "30")
        self.assertEqual(doc["records"][0]["extra"]["steps"], [20, 50])
        self.assertAlmostEqual(doc["records"][0]["dmlrt_ms"], 2.0, places=6)
        # -stats must show two conv2d_backward_filter per step, else the loop is not the training loop.
        self.write("lenet.plan", PLAN + "ONE_CONV\n")
        rc, doc = self.run_tool("--dtypes", "fp64")
        self.assertIsNone(doc["records"][0]["dmlrt_ms"])
        self.assertIn("shows 20 conv2d_backward_filter for 20 steps (expected 40)",
                      doc["records"][0]["extra"]["error"])

    def test_failing_plan_is_recorded(self):
        self.write("lenet.plan", PLAN + "FAIL\n")
        rc, doc = self.run_tool("--dtypes", "fp64")
        self.assertEqual(rc, 0)
        self.assertIsNone(doc["records"][0]["dmlrt_ms"])
        self.assertIn("planned failure", doc["records"][0]["extra"]["error"])

    def test_plans_it_cannot_read_are_skipped(self):
        self.write("lenet.plan", PLAN.replace("# arguments: -nvargs X=in/X.csv iters=20 batch=64", "# none"))
        rc, doc = self.run_tool()
        self.assertEqual(rc, 1)
        self.assertIn("cannot read the iteration count", doc["skipped"])
        self.write("lenet.plan", PLAN.replace("TO\n------CP°assignvar°20", "TO\n------CP°assignvar°n"))
        rc, doc = self.run_tool()
        self.assertIn("expected one FOR loop with TO literal 20, found 0", doc["skipped"])

    def test_missing_folder_or_plan_is_skipped(self):
        rc, doc = self.run_tool()  # the folder holds no plan
        self.assertEqual(rc, 0)
        self.assertIn("has no lenet.plan", doc["skipped"])
        shutil.rmtree(self.lenet)
        rc, doc = self.run_tool()
        self.assertIn("is not there yet", doc["skipped"])

    def test_parse_stats_and_plan_helpers(self):
        text = ("Total execution time:\t\t1.250 sec.\nHeavy hitter instructions:\n"
                "  #  Instruction  Time(s)  Count\n  1  gpu_conv2d        0.500     10\n")
        self.assertEqual(lenet_time.parse_stats(text), (1.25, [("gpu_conv2d", 0.5, 10)]))
        self.assertEqual(lenet_time.parse_stats("nothing"), (None, []))
        self.assertEqual(lenet_time.plan_arguments(PLAN)["batch"], "64")
        longer = lenet_time.with_trip_count(PLAN, 20, 220)
        self.assertIn("TO\n------CP°assignvar°220·SCALAR", longer)
        self.assertIn("°20·SCALAR·INT64·true°j", longer)  # other literals stay

    def test_the_checked_in_plan_is_readable(self):
        path = os.path.join(HERE, "lenet", "lenet.plan")
        if not os.path.isfile(path):
            self.skipTest("bench/lenet/lenet.plan is not there")
        with open(path) as f:
            text = f.read()
        nv = lenet_time.plan_arguments(text)
        self.assertEqual(nv["batch"], "64")
        lenet_time.with_trip_count(text, int(nv["iters"]), int(nv["iters"]) + 200)



class AlgoBenchTest(unittest.TestCase):
    """bench/algo_bench.py on crafted -stats text (no dmlrt, no device)."""

    STATS = """lmCG: 1.5
SystemDS Statistics:
Total elapsed time:\t\t2.000 sec.
Total execution time:\t\t1.500 sec.
Heavy hitter instructions:
   #  Instruction  Time(s)  Count
   1  m_lmCG         1.200      1
   2  mmchain        1.000     20
   3  rand           0.250      2
   4  ba+*           0.050      1
"""

    def test_builtin_call_time_is_its_fcall_line(self):
        self.assertEqual(algo_bench.algorithm_seconds("lmCG", self.STATS), (1.2, "fcall"))

    def test_inlined_builtin_takes_execution_less_data_generation(self):
        sec, how = algo_bench.algorithm_seconds("lmDS", self.STATS)
        self.assertEqual(how, "exec - datagen")
        self.assertAlmostEqual(sec, 1.5 - 0.25 - 0.05)

    def test_dml_generates_data_then_calls_the_builtin(self):
        text = algo_bench.dml_text("kmeans", "tiny")
        self.assertIn("rand(rows=2000, cols=50", text)
        self.assertIn("kmeans(X=X, k=16", text)

    def test_table_has_a_column_per_backend_and_dashes_for_errors(self):
        recs = [{"algorithm": "pca", "variant": "dense", "backend": "dmlrt -gpu", "seconds": 0.5},
                {"algorithm": "pca", "variant": "dense", "backend": "pytorch", "error": "x"}]
        t = algo_bench.table(recs)
        self.assertIn("| pca | dense | 0.5000 s | — |", t)

    TX = """GPU mem tx bytes (toDev / fromDev / evict):\t100 / 800000000 / 0.
GPU mem tx by instruction (toDev bytes/count / fromDev bytes/count / largest fromDev):
  mmchain:\t0/0 / 800000000/20 / 40000000.
  castdts:\t0/0 / 160/20 / 8.
  (outside instructions):\t100/1 / 0/0 / 0.
Heavy hitter instructions:
"""

    def test_transfer_rows_are_read_from_stats(self):
        tx = algo_bench.transfers_by_instruction(self.TX)
        self.assertEqual(tx["mmchain"], (0, 800000000, 40000000))
        self.assertEqual(tx["castdts"], (0, 160, 8))
        self.assertEqual(tx["(outside instructions)"], (100, 0, 0))
        self.assertEqual(len(tx), 3)  # the heavy-hitter header ends the block

    def test_markdown_section_has_ratios_and_replaces_itself(self):
        recs = [{"algorithm": "lmCG", "variant": "dense", "backend": "dmlrt -gpu", "seconds": 0.02},
                {"algorithm": "lmCG", "variant": "dense", "backend": "pytorch", "seconds": 0.01},
                {"algorithm": "lmCG", "variant": "dense", "backend": "floor", "seconds": 0.008},
                {"algorithm": "pca", "variant": "dense", "backend": "dmlrt -gpu", "error": "x"}]
        block = algo_bench.markdown_block(recs, ["Date: d", "Device: H200"])
        self.assertIn("| lmCG | dense | 0.0200 s | 0.0100 s | 0.0080 s | 2.00x | 2.50x | — |", block)
        self.assertIn("| pca | dense | — | — | — | — | — | — |", block)
        self.assertIn("- Device: H200", block)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "RESULTS.md")
            with open(path, "w") as f:
                f.write("# results\nbefore\n")
            args = argparse.Namespace(inputs=[], results=path, date="d", device="H200",
                                      commit="c", command="x", key="algorithms", title="T",
                                      note=["why"])
            for _ in range(2):  # appended once, then replaced in place
                algo_bench.write_markdown(args)
            with open(path) as f:
                text = f.read()
            self.assertEqual(text.count(algo_bench.BEGIN), 1)
            self.assertTrue(text.startswith("# results\nbefore\n\n" + algo_bench.BEGIN))
            args.key = "cpu"  # a second machine's section goes after the first
            algo_bench.write_markdown(args)
            with open(path) as f:
                text = f.read()
            self.assertEqual(text.count(algo_bench.BEGIN), 1)
            self.assertIn("<!-- algorithms-cpu:begin -->", text)
            self.assertIn("\n- why\n<!-- algorithms-cpu:end -->", text)

    def test_a_data_sized_copy_to_the_host_is_flagged(self):
        tx = algo_bench.transfers_by_instruction(self.TX)
        # small: X 50000 x 400 dense = 160 MB; 1% = 1.6 MB: mmchain's 40 MB copy counts, castdts not.
        self.assertEqual(algo_bench.host_copies("small", tx), {"mmchain": 40000000})
        # tiny: X 2000 x 50 = 800 KB; 1% = 8 KB: castdts's 8-byte reads still do not.
        self.assertEqual(set(algo_bench.host_copies("tiny", tx)), {"mmchain"})

class TimeToResultTest(unittest.TestCase):
    """time_to_result.py: its -stats parsing and its RESULTS.md section."""

    STATS = ("SystemDS Statistics:\nTotal execution time:\t\t2.000 sec.\n"
             "Input read time:\t\t0.500 sec (3 inputs, 1000 bytes).\n"
             "GPU autotuning time (conv find / gemm plans):\t0.060 / 0.040 sec, shapes timed "
             "2 / 1, from the tuning cache 5 / 4.\n")

    def test_parse_stats(self):
        sys.path.insert(0, HERE)
        import time_to_result as ttr
        got = ttr.parse_dmlrt_stats(self.STATS)
        self.assertEqual(got["exec_s"], 2.0)
        self.assertEqual(got["read_s"], 0.5)
        self.assertAlmostEqual(got["tune_s"], 0.1)
        self.assertEqual(got["timed"], 3)
        self.assertEqual(got["from_cache"], 9)
        self.assertAlmostEqual(got["tuning_share"], 0.05)
        self.assertIsNone(ttr.parse_dmlrt_stats("no stats")["exec_s"])

    def test_markdown_section_replaces_itself(self):
        sys.path.insert(0, HERE)
        import time_to_result as ttr
        recs = [{"case": "c", "backend": "dmlrt -gpu", "mode": m, "wall_s": w, "ok": True,
                 "exec_s": 1.0, "read_s": 0.2, "tune_s": t, "tuning_share": t}
                for m, w, t in [("cold", 3.0, 0.5), ("warm", 2.0, 0.01)]]
        recs += [{"case": "c", "backend": "pytorch", "mode": m, "wall_s": 4.0, "ok": True}
                 for m in ["cold", "warm"]]
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "R.md")
            with open(out, "w") as f:
                f.write("# Results\n")
            for _ in range(2):
                self.assertEqual(ttr.main(["markdown", self._json(d, recs),
                                           "--results", out, "--date", "D", "--device", "H",
                                           "--commit", "C", "--command", "X"]), 0)
            with open(out) as f:
                text = f.read()
        self.assertEqual(text.count(ttr.BEGIN), 1)
        self.assertIn("| c | dmlrt -gpu | 3.000 s | 2.000 s | 1.000 s | 0.200 s | 0.010 s (1.0%) | "
                      "0.500 s | 0.50x |", text)

    @staticmethod
    def _json(d, recs):
        p = os.path.join(d, "r.json")
        with open(p, "w") as f:
            json.dump(recs, f)
        return p


class ParforBenchTest(unittest.TestCase):
    """parfor_bench.py: its RESULTS.md section."""

    def test_markdown_section(self):
        sys.path.insert(0, HERE)
        import parfor_bench
        text = parfor_bench.markdown_block(
            [{"case": "grid_lm", "threads": 2, "one_thread_s": 0.44, "n_threads_s": 0.25,
              "speedup": 1.76, "efficiency": 0.88}], ["Date: D"])
        self.assertTrue(text.startswith(parfor_bench.BEGIN))
        self.assertIn("| grid_lm | 2 | 0.440 s | 0.250 s | 1.76x | 88% |", text)
        self.assertTrue(text.endswith(parfor_bench.END))
        self.assertNotIn("With `-gpu`", text)  # no GPU rows without GPU records
        gpu = parfor_bench.markdown_block(
            [{"machine": "H200", "case": "grid_lm", "threads": 16, "one_thread_s": 1.6,
              "n_threads_s": 0.2, "speedup": 8.0, "efficiency": 0.5, "gpu_workers": 4,
              "gpu_one_worker_s": 0.08, "gpu_w_workers_s": 0.04, "gpu_speedup": 2.0}],
            ["Date: D"])
        self.assertIn("| H200 | grid_lm | 16 | 1.600 s | 0.200 s | 8.00x | 50% |", gpu)
        self.assertIn("| grid_lm | 4 | 0.080 s | 0.040 s | 2.00x | 50% |", gpu)
        mpi = parfor_bench.markdown_block(
            [{"machine": "CPU", "case": "grid_lm", "threads": 2, "one_thread_s": 0.6,
              "n_threads_s": 0.35, "speedup": 1.7, "efficiency": 0.85, "mpi_ranks": 2,
              "mpi_s": 0.4, "mpi_speedup": 1.5}], ["Date: D"])
        self.assertIn("| CPU | grid_lm | 2 | 0.600 s | 0.400 s | 1.50x | 75% |", mpi)


class ParamservBenchTest(unittest.TestCase):
    """paramserv_bench.py: its RESULTS.md section and the plans it runs."""

    def test_markdown_section(self):
        sys.path.insert(0, HERE)
        import paramserv_bench
        text = paramserv_bench.markdown_block(
            [{"machine": "CPU", "where": "CPU", "k": 2, "one_worker_s": 20.0,
              "k_workers_s": 11.0, "speedup": 20 / 11, "efficiency": 10 / 11}], ["Date: D"])
        self.assertTrue(text.startswith(paramserv_bench.BEGIN))
        self.assertIn("| CPU | CPU | 2 | 20.000 s | 11.000 s | 1.82x | 91% |", text)
        self.assertTrue(text.endswith(paramserv_bench.END))
        for k in (1, 2, 4, 8):  # every k the run subcommand offers has its plan
            self.assertTrue(os.path.exists(os.path.join(
                paramserv_bench.PLANS, f"lenet_ps_n512_k{k}.plan")))


if __name__ == "__main__":
    unittest.main()
