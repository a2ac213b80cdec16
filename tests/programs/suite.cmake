# suite.cmake — wv_add_program_suite(): one CTest test per (program, variant) of a suite's programs.txt.
# A suite is a folder of whole CUDA programs with programs.txt, golden/ and optionally expect.txt (lib.sh says
# what each holds): tests/programs and tests/apps. Each test runs run_one.sh, which builds the variant with nvcc
# (skipped, exit 77, where nvcc is missing), runs it under warpvm and compares with the suite's golden/
# (skipped, exit 77, while no golden is recorded).
#
#   wv_add_program_suite(SUITE_DIR PREFIX LABEL WARPVM [VAR=VALUE...])
# adds tests PREFIX.NAME.VARIANT labelled LABEL and PREFIX-NAME (plus LABEL-refused for the builds expect.txt
# says warpvm must refuse); the builds go to CMAKE_CURRENT_BINARY_DIR/bin. WARPVM is the warpvm executable.
# VAR=VALUE: the tests' environment (WARPVM_THREADS=2). Tests of one build hold a lock on it, so two sets of
# tests of a suite share its builds.
set(WV_SUITE_SCRIPTS ${CMAKE_CURRENT_LIST_DIR})

function(wv_add_program_suite suite_dir prefix label warpvm)
  find_program(WV_BASH bash REQUIRED)
  set(programs_txt ${suite_dir}/programs.txt)
  set(expect_txt ${suite_dir}/expect.txt)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${programs_txt})

  # The programs warpvm must refuse (kind `error` in expect.txt).
  set(refused "")
  if(EXISTS ${expect_txt})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${expect_txt})
    file(STRINGS ${expect_txt} expect_lines REGEX "^[A-Za-z0-9_]+[ \t]+error[ \t]")
    foreach(line IN LISTS expect_lines)
      string(REGEX MATCH "^[^ \t]+" name "${line}")
      list(APPEND refused ${name})
    endforeach()
  endif()

  file(STRINGS ${programs_txt} program_lines REGEX "^[A-Za-z0-9_]")
  foreach(line IN LISTS program_lines)
    if(NOT line MATCHES "^([^ \t]+)[ \t]+([^ \t]+)")
      continue()
    endif()
    set(name ${CMAKE_MATCH_1})
    string(REPLACE "," ";" variants "${CMAKE_MATCH_2}")
    set(labels "${label};${prefix}-${name}")
    if(name IN_LIST refused)
      list(APPEND labels ${label}-refused)
    endif()
    foreach(variant IN LISTS variants)
      add_test(NAME ${prefix}.${name}.${variant}
               COMMAND ${WV_BASH} ${WV_SUITE_SCRIPTS}/run_one.sh ${warpvm} ${suite_dir}
                       ${CMAKE_CURRENT_BINARY_DIR}/bin ${name} ${variant})
      set_tests_properties(${prefix}.${name}.${variant} PROPERTIES
                           LABELS "${labels}" SKIP_RETURN_CODE 77 TIMEOUT 300
                           RESOURCE_LOCK "${suite_dir}/${name}.${variant}")
      if(ARGN)
        set_tests_properties(${prefix}.${name}.${variant} PROPERTIES ENVIRONMENT "${ARGN}")
      endif()
    endforeach()
  endforeach()
endfunction()
