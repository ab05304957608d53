// The symbol table and everything an instruction needs at run time: variables, lazy reads, and the
// services that runtime/ provides (file I/O, function calls, program output, options).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "instructions/matrix_object.h"
#include "instructions/operand.h"
#include "instructions/scalar_value.h"

namespace dmlrt::mem {
class GpuSession;
struct HostSlot;
}  // namespace dmlrt::mem

namespace dmlrt::inst {

class ExecutionContext;
class Instruction;

// -gpu flags: off, -gpu (GPU where an op has a GPU implementation and its operands fit the GPU
// budget), -gpu force (GPU wherever an op has one). GPU° lines run on the GPU in every mode.
enum class GpuMode { kOff, kOn, kForce };

struct ListValue;
using ListPtr = std::shared_ptr<const ListValue>;

// A bound variable: a scalar (by value), a matrix object (shared between aliases) or a list
// (immutable, shared; see Note [List values]).
using Value = std::variant<ScalarValue, std::shared_ptr<MatrixObject>, ListPtr>;

// Note [List values]
// A DML list (list(...), named lists, the results of list indexing, append and remove) holds
// matrices, scalars and lists in order, with optional names (all or none: a named list has one
// name per entry). Lists have value semantics: every list instruction builds a new ListValue
// (SystemDS copies a list on write, ListObject.copy()), so a ListValue never changes once bound
// and aliases (cpvar, function arguments, lists inside lists) share it through ListPtr. The
// entries share their matrix objects with the variables they came from, as cpvar aliases do, and
// are safe for the same reason: an instruction's matrix output is the fresh object of its
// createvar, never an object another name (or list entry) still holds.
struct ListValue {
  std::vector<Value> items;
  std::vector<std::string> names;  // empty unless `named`; then one per item
  bool named = false;

  size_t size() const { return items.size(); }
};

// "scalar", "matrix" or "list": the kind of a bound value, for messages.
const char* kind_of(const Value& v);

// `v` with every matrix (also inside lists, recursively) in a fresh object over its host block:
// device-only data comes to the host first, on the calling thread's session. What worker threads
// hand each other (PARFOR's lists, paramserv's models and gradients), so that each thread's
// objects, and the device copies its session makes of them, are its own.
Value with_own_objects(const Value& v);

// A function's parameters, as eval needs them: input names and data types, output names.
struct FunctionSignature {
  std::vector<std::string> input_names;
  std::vector<DataType> input_types;
  std::vector<std::string> output_names;
};

// What a write instruction asks for.
struct WriteRequest {
  std::string path;
  FileFormat format;
};

// Implemented by runtime/: the things instructions cannot do from this layer.
class Services {
 public:
  virtual ~Services() = default;
  // Reads the matrix stored at `mo.file_name()` in `mo.format()`; `mo.meta()` has what createvar
  // knew (-1 = unknown).
  virtual kernels::MatrixBlock read_matrix(const MatrixObject& mo) = 0;
  // Writes through a temporary name and a rename, plus SystemDS's .mtd where it writes one.
  virtual void write_matrix(const kernels::MatrixBlock& block, const WriteRequest& req) = 0;
  virtual void write_scalar(const ScalarValue& value, const std::string& path) = 0;
  virtual ScalarValue read_scalar(const std::string& path, ValueType vt) = 0;
  // Runs the function `key` ("ns::name") with its inputs bound by parameter name; returns its
  // outputs in declaration order.
  virtual std::vector<Value> call_function(const std::string& key,
                                           const std::vector<std::string>& arg_names,
                                           std::vector<Value> args) = 0;
  // The function's declared output parameter names (for checking FCall's outputs).
  virtual std::vector<std::string> function_outputs(const std::string& key) = 0;
  // The function's parameters (eval binds list arguments by them); nullopt when the program has
  // no function `key`. Services without functions keep this default.
  virtual std::optional<FunctionSignature> function_signature(const std::string& key) {
    (void)key;
    return std::nullopt;
  }
  // Program output (print): stdout for the CLI, a buffer for the API.
  virtual std::ostream& out() = 0;
  // Runs body(w, services_w) for every w in [0, k) at the same time, on k threads, each with
  // Services of its own whose function calls may run while the others' do (paramserv's workers,
  // which wait for each other; Note [Worker threads] in runtime/interpreter.cpp). Returns when
  // all have; their print output then follows in worker order, and the error of the lowest
  // failing worker is rethrown. Services that cannot run workers keep this default, which fails.
  virtual void run_workers(int k, const std::function<void(int, Services&)>& body);
  // MPI ranks (runtime/mpi_world.h): how many processes run this program and which one this is;
  // 1 and 0 for one process.
  virtual int process_count() { return 1; }
  virtual int process_rank() { return 0; }
  // Every process's `mine` (null: nothing from that process), in rank order, on every process.
  // A collective: every process calls it, as often and in the same order. One process: {mine}.
  virtual std::vector<ListPtr> gather_lists(const ListPtr& mine) { return {mine}; }
  // The entry-by-entry sum of every process's `mine` (lists of matrices of the same names and
  // shapes; null: nothing from that process), on every process; null when no process has one. A
  // collective like gather_lists; under MPI an MPI_Allreduce. One process: mine.
  virtual ListPtr sum_lists(const ListPtr& mine) { return mine; }
  // A paramserv call finished (-stats): its workers, the server's model updates and their
  // seconds, and the call's seconds. Services without -stats keep this default.
  virtual void record_paramserv(int workers, int64_t updates, double update_seconds,
                                double seconds) {
    (void)workers;
    (void)updates;
    (void)update_seconds;
    (void)seconds;
  }
};

class Instruction;
class ExecutionContext;

// What the CUDA graph runner (runtime/cuda_graphs.cpp, Note [CUDA graphs]) learns from the
// instructions of this thread while it captures a run of them: the symbol-table names they look
// up (with the value found, null when unbound) and bind or remove, and the moment an instruction
// placed on the GPU starts to run there.
class GraphWatch {
 public:
  virtual ~GraphWatch() = default;
  virtual void read(const std::string& name, const Value* value) = 0;
  virtual void wrote(const std::string& name) = 0;
  virtual void gpu_instruction(const Instruction& i, ExecutionContext& ec) = 0;
};

inline thread_local GraphWatch* t_graph_watch = nullptr;

struct RunOptions {
  int64_t seed = -1;  // -seed: base seed for rand with seed -1 (-1 = draw a fresh one)
  // The run's GPU session (null: everything runs on the CPU) and the -gpu mode; see
  // instructions/gpu_placement.h.
  std::shared_ptr<mem::GpuSession> gpu;
  GpuMode gpu_mode = GpuMode::kOff;
};

class ExecutionContext final : public Shapes {
 public:
  ExecutionContext(Services& services, RunOptions options)
      : services_(&services), options_(options) {}

