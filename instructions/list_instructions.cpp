// List instructions and eval: parsing and CPU runs (list_instructions.h).
#include "instructions/list_instructions.h"

#include <cctype>
#include <cstdlib>
#include <optional>

#include "gpu_context/error.h"
#include "instructions/aggregate_instructions.h"
#include "instructions/append_instructions.h"
#include "instructions/indexing_instructions.h"
#include "instructions/parameterized_instructions.h"
#include "instructions/variable_instructions.h"
#include "kernels/cpu/parameterized.h"

namespace dmlrt::inst {
namespace {

// True when field `i` of `t` is an operand typed LIST (the make_* factories' test).
bool is_list_field(const InstructionText& t, size_t i) {
  if (i >= t.fields.size()) return false;
  try {
    return Operand::parse(t.fields[i]).data_type == DataType::kList;
  } catch (const ParseError&) {
    return false;  // the matrix form reports the bad field
  }
}

// Strips "·TYPE·..." from a field that is sometimes typed (remove's output names).
std::string bare_name(const std::string& field) {
  const size_t p = field.find(kTypeDelim);
  return p == std::string::npos ? field : field.substr(0, p);
}

// An operand's value: a literal's scalar, or what the variable holds (a list entry or a function
// argument keeps the variable's matrix object or list).
Value value_of(ExecutionContext& ec, const Operand& op) {
  if (op.literal) return ScalarValue::from_literal(op.name, op.value_type);
  return ec.at(op.name);
}

std::string list_desc(const ListValue& l) {
  return std::string(l.named ? "named list" : "list") + " of length " + std::to_string(l.size());
}

// The 0-based position of 1-based index `ix` in `l`.
size_t position(const ListValue& l, int64_t ix, const std::string& where) {
  DMLRT_REQUIRE(ix >= 1 && static_cast<uint64_t>(ix) <= l.size(), RuntimeError,
                where << ": list index " << ix << " is out of range for a " << list_desc(l));
  return static_cast<size_t>(ix - 1);
}

// The position of the entry named `name` (SystemDS's ListObject.getPosForName).
size_t position(const ListValue& l, const std::string& name, const std::string& where) {
  DMLRT_REQUIRE(
      l.named, RuntimeError,
      where << ": cannot index an unnamed " << list_desc(l) << " by name '" << name << "'");
  for (size_t i = 0; i < l.names.size(); ++i)
    if (l.names[i] == name) return i;
  DMLRT_FAIL(RuntimeError,
             where << ": the " << list_desc(l) << " has no entry named '" << name << "'");
}

// The 0-based position that scalar `key` selects: a name when it is a string, else a 1-based
// index.
size_t position(const ListValue& l, const ScalarValue& key, const std::string& where) {
  if (key.is_string()) return position(l, key.to_string(), where);
  return position(l, key.to_int(), where);
}

// Entries [a, b] (0-based, inclusive) with their names.
ListPtr slice(const ListValue& l, size_t a, size_t b, const std::string& where) {
  DMLRT_REQUIRE(a <= b, RuntimeError,
                where << ": list range " << a + 1 << ":" << b + 1 << " is empty (from > to)");
  auto out = std::make_shared<ListValue>();
  out->items.assign(l.items.begin() + a, l.items.begin() + b + 1);
  out->named = l.named;
  if (l.named) out->names.assign(l.names.begin() + a, l.names.begin() + b + 1);
  return out;
}

// nvlist's literal values (SystemDS's ScalarObjectFactory.createScalarObject(String)): true or
// false in any case is a boolean, digits only an integer, anything else a string.
ScalarValue nvlist_literal(const std::string& s) {
  std::string lower = s;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "true" || lower == "false") return ScalarValue::boolean(lower == "true");
  bool digits = !s.empty() && s.size() <= 18;  // longer digit strings: kept as text
  for (char c : s) digits = digits && c >= '0' && c <= '9';
  if (digits) return ScalarValue::int64(std::strtoll(s.c_str(), nullptr, 10));
  return ScalarValue::string(s);
}

}  // namespace

// --- factories ---

InstructionPtr make_right_index(InstructionText t) {
  if (is_list_field(t, 0)) return std::make_unique<ListIndexInstruction>(std::move(t));
  return std::make_unique<RightIndexInstruction>(std::move(t));
}

InstructionPtr make_left_index(InstructionText t) {
  if (is_list_field(t, 0)) return std::make_unique<ListLeftIndexInstruction>(std::move(t));
  return std::make_unique<LeftIndexInstruction>(std::move(t));
}

