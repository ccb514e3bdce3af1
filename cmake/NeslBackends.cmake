# The backends of this build: each vector library registers each backend it provides with one
# line,
#
#   nesl_add_backend(NAME cpu ENTRY cpu_backend_entry LIBRARY cvl_cpu)
#
# naming its `cvl::BackendEntry` (cvl/registry.hpp: name, factory, launcher rank variables, the
# option groups it takes), defined in the backend's folder, and the library that defines it. That
# line is all the registry and the test matrix need: cvl_registry (below) lists the entry, and
# test/corpus/CMakeLists.txt runs every program directory through `--backend NAME` (with the
# variants nesl_backend_variant() adds). TEST_ONLY: a backend for the tests alone, registered
# in test programs (nesl_register_test_backends), never in vinterp.
#
# A backend's own command-line options (a `cvl::BackendOptionGroup`, cvl/backend_option_group.hpp)
# are registered with a line of their own, in every build, whether the backend is built or not:
#
#   nesl_add_backend_options(GROUP cpu_option_group LIBRARY cvl_cpu)
#
# so that vinterp's command line and --help are the same everywhere (a build without the backend
# accepts its options: it ignores them, or refuses them as for a backend it does not have).

function(nesl_add_backend)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "TEST_ONLY;NEEDS_DEVICE" "NAME;ENTRY;LIBRARY;TEST_SETUP"
                        "TEST_LABELS")
  foreach(required NAME ENTRY LIBRARY)
    if(NOT ARG_${required})
      message(FATAL_ERROR "nesl_add_backend: ${required} is missing")
    endif()
  endforeach()
  if(ARG_TEST_ONLY)
    set_property(GLOBAL APPEND PROPERTY NESL_TEST_BACKENDS ${ARG_NAME})
  else()
    set_property(GLOBAL APPEND PROPERTY NESL_BACKENDS ${ARG_NAME})
  endif()
  set_property(GLOBAL PROPERTY NESL_BACKEND_${ARG_NAME}_ENTRY ${ARG_ENTRY})
  set_property(GLOBAL PROPERTY NESL_BACKEND_${ARG_NAME}_LIBRARY ${ARG_LIBRARY})
  # For its program tests (test/corpus): labels besides `corpus`, a function called with each
  # test's name (an environment to set), whether a missing device skips them.
  set_property(GLOBAL PROPERTY NESL_BACKEND_${ARG_NAME}_TEST_LABELS ${ARG_TEST_LABELS})
  set_property(GLOBAL PROPERTY NESL_BACKEND_${ARG_NAME}_TEST_SETUP ${ARG_TEST_SETUP})
  set_property(GLOBAL PROPERTY NESL_BACKEND_${ARG_NAME}_NEEDS_DEVICE ${ARG_NEEDS_DEVICE})
endfunction()

function(nesl_add_backend_options)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "GROUP;LIBRARY" "")
  foreach(required GROUP LIBRARY)
    if(NOT ARG_${required})
      message(FATAL_ERROR "nesl_add_backend_options: ${required} is missing")
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY NESL_BACKEND_OPTION_GROUPS ${ARG_GROUP})
  set_property(GLOBAL APPEND PROPERTY NESL_BACKEND_OPTION_LIBRARIES ${ARG_LIBRARY})
endfunction()

# nesl_backend_variant(BACKEND VARIANT [ARGS vinterp-args...] [RUNNER_ARGS corpus_runner-args...]
#                      [DIRS names...] [FCODE_DIRS names...|none] [LABELS labels...]
#                      [QUICK_DIRS names...] [QUICK_FCODE_DIRS names...]
#                      [SANITIZER_DIRS names...] [SANITIZER_FCODE_DIRS names...])
# One way of running BACKEND's program tests (tests BACKEND_DIR_VARIANT; a backend that declares
# none has one, `default`): vinterp arguments besides `--backend BACKEND`, the runner's own
# (--threads 1, a --launcher), the program directories (test/corpus's names: golden examples
# errors corpus corpus-hand regress found neslgpu-bench_reduced; default: all but errors) and
# those also run through fcode-opt first (default: all but examples and errors).
# The test tiers (CMakePresets.json) select by label: LABELS extra-variant leaves a variant out of
# the quick tier (which keeps a backend's main one), skip-sanitizers out of the sanitizer tier
# (the fuzz preset); QUICK_DIRS and QUICK_FCODE_DIRS add shared directories to the quick tier
# (label quick; golden, examples and errors are in it already), SANITIZER_DIRS and
# SANITIZER_FCODE_DIRS name the only directories the sanitizer tier runs (default: all).
function(nesl_backend_variant backend variant)
  set_property(GLOBAL APPEND PROPERTY NESL_BACKEND_${backend}_VARIANTS ${variant})
  set_property(GLOBAL PROPERTY NESL_BACKEND_${backend}_VARIANT_${variant} "${ARGN}")
