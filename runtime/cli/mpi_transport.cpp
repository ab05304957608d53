// The MPI calls of MPI ranks; see mpi_transport.h and Note [MPI ranks].
#include "runtime/cli/mpi_transport.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/mpi_world.h"

#ifdef DMLRT_WITH_MPI
// The C API only (MPI's C++ bindings need a library of their own).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace dmlrt::cli {
namespace {
bool g_joined = false;

bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

#ifdef DMLRT_WITH_MPI
std::vector<std::string> all_gather(const std::string& mine, int rank, int size) {
  long long n = static_cast<long long>(mine.size());
  std::vector<long long> sizes(static_cast<size_t>(size));
  MPI_Allgather(&n, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
  std::vector<std::string> out(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) out[static_cast<size_t>(r)] = r == rank ? mine : std::string();
  // One broadcast per rank, in pieces of at most 1 GiB (MPI counts are ints).
  constexpr long long kPiece = 1LL << 30;
  for (int root = 0; root < size; ++root) {
    std::string& buf = out[static_cast<size_t>(root)];
    buf.resize(static_cast<size_t>(sizes[static_cast<size_t>(root)]));
    for (long long off = 0; off < sizes[static_cast<size_t>(root)]; off += kPiece) {
      const int len = static_cast<int>(std::min(kPiece, sizes[static_cast<size_t>(root)] - off));
      MPI_Bcast(buf.data() + off, len, MPI_BYTE, root, MPI_COMM_WORLD);
    }
  }
  return out;
}
#endif
}  // namespace

void join_mpi_job(int* argc, char*** argv) {
#ifdef DMLRT_WITH_MPI
  if (!launched_by_mpirun()) return;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) return;
  g_joined = true;
  runtime::mpi::Transport t;
  MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t.size);
  const int rank = t.rank, size = t.size;
  t.broadcast = [](int64_t value) {
    long long v = value;
    MPI_Bcast(&v, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    return static_cast<int64_t>(v);
  };
  t.all_gather = [rank, size](const std::string& mine) { return all_gather(mine, rank, size); };
  t.sum_all = [](double* data, size_t n) {
    constexpr size_t kPiece = size_t{1} << 27;  // doubles per call (MPI counts are ints)
    for (size_t off = 0; off < n; off += kPiece) {
      const int len = static_cast<int>(std::min(kPiece, n - off));
      MPI_Allreduce(MPI_IN_PLACE, data + off, len, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
  };
  t.abort = [](int code) { MPI_Abort(MPI_COMM_WORLD, code); };
  runtime::mpi::install(std::move(t));
#else
  (void)argc;
  (void)argv;
#endif
}

void leave_mpi_job() {
#ifdef DMLRT_WITH_MPI
  if (g_joined) MPI_Finalize();
#endif
  g_joined = false;
}

}  // namespace dmlrt::cli