InstructionPtr make_append(InstructionText t) {
  if (is_list_field(t, 0)) return std::make_unique<ListAppendRemoveInstruction>(std::move(t));
  return AppendInstruction::make(std::move(t));
}

InstructionPtr make_length(InstructionText t) {
  if (is_list_field(t, 0)) return std::make_unique<ListLengthInstruction>(std::move(t));
  return std::make_unique<DimsInstruction>(std::move(t));
}

InstructionPtr make_cast(InstructionText t) {
  if (t.opcode == "castdtl" || is_list_field(t, 0))
    return std::make_unique<ListCastInstruction>(std::move(t));
  return std::make_unique<CastInstruction>(std::move(t));
}

InstructionPtr make_to_string(InstructionText t) {
  return std::make_unique<ToStringInstruction>(std::move(t));
}

// --- list, nvlist ---

ListInstruction::ListInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(1, static_cast<size_t>(-1));
  for (size_t i = 0; i + 1 < num_fields(); ++i) inputs_.push_back(operand(i));
  out_ = operand(num_fields() - 1);
}

void ListInstruction::run_cpu(ExecutionContext& ec) {
  auto l = std::make_shared<ListValue>();
  l->items.reserve(inputs_.size());
  for (const Operand& in : inputs_) l->items.push_back(value_of(ec, in));
  ec.set(out_.name, ListPtr(std::move(l)));
}

NamedListInstruction::NamedListInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(1, static_cast<size_t>(-1));
  for (size_t i = 0; i + 1 < num_fields(); ++i) {
    const std::string& f = field(i);
    const size_t eq = f.find('=');
    DMLRT_REQUIRE(eq != std::string::npos && eq > 0, ParseError,
                  where() << ": nvlist: field '" << f << "' is not name=value");
    names_.push_back(f.substr(0, eq));
    values_.push_back(f.substr(eq + 1));
  }
  out_ = operand(num_fields() - 1);
}

void NamedListInstruction::run_cpu(ExecutionContext& ec) {
  auto l = std::make_shared<ListValue>();
  l->named = true;
  l->names = names_;
  for (const std::string& v : values_) {
    const Value* bound = ec.find(v);
    l->items.push_back(bound != nullptr ? *bound : Value(nvlist_literal(v)));
  }
  ec.set(out_.name, ListPtr(std::move(l)));
}

// --- indexing ---

ListIndexInstruction::ListIndexInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(6);
  in_ = operand(0);
  rl_ = operand(1);
  ru_ = operand(2);
  out_ = operand(5);
}

void ListIndexInstruction::run_cpu(ExecutionContext& ec) {
  const ListPtr l = ec.list(in_.name);
  const ScalarValue rl = ec.scalar(rl_), ru = ec.scalar(ru_);
  // SystemDS: a string bound on either side makes both names.
  const bool by_name = rl.is_string() || ru.is_string();
  const size_t a =
      by_name ? position(*l, rl.to_string(), where()) : position(*l, rl.to_int(), where());
  const size_t b =
      by_name ? position(*l, ru.to_string(), where()) : position(*l, ru.to_int(), where());
  ec.set(out_.name, slice(*l, a, b, where()));
}

ListLeftIndexInstruction::ListLeftIndexInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(7);
  in_ = operand(0);
  rhs_ = operand(1);
  rl_ = operand(2);
  ru_ = operand(3);
  out_ = operand(6);
  DMLRT_REQUIRE(rhs_.data_type == DataType::kList || rhs_.data_type == DataType::kScalar ||
                    rhs_.data_type == DataType::kMatrix,
                NotSupported,
                where() << ": list left indexing with a " << name_of(rhs_.data_type)
                        << " right-hand side is not supported");
}

void ListLeftIndexInstruction::run_cpu(ExecutionContext& ec) {
  const ListPtr l = ec.list(in_.name);
  auto out = std::make_shared<ListValue>(*l);  // copy on write
  const ScalarValue rl = ec.scalar(rl_);
  if (rhs_.data_type != DataType::kList) {
    out->items[position(*l, rl, where())] = value_of(ec, rhs_);
    ec.set(out_.name, ListPtr(std::move(out)));
    return;
  }
  const ListPtr rhs = ec.list(rhs_.name);
  const ScalarValue ru = ec.scalar(ru_);
  const bool by_name = rl.is_string() || ru.is_string();
  const size_t a =
      by_name ? position(*l, rl.to_string(), where()) : position(*l, rl.to_int(), where());
  const size_t b =
      by_name ? position(*l, ru.to_string(), where()) : position(*l, ru.to_int(), where());
  DMLRT_REQUIRE(a <= b && b - a + 1 == rhs->size(), RuntimeError,
                where() << ": list left indexing size mismatch: range " << a + 1 << ":" << b + 1
                        << " of a " << list_desc(*l) << ", right-hand side a " << list_desc(*rhs));
  if (b - a + 1 == l->size()) {
    // All entries replaced: the right-hand side's names come along (ListObject.set).
    out->items = rhs->items;
    if (rhs->named) {
      out->named = true;
      out->names = rhs->names;
    }
  } else {
    for (size_t i = a; i <= b; ++i) {
      out->items[i] = rhs->items[i - a];
      if (out->named && rhs->named) out->names[i] = rhs->names[i - a];
    }
  }
  ec.set(out_.name, ListPtr(std::move(out)));
}

