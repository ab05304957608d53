// Joining an MPI job from the dmlrt executable (Note [MPI ranks] in runtime/mpi_world.cpp): when
// mpirun started this process and the build found MPI (DMLRT_WITH_MPI), join_mpi_job initialises
// MPI and installs the transport of runtime/mpi_world.h; leave_mpi_job finalises it.
#pragma once

namespace dmlrt::cli {

void join_mpi_job(int* argc, char*** argv);
void leave_mpi_job();

}  // namespace dmlrt::cli
