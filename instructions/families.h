// Factories of the instruction families, one per file of instructions/. The opcode table
// (opcode_table.cpp) maps every opcode to one of these; nothing registers itself.
#pragma once

#include "instructions/instruction.h"

namespace dmlrt::inst {

// variable_instructions.cpp: createvar rmvar cpvar mvvar assignvar rmfilevar write read setfilename
//                            castdts castdtm castvtd castvti castvtb
InstructionPtr make_variable(InstructionText text);
// control_instructions.cpp: print stop assert
InstructionPtr make_control(InstructionText text);
// function_call_instruction.cpp: fcall
InstructionPtr make_function_call(InstructionText text);
// datagen_instructions.cpp: rand seq
InstructionPtr make_datagen(InstructionText text);
// matmult_instructions.cpp: ba+* tsmm mmchain
InstructionPtr make_matmult(InstructionText text);
// binary_instructions.cpp: + - * / ^ %% %/% == != < > <= >= && || min max 1-* -nz (matrix-matrix
//                          with broadcasting, matrix-scalar, scalar-scalar)
InstructionPtr make_binary(InstructionText text);
// nary_instructions.cpp: n+ n* nmin nmax (matrices of one shape and scalars, or all scalars)
InstructionPtr make_nary(InstructionText text);
// ternary_instructions.cpp: ifelse +* -*
InstructionPtr make_ternary(InstructionText text);
// unary_instructions.cpp: exp log abs sqrt round floor ceil sin cos tan sinh cosh tanh asin acos
//                         atan sign sigmoid ! ^2 *2 ucumk+ ucum* ucummin ucummax ucumk+* softmax
//                         (log with a base is also built here)
InstructionPtr make_unary(InstructionText text);
// aggregate_instructions.cpp: ua+ uak+ ... uarimax uarimin nrow ncol length
InstructionPtr make_aggregate(InstructionText text);
// reorg_instructions.cpp: r' rshape rdiag rev
InstructionPtr make_reorg(InstructionText text);
// indexing_instructions.cpp: rightIndex leftIndex
InstructionPtr make_indexing(InstructionText text);
// append_instructions.cpp: append cbind rbind
InstructionPtr make_append(InstructionText text);
// solve_instruction.cpp: solve
InstructionPtr make_solve(InstructionText text);
// parameterized_instructions.cpp: replace contains rexpand groupedagg toString (name=value layout)
InstructionPtr make_parameterized(InstructionText text);
// ctable_instructions.cpp: ctable ctableexpand (table())
InstructionPtr make_ctable(InstructionText text);
// sort_instructions.cpp: rsort (order) qsort qpick (median, quantile)
InstructionPtr make_sort(InstructionText text);
// eigen_instruction.cpp: eigen (multi-return builtin, symmetric input)
InstructionPtr make_eigen(InstructionText text);
// stats_instructions.cpp: cov cm tak+* tack+*
InstructionPtr make_stats(InstructionText text);
// dnn_instructions.cpp: conv2d ... update_nesterov_x
InstructionPtr make_dnn(InstructionText text);

}  // namespace dmlrt::inst
