// PLACEHOLDER: the interpreter (being written now).
#include "runtime/interpreter.h"
