// paramserv() in LOCAL mode; see the header and Note [paramserv].
#include "instructions/paramserv_instruction.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "gpu_context/error.h"
#include "instructions/execution_context.h"
#include "kernels/cpu/binary.h"
#include "kernels/cpu/indexing.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/random.h"

namespace dmlrt::inst {

// Note [paramserv]
// SystemDS's paramserv() (ParamservBuiltinCPInstruction, LocalPSWorker, ParamServer; the facts
// with their classes are in docs/notes-paramserv-spec.md), run in this process:
// - parameters: model (list), features, labels, upd, agg, epochs required; utype ASP, freq
//   EPOCH, batchsize 64, k the thread count, scheme DISJOINT_CONTIGUOUS, nbatches 1, modelAvg
//   false, num_backup_workers 1 by default, as SystemDS's; val / val_features / val_labels
//   optional; checkpointing accepted and unused (as in SystemDS); mode LOCAL (REMOTE_SPARK runs
//   here too: dmlrt is one process; FEDERATED is refused).
// - functions are bound by parameter name: upd gets model, features, labels and hyperparams
//   (when given), returns one list (the gradients); agg gets model, gradients, hyperparams and
//   returns one list (the model); val gets model, hyperparams, val_features, val_labels and
//   returns two scalars, which SystemDS only logs (dmlrt calls it at each epoch end and drops
//   them). Lists combine by position.
// - data: worker w's rows by the scheme (DISJOINT_CONTIGUOUS: parts of ceil(n/k) rows;
//   DISJOINT_ROUND_ROBIN: rows r with r % k == w; DISJOINT_RANDOM: parts of one permutation;
//   OVERLAP_RESHUFFLE: a permutation of all rows each). Batch j is rows [j bs, min((j+1) bs, n_w))
//   of the part.
// - workers, per freq: BATCH pulls the model, computes the gradients of a batch and pushes them;
//   EPOCH pulls once per epoch, applies agg locally after every batch but the last and pushes the
//   sum of the epoch's gradients; NBATCHES pulls every nbatches batches, applies agg locally after
//   every batch and pushes the sum every nbatches batches (and after the last). With modelAvg the
//   worker pushes its locally updated model instead.
// - server: BSP waits for every worker's push, sums the gradient lists and calls agg once; ASP
//   calls agg for each push and answers that worker; SBP proceeds once all but
//   num_backup_workers have pushed and drops the next push of those that had not. modelAvg
//   averages the pushed models (1/k, SBP 1/(k - backups)) instead of calling agg.
// Where dmlrt departs from SystemDS 3.4, on purpose:
// - BSP sums the workers' gradients in worker order, not in arrival order, so results do not
//   depend on timing (SystemDS's differ in the last bits from run to run with k >= 3).
// - A worker whose part has fewer batches leaves the BSP/SBP rounds when it is done; the others
//   go on (SystemDS waits for it for ever). DISJOINT_CONTIGUOUS keeps a last part of one row
//   (SystemDS drops that row) and a scheme that yields fewer parts than k runs fewer workers.
// - freq=EPOCH works (SystemDS 3.4 fails or hangs on it: a copy of the gradients races with their
//   clean-up).
// - the random schemes use the `seed` parameter, else the run's seed (-seed), else a fresh one
//   (SystemDS never seeds them in local mode).
// - the model's matrices are left as they were (SystemDS frees them, deleting a file read into
//   the list).
// Note [paramserv over MPI ranks]
// Under mpirun (Note [MPI ranks] in runtime/mpi_world.cpp) every rank reaches the paramserv call
// with the same inputs. BSP spreads the k workers over the ranks in contiguous blocks (worker w on
// rank w * ranks / k); each round, every rank adds its workers' pushes in worker order, the ranks
// add those sums over the ranks (Services::sum_lists: one MPI_Allreduce of the cells, dense),
// and every rank applies agg to the same total, so every rank holds the same model without a
// server process. The sum's rounding can differ from one process's strict worker order
// ((a+b)+(c+d) against ((a+b)+c)+d; with more than two ranks, MPI's reduction order decides).
// Rounds are the busiest worker's pushes; a rank whose workers are done joins the remaining
// rounds with nothing to add. ASP and SBP depend on timing and would give the ranks different
// models, so they run on rank 0, which hands its result to the others. The gradients travel
// through the host (a GPU worker's push is a host block already); NCCL between the ranks' GPUs
// is not done (it needs several GPUs: issue #21).
// Matrices cross threads as host blocks in fresh matrix objects (with_own_objects): each worker
// reads its own objects, so on a GPU run each uploads into its own session and no device copy is
// ever shared between sessions.

namespace {

using kernels::MatrixBlock;
using BlockPtr = std::shared_ptr<const MatrixBlock>;

enum class UpdateType { kBsp, kAsp, kSbp };
enum class Freq { kBatch, kEpoch, kNBatches };

ListPtr share_host(const ListPtr& l) { return std::get<ListPtr>(with_own_objects(Value(l))); }

BlockPtr block_of(const Value& v, const char* what, size_t i) {
  const auto* mo = std::get_if<std::shared_ptr<MatrixObject>>(&v);
  DMLRT_REQUIRE(mo != nullptr, RuntimeError,
                "paramserv: entry " << i + 1 << " of the " << what << " list is a " << kind_of(v)
                                    << "; gradients and models combine matrices only");
  return (*mo)->block();
}

// a + b entry by entry (SystemDS's accrueGradients), or a * scale when b is null.
ListPtr combine(const ListPtr& a, const ListPtr& b, double scale, const char* what) {
  auto out = std::make_shared<ListValue>(*a);
  DMLRT_REQUIRE(!b || b->size() == a->size(), RuntimeError,
                "paramserv: " << what << " lists of " << a->size() << " and " << b->size()
                              << " entries cannot be added");
  for (size_t i = 0; i < out->items.size(); ++i) {
    const BlockPtr x = block_of(a->items[i], what, i);
    auto mo = std::make_shared<MatrixObject>();
    if (b) {
      const BlockPtr y = block_of(b->items[i], what, i);
      DMLRT_REQUIRE(x->rows() == y->rows() && x->cols() == y->cols(), RuntimeError,
                    "paramserv: entry " << i + 1 << " of the " << what << " lists is " << x->rows()
                                        << "x" << x->cols() << " in one and " << y->rows() << "x"
                                        << y->cols() << " in the other");
      mo->set_block(kernels::cpu::binary_matrix_matrix(kernels::cpu::BinaryOp::kPlus, *x, *y));
    } else {
      mo->set_block(
          kernels::cpu::binary_matrix_scalar(kernels::cpu::BinaryOp::kMult, *x, scale, false));
    }
    out->items[i] = std::move(mo);
  }
  return out;
}

// Rows `rows` (0-based, in that order) of `m`.
MatrixBlock gather_rows(const MatrixBlock& m, const std::vector<int64_t>& rows) {
  const MatrixBlock d = m.to_dense();
  std::vector<double> v(static_cast<size_t>(rows.size()) * static_cast<size_t>(m.cols()));
  for (size_t r = 0; r < rows.size(); ++r)
    for (int64_t c = 0; c < m.cols(); ++c)
      v[r * static_cast<size_t>(m.cols()) + static_cast<size_t>(c)] = d.get(rows[r], c);
  MatrixBlock out = MatrixBlock::dense(static_cast<int64_t>(rows.size()), m.cols(), std::move(v));
  out.examine_format();
  return out;
}

struct Part {
  BlockPtr features, labels;
};

std::vector<int64_t> permutation(int64_t n, uint64_t seed) {
  const MatrixBlock p = kernels::cpu::sample_column(n, n, false, seed);
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    out[static_cast<size_t>(i)] = static_cast<int64_t>(p.get(i, 0)) - 1;
  return out;
}

std::vector<Part> partition(const std::string& scheme, const BlockPtr& x, const BlockPtr& y, int k,
                            uint64_t seed) {
  const int64_t n = x->rows();
  std::vector<Part> parts;
  auto add_range = [&](int64_t r0, int64_t r1) {
    parts.push_back(
        {std::make_shared<const MatrixBlock>(kernels::cpu::slice(*x, r0, r1, 0, x->cols())),
         std::make_shared<const MatrixBlock>(kernels::cpu::slice(*y, r0, r1, 0, y->cols()))});
  };
  auto add_rows = [&](const std::vector<int64_t>& rows) {
    parts.push_back({std::make_shared<const MatrixBlock>(gather_rows(*x, rows)),
                     std::make_shared<const MatrixBlock>(gather_rows(*y, rows))});
  };
  if (scheme == "DISJOINT_CONTIGUOUS") {
    if (k == 1) return {{x, y}};
    const int64_t step = (n + k - 1) / k;
    for (int64_t b = 0; b < n; b += step) add_range(b, std::min(n, b + step));
  } else if (scheme == "DISJOINT_ROUND_ROBIN") {
    for (int w = 0; w < k && w < n; ++w) {
      std::vector<int64_t> rows;
      for (int64_t r = w; r < n; r += k) rows.push_back(r);
      add_rows(rows);
    }
  } else if (scheme == "DISJOINT_RANDOM") {
    const std::vector<int64_t> p = permutation(n, seed);
    const int64_t step = (n + k - 1) / k;
    for (int64_t b = 0; b < n; b += step)
      add_rows(std::vector<int64_t>(p.begin() + b, p.begin() + std::min(n, b + step)));
  } else {  // OVERLAP_RESHUFFLE
    for (int w = 0; w < k; ++w) add_rows(permutation(n, seed + static_cast<uint64_t>(w)));
  }
  return parts;
}

struct ServerSetup {
  UpdateType utype;
  Freq freq;
  bool model_avg;
  int backups;
  int64_t batches_per_epoch;
  std::string agg, val;
  std::vector<std::string> agg_inputs, val_inputs;
  std::map<std::string, Value> fixed;  // hyperparams, val_features, val_labels
};

// What the workers pull from and push to: the server of one process (Server) or of BSP rounds
// across MPI ranks (RankBspServer).
class PsServer {
 public:
  explicit PsServer(ServerSetup s) : s_(std::move(s)) {}
  virtual ~PsServer() = default;
  // The model for worker w (fresh objects), once the server has one for it.
  virtual ListPtr pull(int w) = 0;
  // Worker w's gradients (or, with modelAvg, its model); `sv` runs agg and val on w's thread.
  virtual void push(int w, const ListPtr& value, Services& sv) = 0;
  // Worker w has pushed for the last time: rounds go on without it.
  virtual void leave(int w, Services& sv) = 0;
  virtual void abort() = 0;
  virtual ListPtr result() const = 0;
  // The server's model updates so far (agg calls or model averages) and their seconds, for -stats.
  int64_t updates() const { return updates_; }
  double update_seconds() const { return update_seconds_; }

