// MPI ranks (issue #20; Note [MPI ranks] in mpi_world.cpp): `mpirun -np N dmlrt -f x.plan` runs
// the program on every rank; PARFOR iterations are spread over the ranks and their results merged
// on all of them; rank 0 alone prints and writes. The runtime library needs no MPI: the dmlrt
// executable joins the job (runtime/cli/mpi_transport.cpp, built when CMake finds MPI) and
// installs its transport here. Without one (not started by mpirun, an embedding application)
// there is one rank and every call here is a no-op.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dmlrt::runtime::mpi {

// What a joined MPI job gives the runtime (installed once, before the program runs).
struct Transport {
  int rank = 0, size = 1;
  std::function<int64_t(int64_t)> broadcast;                               // rank 0's value
  std::function<std::vector<std::string>(const std::string&)> all_gather;  // in rank order
  std::function<void(double*, size_t)> sum_all;                           // in place
  std::function<void(int)> abort;                                          // ends every rank
};
void install(Transport t);

// True when this process is one of several MPI ranks.
bool active();
int rank();
int size();

// Rank 0's value on every rank (-seed's base seed: rand with seed -1 agrees across ranks).
int64_t broadcast(int64_t value);
// Every rank's `mine`, in rank order, on every rank.
std::vector<std::string> all_gather(const std::string& mine);
// data[i] summed over every rank, in place on every rank (MPI_Allreduce with MPI_SUM); every
// rank passes the same n.
void sum_all(double* data, size_t n);
// Ends every rank (an error on one rank that the others cannot learn about); exits otherwise.
[[noreturn]] void abort(int code);

}  // namespace dmlrt::runtime::mpi
