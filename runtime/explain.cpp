// -explain printing of a Program in the plan grammar; see explain.h.
#include "runtime/explain.h"

#include <cstdlib>
#include <ostream>
#include <unordered_map>

#include "gpu_context/error.h"
#include "instructions/operand.h"

namespace dmlrt::runtime {
namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  size_t p = 0;
  while ((p = s.find(from, p)) != std::string::npos) {
    s.replace(p, from.size(), to);
    p += to.size();
  }
}

class Printer {
 public:
  Printer(std::ostream& os, bool raw) : os_(os), raw_(raw) {}

  void program(const Program& prog) {
    os_ << "PROGRAM\n";
    if (!prog.functions.empty()) {
      os_ << "--FUNCTIONS\n";
      for (const auto& kv : prog.functions) function(kv.second);
    }
    os_ << "--MAIN PROGRAM\n";
    blocks(prog.main, 2);
  }

 private:
  static std::string dashes(int level) { return std::string(2 * static_cast<size_t>(level), '-'); }

  std::string render(const std::string& raw) const {
    return raw_ ? raw : to_explain_rendering(raw);
  }

  std::string params(const std::vector<Param>& ps) const {
    std::string s;
    for (size_t i = 0; i < ps.size(); ++i) {
      if (i) s += ",";
      s += ps[i].name + inst::kTypeDelim + inst::name_of(ps[i].data_type) + inst::kTypeDelim +
           inst::name_of(ps[i].value_type);
    }
    return render(s);
  }

  void function(const Function& fn) {
    os_ << dashes(2) << "FUNCTION " << fn.key << " [in=" << params(fn.inputs)
        << "] [out=" << params(fn.outputs) << "]\n";
    blocks(fn.body, 3);
  }

  void blocks(const std::vector<BlockPtr>& bs, int level) {
    for (const auto& b : bs) block(*b, level);
  }

  // A fused instruction prints the lines it stands for, so the output runs again as written.
  void instructions(const InstructionList& list, int level) {
    for (const auto& i : list) {
      if (const InstructionList* parts = i->parts())
        instructions(*parts, level);
      else
        os_ << dashes(level) << render(i->text().raw) << "\n";
    }
  }

  static const char* keyword(BlockKind k) {
    switch (k) {
      case BlockKind::kGeneric:
        return "GENERIC";
      case BlockKind::kIf:
        return "IF";
      case BlockKind::kWhile:
        return "WHILE";
      case BlockKind::kFor:
        return "FOR";
      case BlockKind::kParfor:
        return "PARFOR";
    }
    return "GENERIC";
  }

  // The header as written; blocks built in code get a synthesized one.
  static std::string header(const Block& b) {
    std::string h = b.header.empty() ? keyword(b.kind) : b.header;
    if ((b.kind == BlockKind::kFor || b.kind == BlockKind::kParfor) &&
        h.find("iter=") == std::string::npos)
      h += " [iter=" + b.iter_var + "]";
    return h;
  }

  void block(const Block& b, int level) {
    os_ << dashes(level) << header(b) << "\n";
    const int inner = level + 1;
    switch (b.kind) {
      case BlockKind::kGeneric:
        instructions(b.instructions, inner);
        return;
      case BlockKind::kIf:
        instructions(b.predicate, inner);
        blocks(b.body, inner);
        if (!b.else_body.empty()) {
          os_ << dashes(level) << "ELSE\n";
          blocks(b.else_body, inner);
        }
        break;
      case BlockKind::kWhile:
        instructions(b.predicate, inner);
        blocks(b.body, inner);
        break;
      case BlockKind::kFor:
      case BlockKind::kParfor:
        os_ << dashes(inner) << "FROM\n";
        instructions(b.from, inner);
        os_ << dashes(inner) << "TO\n";
        instructions(b.to, inner);
        if (!b.incr.empty()) {
          os_ << dashes(inner) << "INCR\n";
          instructions(b.incr, inner);
        }
        blocks(b.body, inner);
        break;
    }
    instructions(b.exit_instructions, inner);
  }

