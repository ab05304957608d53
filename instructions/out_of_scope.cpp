// The out-of-scope opcode table (out_of_scope.h) and its message.
#include "instructions/out_of_scope.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <utility>

#include "gpu_context/error.h"

namespace dmlrt::inst {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Keep in step with tests/conformance/opcodes/out_of_scope.tsv, which says why each group is out.
const std::vector<OutOfScopeOpcode> kOutOfScope = {
    // Spark-only
    {"bcumoff*", "Spark-only"},
    {"bcumoff+*", "Spark-only"},
    {"bcumoffk+", "Spark-only"},
    {"bcumoffmax", "Spark-only"},
    {"bcumoffmin", "Spark-only"},
    {"binuaggchain", "Spark-only"},
    {"broadcast", "Spark-only"},
    {"browcumoffk+", "Spark-only"},
    {"chkpoint", "Spark-only"},
    {"chkpoint_e", "Spark-only"},
    {"cpmm", "Spark-only"},
    {"csvrblk", "Spark-only"},
    {"galignedappend", "Spark-only"},
    {"gappend", "Spark-only"},
    {"libsvmrblk", "Spark-only"},
    {"local", "Spark-only"},
    {"map!=", "Spark-only"},
    {"map%%", "Spark-only"},
    {"map%/%", "Spark-only"},
    {"map&&", "Spark-only"},
    {"map*", "Spark-only"},
    {"map+", "Spark-only"},
    {"map+*", "Spark-only"},
    {"map-", "Spark-only"},
    {"map-*", "Spark-only"},
    {"map/", "Spark-only"},
    {"map1-*", "Spark-only"},
    {"map<", "Spark-only"},
    {"map<=", "Spark-only"},
    {"map==", "Spark-only"},
    {"map>", "Spark-only"},
    {"map>=", "Spark-only"},
    {"mapLeftIndex", "Spark-only"},
    {"map^", "Spark-only"},
    {"mapbitwAnd", "Spark-only"},
    {"mapbitwOr", "Spark-only"},
    {"mapbitwShiftL", "Spark-only"},
    {"mapbitwShiftR", "Spark-only"},
    {"mapbitwXor", "Spark-only"},
    {"mapdropInvalidLength", "Spark-only"},
    {"mapgroupedagg", "Spark-only"},
    {"mapmax", "Spark-only"},
    {"mapmin", "Spark-only"},
    {"mapmm", "Spark-only"},
    {"mapmmchain", "Spark-only"},
    {"mappend", "Spark-only"},
    {"mapwcemm", "Spark-only"},
    {"mapwdivmm", "Spark-only"},
    {"mapwsigmoid", "Spark-only"},
    {"mapwsloss", "Spark-only"},
    {"mapwumm", "Spark-only"},
    {"mapxor", "Spark-only"},
    {"map||", "Spark-only"},
    {"partition", "Spark-only"},
    {"pmapmm", "Spark-only"},
    {"rappend", "Spark-only"},
    {"rblk", "Spark-only"},
    {"redwcemm", "Spark-only"},
    {"redwdivmm", "Spark-only"},
    {"redwsigmoid", "Spark-only"},
    {"redwsloss", "Spark-only"},
    {"redwumm", "Spark-only"},
    {"rmm", "Spark-only"},
    {"trigremote", "Spark-only"},
    {"tsmm2", "Spark-only"},
    {"uarck+", "Spark-only"},
    {"ucumac*", "Spark-only"},
    {"ucumac+*", "Spark-only"},
    {"ucumack+", "Spark-only"},
    {"ucumacmax", "Spark-only"},
    {"ucumacmin", "Spark-only"},
    {"zipmm", "Spark-only"},
    // federated
    {"fedinit", "federated"},
    // compression
    {"compress", "compression"},
    {"decompress", "compression"},
    {"quantize_compress", "compression"},
    // lineage
    {"_evict", "lineage"},
    {"autoDiff", "lineage"},
    {"lineage", "lineage"},
    // code generation
    {"spoof", "code generation"},
    // frame
    {"_map", "frame"},
    {"applySchema", "frame"},
    {"cast_as_frame", "frame"},
    {"castdtf", "frame"},
    {"colnames", "frame"},
    {"detectSchema", "frame"},
    {"dropInvalidLength", "frame"},
    {"dropInvalidType", "frame"},
    {"frame", "frame"},
    {"freplicate", "frame"},
    {"get_categorical_mask", "frame"},
    {"tokenize", "frame"},
    {"typeOf", "frame"},
    {"transformapply", "frame"},
    {"transformcolmap", "frame"},
    {"transformdecode", "frame"},
    {"transformencode", "frame"},
    {"transformmeta", "frame"},
    {"valueSwap", "frame"},
    // out-of-core
    {"tee", "out-of-core"},
    // tensor
    {"sql", "tensor"},
    // legacy: in SystemDS 3.4's Opcodes, but its compiler never emits it nor its runtime parses it
    {"attachfiletovar", "legacy"},
};

}  // namespace

const std::vector<OutOfScopeOpcode>& out_of_scope_opcodes() { return kOutOfScope; }

const OutOfScopeOpcode* find_out_of_scope(const std::string& opcode) {
  static const auto* idx = [] {
    auto* m = new std::unordered_map<std::string, const OutOfScopeOpcode*>();
    for (const auto& e : kOutOfScope) (*m)[lower(e.opcode)] = &e;
    return m;
  }();
  auto it = idx->find(lower(opcode));
  return it == idx->end() ? nullptr : it->second;
}

std::string out_of_scope_message(const OutOfScopeOpcode& e) {
  const std::string reason = e.reason;
  const bool vowel = std::string("aeiouAEIOU").find(reason[0]) != std::string::npos;
  std::string s = std::string(e.opcode) + " is " + (vowel ? "an " : "a ") + reason +
                  " instruction; dmlrt runs singlenode CP and GPU plans";
  if (reason == "frame") s += " (frames are not supported yet)";
  return s;
}

namespace {

// Note [Frames in plans]: fails with the parse-time message when run.
class DeferredFrameFailure final : public Instruction {
 public:
  DeferredFrameFailure(InstructionText t, std::string message)
      : Instruction(std::move(t)), message_(std::move(message)) {}

 private:
  void run_cpu(ExecutionContext&) override { throw FramesNotSupported(message_); }
  std::string message_;
};

}  // namespace

InstructionPtr make_deferred_frame_failure(InstructionText text, std::string message) {
  return std::make_unique<DeferredFrameFailure>(std::move(text), std::move(message));
}

}  // namespace dmlrt::inst
