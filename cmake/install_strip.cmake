# The installed libraries, harness archives and the attnlab binary lose their
# debug information at `cmake --install` (strip --strip-debug keeps the symbol
# tables, so the archives still link): a user gets the build's optimised code
# (-O2 -DNDEBUG) and not the 300 MB or so of DWARF a RelWithDebInfo build
# carries (scripts/build configures without -g; a RelWithDebInfo build tree
# keeps it for debugging). Included at the end of the
# top-level CMakeLists.txt so that it runs after every install rule; the
# installed prefix is measured by ctest lib/installed_package_consumers
# (at most 60 MiB, cmake/run_example.cmake).
if(NOT CMAKE_STRIP)
  message(STATUS "no strip program: the installed files keep their debug information")
  return()
endif()
set(_attnlab_stripped)
foreach(_target attn attn_reference attn_properties)
  list(APPEND _attnlab_stripped "${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:${_target}>")
endforeach()
set(_attnlab_harness_dir "")
if(TARGET attnlab)
  list(APPEND _attnlab_stripped "${CMAKE_INSTALL_BINDIR}/$<TARGET_FILE_NAME:attnlab>")
  set(_attnlab_harness_dir "${ATTNLAB_INSTALL_HARNESS_DIR}")  # the C++ harnesses (grader/)
endif()
install(CODE "
  set(_prefix \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
  set(_files ${_attnlab_stripped})
  if(NOT \"${_attnlab_harness_dir}\" STREQUAL \"\")
    file(GLOB _harnesses RELATIVE \"\${_prefix}\" \"\${_prefix}/${_attnlab_harness_dir}/*.a\")
    list(APPEND _files \${_harnesses})
  endif()
  foreach(_file IN LISTS _files)
    set(_path \"\${_prefix}/\${_file}\")
    execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug \"\${_path}\" RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR \"strip --strip-debug failed (\${_rc}) on \${_path}\")
    endif()
  endforeach()
  message(STATUS \"Stripped debug information: \${_files}\")")
