# Fails if an object of attention_tiled's kernel for ISA (lib/src/tiled/)
# defines a symbol other than its entry points run_<ISA> and Eigen's
# renamed namespace attn_eigen_<ISA>: any other global or weak symbol
# (a std:: template, say) compiled with wide vectors could replace the
# baseline copy of the rest of the program at link time.
# Usage: cmake -DNM=nm -DISA=avx512 -DOBJECTS=a.o;b.o -P check_kernel_symbols.cmake
foreach(obj IN LISTS OBJECTS)
  execute_process(COMMAND ${NM} --defined-only ${obj} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${obj}")
  endif()
  string(REPLACE "\n" ";" lines "${out}")
  set(bad "")
  set(entry_points 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^[0-9a-fA-F]* ([A-Za-z]) (.+)$")
      set(kind ${CMAKE_MATCH_1})
      set(name ${CMAKE_MATCH_2})
      if(NOT kind MATCHES "^[TWVDBRuiV]$")
        continue()  # local symbols (lower case t, d, b, r ...) stay in the object
      endif()
      if(name MATCHES "run_${ISA}")
        math(EXPR entry_points "${entry_points} + 1")
      elseif(name MATCHES "attn_eigen_${ISA}" OR name MATCHES "^DW\\.ref\\.")
        # Eigen renamed, or a DWARF reference to the same personality/typeinfo
      else()
        list(APPEND bad "${kind} ${name}")
      endif()
    endif()
  endforeach()
  if(bad)
    string(REPLACE ";" "\n  " bad "${bad}")
    message(FATAL_ERROR "${obj}: symbols that could be merged across instruction sets:\n  ${bad}")
  endif()
  if(NOT entry_points EQUAL 2)
    message(FATAL_ERROR "${obj}: expected run_${ISA} for float and double, found ${entry_points}")
  endif()
  message(STATUS "${obj}: only run_${ISA} and Eigen as attn_eigen_${ISA}")
endforeach()