  // agg(model, gradients, hyperparams) on `sv`; the new model as host blocks. The arguments are
  // fresh objects: the server's model goes to the agg calls of different workers' threads (and,
  // on a GPU run, sessions), which must not share device copies.
  ListPtr call_agg_with(const ListPtr& model, const ListPtr& gradients, Services& sv) const {
    std::vector<Value> args;
    for (const std::string& p : s_.agg_inputs) {
      if (p == "model")
        args.emplace_back(share_host(model));
      else if (p == "gradients")
        args.emplace_back(share_host(gradients));
      else
        args.push_back(with_own_objects(s_.fixed.at(p)));
    }
    std::vector<Value> out = sv.call_function(s_.agg, s_.agg_inputs, std::move(args));
    DMLRT_REQUIRE(
        out.size() == 1 && std::holds_alternative<ListPtr>(out[0]), RuntimeError,
        "paramserv: the aggregation function " << s_.agg << " must return one list (the model)");
    return share_host(std::get<ListPtr>(out[0]));
  }

 protected:
  // val(model, hyperparams, val_features, val_labels): SystemDS logs its loss and accuracy only.
  void validate(const ListPtr& model, Services& sv) const {
    if (s_.val.empty()) return;
    std::vector<Value> args;
    for (const std::string& p : s_.val_inputs)
      args.push_back(p == "model" ? Value(share_host(model)) : with_own_objects(s_.fixed.at(p)));
    const std::vector<Value> out = sv.call_function(s_.val, s_.val_inputs, std::move(args));
    DMLRT_REQUIRE(out.size() == 2 && std::holds_alternative<ScalarValue>(out[0]) &&
                      std::holds_alternative<ScalarValue>(out[1]),
                  RuntimeError,
                  "paramserv: the validation function " << s_.val
                                                        << " must return two scalars (loss, "
                                                           "accuracy)");
  }

