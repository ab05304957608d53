// Name tables for the enums of types.h.
#include "instructions/types.h"

#include "gpu_context/error.h"

namespace dmlrt::inst {

DataType parse_data_type(const std::string& s) {
  if (s == "MATRIX") return DataType::kMatrix;
  if (s == "SCALAR") return DataType::kScalar;
  // Frames (string and mixed-type tables) are a later issue: a FUNCTION header may name a frame
  // parameter (a call with a frame fails where the frame is made), operands and createvar reject
  // the type themselves (FramesNotSupported).
  if (s == "FRAME") return DataType::kFrame;
  if (s == "LIST") return DataType::kList;
  if (s == "TENSOR") return DataType::kTensor;
  if (s == "UNKNOWN") return DataType::kUnknown;
  DMLRT_FAIL(ParseError, "unknown data type '" << s
                             << "' (expected MATRIX, SCALAR, FRAME, LIST, TENSOR or UNKNOWN)");
}

ValueType parse_value_type(const std::string& s) {
  if (s == "FP64" || s == "DOUBLE") return ValueType::kFP64;
  if (s == "FP32" || s == "FLOAT") return ValueType::kFP32;
  if (s == "INT64" || s == "INT") return ValueType::kINT64;
  if (s == "INT32") return ValueType::kINT32;
  if (s == "BOOLEAN") return ValueType::kBoolean;
  if (s == "STRING") return ValueType::kString;
  if (s == "UNKNOWN") return ValueType::kUnknown;
  DMLRT_FAIL(ParseError, "unknown value type '"
                             << s << "' (expected FP64, FP32, INT64, INT32, BOOLEAN or STRING)");
}

ExecType parse_exec_type(const std::string& s) {
  if (s == "CP") return ExecType::kCP;
  if (s == "CP_FILE") return ExecType::kCPFile;
  if (s == "GPU") return ExecType::kGPU;
  if (s == "SPARK") return ExecType::kSpark;
  if (s == "FED") return ExecType::kFed;
  if (s == "OOC") return ExecType::kOOC;
  DMLRT_FAIL(ParseError, "unknown execution type '" << s
                             << "' (expected CP, CP_FILE, GPU, SPARK, FED or OOC)");
}

bool is_data_type_name(const std::string& s) {
  return s == "MATRIX" || s == "SCALAR" || s == "FRAME" || s == "LIST" || s == "TENSOR" ||
         s == "UNKNOWN";
}

bool is_value_type_name(const std::string& s) {
  return s == "FP64" || s == "DOUBLE" || s == "FP32" || s == "FLOAT" || s == "INT64" ||
         s == "INT" || s == "INT32" || s == "BOOLEAN" || s == "STRING" || s == "UNKNOWN";
}

const char* name_of(DataType t) {
  switch (t) {
    case DataType::kMatrix: return "MATRIX";
    case DataType::kScalar: return "SCALAR";
    case DataType::kFrame: return "FRAME";
    case DataType::kList: return "LIST";
    case DataType::kTensor: return "TENSOR";
    case DataType::kUnknown: return "UNKNOWN";
  }
  return "UNKNOWN";
}

const char* name_of(ValueType t) {
  switch (t) {
    case ValueType::kFP64: return "FP64";
    case ValueType::kFP32: return "FP32";
    case ValueType::kINT64: return "INT64";
    case ValueType::kINT32: return "INT32";
    case ValueType::kBoolean: return "BOOLEAN";
    case ValueType::kString: return "STRING";
    case ValueType::kUnknown: return "UNKNOWN";
  }
  return "UNKNOWN";
}

const char* name_of(ExecType t) {
  switch (t) {
    case ExecType::kCP: return "CP";
    case ExecType::kCPFile: return "CP_FILE";
    case ExecType::kGPU: return "GPU";
    case ExecType::kSpark: return "SPARK";
    case ExecType::kFed: return "FED";
    case ExecType::kOOC: return "OOC";
  }
  return "CP";
}

}  // namespace dmlrt::inst
