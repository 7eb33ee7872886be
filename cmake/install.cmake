# `cmake --install` puts an exported CMake package, so another project can
#   find_package(attnlab REQUIRED)
#   target_link_libraries(check_my_kernel PRIVATE attnlab::properties)
#   attnlab_add_property_tests(TARGET check_my_kernel)
# and run the whole property list on its own attention kernel, one ctest per
# property (attn::prop::kernel_subject and check_kernel_main; see
# examples/own_kernel/). grader/CMakeLists.txt installs the attnlab binary,
# its harnesses, the exercises, the bundled solutions and PROTOCOL.md.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS attn attn_reference attn_properties
  EXPORT attnlabTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY
  ${PROJECT_SOURCE_DIR}/lib/include/
  ${PROJECT_SOURCE_DIR}/reference/include/
  ${PROJECT_SOURCE_DIR}/properties/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/reference/TOLERANCE.md ${PROJECT_SOURCE_DIR}/docs/ARCHITECTURE.md
  ${PROJECT_SOURCE_DIR}/docs/MANUAL.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(ATTNLAB_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/attnlab)
install(EXPORT attnlabTargets NAMESPACE attnlab:: DESTINATION ${ATTNLAB_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/attnlabConfig.cmake.in
  ${PROJECT_BINARY_DIR}/attnlabConfig.cmake
  INSTALL_DESTINATION ${ATTNLAB_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/attnlabConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/attnlabConfig.cmake ${PROJECT_BINARY_DIR}/attnlabConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/attnlabPropertyTests.cmake
  ${PROJECT_SOURCE_DIR}/cmake/attnlabDiscoverPropertyTests.cmake
  DESTINATION ${ATTNLAB_CMAKE_DIR})
# attnlab_add_property_tests in this build too.
include(${PROJECT_SOURCE_DIR}/cmake/attnlabPropertyTests.cmake)

# The example project, built against a fresh install of this build (ctest).
if(ATTNLAB_BUILD_TESTS)
  add_test(NAME example/own_kernel_against_installed_package
    COMMAND ${CMAKE_COMMAND}
      -DBUILD_DIR=${PROJECT_BINARY_DIR}
      -DSOURCE_DIR=${PROJECT_SOURCE_DIR}/examples/own_kernel
      -DWORK_DIR=${PROJECT_BINARY_DIR}/example-own-kernel
      # One ctest per kernel property (catalog.hpp, kernel_properties()), as
      # the catalogue lists them; those about the weights A are skipped:
      # my_attention returns O only.
      -DCATALOGUE_PROGRAM=$<TARGET_FILE:attnlab_kernel_catalogue>
      -DEXPECT_PREFIX=check_my_kernel.
      -P ${PROJECT_SOURCE_DIR}/cmake/run_example.cmake)
  set_tests_properties(example/own_kernel_against_installed_package PROPERTIES TIMEOUT 600)
  # Two consumers of the installed attnlab::attn, built with and without
  # -march=native (cmake/abi_consumer/): no Eigen object crosses the
  # library's interface (include/attn/abi.hpp), no definition is imposed on
  # them. And the installed prefix, stripped of debug information
  # (cmake/install_strip.cmake), holds at most 60 MiB.
  add_test(NAME lib/installed_package_consumers
    COMMAND ${CMAKE_COMMAND}
      -DBUILD_DIR=${PROJECT_BINARY_DIR}
      -DMAX_PREFIX_MIB=60
      -DSOURCE_DIR=${PROJECT_SOURCE_DIR}/cmake/abi_consumer
      -DWORK_DIR=${PROJECT_BINARY_DIR}/abi-consumers
      -P ${PROJECT_SOURCE_DIR}/cmake/run_example.cmake)
  set_tests_properties(lib/installed_package_consumers PROPERTIES TIMEOUT 600)
endif()
