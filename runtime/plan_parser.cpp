// The plan-file parser (DESIGN.md §3): lines are split into (nesting level, content), then a
// recursive descent over SystemDS's block grammar builds the Program. Instructions are built at
// parse time, so unknown opcodes and bad operands surface as parse errors with file:line.
#include "runtime/plan_parser.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "gpu_context/error.h"
#include "gpu_context/string_util.h"
#include "instructions/opcode_table.h"
#include "instructions/out_of_scope.h"
#include "instructions/operand.h"
#include "instructions/scalar_value.h"
#include "runtime/plan_rewrites.h"

namespace dmlrt::runtime {
namespace {

using inst::kInstructionDelim;
using inst::kOperandDelim;
using inst::kTypeDelim;

constexpr size_t kMaxNesting = 200;
constexpr const char* kBlockHeaders = "a block header (GENERIC, IF, ELSE, WHILE, FOR, PARFOR)";

struct Line {
  int number = 0;       // 1-based line in the file
  int level = 0;        // number of "--" in front
  std::string content;  // the text after the dashes
  std::string text;     // the whole (trimmed) line, for messages
};

enum class Keyword { kNone, kGeneric, kIf, kElse, kWhile, kFor, kParfor };
enum class Marker { kNone, kFrom, kTo, kIncr };

// `word` at the start of `s`, followed by the end, a space or '('.
bool starts_with_word(const std::string& s, const std::string& word) {
  if (!starts_with(s, word)) return false;
  return s.size() == word.size() || s[word.size()] == ' ' || s[word.size()] == '(' ||
         s[word.size()] == '[';
}

Keyword keyword_of(const std::string& content) {
  if (starts_with_word(content, "GENERIC")) return Keyword::kGeneric;
  if (starts_with_word(content, "IF")) return Keyword::kIf;
  if (starts_with_word(content, "ELSE")) return Keyword::kElse;
  if (starts_with_word(content, "WHILE")) return Keyword::kWhile;
  if (starts_with_word(content, "FOR")) return Keyword::kFor;
  if (starts_with_word(content, "PARFOR")) return Keyword::kParfor;
  return Keyword::kNone;
}

Marker marker_of(const std::string& content) {
  if (content == "FROM") return Marker::kFrom;
  if (content == "TO") return Marker::kTo;
  if (content == "INCR") return Marker::kIncr;
  return Marker::kNone;
}

const char* name_of(Keyword k) {
  switch (k) {
    case Keyword::kGeneric:
      return "GENERIC";
    case Keyword::kIf:
      return "IF";
    case Keyword::kElse:
      return "ELSE";
    case Keyword::kWhile:
      return "WHILE";
    case Keyword::kFor:
      return "FOR";
    case Keyword::kParfor:
      return "PARFOR";
    case Keyword::kNone:
      break;
  }
  return "?";
}

// The top-level entries of every [...] group in a header: "[in-place=[X, Y], recompile=true]"
// gives "in-place=[X, Y]" and "recompile=true". Brackets nest; commas split only at depth 1.
std::vector<std::string> bracket_entries(const std::string& header) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : header) {
    if (c == '[') {
      if (depth++ == 0) {
        cur.clear();
        continue;
      }
    } else if (c == ']') {
      if (--depth == 0) {
        out.push_back(trim(cur));
        continue;
      }
      if (depth < 0) depth = 0;
    } else if (c == ',' && depth == 1) {
      out.push_back(trim(cur));
      cur.clear();
      continue;
    }
    if (depth > 0) cur += c;
  }
  return out;
}

bool is_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

// Groups bracket entries into key -> values; an entry without "key=" continues the previous key's
// list, so "[in=X·MATRIX·FP64, W·MATRIX·FP64]" and "[in=X·MATRIX·FP64,W·MATRIX·FP64]" agree.
std::vector<std::pair<std::string, std::vector<std::string>>> annotations(
    const std::string& header) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const std::string& e : bracket_entries(header)) {
    size_t i = 0;
    while (i < e.size() && is_key_char(e[i])) ++i;
    if (i > 0 && i < e.size() && e[i] == '=') {
      out.push_back({e.substr(0, i), {}});
      const std::string v = trim(e.substr(i + 1));
      if (!v.empty()) out.back().second.push_back(v);
    } else if (!out.empty() && !e.empty()) {
      out.back().second.push_back(e);
    }
  }
  return out;
}