  Services& services() { return *services_; }
  const RunOptions& options() const { return options_; }

  // --- symbol table ---
  bool contains(const std::string& name) const { return find(name) != nullptr; }
  const Value* find(const std::string& name) const;
  Value& at(const std::string& name);  // throws RuntimeError when unbound
  void set(const std::string& name, Value v) {
    if (t_graph_watch != nullptr) t_graph_watch->wrote(name);
    vars_[name] = std::move(v);
  }
  // Removes the binding; returns the old value (empty optional semantics via bool).
  bool remove(const std::string& name) {
    if (t_graph_watch != nullptr) t_graph_watch->wrote(name);
    return vars_.erase(name) != 0;
  }
  // Sorted.
  std::vector<std::string> names() const;

  // --- typed access ---
  // A scalar operand: a literal's value, or the variable's value (a 1x1 matrix is not a scalar).
  ScalarValue scalar(const Operand& op);
  ScalarValue scalar(const std::string& name);
  // A matrix operand's data; reads the file on first use.
  std::shared_ptr<const kernels::MatrixBlock> matrix(const Operand& op);
  std::shared_ptr<const kernels::MatrixBlock> matrix(const std::string& name);
  // The data of a matrix object that is not bound to a name of its own (a list entry); `name`
  // names it in messages.
  std::shared_ptr<const kernels::MatrixBlock> matrix_data(MatrixObject& mo,
                                                          const std::string& name);
  // The list bound to `name` (throws when unbound or not a list).
  ListPtr list(const std::string& name);
  // The matrix object bound to `name` (throws when unbound or a scalar).
  std::shared_ptr<MatrixObject> matrix_object(const std::string& name);
  // The same without a reference-count round trip; the reference is valid until `name` is removed
  // or rebound.
  const std::shared_ptr<MatrixObject>& matrix_object_ref(const std::string& name);

  // Sets an instruction's matrix output: the object createvar made for `name` gets the data; a
  // missing one is created.
  void set_matrix(const std::string& name, kernels::MatrixBlock block);
  void set_matrix(const std::string& name, std::shared_ptr<const kernels::MatrixBlock> block);
  // Sets a scalar output, converted to the operand's value type.
  void set_scalar(const Operand& out, const ScalarValue& v);
  void set_scalar(const std::string& name, const ScalarValue& v) { set(name, v); }

  // Shapes: a matrix operand's actual dims (its metadata; the file is read first when the
  // metadata lacks them). Throws when `op` is unbound or a scalar.
  Dims dims(const Operand& op) override;

 private:
  Services* services_;
  RunOptions options_;
  // Hashed: looked up several times per instruction (Note [Allocation bookkeeping cost] in
  // memory/memory_manager.h has the per-instruction budget).
  std::unordered_map<std::string, Value> vars_;
};

}  // namespace dmlrt::inst