  std::ostream& os_;
  bool raw_;
};

// Dims from the plan, for check_plan_shapes. Only sizes the run cannot contradict count: a
// persistent read's createvar (the read fails when the file disagrees) and rand with literal
// dims; the sizes SystemDS gives other outputs are its compile-time estimates (seq(i, n, 3) in a
// loop is declared with its largest length), so those names stay unknown. cpvar and mvvar carry
// sizes, rmvar drops them.
class PlanShapes final : public inst::Shapes {
 public:
  inst::Dims dims(const inst::Operand& op) override {
    const auto it = dims_.find(op.name);
    return it == dims_.end() ? inst::Dims{} : it->second;
  }

  // Follows the variable instructions; every other line is checked.
  void step(const inst::Instruction& i, std::vector<std::string>& errors) {
    const std::vector<std::string>& f = i.text().fields;
    const std::string& op = i.opcode();
    if (op == "createvar") {
      dims_.erase(f[0]);
      if (f.size() >= 9 && f[2] == "false") dims_[f[0]] = inst::Dims{number(f[5]), number(f[6])};
      return;
    }
    if (op == "rmvar") {
      for (const std::string& name : f) dims_.erase(name);
      return;
    }
    if ((op == "cpvar" || op == "mvvar") && f.size() >= 2) {
      const inst::Operand src = inst::Operand::parse(f[0]);
      const auto it = dims_.find(src.name);
      const inst::Dims d = it == dims_.end() ? inst::Dims{} : it->second;
      if (op == "mvvar") dims_.erase(src.name);
      dims_[inst::Operand::parse(f[1]).name] = d;
      return;
    }
    try {
      i.check(*this);
    } catch (const ShapeError& e) {
      errors.push_back(i.where() + ": " + e.what());
    }
    if (op == "rand" && f.size() >= 3) {
      const inst::Operand out = inst::Operand::parse(f.back());
      if (out.is_matrix()) dims_[out.name] = inst::Dims{literal(f[0]), literal(f[1])};
    }
  }

 private:
  // A literal integer operand field ("3", "3·SCALAR·INT64·true"), else -1.
  static int64_t literal(const std::string& field) {
    const inst::Operand o = inst::Operand::parse(field);
    return o.literal ? number(o.name) : -1;
  }
  static int64_t number(const std::string& s) {
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    return end != s.c_str() && *end == '\0' && v >= 0 ? v : -1;
  }

  std::unordered_map<std::string, inst::Dims> dims_;
};

void check_list(const InstructionList& list, std::vector<std::string>& errors) {
  PlanShapes shapes;
  for (const auto& i : list) {
    if (const InstructionList* parts = i->parts()) {
      for (const auto& p : *parts) shapes.step(*p, errors);
    } else {
      shapes.step(*i, errors);
    }
  }
}

void check_blocks(const std::vector<BlockPtr>& blocks, std::vector<std::string>& errors) {
  for (const auto& b : blocks) {
    for (const InstructionList* l :
         {&b->instructions, &b->predicate, &b->from, &b->to, &b->incr, &b->exit_instructions})
      check_list(*l, errors);
    check_blocks(b->body, errors);
    check_blocks(b->else_body, errors);
  }
}

}  // namespace

std::vector<std::string> check_plan_shapes(const Program& program) {
  std::vector<std::string> errors;
  for (const auto& kv : program.functions) check_blocks(kv.second.body, errors);
  check_blocks(program.main, errors);
  return errors;
}

std::string to_explain_rendering(const std::string& raw) {
  std::string s = raw;
  replace_all(s, inst::kOperandDelim, " ");
  replace_all(s, inst::kTypeDelim, ".");
  replace_all(s, inst::kInstructionDelim, ", ");
  return s;
}

void print_explain(const Program& program, std::ostream& os, bool raw) {
  Printer(os, raw).program(program);
}

}  // namespace dmlrt::runtime