// --- append, remove ---

ListAppendRemoveInstruction::ListAppendRemoveInstruction(InstructionText t)
    : Instruction(std::move(t)) {
  remove_ = opcode() == "remove";
  if (remove_) {
    expect_fields(4);
    removed_ = bare_name(field(3));
  } else {
    expect_fields(4, 5);  // in°x°offset°out[°cbind flag]
  }
  in_ = operand(0);
  arg_ = operand(1);
  out_ = bare_name(field(remove_ ? 2 : 3));
}

void ListAppendRemoveInstruction::run_cpu(ExecutionContext& ec) {
  const ListPtr l = ec.list(in_.name);
  auto out = std::make_shared<ListValue>(*l);  // copy on write
  if (!remove_) {
    DMLRT_REQUIRE(!l->named, RuntimeError,
                  where() << ": cannot append an unnamed entry to a " << list_desc(*l));
    out->items.push_back(value_of(ec, arg_));
    ec.set(out_, ListPtr(std::move(out)));
    return;
  }
  const size_t p = position(*l, ec.scalar(arg_).to_int(), where());
  auto removed = std::make_shared<ListValue>();  // unnamed, as SystemDS's ListObject.remove
  removed->items.push_back(l->items[p]);
  out->items.erase(out->items.begin() + p);
  if (out->named) out->names.erase(out->names.begin() + p);
  ec.set(out_, ListPtr(std::move(out)));
  ec.set(removed_, ListPtr(std::move(removed)));
}

// --- casts, length ---

ListCastInstruction::ListCastInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 3);
  in_ = operand(0);
  out_ = operand(1);
  DMLRT_REQUIRE(in_.data_type == DataType::kList, NotSupported,
                where() << ": " << opcode() << " of a " << name_of(in_.data_type)
                        << " is not supported (as.list takes a list)");
}

void ListCastInstruction::run_cpu(ExecutionContext& ec) {
  const ListPtr l = ec.list(in_.name);
  const std::string& op = opcode();
  if (op == "castdtl") {
    const ListPtr* inner = l->size() == 1 ? std::get_if<ListPtr>(&l->items[0]) : nullptr;
    ec.set(out_.name, inner != nullptr ? *inner : l);
    return;
  }
  if (op == "castdtm" && l->size() > 1) {
    std::vector<double> col;
    for (size_t i = 0; i < l->size(); ++i) {
      const auto* s = std::get_if<ScalarValue>(&l->items[i]);
      DMLRT_REQUIRE(s != nullptr, RuntimeError,
                    where() << ": as.matrix of a " << list_desc(*l)
                            << " needs scalar entries only; entry " << i + 1 << " is a "
                            << kind_of(l->items[i]));
      col.push_back(s->to_double());
    }
    const auto n = static_cast<int64_t>(col.size());
    ec.set_matrix(out_.name, kernels::MatrixBlock::dense(n, 1, std::move(col)));
    return;
  }
  DMLRT_REQUIRE(
      l->size() >= 1, RuntimeError,
      where() << ": " << (op == "castdtm" ? "as.matrix" : "as.scalar") << " of an empty list");
  const Value& e = l->items[0];
  if (op == "castdtm") {
    if (const auto* mo = std::get_if<std::shared_ptr<MatrixObject>>(&e)) {
      ec.set(out_.name, *mo);  // the entry itself, as cpvar would bind it
      return;
    }
    const auto* s = std::get_if<ScalarValue>(&e);
    DMLRT_REQUIRE(s != nullptr && !s->is_string(), RuntimeError,
                  where() << ": as.matrix of a list whose entry is a "
                          << (s != nullptr ? "string" : kind_of(e))
                          << " (it takes a matrix or a number)");
    ec.set_matrix(out_.name, kernels::MatrixBlock::dense(1, 1, s->to_double()));
    return;
  }
  // castdts: SystemDS binds the first entry whatever it is and fails later on a matrix; the
  // message says so here.
  const auto* s = std::get_if<ScalarValue>(&e);
  DMLRT_REQUIRE(
      s != nullptr, RuntimeError,
      where() << ": as.scalar of a list whose first entry is a " << kind_of(e) << ", not a scalar");
  ec.set_scalar(out_, *s);
}

