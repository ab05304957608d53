// MPI ranks (issue #20; Note [MPI ranks] in mpi_world.cpp): `mpirun -np N dmlrt -f x.plan` runs
// the program on every rank; PARFOR iterations are spread over the ranks and their results merged
// on all of them; rank 0 alone prints and writes. Built when CMake finds MPI (DMLRT_WITH_MPI);
// otherwise, and when not started by mpirun, there is one rank and every call here is a no-op.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dmlrt::runtime::mpi {

// From main(), before anything else runs: joins the MPI job when the environment says mpirun
// started this process (Open MPI, MPICH/PMI, PMIx variables); with one rank, MPI stays off.
void init(int* argc, char*** argv);
// From main() at exit (also after errors: every rank reaches it, or abort() ended the job).
void finalize();
// Ends every rank (an error on one rank that the others cannot learn about).
[[noreturn]] void abort(int code);

// True when this process is one of several MPI ranks.
bool active();
int rank();
int size();

// Rank 0's value on every rank (-seed's base seed: rand with seed -1 agrees across ranks).
int64_t broadcast(int64_t value);
// Every rank's `mine`, in rank order, on every rank.
std::vector<std::string> all_gather(const std::string& mine);

}  // namespace dmlrt::runtime::mpi