  // The server's update of `model` with `pushed` (agg, or the average itself), timed; under the
  // server's lock.
  ListPtr server_update(const ListPtr& model, const ListPtr& pushed, Services& sv) {
    const auto t0 = std::chrono::steady_clock::now();
    ListPtr out = s_.model_avg ? pushed : call_agg_with(model, pushed, sv);
    update_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++updates_;
    return out;
  }

  ServerSetup s_;
  int64_t updates_ = 0;
  double update_seconds_ = 0.0;
};

// The server and the workers' pulls and pushes of one process (SystemDS's LocalParamServer).
class Server final : public PsServer {
 public:
  Server(ServerSetup s, ListPtr model, int k)
      : PsServer(std::move(s)),
        model_(std::move(model)),
        queue_(static_cast<size_t>(k)),
        pushed_(static_cast<size_t>(k)),
        finished_(static_cast<size_t>(k), false),
        done_(static_cast<size_t>(k), false),
        straggling_(static_cast<size_t>(k), 0) {
    for (ListPtr& q : queue_) q = model_;  // the initial broadcast
  }

  ListPtr pull(int w) override {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return aborted_ || queue_[static_cast<size_t>(w)]; });
    DMLRT_REQUIRE(!aborted_, RuntimeError, "paramserv: stopped because another worker failed");
    ListPtr l = std::move(queue_[static_cast<size_t>(w)]);
    queue_[static_cast<size_t>(w)] = nullptr;
    lock.unlock();
    return share_host(l);
  }

