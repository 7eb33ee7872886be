# attnlab_add_property_tests(TARGET <target> [PROPERTIES <id>...] [CASES <n>] [SEED <s>]
#                            [FULLY_FORBIDDEN error|nan|zeros])
#
# Registers one ctest per attnlab property, named <target>.<property id>,
# each running the check program <target> (a main() that calls
# attn::prop::check_kernel_main, attn/prop/check_kernel.hpp) with
# `--property <id>`, so `ctest --output-junit` lists each property. A
# property that does not apply to the kernel (the ones about the weights A,
# for a kernel returning O only) exits 77 and shows as skipped
# (SKIP_RETURN_CODE).
#
# The list is the program's own: after each build of <target>, it is run
# with --list (the catalogue's properties that apply to its kernel) and the
# tests are written to a file ctest reads (TEST_INCLUDE_FILES), as
# gtest_discover_tests does. PROPERTIES keeps only the ids given; an id the
# program does not list fails the build. CASES and SEED are passed on
# (--cases, --seed); without CASES the program's default holds (100 cases,
# scaled by the environment variable ATTNLAB_CASES_SCALE when ctest runs).
# FULLY_FORBIDDEN is the kernel's documented answer for a query row with
# every key forbidden (--fully-forbidden; default error, the text's rule).
#
# Shipped in the installed package (find_package(attnlab) includes it) and
# used in this build too.
set(_ATTNLAB_PROPERTY_TESTS_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/attnlabDiscoverPropertyTests.cmake)

function(attnlab_add_property_tests)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "TARGET;CASES;SEED;FULLY_FORBIDDEN" "PROPERTIES")
  if(NOT arg_TARGET)
    message(FATAL_ERROR "attnlab_add_property_tests: TARGET <target> is required")
  endif()
  if(NOT TARGET ${arg_TARGET})
    message(FATAL_ERROR "attnlab_add_property_tests: ${arg_TARGET} is not a target")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "attnlab_add_property_tests: unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  # Lists travel to the script joined with ',' (a ';' would split the argument).
  set(extra)
  if(DEFINED arg_CASES)
    list(APPEND extra --cases ${arg_CASES})
  endif()
  if(DEFINED arg_SEED)
    list(APPEND extra --seed ${arg_SEED})
  endif()
  if(DEFINED arg_FULLY_FORBIDDEN)
    list(APPEND extra --fully-forbidden ${arg_FULLY_FORBIDDEN})
  endif()
  list(JOIN extra "," extra)
  list(JOIN arg_PROPERTIES "," only)
  set(dir ${CMAKE_CURRENT_BINARY_DIR})
  set(tests_file ${dir}/${arg_TARGET}_attnlab_properties.cmake)
  set(include_file ${dir}/${arg_TARGET}_attnlab_include.cmake)
  add_custom_command(TARGET ${arg_TARGET} POST_BUILD
    COMMAND ${CMAKE_COMMAND}
      -D "EXECUTABLE=$<TARGET_FILE:${arg_TARGET}>"
      -D "TARGET=${arg_TARGET}"
      -D "WORKING_DIRECTORY=${dir}"
      -D "ONLY=${only}"
      -D "EXTRA_ARGS=${extra}"
      -D "OUTPUT=${tests_file}"
      -P ${_ATTNLAB_PROPERTY_TESTS_SCRIPT}
    VERBATIM)
  # Until the program is built, one failing test says so.
  file(WRITE ${include_file}
    "if(EXISTS \"${tests_file}\")\n"
    "  include(\"${tests_file}\")\n"
    "else()\n"
    "  add_test(${arg_TARGET}_NOT_BUILT ${arg_TARGET}_NOT_BUILT)\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()
