// Bytes for values crossing MPI ranks (Note [MPI ranks] in mpi_world.cpp): scalars (exact: doubles
// by their bits), matrices (dense or CSR as they are) and lists (recursively, with their names).
#pragma once

#include <string>

#include "instructions/execution_context.h"

namespace dmlrt::runtime {

// Appends `v` to `out`; a matrix object without data (an input not read yet) is read first
// through its host block (MatrixObject::block()).
void encode_value(const inst::Value& v, std::string& out);
// The value at `pos` of `in`, advancing `pos`; throws RuntimeError on bytes encode_value did not
// write.
inst::Value decode_value(const std::string& in, size_t& pos);

void encode_string(const std::string& s, std::string& out);
std::string decode_string(const std::string& in, size_t& pos);
void encode_int(int64_t x, std::string& out);
int64_t decode_int(const std::string& in, size_t& pos);

}  // namespace dmlrt::runtime