  void push(int w, const ListPtr& value, Services& sv) override {
    const ListPtr v = share_host(value);
    std::lock_guard<std::mutex> lock(m_);
    DMLRT_REQUIRE(!aborted_, RuntimeError, "paramserv: stopped because another worker failed");
    const size_t i = static_cast<size_t>(w);
    if (s_.utype == UpdateType::kAsp) {
      DMLRT_REQUIRE(!s_.model_avg, NotSupported,
                    "paramserv: modelAvg=TRUE with utype=ASP (SystemDS does not implement it)");
      model_ = server_update(model_, v, sv);
      ++pushes_;
      const int64_t k = static_cast<int64_t>(queue_.size());
      if ((s_.freq == Freq::kEpoch && pushes_ % k == 0) ||
          (s_.freq == Freq::kBatch && pushes_ % (k * s_.batches_per_epoch) == 0) ||
          s_.freq == Freq::kNBatches)
        validate(model_, sv);
      queue_[i] = model_;
    } else {
      if (s_.utype == UpdateType::kSbp && straggling_[i] > 0) {
        --straggling_[i];  // a straggler's late push is dropped
        queue_[i] = model_;
      } else {
        finished_[i] = true;
        pushed_[i] = v;
        maybe_complete_round(sv);
      }
    }
    cv_.notify_all();
  }

  void leave(int w, Services& sv) override {
    std::lock_guard<std::mutex> lock(m_);
    done_[static_cast<size_t>(w)] = true;
    if (!aborted_ && s_.utype != UpdateType::kAsp) maybe_complete_round(sv);
    cv_.notify_all();
  }

  void abort() override {
    std::lock_guard<std::mutex> lock(m_);
    aborted_ = true;
    cv_.notify_all();
  }

  ListPtr result() const override { return model_; }

 private:
  void maybe_complete_round(Services& sv) {
    int active = 0, pushed = 0;
    for (size_t i = 0; i < finished_.size(); ++i) {
      if (finished_[i]) ++pushed;
      if (!done_[i] || finished_[i]) ++active;
    }
    if (pushed == 0) return;
    const int k = static_cast<int>(finished_.size());
    const int needed = s_.utype == UpdateType::kSbp ? std::max(1, active - s_.backups) : active;
    if (pushed < needed) return;
    if (s_.utype == UpdateType::kSbp)
      for (size_t i = 0; i < finished_.size(); ++i)
        if (!finished_[i] && !done_[i]) ++straggling_[i];
    // The pushed lists in worker order (Note [paramserv]: not arrival order).
    ListPtr acc;
    for (size_t i = 0; i < finished_.size(); ++i) {
      if (!finished_[i]) continue;
      ListPtr v = pushed_[i];
      if (s_.model_avg)
        v = combine(v, nullptr, 1.0 / (s_.utype == UpdateType::kSbp ? k - s_.backups : k), "model");
      acc = acc ? combine(acc, v, 1.0, s_.model_avg ? "model" : "gradient") : v;
    }
    model_ = server_update(model_, acc, sv);
    ++rounds_;
    if (s_.freq != Freq::kBatch || rounds_ % s_.batches_per_epoch == 0) validate(model_, sv);
    for (size_t i = 0; i < finished_.size(); ++i) {
      if (finished_[i]) queue_[i] = model_;
      finished_[i] = false;
      pushed_[i] = nullptr;
    }
  }

  std::mutex m_;
  std::condition_variable cv_;
  ListPtr model_;
  std::vector<ListPtr> queue_;   // per worker: a model to pull (SystemDS's one-slot queues)
  std::vector<ListPtr> pushed_;  // per worker: its push of this round
  std::vector<bool> finished_;   // pushed in this round
  std::vector<bool> done_;       // left
  std::vector<int> straggling_;  // SBP: pushes still to drop
  int64_t rounds_ = 0, pushes_ = 0;
  bool aborted_ = false;
};

// BSP rounds across MPI ranks (Note [paramserv over MPI ranks]): this process's workers push to
// it; the thread whose push completes the local round adds the local pushes in worker order,
// sums the ranks' sums (Services::sum_lists) and applies agg, which every rank does alike, so
// every rank holds the same model. `rounds` is the number of
// rounds of the busiest worker of any rank; finish() runs the rounds this rank has no pushes for.
class RankBspServer final : public PsServer {
 public:
  RankBspServer(ServerSetup s, ListPtr model, std::vector<int> global_ids, int k_total,
                int64_t rounds)
      : PsServer(std::move(s)),
        model_(std::move(model)),
        ids_(std::move(global_ids)),
        pushed_(ids_.size()),
        active_(static_cast<int>(ids_.size())),
        k_total_(k_total),
        rounds_total_(rounds) {}