const std::vector<std::string>* find_annotation(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& ann,
    const std::string& key) {
  for (const auto& kv : ann)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

// Converts one explain-rendered operand back to the raw form by splitting from the right on '.'
// against the type names: "b=2.5.SCALAR.FP64.true" -> "b=2.5·SCALAR·FP64·true". Anything else
// (file names, numbers, flags) is returned unchanged.
std::string explain_operand_to_raw(const std::string& tok, bool* is_string_literal = nullptr) {
  if (is_string_literal) *is_string_literal = false;
  std::vector<std::string> tail;  // up to 3 trailing parts, rightmost first
  size_t end = tok.size();
  size_t name_end = std::string::npos;
  auto next_part = [&](std::string* part) {
    if (end == 0) return false;
    const size_t p = tok.rfind('.', end - 1);
    if (p == std::string::npos) return false;
    *part = tok.substr(p + 1, end - p - 1);
    end = p;
    return true;
  };
  std::string a, b, c;
  if (!next_part(&a)) return tok;
  if (a == "true" || a == "false") {
    if (!next_part(&b) || !inst::is_value_type_name(b)) return tok;
    if (!next_part(&c) || !inst::is_data_type_name(c)) return tok;
    name_end = end;
    if (is_string_literal) *is_string_literal = a == "true" && b == "STRING" && c == "SCALAR";
    return tok.substr(0, name_end) + kTypeDelim + c + kTypeDelim + b + kTypeDelim + a;
  }
  if (!inst::is_value_type_name(a)) return tok;
  if (!next_part(&b) || !inst::is_data_type_name(b)) return tok;
  name_end = end;
  return tok.substr(0, name_end) + kTypeDelim + b + kTypeDelim + a;
}

bool is_typed_raw(const std::string& field) { return field.find(kTypeDelim) != std::string::npos; }

// Opcodes whose fields are all typed operands (plus a trailing thread count): in explain text a
// string literal with spaces falls apart into several tokens, which can be joined back here.
bool all_operands_typed(const std::string& opcode) {
  static const std::set<std::string> kOps = {"+",         "==",      "!=",      "<",      ">",
                                             "<=",        ">=",      "print",   "stop",   "assert",
                                             "assignvar", "castvti", "castvtd", "castvtb"};
  return kOps.count(opcode) != 0;
}

// The first word of `content` is an execution type (CP, GPU, ...), in either rendering.
bool looks_like_instruction(const std::string& content) {
  const size_t end = std::min(content.find(kOperandDelim), content.find(' '));
  const std::string first = content.substr(0, end);
  return first == "CP" || first == "CP_FILE" || first == "GPU" || first == "SPARK" ||
         first == "FED" || first == "OOC";
}

// Note [Unbound plan arguments]
// substitute_args replaces $name and $N tokens anywhere in the plan text and leaves a token
// without a value as written. A token left over is an error (ParseError naming the line) where an
// argument was plainly meant: a field whose whole name is the token, i.e. an operand
// `$X·SCALAR·STRING·true`, createvar's file-name field `$X`, or the value of a key=value field
// (`target=$X·...`). Comment lines are never looked at, and a `$` inside a longer string literal
// (`cost: $5 each·SCALAR·STRING·true`) is text: SystemDS's $-parameters are identifiers of the DML
// grammar and are never looked for inside string literals, so a compiled plan can carry such
// text. A value given with -args/-nvargs that itself reads "$x" is flagged too (it cannot be told
// from a left-over token after substitution).
bool is_arg_token(const std::string& s) {
  if (s.size() < 2 || s[0] != '$') return false;
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  if (is_digit(s[1]))
    return std::all_of(s.begin() + 1, s.end(), is_digit);
  if (!std::isalpha(static_cast<unsigned char>(s[1])) && s[1] != '_') return false;
  return std::all_of(s.begin() + 1, s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// A decimal number as a plan writes literals: [+-]digits[.digits][E[+-]digits].
bool is_number_text(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  const size_t digits_start = i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == digits_start) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  if (i < s.size() && (s[i] == 'E' || s[i] == 'e')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    const size_t exp_start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == exp_start) return false;
  }
  return i == s.size();
}

// The name part of a field: up to the first type delimiter.
std::string field_name(const std::string& field) {
  return field.substr(0, field.find(kTypeDelim));
}

class Parser {
 public:
  Parser(const std::string& text, std::string file, const PlanArgs& args = {})
      : file_(std::move(file)), args_(args) {
    split_lines(text);
  }

  Program parse() {
    Program prog;
    prog.file = file_;
    if (!eof() && peek().level == 0 && starts_with_word(peek().content, "PROGRAM")) ++pos_;
    if (!eof() && peek().level == 0)
      expected(peek(), "the PROGRAM header, --FUNCTIONS or --MAIN PROGRAM");
    if (!eof() && peek().level == 1 && peek().content == "FUNCTIONS") {
      ++pos_;
      parse_functions(prog);
    }
    if (eof() && lines_.empty())
      DMLRT_FAIL(ParseError, (file_.empty() ? "<plan>" : file_)
                                 << ": empty plan: missing '--MAIN PROGRAM' section");
    if (eof()) DMLRT_FAIL(ParseError, location(last_line_) << ": missing '--MAIN PROGRAM' section");
    const Line& l = peek();
    if (l.level != 1 || l.content != "MAIN PROGRAM")
      expected(l, "--MAIN PROGRAM" + std::string(prog.functions.empty() ? " or --FUNCTIONS" : ""));
    ++pos_;
    parse_child_blocks(2, prog.main);
    if (!eof()) reject_after_blocks(peek(), 2);
    validate_calls(prog);
    return prog;
  }

 private:
  // --- lines ---
  void split_lines(const std::string& text) {
    std::istringstream is(text);
    std::string raw;
    int number = 0;
    while (std::getline(is, raw)) {
      ++number;
      std::string t = trim(raw);
      if (t.empty() || t[0] == '#') continue;
      Line l;
      l.number = number;
      l.text = t;
      size_t dashes = 0;
      while (dashes < t.size() && t[dashes] == '-') ++dashes;
      if (dashes % 2 != 0)
        fail(l, "odd number of dashes (" + std::to_string(dashes) + "); nesting is '--' per level");
      // The parser recurses once per level; a bound keeps hostile input off the native stack.
      if (dashes / 2 > kMaxNesting)
        fail(l, "nesting deeper than " + std::to_string(kMaxNesting) + " levels");
      l.level = static_cast<int>(dashes / 2);
      l.content = t.substr(dashes);
      if (l.content.empty()) fail(l, "line holds only dashes");
      lines_.push_back(std::move(l));
    }
    last_line_ = number;
  }

  bool eof() const { return pos_ >= lines_.size(); }
  const Line& peek() const { return lines_[pos_]; }

  std::string location(int line) const {
    return (file_.empty() ? std::string("<plan>") : file_) + ":" + std::to_string(line);
  }
  [[noreturn]] void fail(const Line& l, const std::string& msg) const {
    throw ParseError(location(l.number) + ": " + msg + ": '" + l.text + "'");
  }
  [[noreturn]] void expected(const Line& l, const std::string& what) const {
    throw ParseError(location(l.number) + ": expected " + what + ", got '" + l.text + "'");
  }

  // --- functions ---
  void parse_functions(Program& prog) {
    while (!eof() && peek().level >= 2) {
      const Line& l = peek();
      if (l.level != 2 || !starts_with_word(l.content, "FUNCTION"))
        expected(l, "a FUNCTION header at nesting level 2");
      const std::string rest = trim(l.content.substr(8));
      if (starts_with_word(rest, "CALL") || rest.find("(unoptimized)") != std::string::npos) {
        // SystemDS's call graph and unoptimized copies carry nothing to run.
        ++pos_;
        while (!eof() && peek().level > 2) ++pos_;
        continue;
      }
      Function fn = parse_function_header(l, rest);
      ++pos_;
      parse_child_blocks(3, fn.body);
      if (!eof() && peek().level >= 3) reject_after_blocks(peek(), 3);
      const std::string key = fn.key;
      if (!prog.functions.emplace(key, std::move(fn)).second)
        fail(l, "duplicate function '" + key + "'");
    }
  }

  Function parse_function_header(const Line& l, const std::string& rest) {
    Function fn;
    fn.loc = {file_, l.number};
    const size_t sp = rest.find_first_of(" [");
    fn.key = rest.substr(0, sp);
    const size_t sep = fn.key.find("::");
    if (fn.key.empty() || sep == std::string::npos || sep == 0 || sep + 2 == fn.key.size())
      expected(l, "FUNCTION <namespace>::<name> [in=...] [out=...]");
    const auto ann = annotations(rest);
    const auto* in = find_annotation(ann, "in");
    const auto* out = find_annotation(ann, "out");
    if (!in || !out)
      fail(l,
           "FUNCTION header needs [in=name·DATATYPE·VALUETYPE,...] and [out=...] parameter "
           "lists (SystemDS's explain output omits them; add them)");
    for (const auto& p : *in) fn.inputs.push_back(parse_param(l, p));
    for (const auto& p : *out) fn.outputs.push_back(parse_param(l, p));
    return fn;
  }

  Param parse_param(const Line& l, const std::string& text) {
    const std::string raw = is_typed_raw(text) ? text : explain_operand_to_raw(text);
    const std::vector<std::string> parts = inst::split_keep_empty(raw, kTypeDelim);
    if (parts.size() != 3 || parts[0].empty())
      fail(l, "parameter '" + text + "' must be name·DATATYPE·VALUETYPE");
    Param p;
    p.name = parts[0];
    try {
      p.data_type = inst::parse_data_type(parts[1]);
      p.value_type = inst::parse_value_type(parts[2]);
    } catch (const ParseError& e) {
      fail(l, "parameter '" + text + "': " + e.what());
    }
    return p;
  }

  // --- blocks ---
  // Parses consecutive block headers at `level` (and their contents). Stops at the first line at
  // a lower level, or at `level` that is not a block header (instructions, markers, ELSE), which
  // the caller handles.
  void parse_child_blocks(int level, std::vector<BlockPtr>& out) {
    while (!eof()) {
      const Line& l = peek();
      if (l.level < level) return;
      if (l.level > level)
        expected(l, kBlockHeaders + std::string(" at nesting level ") + std::to_string(level));
      const Keyword k = keyword_of(l.content);
      if (k == Keyword::kNone || k == Keyword::kElse) return;
      out.push_back(parse_block(level));
    }
  }

  // `l` is where a block list at `level` ended with something else than a lower level.
  [[noreturn]] void reject_after_blocks(const Line& l, int level) const {
    if (l.level == level) {
      if (keyword_of(l.content) == Keyword::kElse) fail(l, "ELSE without IF");
      if (marker_of(l.content) != Marker::kNone)
        fail(l, l.content + " marker outside the predicate of a FOR or PARFOR block");
      if (starts_with_word(l.content, "FUNCTION"))
        fail(l, "FUNCTION outside the --FUNCTIONS section");
      if (looks_like_instruction(l.content))
        fail(l, "instruction outside a block (instructions belong in a GENERIC block)");
    }
    expected(l, kBlockHeaders + std::string(" at nesting level ") + std::to_string(level));
  }

  // Reads instruction lines at `level` until a block header, a marker, or another level.
  void read_instructions(int level, InstructionList& out) {
    while (!eof()) {
      const Line& l = peek();
      if (l.level < level) return;
      if (l.level > level)
        expected(l, "an instruction or " + std::string(kBlockHeaders) + " at nesting level " +
                        std::to_string(level));
      if (keyword_of(l.content) != Keyword::kNone || marker_of(l.content) != Marker::kNone) return;
      parse_instruction_line(l, out);
      ++pos_;
    }
  }

  // After the exit instructions of a block at level-1, nothing more may follow at `level`.
  void expect_block_end(int level) {
    if (eof() || peek().level < level) return;
    const Line& l = peek();
    if (marker_of(l.content) != Marker::kNone)
      fail(l, l.content +
                  " marker out of place (FROM, TO and INCR come before the child blocks "
                  "of a FOR or PARFOR block)");
    if (keyword_of(l.content) == Keyword::kElse) fail(l, "ELSE without IF");
    fail(l,
         "block after the exit instructions (instructions between child blocks belong in a "
         "GENERIC block)");
  }

  BlockPtr parse_block(int level) {
    const Line& h = peek();
    auto b = std::make_unique<Block>();
    const Keyword k = keyword_of(h.content);
    b->header = h.content;
    b->loc = {file_, h.number};
    ++pos_;
    const int inner = level + 1;
    switch (k) {
      case Keyword::kGeneric: {
        b->kind = BlockKind::kGeneric;
        read_instructions(inner, b->instructions);
        if (!eof() && peek().level == inner) {
          const Line& l = peek();
          if (marker_of(l.content) != Marker::kNone)
            fail(l, l.content + " marker inside a GENERIC block");
          fail(l, "a GENERIC block holds instructions only, not blocks");
        }
        break;
      }
      case Keyword::kIf:
      case Keyword::kWhile: {
        b->kind = k == Keyword::kIf ? BlockKind::kIf : BlockKind::kWhile;
        read_instructions(inner, b->predicate);
        parse_child_blocks(inner, b->body);
        read_instructions(inner, b->exit_instructions);
        if (k == Keyword::kIf && !eof() && peek().level == level &&
            keyword_of(peek().content) == Keyword::kElse) {
          ++pos_;
          parse_child_blocks(inner, b->else_body);
          read_instructions(inner, b->exit_instructions);
        }
        expect_block_end(inner);
        break;
      }
      case Keyword::kFor:
      case Keyword::kParfor: {
        b->kind = k == Keyword::kFor ? BlockKind::kFor : BlockKind::kParfor;
        const auto ann = annotations(h.content);
        const auto* iter = find_annotation(ann, "iter");
        if (!iter || iter->size() != 1 || iter->front().empty())
          fail(h, std::string(name_of(k)) +
                      " without [iter=...]: name the loop variable in the "
                      "header, e.g. [iter=i]");
        b->iter_var = iter->front();
        if (k == Keyword::kParfor) b->parfor = parfor_params(h, ann);
        parse_loop_predicates(*b, h, inner, name_of(k));
        parse_child_blocks(inner, b->body);
        read_instructions(inner, b->exit_instructions);
        expect_block_end(inner);
        break;
      }
      default:
        expected(h, kBlockHeaders);
    }
    return b;
  }

  // The PARFOR header's parameters (SystemDS's names and values; dml2plan prints them for
  // opt=NONE and opt=CONSTRAINED). An unknown name or value is an error naming the header.
  ParforParams parfor_params(
      const Line& h, const std::vector<std::pair<std::string, std::vector<std::string>>>& ann) {
    ParforParams p;
    auto one = [&](const std::string& key, const std::vector<std::string>& v) {
      if (v.size() != 1 || v.front().empty())
        fail(h, "PARFOR parameter '" + key + "' needs one value, e.g. [" + key + "=...]");
      return v.front();
    };
    auto pick = [&](const std::string& key, const std::string& value,
                    std::initializer_list<const char*> allowed) {
      for (const char* a : allowed)
        if (value == a) return;
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      fail(h, "PARFOR parameter " + key + "=" + value + " is not one of SystemDS's values (" +
                  list + ")");
    };
    auto integer = [&](const std::string& key, const std::string& value) {
      try {
        size_t used = 0;
        const long long x = std::stoll(value, &used);
        if (used == value.size()) return static_cast<int64_t>(x);
      } catch (const std::exception&) {
      }
      fail(h, "PARFOR parameter " + key + "=" + value + " is not an integer");
    };
    for (const auto& [key, values] : ann) {
      if (key == "iter") continue;
      const std::string v = one(key, values);
      if (key == "opt") {
        pick(key, v, {"NONE", "RULEBASED", "CONSTRAINED"});
        p.opt = v == "NONE"          ? ParforParams::Opt::kNone
                : v == "CONSTRAINED" ? ParforParams::Opt::kConstrained
                                     : ParforParams::Opt::kRuleBased;
      } else if (key == "par") {
        p.par = integer(key, v);
      } else if (key == "tasksize") {
        p.task_size = integer(key, v);
      } else if (key == "taskpartitioner") {
        using P = ParforParams::Partitioner;
        static const std::pair<const char*, P> kNames[] = {
            {"UNSPECIFIED", P::kUnspecified},      {"FIXED", P::kFixed},
            {"NAIVE", P::kNaive},                  {"STATIC", P::kStatic},
            {"FACTORING", P::kFactoring},          {"FACTORING_CMIN", P::kFactoringCmin},
            {"FACTORING_CMAX", P::kFactoringCmax}};
        pick(key, v,
             {"UNSPECIFIED", "FIXED", "NAIVE", "STATIC", "FACTORING", "FACTORING_CMIN",
              "FACTORING_CMAX"});
        for (const auto& [name, value] : kNames)
          if (v == name) p.partitioner = value;
      } else if (key == "mode") {
        pick(key, v, {"LOCAL", "REMOTE_SPARK", "REMOTE_SPARK_DP", "UNSPECIFIED"});
        p.mode = v;
      } else if (key == "resultmerge") {
        pick(key, v, {"LOCAL_MEM", "LOCAL_FILE", "LOCAL_AUTOMATIC", "REMOTE_SPARK",
                      "UNSPECIFIED"});
        p.result_merge = v;
      } else if (key == "check" || key == "datapartitioner" || key == "profile" ||
                 key == "log") {
        // compile-time matters of SystemDS (dependency check, data partitioning, logging)
      } else {
        fail(h, "unknown PARFOR parameter '" + key +
                    "' (known: iter, opt, par, taskpartitioner, tasksize, mode, resultmerge, "
                    "check, datapartitioner, profile, log)");
      }
    }
    return p;
  }

  void parse_loop_predicates(Block& b, const Line& h, int level, const char* kind) {
    InstructionList* cur = nullptr;
    Marker last = Marker::kNone;
    while (!eof() && peek().level >= level) {
      const Line& l = peek();
      if (l.level > level)
        expected(l, "an instruction, FROM, TO, INCR or " + std::string(kBlockHeaders) +
                        " at nesting level " + std::to_string(level));
      if (keyword_of(l.content) != Keyword::kNone) break;
      const Marker m = marker_of(l.content);
      if (m == Marker::kNone) {
        if (!cur)
          fail(l, std::string("predicate instruction before the FROM marker in a ") + kind +
                      " block (its lists are introduced by FROM, TO and INCR lines)");
        parse_instruction_line(l, *cur);
      } else {
        if (static_cast<int>(m) <= static_cast<int>(last))
          fail(l, l.content + " marker out of order (expected FROM, TO, then optionally INCR)");
        if (m != Marker::kFrom && last == Marker::kNone) fail(l, l.content + " marker before FROM");
        cur = m == Marker::kFrom ? &b.from : m == Marker::kTo ? &b.to : &b.incr;
        last = m;
      }
      ++pos_;
    }
    if (b.from.empty() || b.to.empty())
      fail(h, std::string(kind) +
                  " block needs FROM and TO lists (marker lines FROM, TO and "
                  "optionally INCR, each followed by its predicate instructions)");
  }

  // --- instructions ---
  void parse_instruction_line(const Line& l, InstructionList& out) {
    const inst::SourceLocation loc{file_, l.number};
    std::vector<std::string> raws;
    if (l.content.find(kOperandDelim) != std::string::npos ||
        l.content.find(kInstructionDelim) != std::string::npos) {
      raws = inst::split_keep_empty(l.content, kInstructionDelim);
    } else {
      raws.push_back(explain_to_raw(l.content));
    }
    for (const std::string& r : raws) {
      try {
        inst::InstructionText t = inst::InstructionText::parse(r, loc);
        check_plan_values(l, t);
        // A fused line as -explain prints a rewritten plan (plan_rewrites.h).
        inst::InstructionPtr fused = make_fused_instruction(t);
        out.push_back(fused ? std::move(fused) : inst::make_instruction(std::move(t)));
      } catch (const Error& e) {
        const std::string prefix = location(l.number) + ":";
        const std::string msg = starts_with(e.what(), prefix) ? e.what() : prefix + " " + e.what();
        if (dynamic_cast<const FramesNotSupported*>(&e)) {  // Note [Frames in plans]
          std::optional<inst::InstructionText> text;
          try {
            text = inst::InstructionText::parse(r, loc);
          } catch (const Error&) {
          }
          if (text) {
            out.push_back(inst::make_deferred_frame_failure(std::move(*text), msg));
            continue;
          }
        }
        if (starts_with(e.what(), prefix)) throw;
        rethrow_with_context(e, prefix + " ");
      }
    }
  }

  // Plan-text values that no instruction constructor looks at before run time: left-over
  // $-arguments (Note [Unbound plan arguments]) and integer literals beyond INT64, which would
  // otherwise print as "$7" or become 2^63-1 silently.
  void check_plan_values(const Line& l, const inst::InstructionText& t) const {
    for (const std::string& f : t.fields) {
      const std::string name = field_name(f);
      const size_t eq = name.find('=');
      const std::string value = eq == std::string::npos ? name : name.substr(eq + 1);
      if (args_.unbound_are_errors && is_arg_token(value)) unbound_argument(l, value);
      if (f.find(kTypeDelim) == std::string::npos) continue;
      inst::Operand op;
      try {
        op = inst::Operand::parse(f);
      } catch (const Error&) {
        continue;  // the instruction's constructor reports malformed operands
      }
      if (!op.literal || !op.is_scalar() ||
          (op.value_type != inst::ValueType::kINT64 && op.value_type != inst::ValueType::kINT32))
        continue;
      // Only number-looking text is checked here: `¶n¶` placeholders are patched at run time and
      // a function call's `x=1` names its parameter; the instructions judge other forms.
      const std::string text = is_number_text(op.name) ? op.name : value;
      if (!is_number_text(text)) continue;
      try {
        (void)inst::ScalarValue::from_literal(text, op.value_type);
      } catch (const ParseError& e) {
        fail(l, e.what());
      }
    }
  }

  [[noreturn]] void unbound_argument(const Line& l, const std::string& token) const {
    std::ostringstream os;
    os << "plan argument " << token << " has no value: ";
    if (std::isdigit(static_cast<unsigned char>(token[1]))) {
      if (args_.positional.empty())
        os << "no -args values were given";
      else
        os << "-args gives " << args_.positional.size() << " value(s), $1 to $"
           << args_.positional.size();
    } else
      os << "pass it with -nvargs " << token.substr(1) << "=<value>";
    fail(l, os.str());
  }

  // Every function call must name a known function with matching arguments; checked once here
  // so that a bad call fails before anything runs.
  void validate_calls(const Program& prog) const {
    for (const auto& kv : prog.functions) validate_blocks(prog, kv.second.body);
    validate_blocks(prog, prog.main);
  }
  void validate_blocks(const Program& prog, const std::vector<BlockPtr>& blocks) const {
    for (const auto& b : blocks) {
      for (const auto* list :
           {&b->instructions, &b->predicate, &b->from, &b->to, &b->incr, &b->exit_instructions})
        for (const auto& i : *list) validate_call(prog, *i);
      validate_blocks(prog, b->body);
      validate_blocks(prog, b->else_body);
    }
  }
  void validate_call(const Program& prog, const inst::Instruction& i) const {
    if (i.opcode() != "fcall") return;
    const auto& f = i.text().fields;
    if (f.size() < 5) return;  // the instruction's constructor rejects it
    const std::string key = f[0] + "::" + f[1];
    auto it = prog.functions.find(key);
    if (it == prog.functions.end())
      DMLRT_FAIL(ParseError, i.where() << ": unknown function '" << key << "'");
    const Function& fn = it->second;
    size_t nin = 0, nout = 0;
    try {
      nin = std::stoul(f[3]);
      nout = std::stoul(f[4]);
    } catch (const std::exception&) {
      return;  // the instruction's constructor rejects it
    }
    if (nin < fn.inputs.size() || nin > fn.inputs.size())
      DMLRT_FAIL(ParseError, i.where() << ": function '" << key << "' has " << fn.inputs.size()
                                       << " inputs, the call passes " << nin);
    if (nout > fn.outputs.size())
      DMLRT_FAIL(ParseError, i.where() << ": function '" << key << "' returns " << fn.outputs.size()
                                       << " values, the call binds " << nout);
    for (size_t a = 0; a < nin && 5 + a < f.size(); ++a) {
      const std::string& arg = f[5 + a];
      const size_t eq = arg.find('=');
      if (eq == std::string::npos) continue;
      const std::string name = arg.substr(0, eq);
      if (name.empty() || is_typed_raw(name)) continue;  // a positional literal holding '='
      const bool known = std::any_of(fn.inputs.begin(), fn.inputs.end(),
                                     [&](const Param& p) { return p.name == name; });
      if (!known)
        DMLRT_FAIL(ParseError,
                   i.where() << ": function '" << key << "' has no input named '" << name << "'");
    }
  }

  std::string file_;
  PlanArgs args_;  // for messages about unbound $-arguments
  std::vector<Line> lines_;
  size_t pos_ = 0;
  int last_line_ = 0;
};

}  // namespace

