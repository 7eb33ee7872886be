# Fails if the library archive LIBRARY (libattn.a) defines or needs a symbol
# of namespace Eigen (it is compiled with Eigen's namespace renamed, so that
# the linker can merge none of its Eigen instantiations with a user's, built
# with other flags), or defines a symbol directly in namespace attn other
# than its compiled interface (attn::raw, include/attn/abi.hpp), its typed
# errors, attention_tiled_kernel and what names the renamed Eigen: an inline
# Eigen wrapper (causal_mask, ...) or a class holding Eigen objects defined
# there under a name without the renamed Eigen would share its name with
# the user's own copy.
# Usage: cmake -DNM=nm -DLIBRARY=libattn.a -P check_library_symbols.cmake
cmake_minimum_required(VERSION 3.22)
execute_process(COMMAND ${NM} -C ${LIBRARY} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIBRARY}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(allowed core detail raw ShapeError FullyMaskedRowError NonFiniteInputError shape_text
    attention_tiled_kernel)
set(eigen "")
set(outside "")
set(raw_entry_points 0)
set(renamed 0)
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^[0-9a-fA-F]* *([A-Za-z]) (.+)$")
    continue()
  endif()
  set(kind ${CMAKE_MATCH_1})
  set(name ${CMAKE_MATCH_2})
  if(name MATCHES "(^|[^A-Za-z0-9_])Eigen::")
    list(APPEND eigen "${kind} ${name}")
  endif()
  if(name MATCHES "attn_eigen_lib::")
    math(EXPR renamed "${renamed} + 1")
  endif()
  if(NOT kind MATCHES "^[TWVDBR]$")
    continue()  # undefined, or local to its object
  endif()
  string(REGEX REPLACE "^(typeinfo name for|typeinfo for|vtable for|VTT for|guard variable for) "
         "" bare "${name}")
  if(bare MATCHES "^attn::raw::")
    math(EXPR raw_entry_points "${raw_entry_points} + 1")
  endif()
  # A symbol that names the renamed Eigen (AttentionResultOf<attn_eigen_lib::
  # Matrix<...>>, ...) cannot be the user's; one that does not (an inline
  # wrapper: a return type is not in the name) could be.
  if(bare MATCHES "^attn::([A-Za-z_0-9]+)" AND NOT CMAKE_MATCH_1 IN_LIST allowed
     AND NOT bare MATCHES "attn_eigen_lib::")
    list(APPEND outside "${kind} ${name}")
  endif()
endforeach()
if(eigen)
  list(LENGTH eigen n)
  list(SUBLIST eigen 0 20 eigen)
  string(REPLACE ";" "\n  " eigen "${eigen}")
  message(FATAL_ERROR "${LIBRARY}: ${n} symbols of namespace Eigen, e.g.:\n  ${eigen}")
endif()
if(outside)
  string(REPLACE ";" "\n  " outside "${outside}")
  message(FATAL_ERROR "${LIBRARY}: symbols of namespace attn outside its compiled interface:\n  ${outside}")
endif()
if(raw_entry_points EQUAL 0 OR renamed EQUAL 0)
  message(FATAL_ERROR "${LIBRARY}: ${raw_entry_points} attn::raw entry points and ${renamed} "
                      "symbols of the renamed Eigen (attn_eigen_lib): is this libattn?")
endif()
message(STATUS "${LIBRARY}: no Eigen symbol; ${raw_entry_points} attn::raw entry points")