  ListPtr pull(int w) override {
    (void)w;
    std::lock_guard<std::mutex> lock(m_);
    DMLRT_REQUIRE(!aborted_, RuntimeError, "paramserv: stopped because another worker failed");
    return share_host(model_);
  }

  void push(int w, const ListPtr& value, Services& sv) override {
    const ListPtr v = share_host(value);
    std::unique_lock<std::mutex> lock(m_);
    DMLRT_REQUIRE(!aborted_, RuntimeError, "paramserv: stopped because another worker failed");
    pushed_[static_cast<size_t>(w)] = v;
    const int64_t gen = rounds_done_;
    if (++arrived_ == active_) {
      complete_round(sv);
    } else {
      cv_.wait(lock, [&] { return aborted_ || rounds_done_ != gen; });
      DMLRT_REQUIRE(!aborted_, RuntimeError, "paramserv: stopped because another worker failed");
    }
  }

  void leave(int w, Services& sv) override {
    (void)w;
    std::lock_guard<std::mutex> lock(m_);
    --active_;
    if (!aborted_ && active_ > 0 && arrived_ == active_) complete_round(sv);
  }

  void abort() override {
    std::lock_guard<std::mutex> lock(m_);
    aborted_ = true;
    cv_.notify_all();
  }

  ListPtr result() const override { return model_; }

  // The rounds left once this rank's workers are done (its pushes: none).
  void finish(Services& sv) {
    std::lock_guard<std::mutex> lock(m_);
    while (rounds_done_ < rounds_total_) complete_round(sv);
  }

 private:
  // Under m_ (the rank's other workers wait for it anyway).
  void complete_round(Services& sv) {
    DMLRT_REQUIRE(rounds_done_ < rounds_total_, RuntimeError,
                  "paramserv: more BSP rounds than the " << rounds_total_ << " planned");
    ListPtr local;
    for (size_t i = 0; i < pushed_.size(); ++i) {  // worker order (ids_ ascend)
      if (!pushed_[i]) continue;
      ListPtr v = pushed_[i];
      if (s_.model_avg) v = combine(v, nullptr, 1.0 / k_total_, "model");
      local = local ? combine(local, v, 1.0, s_.model_avg ? "model" : "gradient") : v;
      pushed_[i] = nullptr;
    }
    const ListPtr total = sv.sum_lists(local);  // every rank's sum (MPI_Allreduce)
    DMLRT_REQUIRE(total != nullptr, RuntimeError, "paramserv: a BSP round without pushes");
    model_ = server_update(model_, total, sv);
    ++rounds_done_;
    if (s_.freq != Freq::kBatch || rounds_done_ % s_.batches_per_epoch == 0) validate(model_, sv);
    arrived_ = 0;
    cv_.notify_all();
  }

  std::mutex m_;
  std::condition_variable cv_;
  ListPtr model_;
  std::vector<int> ids_;         // global worker ids of this rank's workers
  std::vector<ListPtr> pushed_;  // per local worker: its push of this round
  int arrived_ = 0, active_;
  int k_total_;
  int64_t rounds_total_, rounds_done_ = 0;
  bool aborted_ = false;
};

}  // namespace

ParamservInstruction::ParamservInstruction(InstructionText t) : Instruction(std::move(t)) {
  DMLRT_REQUIRE(num_fields() >= 2, ParseError,
                where() << ": paramserv expects name=value fields and an output");
  params_ = named_fields(0, num_fields() - 1);
  out_ = operand(num_fields() - 1);
  static const std::set<std::string> kKnown = {"model",
                                               "features",
                                               "labels",
                                               "val_features",
                                               "val_labels",
                                               "upd",
                                               "agg",
                                               "val",
                                               "mode",
                                               "utype",
                                               "freq",
                                               "epochs",
                                               "batchsize",
                                               "k",
                                               "scheme",
                                               "hyperparams",
                                               "checkpointing",
                                               "seed",
                                               "nbatches",
                                               "modelAvg",
                                               "num_backup_workers"};
  for (const auto& [name, value] : params_)
    DMLRT_REQUIRE(kKnown.count(name) != 0, ParseError,
                  where() << ": paramserv: unknown parameter '" << name << "'");
  for (const char* p : {"model", "features", "labels", "upd", "agg", "epochs"})
    DMLRT_REQUIRE(params_.count(p) != 0, ParseError,
                  where() << ": paramserv: the parameter '" << p << "' is required");
}

std::string ParamservInstruction::text_of(ExecutionContext& ec, const std::string& name,
                                          const std::string& dflt) const {
  const auto it = params_.find(name);
  if (it == params_.end()) return dflt;
  if (ec.contains(it->second)) return ec.scalar(it->second).to_string();
  return it->second;
}