endfunction()

# The entries' C++ declarations and the list of their addresses, for a generated source.
function(nesl_backend_entries_source names declarations_out list_out)
  set(declarations "")
  set(addresses "")
  foreach(name IN LISTS names)
    get_property(entry GLOBAL PROPERTY NESL_BACKEND_${name}_ENTRY)
    string(APPEND declarations "extern const BackendEntry ${entry};\n")
    string(APPEND addresses "&${entry}, ")
  endforeach()
  set(${declarations_out} "${declarations}" PARENT_SCOPE)
  set(${list_out} "${addresses}" PARENT_SCOPE)
endfunction()

# cvl_registry: the registry over every (not TEST_ONLY) backend and every option group, linking
# their libraries. Called once, after every backend's folder.
function(nesl_backend_registry)
  get_property(names GLOBAL PROPERTY NESL_BACKENDS)
  nesl_backend_entries_source("${names}" declarations entries)
  get_property(groups GLOBAL PROPERTY NESL_BACKEND_OPTION_GROUPS)
  set(group_addresses "")
  foreach(group IN LISTS groups)
    string(APPEND declarations "extern const BackendOptionGroup ${group};\n")
    string(APPEND group_addresses "&${group}, ")
  endforeach()
  set(source ${CMAKE_BINARY_DIR}/generated/built_in_backends.cpp)
  file(CONFIGURE OUTPUT ${source} CONTENT "// Generated by cmake/NeslBackends.cmake: this build's backends.
#include <span>

#include \"cvl/registry.hpp\"

namespace cvl {

${declarations}
std::span<const BackendEntry* const> built_in_backends() {
  static const BackendEntry* const entries[] = {${entries}};
  return entries;
}

std::span<const BackendOptionGroup* const> built_in_option_groups() {
  static const BackendOptionGroup* const groups[] = {${group_addresses}};
  return groups;
}

}  // namespace cvl
" @ONLY)
  add_library(cvl_registry STATIC ${PROJECT_SOURCE_DIR}/cvl/src/registry.cpp ${source})
  target_link_libraries(cvl_registry PUBLIC cvl_api cvl_contract)
  foreach(name IN LISTS names)
    get_property(library GLOBAL PROPERTY NESL_BACKEND_${name}_LIBRARY)
    target_link_libraries(cvl_registry PUBLIC ${library})
  endforeach()
  get_property(group_libraries GLOBAL PROPERTY NESL_BACKEND_OPTION_LIBRARIES)
  target_link_libraries(cvl_registry PUBLIC ${group_libraries})
endfunction()

# nesl_register_test_backends(TARGET): TARGET (a program of tests) registers the TEST_ONLY
# backends when it starts, besides the built-in ones.
function(nesl_register_test_backends target)
  get_property(names GLOBAL PROPERTY NESL_TEST_BACKENDS)
  nesl_backend_entries_source("${names}" declarations unused)
  set(registrations "")
  foreach(name IN LISTS names)
    get_property(entry GLOBAL PROPERTY NESL_BACKEND_${name}_ENTRY)
    get_property(library GLOBAL PROPERTY NESL_BACKEND_${name}_LIBRARY)
    string(APPEND registrations "    register_backend(${entry});\n")
    target_link_libraries(${target} PRIVATE ${library})
    set_property(GLOBAL PROPERTY NESL_BACKEND_${name}_VINTERP ${target})  # runs its program tests
  endforeach()
  set(source ${CMAKE_BINARY_DIR}/generated/${target}_test_backends.cpp)
  file(CONFIGURE OUTPUT ${source} CONTENT "// Generated by cmake/NeslBackends.cmake: the backends for tests only.
#include \"cvl/registry.hpp\"

namespace cvl {

${declarations}
namespace {
const bool registered = [] {
${registrations}    return true;
}();
}  // namespace

}  // namespace cvl
" @ONLY)
  target_sources(${target} PRIVATE ${source})
endfunction()
