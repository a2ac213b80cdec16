# tests/fuzz/flags.cmake — compile flags of a fuzzing build (included by the top-level CMakeLists.txt
# before any target, so the library, the CUDA runtime and the harnesses all get them).
#   WV_FUZZ=ON                 clang's -fsanitize=fuzzer-no-link,address,undefined: coverage-guided
#                              fuzzing under ASan/UBSan (tests/fuzz/run.sh builds this in build-fuzz)
#   WV_FUZZ_COVERAGE=ON too    source-based line coverage instead of the sanitizers (run.sh --coverage,
#                              build-fuzz-cov): the harnesses replay a corpus and llvm-cov reports
option(WV_FUZZ "Build the libFuzzer harnesses of tests/fuzz (needs clang)" OFF)
option(WV_FUZZ_COVERAGE "With WV_FUZZ: instrument for llvm-cov line coverage instead of ASan/UBSan" OFF)
if(NOT WV_FUZZ)
  return()
endif()
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "WV_FUZZ needs clang (libFuzzer): configure with CC=clang-14")
endif()
set(_c "$<COMPILE_LANGUAGE:C>")
if(WV_FUZZ_COVERAGE)
  add_compile_options("$<${_c}:-fsanitize=fuzzer-no-link>" "$<${_c}:-fprofile-instr-generate>"
                      "$<${_c}:-fcoverage-mapping>")
  add_link_options(-fprofile-instr-generate -fcoverage-mapping)
else()
  add_compile_options("$<${_c}:-fsanitize=fuzzer-no-link,address,undefined>" "$<${_c}:-fno-omit-frame-pointer>"
                      "$<${_c}:-fno-sanitize-recover=undefined>")
  add_link_options(-fsanitize=address,undefined)
endif()