int64_t ParamservInstruction::integer(ExecutionContext& ec, const std::string& name,
                                      int64_t dflt) const {
  const std::string v = text_of(ec, name, "");
  if (v.empty()) return dflt;
  try {
    size_t used = 0;
    const double d = std::stod(v, &used);
    if (used == v.size() && d == static_cast<double>(static_cast<int64_t>(d)))
      return static_cast<int64_t>(d);
  } catch (const std::exception&) {
  }
  DMLRT_FAIL(RuntimeError, where() << ": paramserv: " << name << "=" << v << " is not an integer");
}

void ParamservInstruction::run_cpu(ExecutionContext& ec) {
  const auto started = std::chrono::steady_clock::now();
  const std::string where_ = where() + ": paramserv: ";
  auto choose = [&](const std::string& name, const std::string& dflt,
                    std::initializer_list<const char*> allowed) {
    const std::string v = text_of(ec, name, dflt);
    for (const char* a : allowed)
      if (v == a) return v;
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    DMLRT_FAIL(RuntimeError, where_ << name << "='" << v << "' is not supported (" << list << ")");
  };
  const std::string mode = text_of(ec, "mode", "LOCAL");
  DMLRT_REQUIRE(
      mode == "LOCAL" || mode == "REMOTE_SPARK", NotSupported,
      where_ << "mode '" << mode << "' is not supported (dmlrt runs LOCAL and REMOTE_SPARK here)");
  const std::string utype_s = choose("utype", "ASP", {"BSP", "ASP", "SBP"});
  const std::string freq_s = choose("freq", "EPOCH", {"BATCH", "EPOCH", "NBATCHES"});
  const std::string scheme = choose(
      "scheme", "DISJOINT_CONTIGUOUS",
      {"DISJOINT_CONTIGUOUS", "DISJOINT_ROUND_ROBIN", "DISJOINT_RANDOM", "OVERLAP_RESHUFFLE"});
  const int64_t epochs = integer(ec, "epochs", 0);
  DMLRT_REQUIRE(epochs > 0, RuntimeError, where_ << "epochs=" << epochs << " must be positive");
  const int64_t batch = integer(ec, "batchsize", 64);
  DMLRT_REQUIRE(batch > 0, RuntimeError, where_ << "batchsize=" << batch << " must be positive");
  const int64_t nbatches = integer(ec, "nbatches", 1);
  DMLRT_REQUIRE(nbatches > 0, RuntimeError,
                where_ << "nbatches=" << nbatches << " must be positive");
  int64_t k = integer(ec, "k", kernels::cpu::num_threads());
  DMLRT_REQUIRE(k > 0 && k <= 1024, RuntimeError, where_ << "k=" << k << " workers (1..1024)");
  std::string avg = text_of(ec, "modelAvg", "false");
  std::transform(avg.begin(), avg.end(), avg.begin(), ::tolower);
  const bool model_avg = avg == "true";
  const int64_t backups = integer(ec, "num_backup_workers", 1);
  const UpdateType utype = utype_s == "BSP"   ? UpdateType::kBsp
                           : utype_s == "ASP" ? UpdateType::kAsp
                                              : UpdateType::kSbp;
  const Freq freq = freq_s == "BATCH"   ? Freq::kBatch
                    : freq_s == "EPOCH" ? Freq::kEpoch
                                        : Freq::kNBatches;
  DMLRT_REQUIRE(utype != UpdateType::kSbp || (backups >= 0 && backups < k), RuntimeError,
                where_ << "invalid number of backup workers (with #workers=" << k
                       << "): #backup-workers=" << backups);

  // Inputs, read here once (the workers share the host blocks).
  auto matrix_param = [&](const char* name) -> BlockPtr {
    const std::string& var = params_.at(name);
    std::shared_ptr<MatrixObject> mo = ec.matrix_object(var);
    return ec.matrix_data(*mo, var);
  };
  const std::function<void(const Value&)> read_all = [&](const Value& v) {
    if (const auto* mo = std::get_if<std::shared_ptr<MatrixObject>>(&v)) {
      if (!(*mo)->has_block()) ec.matrix_data(**mo, "paramserv model");
    } else if (const auto* l = std::get_if<ListPtr>(&v)) {
      for (const Value& item : (*l)->items) read_all(item);
    }
  };
  const ListPtr model0 = ec.list(params_.at("model"));
  read_all(Value(model0));
  const BlockPtr features = matrix_param("features");
  const BlockPtr labels = matrix_param("labels");
  DMLRT_REQUIRE(features->rows() == labels->rows(), RuntimeError,
                where_ << "features has " << features->rows() << " rows and labels "
                       << labels->rows() << "; they must have one row per example");
  ServerSetup setup{utype, freq, model_avg, static_cast<int>(backups), 1, "", "", {}, {}, {}};
  if (params_.count("hyperparams")) {
    const ListPtr h = ec.list(params_.at("hyperparams"));
    read_all(Value(h));
    setup.fixed["hyperparams"] = share_host(h);
  }

  // The functions and their inputs, bound by name.
  Services& sv = ec.services();
  auto signature = [&](const char* param, const std::set<std::string>& allowed,
                       const std::set<std::string>& required, size_t outputs) {
    const std::string key = text_of(ec, param, "");
    const std::optional<FunctionSignature> sig = sv.function_signature(key);
    DMLRT_REQUIRE(sig.has_value(), RuntimeError,
                  where_ << param << "='" << key
                         << "': no such function in the plan (name it by its full key, e.g. "
                            "\".defaultNS::gradients\")");
    for (const std::string& r : required) {
      bool found = false;
      for (const std::string& in : sig->input_names) found = found || in == r;
      DMLRT_REQUIRE(found, RuntimeError,
                    where_ << "the function " << key << " needs an input named '" << r << "'");
    }
    for (const std::string& in : sig->input_names)
      DMLRT_REQUIRE(
          allowed.count(in) != 0 && (in != "hyperparams" || setup.fixed.count(in)), RuntimeError,
          where_ << "the function " << key << " has an input '" << in
                 << "' paramserv cannot bind (it binds "
                 << (std::string(param) == "upd"   ? "model, features, labels, hyperparams"
                     : std::string(param) == "agg" ? "model, gradients, hyperparams"
                                                   : "model, hyperparams, val_features, val_labels")
                 << (setup.fixed.count("hyperparams") ? "" : "; no hyperparams given") << ")");
    DMLRT_REQUIRE(sig->output_names.size() == outputs, RuntimeError,
                  where_ << "the function " << key << " must have " << outputs
                         << (outputs == 1 ? " output (a list)" : " outputs (loss, accuracy)")
                         << ", it has " << sig->output_names.size());
    return std::make_pair(key, sig->input_names);
  };
  const auto [upd, upd_inputs] = signature("upd", {"model", "features", "labels", "hyperparams"},
                                           {"model", "features", "labels"}, 1);
  std::tie(setup.agg, setup.agg_inputs) =
      signature("agg", {"model", "gradients", "hyperparams"}, {"model", "gradients"}, 1);
  if (params_.count("val") && params_.count("val_features") && params_.count("val_labels")) {
    setup.fixed["val_features"] =
        with_own_objects(Value(ec.matrix_object(params_.at("val_features"))));
    setup.fixed["val_labels"] = with_own_objects(Value(ec.matrix_object(params_.at("val_labels"))));
    std::tie(setup.val, setup.val_inputs) =
        signature("val", {"model", "hyperparams", "val_features", "val_labels"},
                  {"model", "val_features", "val_labels"}, 2);
  }

  // Data of each worker.
  int64_t seed = integer(ec, "seed", -1);
  if (seed < 0) seed = ec.options().seed;
  if (seed < 0) seed = static_cast<int64_t>(std::random_device{}() >> 1);
  const std::vector<Part> parts =
      partition(scheme, features, labels, static_cast<int>(k), static_cast<uint64_t>(seed));
  const int workers = static_cast<int>(parts.size());
  DMLRT_REQUIRE(workers > 0, RuntimeError, where_ << "features has no rows");
  setup.batches_per_epoch =
      std::max<int64_t>(1, ((features->rows() + k - 1) / k + batch - 1) / batch);

  const std::map<std::string, Value> fixed = setup.fixed;
  // Under MPI (Note [paramserv over MPI ranks]): BSP spreads the workers over the ranks; the
  // other update types run on rank 0, which hands the result to the others.
  const int ranks = sv.process_count(), me = sv.process_rank();
  const bool over_ranks = ranks > 1 && utype == UpdateType::kBsp;
  std::vector<int> ids;  // the global workers this process runs
  for (int w = 0; w < workers; ++w)
    if (!over_ranks || static_cast<int64_t>(w) * ranks / workers == me) ids.push_back(w);
  if (ranks > 1 && !over_ranks && me != 0) ids.clear();
  auto pushes_of = [&](int w) {
    const int64_t b = (parts[static_cast<size_t>(w)].features->rows() + batch - 1) / batch;
    return freq == Freq::kBatch   ? epochs * b
           : freq == Freq::kEpoch ? epochs
                                  : epochs * ((b + nbatches - 1) / nbatches);
  };
  int64_t rounds = 0;
  for (int w = 0; w < workers; ++w) rounds = std::max(rounds, pushes_of(w));
  std::unique_ptr<PsServer> owned;
  RankBspServer* rank_server = nullptr;
  if (over_ranks) {
    auto r =
        std::make_unique<RankBspServer>(std::move(setup), share_host(model0), ids, workers, rounds);
    rank_server = r.get();
    owned = std::move(r);
  } else {
    owned = std::make_unique<Server>(std::move(setup), share_host(model0),
                                     static_cast<int>(ids.size()));
  }
  PsServer& server = *owned;
  std::mutex error_mutex;
  std::exception_ptr first_error;  // the failure that stopped the others
  if (!ids.empty())
    ec.services().run_workers(static_cast<int>(ids.size()), [&](int w, Services& wsv) {
      const int gw = ids[static_cast<size_t>(w)];  // the global worker id
      const Part& part = parts[static_cast<size_t>(gw)];
      const int64_t n = part.features->rows();
      const int64_t batches = (n + batch - 1) / batch;
      int64_t epoch = 0, batch_no = 0;  // where the worker is, for its error message
      auto gradients = [&](const ListPtr& model, int64_t j) {
        batch_no = j;
        const int64_t r0 = j * batch, r1 = std::min(n, r0 + batch);
        std::vector<Value> args;
        for (const std::string& p : upd_inputs) {
          if (p == "model") {
            args.emplace_back(model);
          } else if (p == "features" || p == "labels") {
            const MatrixBlock& src = p == "features" ? *part.features : *part.labels;
            auto mo = std::make_shared<MatrixObject>();
            mo->set_block(kernels::cpu::slice(src, r0, r1, 0, src.cols()));
            args.emplace_back(std::move(mo));
          } else {
            args.push_back(with_own_objects(fixed.at(p)));
          }
        }
        std::vector<Value> out = wsv.call_function(upd, upd_inputs, std::move(args));
        DMLRT_REQUIRE(
            out.size() == 1 && std::holds_alternative<ListPtr>(out[0]), RuntimeError,
            "paramserv: the update function " << upd << " must return one list (the gradients)");
        return share_host(std::get<ListPtr>(out[0]));
      };
      try {
        if (freq == Freq::kBatch) {
          for (int64_t e = 0; e < epochs; ++e)
            for (int64_t j = 0; j < batches; ++j) {
              epoch = e;
              const ListPtr model = server.pull(w);
              const ListPtr g = gradients(model, j);
              server.push(w, model_avg ? server.call_agg_with(model, g, wsv) : g, wsv);
            }
        } else if (freq == Freq::kEpoch) {
          for (int64_t e = 0; e < epochs; ++e) {
            epoch = e;
            ListPtr model = server.pull(w), acc;
            for (int64_t j = 0; j < batches; ++j) {
              const ListPtr g = gradients(model, j);
              if (!model_avg) acc = acc ? combine(acc, g, 1.0, "gradient") : g;
              if (j < batches - 1 || model_avg) model = server.call_agg_with(model, g, wsv);
            }
            server.push(w, model_avg ? model : acc, wsv);
          }
        } else {
          ListPtr model, acc;
          for (int64_t e = 0; e < epochs; ++e)
            for (int64_t j = 0; j < batches; ++j) {
              epoch = e;
              if (j % nbatches == 0) model = server.pull(w);
              const ListPtr g = gradients(model, j);
              acc = acc ? combine(acc, g, 1.0, "gradient") : g;
              model = server.call_agg_with(model, g, wsv);
              if (j % nbatches == nbatches - 1 || j == batches - 1) {
                server.push(w, model_avg ? model : acc, wsv);
                acc = nullptr;
              }
            }
        }
        server.leave(w, wsv);
      } catch (const std::exception& e) {
        // The worker, epoch and batch in front of the message (the first failure only: the
        // others then stop with "another worker failed").
        std::exception_ptr err;
        try {
          rethrow_with_context(e, where_ + "worker " + std::to_string(gw + 1) + " of " +
                                      std::to_string(workers) + ", epoch " +
                                      std::to_string(epoch + 1) + ", batch " +
                                      std::to_string(batch_no + 1) + ": ");
        } catch (...) {
          err = std::current_exception();
        }
        {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (!first_error) first_error = err;
        }
        server.abort();
      }
    });
  if (first_error) std::rethrow_exception(first_error);
  ListPtr result = server.result();
  if (rank_server) {
    rank_server->finish(sv);
    result = rank_server->result();
  } else if (ranks > 1) {
    result = sv.gather_lists(me == 0 ? result : nullptr)[0];  // rank 0's, on every rank
  }
  ec.set(out_.name, result);
  sv.record_paramserv(
      static_cast<int>(ids.size()), server.updates(), server.update_seconds(),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

}  // namespace dmlrt::inst
