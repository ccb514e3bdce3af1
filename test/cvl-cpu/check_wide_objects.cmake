# Fails when an object of cvl-cpu compiled for a wider instruction set (src/simd/*_avx2.cpp,
# *_avx512.cpp) defines global code outside cvl::cpu::simd: weak functions (inline, template) are
# shared with the portable objects, and the linker may keep the wide copy. Data is no such risk
# (the sanitizer build emits weak typeinfo objects there).
# -DNM=nm -DOBJECTS=list of the library's objects.
set(checked 0)
foreach(object IN LISTS OBJECTS)
  if(NOT object MATCHES "_avx(2|512)\\.cpp\\.o$")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  execute_process(COMMAND ${NM} -C --defined-only ${object} OUTPUT_VARIABLE symbols
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${object}")
  endif()
  string(REPLACE "\n" ";" lines "${symbols}")
  foreach(line IN LISTS lines)
    # "ADDRESS TYPE NAME": T global code, W weak code, i an indirect function; lower-case types
    # are local to the object.
    if(line MATCHES "^[0-9a-f]+ ([TWi]) (.*)$")
      set(type ${CMAKE_MATCH_1})
      set(name "${CMAKE_MATCH_2}")
      if(NOT (type STREQUAL "T" AND name MATCHES "^cvl::cpu::simd::"))
        message(FATAL_ERROR "${object} defines the shared symbol ${type} ${name}")
      endif()
    endif()
  endforeach()
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "no object compiled for AVX2 or AVX-512 among: ${OBJECTS}")
endif()
message(STATUS "${checked} wide objects define only their own entry points")
