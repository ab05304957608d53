# cmake -P script: install BUILD_DIR into WORK_DIR/prefix, configure and build
# SOURCE_DIR/examples/embed against it with find_package(dmlrt 0.1), run it, check the output.
foreach(v BUILD_DIR SOURCE_DIR WORK_DIR CXX_COMPILER)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_test.cmake: -D${v}=... is required")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()

set(prefix ${WORK_DIR}/prefix)
set(example_build ${WORK_DIR}/embed-build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

run_step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --config ${BUILD_TYPE})

# The package must carry the public headers only, and no headers of the internal layers.
foreach(f include/dmlrt/dmlrt.h include/dmlrt/api.h include/dmlrt/error.h include/dmlrt/matrix.h
          include/dmlrt/version.h)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
file(GLOB_RECURSE config_files ${prefix}/*/dmlrtConfig.cmake ${prefix}/*/dmlrtConfigVersion.cmake)
list(LENGTH config_files n_config)
if(NOT n_config EQUAL 2)
  message(FATAL_ERROR "dmlrtConfig.cmake / dmlrtConfigVersion.cmake not installed (found: ${config_files})")
endif()

run_step("configuring examples/embed"
         ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/embed -B ${example_build}
         -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
         -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
run_step("building examples/embed" ${CMAKE_COMMAND} --build ${example_build} --config ${BUILD_TYPE})

find_program(example embed_example PATHS ${example_build} ${example_build}/${BUILD_TYPE} NO_DEFAULT_PATH)
if(NOT example)
  message(FATAL_ERROR "embed_example was not built in ${example_build}")
endif()
run_step("running embed_example" ${example})
message(STATUS "embed_example output:\n${step_output}")

# Y = X %*% W + b: run 1 X=[1 2;3 4;5 6], W=[1;2], b=0.5; run 2 X=I(2), W=[2;3], b=-1.
foreach(expected "run 1: Y (3x1): [5.5] [11.5] [17.5]" "run 1: total = 34.5"
                 "run 2: Y (2x1): [1] [2]" "run 2: total = 3"
                 "expected error: set_scalar: 'bias' is not a declared input")
  string(FIND "${step_output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "embed_example output lacks '${expected}':\n${step_output}")
  endif()
endforeach()