ListLengthInstruction::ListLengthInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 3);
  in_ = operand(0);
  out_ = operand(1);
}

void ListLengthInstruction::run_cpu(ExecutionContext& ec) {
  ec.set_scalar(out_, ScalarValue::int64(static_cast<int64_t>(ec.list(in_.name)->size())));
}

// --- toString ---

namespace {

struct ToStringOptions {
  int64_t rows = 100, cols = 100;
  int decimal = 3;
  bool sparse = false;
  std::string sep = " ", linesep = "\n";
};

// SystemDS's DataConverter.toString(ListObject, ...): entries joined by ", " (the last two
// characters are cut unconditionally, so an empty list prints "List containing:]").
void append_list(ExecutionContext& ec, const ListValue& l, const ToStringOptions& o,
                 std::string& s) {
  s += "List containing:\n[";
  for (size_t i = 0; i < l.size(); ++i) {
    const Value& e = l.items[i];
    if (const auto* mo = std::get_if<std::shared_ptr<MatrixObject>>(&e)) {
      const auto block = ec.matrix_data(**mo, "list entry " + std::to_string(i + 1));
      s += "\nMatrix:\n";
      s += kernels::cpu::to_string(*block, o.rows, o.cols, o.decimal, o.sparse, o.sep, o.linesep);
    } else if (const auto* inner = std::get_if<ListPtr>(&e)) {
      append_list(ec, **inner, o, s);
    } else {
      s += std::get<ScalarValue>(e).to_string();
    }
    s += ", ";
  }
  s.erase(s.size() - 2);
  s += "]";
}

}  // namespace

ToStringInstruction::ToStringInstruction(InstructionText t) : Instruction(std::move(t)) {
  DMLRT_REQUIRE(num_fields() >= 2, ParseError,
                where() << ": toString expects name=value fields and an output");
  for (size_t i = 0; i + 1 < num_fields(); ++i) {
    const std::string& f = field(i);
    const size_t eq = f.find('=');
    DMLRT_REQUIRE(eq != std::string::npos && eq > 0, ParseError,
                  where() << ": toString: field '" << f << "' is not name=value");
    params_.emplace_back(f.substr(0, eq), f.substr(eq + 1));
  }
  out_ = operand(num_fields() - 1);
  matrix_form_ = std::make_unique<ParameterizedInstruction>(text());
}

Instruction& ToStringInstruction::target(ExecutionContext& ec, InstructionPtr& built) {
  (void)built;
  for (const auto& [name, value] : params_) {
    if (name != "target") continue;
    const Value* v = ec.find(value);
    if (v != nullptr && std::holds_alternative<ListPtr>(*v)) return *this;
  }
  return *matrix_form_;
}

void ToStringInstruction::run_cpu(ExecutionContext& ec) {
  ToStringOptions o;
  ListPtr target;
  // A parameter is a variable when one of its name is bound, else literal text.
  auto value = [&](const std::string& v) {
    return ec.contains(v) ? ec.scalar(v) : ScalarValue::from_literal(v, ValueType::kString);
  };
  for (const auto& [name, v] : params_) {
    if (name == "target")
      target = ec.list(v);
    else if (name == "rows")
      o.rows = value(v).to_int();
    else if (name == "cols")
      o.cols = value(v).to_int();
    else if (name == "decimal")
      o.decimal = static_cast<int>(value(v).to_int());
    else if (name == "sparse")
      o.sparse = value(v).to_bool();
    else if (name == "sep")
      o.sep = value(v).to_string();
    else if (name == "linesep")
      o.linesep = value(v).to_string();
  }
  std::string s;
  append_list(ec, *target, o, s);
  ec.set_scalar(out_, ScalarValue::string(std::move(s)));
}

// --- eval ---

