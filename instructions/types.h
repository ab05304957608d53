// Data types, value types and execution types of SystemDS instruction strings.
#pragma once

#include <string>

namespace dmlrt::inst {

enum class DataType { kMatrix, kScalar, kFrame, kList, kTensor, kUnknown };
enum class ValueType { kFP64, kFP32, kINT64, kINT32, kBoolean, kString, kUnknown };
enum class ExecType { kCP, kCPFile, kGPU, kSpark, kFed, kOOC };

// Exact SystemDS enum names ("MATRIX", "FP64", ...); DOUBLE and INT are read as FP64 and INT64.
// Unknown names throw ParseError.
DataType parse_data_type(const std::string& s);
ValueType parse_value_type(const std::string& s);
ExecType parse_exec_type(const std::string& s);
bool is_data_type_name(const std::string& s);
bool is_value_type_name(const std::string& s);

const char* name_of(DataType t);
const char* name_of(ValueType t);
const char* name_of(ExecType t);

inline bool is_integer(ValueType t) { return t == ValueType::kINT64 || t == ValueType::kINT32; }
inline bool is_floating(ValueType t) { return t == ValueType::kFP64 || t == ValueType::kFP32; }
inline bool is_numeric(ValueType t) { return is_integer(t) || is_floating(t) || t == ValueType::kBoolean; }

}  // namespace dmlrt::inst
