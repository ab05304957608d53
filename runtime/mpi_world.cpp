// MPI ranks: see the header and Note [MPI ranks].
#include "runtime/mpi_world.h"

#include <cstdlib>
#include <utility>

namespace dmlrt::runtime::mpi {

// Note [MPI ranks]
// Under `mpirun -np N dmlrt -f x.plan ...` every rank runs the whole program, as SPMD: the same
// instructions on the same inputs give the same values everywhere, so straight-line code needs no
// communication. Three things keep the ranks one program:
// - PARFOR (Interpreter::run_parfor): the loop's tasks are cut for all ranks' workers together;
//   rank r runs its share (a contiguous block of the rule-based tasks, or every N-th task of a
//   partitioner's queue) on its own worker threads and merges them locally; then every rank sends
//   its results, the output of its tasks and its first failure to every other (all_gather) and
//   all merge the same way, in rank order: a result cell one rank changed takes its value, cells
//   several changed add their increments (Note [Parallel PARFOR]), everything else is as the rank
//   that ran the last iteration left it. The error of the lowest failing iteration is raised on
//   every rank.
// - output: only rank 0 prints (the CLI discards other ranks' program output; their -stats too),
//   and only rank 0 writes files (Interpreter::write_matrix / write_scalar), except inside a
//   PARFOR body, whose iterations each run on one rank: there the rank that runs it writes.
//   Every rank reads; ranks do not wait for rank 0's writes.
// - randomness: rand with seed -1 draws from -seed's base seed, which rank 0 chooses for all
//   (broadcast), so every rank generates the same data.
// MPI is called from the interpreter thread, and from paramserv's worker threads one at a time
// (MPI_THREAD_SERIALIZED is asked for). Values cross ranks in value_codec's bytes. The MPI calls
// live in the dmlrt executable (runtime/cli/mpi_transport.cpp), which installs them here.
namespace {
Transport& transport() {
  static Transport t;
  return t;
}
}  // namespace

void install(Transport t) { transport() = std::move(t); }

bool active() { return transport().size > 1; }
int rank() { return transport().rank; }
int size() { return transport().size; }

int64_t broadcast(int64_t value) { return active() ? transport().broadcast(value) : value; }

std::vector<std::string> all_gather(const std::string& mine) {
  return active() ? transport().all_gather(mine) : std::vector<std::string>{mine};
}

void sum_all(double* data, size_t n) {
  if (active()) transport().sum_all(data, n);
}

void abort(int code) {
  if (active() && transport().abort) transport().abort(code);
  std::exit(code);
}

}  // namespace dmlrt::runtime::mpi