// Note [eval]
// eval(fname, args...) calls a function by name (SystemDS's EvalNaryCPInstruction):
//  * lookup: "ns::f" names the function directly; a bare name is .defaultNS::f (a function of
//    the script), else the builtin .builtinNS::m_f (s_f when the first argument is a scalar), the
//    internal name SystemDS gives DML-bodied builtins. SystemDS compiles a builtin that the script
//    calls only through eval at run time from its scripts/builtin folder; a captured plan holds
//    only the functions the compiler saw, so such a call fails here with a message saying so.
//  * arguments: positional; but a single list argument to a function of several inputs whose
//    first input is not a list is spread over the inputs (a named list by name, in signature
//    order; an unnamed one by position). SystemDS 3.4 fills missing inputs from the function's
//    default values, which plans do not carry: the list must name every input.
//  * result: a matrix output takes the function's first output (a scalar becomes 1x1); a list
//    output takes all outputs, named by the function's output names.
EvalInstruction::EvalInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, static_cast<size_t>(-1));
  fname_ = operand(0);
  for (size_t i = 1; i + 1 < num_fields(); ++i) args_.push_back(operand(i));
  out_ = operand(num_fields() - 1);
  DMLRT_REQUIRE(out_.data_type == DataType::kMatrix || out_.data_type == DataType::kList,
                NotSupported,
                where() << ": eval with a " << name_of(out_.data_type)
                        << " output is not supported (SystemDS returns a matrix or a list)");
}

void EvalInstruction::run_cpu(ExecutionContext& ec) {
  const std::string fname = ec.scalar(fname_).to_string();
  Services& sv = ec.services();
  std::string key;
  std::optional<FunctionSignature> sig;
  std::vector<std::string> tried;
  auto lookup = [&](const std::string& k) {
    if (sig) return;
    tried.push_back(k);
    if ((sig = sv.function_signature(k))) key = k;
  };
  if (fname.find("::") != std::string::npos) {
    lookup(fname);
  } else {
    lookup(".defaultNS::" + fname);
    const bool scalar_first = !args_.empty() && args_[0].data_type == DataType::kScalar;
    lookup(std::string(".builtinNS::") + (scalar_first ? "s_" : "m_") + fname);
    lookup(".builtinNS::" + fname);
  }
  if (!sig) {
    std::string list;
    for (const std::string& k : tried) list += (list.empty() ? "" : ", ") + k;
    DMLRT_FAIL(RuntimeError,
               where() << ": eval: unknown function '" << fname << "' (the plan has none of "
                       << list << "; SystemDS compiles a builtin function that the script "
                       << "calls only through eval at run time, which a plan cannot hold)");
  }

  std::vector<Value> values;
  std::vector<std::string> names;
  const size_t nin = sig->input_names.size();
  if (args_.size() == 1 && args_[0].data_type == DataType::kList && nin > 1 &&
      sig->input_types[0] != DataType::kList) {
    const ListPtr l = ec.list(args_[0].name);
    DMLRT_REQUIRE(l->size() == nin, RuntimeError,
                  where() << ": eval: cannot spread a " << list_desc(*l) << " over the " << nin
                          << " inputs of " << key
                          << " (dmlrt cannot fill inputs from default values: plans do not "
                             "carry them)");
    for (size_t i = 0; i < nin; ++i) {
      if (!l->named) {
        values.push_back(l->items[i]);
        continue;
      }
      values.push_back(l->items[position(*l, sig->input_names[i], where())]);
      names.push_back(sig->input_names[i]);
    }
    if (l->named)
      for (const std::string& n : l->names) {
        bool found = false;
        for (const std::string& p : sig->input_names) found = found || p == n;
        DMLRT_REQUIRE(
            found, RuntimeError,
            where() << ": eval: list argument named '" << n << "' is not an input of " << key);
      }
  } else {
    for (const Operand& a : args_) values.push_back(value_of(ec, a));
  }

  std::vector<Value> results = sv.call_function(key, names, std::move(values));
  if (out_.data_type == DataType::kList) {
    auto l = std::make_shared<ListValue>();
    l->named = true;
    l->names = sig->output_names;
    l->items = std::move(results);
    l->names.resize(l->items.size());
    ec.set(out_.name, ListPtr(std::move(l)));
    return;
  }
  DMLRT_REQUIRE(!results.empty(), RuntimeError,
                where() << ": eval: function " << key << " returns nothing");
  Value& r = results[0];
  if (auto* mo = std::get_if<std::shared_ptr<MatrixObject>>(&r)) {
    ec.set(out_.name, *mo);
  } else if (auto* s = std::get_if<ScalarValue>(&r)) {
    ec.set_matrix(out_.name, kernels::MatrixBlock::dense(1, 1, s->to_double()));
  } else {
    DMLRT_FAIL(RuntimeError, where() << ": eval: function " << key
                                     << " returns a list where the call expects a matrix");
  }
}

}  // namespace dmlrt::inst
