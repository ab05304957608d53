// MPI ranks: see the header and Note [MPI ranks].
#include "runtime/mpi_world.h"

#include <algorithm>
#include <cstdlib>

#include "gpu_context/error.h"

#ifdef DMLRT_WITH_MPI
// The C API only (MPI's C++ bindings need a library of their own).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

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
//   and only rank 0 writes files (Interpreter::write_matrix / write_scalar); every rank reads.
// - randomness: rand with seed -1 draws from -seed's base seed, which rank 0 chooses for all
//   (broadcast), so every rank generates the same data.
// MPI is called from the interpreter thread only (MPI_THREAD_SERIALIZED is asked for; worker
// threads never call MPI). Values cross ranks in value_codec's bytes.
namespace {
bool g_active = false;
int g_rank = 0, g_size = 1;

bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}
}  // namespace

void init(int* argc, char*** argv) {
#ifdef DMLRT_WITH_MPI
  if (!launched_by_mpirun()) return;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) return;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_active = g_size > 1;
  if (!g_active) {
    MPI_Finalize();
    g_rank = 0;
    g_size = 1;
  }
#else
  (void)argc;
  (void)argv;
#endif
}

void finalize() {
#ifdef DMLRT_WITH_MPI
  if (g_active) MPI_Finalize();
#endif
  g_active = false;
}

void abort(int code) {
#ifdef DMLRT_WITH_MPI
  if (g_active) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

bool active() { return g_active; }
int rank() { return g_rank; }
int size() { return g_size; }

int64_t broadcast(int64_t value) {
#ifdef DMLRT_WITH_MPI
  if (g_active) {
    long long v = value;
    MPI_Bcast(&v, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    return v;
  }
#endif
  return value;
}

std::vector<std::string> all_gather(const std::string& mine) {
#ifdef DMLRT_WITH_MPI
  if (g_active) {
    long long n = static_cast<long long>(mine.size());
    std::vector<long long> sizes(static_cast<size_t>(g_size));
    MPI_Allgather(&n, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
    // In pieces of at most 1 GiB: MPI counts are ints.
    constexpr long long kPiece = 1LL << 30;
    std::vector<std::string> out(static_cast<size_t>(g_size));
    for (int r = 0; r < g_size; ++r) out[static_cast<size_t>(r)].resize(static_cast<size_t>(sizes[static_cast<size_t>(r)]));
    for (int root = 0; root < g_size; ++root) {
      std::string& buf = root == g_rank ? const_cast<std::string&>(mine) : out[static_cast<size_t>(root)];
      for (long long off = 0; off < sizes[static_cast<size_t>(root)]; off += kPiece) {
        const int len = static_cast<int>(std::min(kPiece, sizes[static_cast<size_t>(root)] - off));
        MPI_Bcast(buf.data() + off, len, MPI_BYTE, root, MPI_COMM_WORLD);
      }
    }
    out[static_cast<size_t>(g_rank)] = mine;
    return out;
  }
#endif
  return {mine};
}

}  // namespace dmlrt::runtime::mpi