std::string substitute_args(const std::string& text, const PlanArgs& args) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const size_t j0 = i + 1;
    if (text[i] != '$' || j0 >= text.size()) {
      out += text[i++];
      continue;
    }
    size_t j = j0;
    const std::string* value = nullptr;
    if (std::isdigit(static_cast<unsigned char>(text[j0]))) {
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      const std::string digits = text.substr(j0, j - j0);
      const size_t n = digits.size() > 9 ? 0 : std::stoul(digits);
      if (n >= 1 && n <= args.positional.size()) value = &args.positional[n - 1];
    } else if (std::isalpha(static_cast<unsigned char>(text[j0])) || text[j0] == '_') {
      while (j < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
        ++j;
      auto it = args.named.find(text.substr(j0, j - j0));
      if (it != args.named.end()) value = &it->second;
    } else {
      out += text[i++];
      continue;
    }
    // A token without a value stays as written; the parser reports it if it matters.
    if (value)
      out += *value;
    else
      out.append(text, i, j - i);
    i = j;
  }
  return out;
}

std::string explain_to_raw(const std::string& line) {
  std::vector<std::string> tok = inst::split_keep_empty(line, " ");
  if (tok.size() < 2) return line;  // InstructionText::parse reports it
  const std::string opcode = to_lower(tok[1]);
  std::vector<std::string> fields;
  if (opcode == "createvar") {
    // Positional, never typed: the file name may hold '.' and type-like words.
    fields.assign(tok.begin() + 2, tok.end());
    // A CSV delimiter of one space prints as two empty fields ("false   true").
    if (fields.size() >= 14 && fields[4] == "csv" && fields[11].empty() && fields[12].empty() &&
        (fields[13] == "true" || fields[13] == "false")) {
      fields[11] = " ";
      fields.erase(fields.begin() + 12);
    }
  } else {
    const bool join_strings = all_operands_typed(opcode);
    std::vector<std::string> pending;  // untyped tokens since the last typed operand
    for (size_t i = 2; i < tok.size(); ++i) {
      bool is_str = false;
      std::string f = explain_operand_to_raw(tok[i], &is_str);
      if (join_strings) {
        if (!is_typed_raw(f)) {
          pending.push_back(tok[i]);
          continue;
        }
        if (is_str && !pending.empty()) {
          // A string literal with spaces: the pending tokens are its leading words.
          std::string joined;
          for (const auto& p : pending) joined += p + " ";
          f = explain_operand_to_raw(joined + tok[i]);
          pending.clear();
        }
        fields.insert(fields.end(), pending.begin(), pending.end());
        pending.clear();
      }
      fields.push_back(std::move(f));
    }
    fields.insert(fields.end(), pending.begin(), pending.end());
  }
  std::string raw = tok[0] + kOperandDelim + tok[1];
  for (const auto& f : fields) raw += kOperandDelim + f;
  return raw;
}

Program parse_plan(const std::string& text, const std::string& file, const PlanArgs& args) {
  Parser p(substitute_args(text, args), file, args);
  return p.parse();
}

Program parse_plan_file(const std::string& path, const PlanArgs& args) {
  std::error_code ec;
  DMLRT_REQUIRE(!std::filesystem::is_directory(path, ec), IoError,
                "cannot read plan file '" << path << "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  DMLRT_REQUIRE(in, IoError, "cannot read plan file '" << path << "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  DMLRT_REQUIRE(!in.bad(), IoError, "error reading plan file '" << path << "'");
  return parse_plan(ss.str(), path, args);
}

}  // namespace dmlrt::runtime
