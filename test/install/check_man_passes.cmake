# Keeps fcode-opt's man page in step with its pipeline's table of passes (CTest
# man_fcode_opt_passes, label install):
#
#   cmake -DPROGRAM=build/fcode-opt/fcode-opt -DMAN_PAGE=doc/man/fcode-opt.1 -P check_man_passes.cmake
#
# The passes are the names `fcode-opt --list-passes` prints (lift, the registered passes, lower);
# the man page's are the tags of the entries (.TP) of its PASSES section: both lists must be the
# same, in the same order. The default list `fcode-opt --help` prints (`default: --passes LIST`)
# must be the one the man page gives: every bold comma-separated list of names there
# (`.BR inline,cleanup,...`), of which there must be one at least.
cmake_minimum_required(VERSION 3.25)
foreach(var PROGRAM MAN_PAGE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "usage: cmake -DPROGRAM=... -DMAN_PAGE=... -P check_man_passes.cmake")
  endif()
endforeach()

function(run_program option out)
  execute_process(COMMAND "${PROGRAM}" ${option} RESULT_VARIABLE status OUTPUT_VARIABLE text
                  ERROR_VARIABLE errors)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} ${option} failed (${status}): ${errors}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The program's passes: the word before the colon of each line of --list-passes.
run_program(--list-passes listing)
string(REPLACE ";" " " listing "${listing}")
string(REPLACE "\n" ";" listing_lines "${listing}")
set(program_passes)
foreach(line IN LISTS listing_lines)
  if(line MATCHES "^([a-z][a-z0-9-]*):")
    list(APPEND program_passes "${CMAKE_MATCH_1}")
  endif()
endforeach()
if(NOT program_passes)
  message(FATAL_ERROR "no passes found in the output of ${PROGRAM} --list-passes")
endif()

# The program's default list: the line `default: --passes LIST` of --help.
run_program(--help help)
if(NOT help MATCHES "\ndefault: --passes ([a-z0-9,-]+)\n")
  message(FATAL_ERROR "no line `default: --passes LIST` in the output of ${PROGRAM} --help")
endif()
set(program_default "${CMAKE_MATCH_1}")

# The man page, a line an element, with \- read as a hyphen and \: (a place to break) as nothing.
file(READ "${MAN_PAGE}" page)
string(REPLACE ";" " " page "${page}")
string(REPLACE "[" " " page "${page}")
string(REPLACE "]" " " page "${page}")
string(REPLACE "\\-" "-" page "${page}")
string(REPLACE "\\:" "" page "${page}")  # an optional line break
string(REPLACE "\n" ";" lines "${page}")
get_filename_component(page_name "${MAN_PAGE}" NAME)

# The tags of the PASSES section (from `.SH PASSES` to the next .SH), their font macro and font
# escapes left out; and the bold comma-separated lists anywhere.
set(man_passes)
set(man_defaults)
set(in_section FALSE)
set(after_tp FALSE)
foreach(line IN LISTS lines)
  if(line MATCHES "^\\.BR? +([a-z][a-z0-9-]*(,[a-z][a-z0-9-]*)+)")
    list(APPEND man_defaults "${CMAKE_MATCH_1}")
  endif()
  if(line MATCHES "^\\.SH")
    set(in_section FALSE)
    if(line MATCHES "^\\.SH +\"?PASSES\"?$")
      set(in_section TRUE)
    endif()
  elseif(in_section AND after_tp AND NOT line MATCHES "^\\.\\\\\"")
    string(REGEX REPLACE "\\\\f(\\(..|.)" "" tag "${line}")
    string(REGEX REPLACE "^\\.[A-Za-z]+" "" tag "${tag}")
    string(STRIP "${tag}" tag)
    list(APPEND man_passes "${tag}")
    set(after_tp FALSE)
  endif()
  if(in_section AND line MATCHES "^\\.TP( |$)")
    set(after_tp TRUE)
  endif()
endforeach()

set(problems "")
if(NOT man_passes STREQUAL program_passes)
  set(missing ${program_passes})
  if(man_passes)
    list(REMOVE_ITEM missing ${man_passes})
  endif()
  set(unknown ${man_passes})
  list(REMOVE_ITEM unknown ${program_passes})
  foreach(list missing unknown man_passes program_passes)
    list(JOIN ${list} " " ${list})
    if("${${list}}" STREQUAL "")
      set(${list} "(none)")
    endif()
  endforeach()
  string(APPEND problems
         "\n  the passes of ${page_name} (section PASSES) are not those of --list-passes, in order:"
         "\n    --list-passes:  ${program_passes}\n    ${page_name}: ${man_passes}"
         "\n    without an entry in ${page_name}: ${missing}"
         "\n    with an entry in ${page_name}, not a pass: ${unknown}")
endif()
if(NOT man_defaults)
  string(APPEND problems "\n  ${page_name} gives no default list of passes (.BR a,b,...)")
endif()
foreach(list IN LISTS man_defaults)
  if(NOT list STREQUAL program_default)
    string(APPEND problems "\n  ${page_name} gives the default list ${list}; --help says ${program_default}")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "${page_name} and the passes of ${PROGRAM} disagree:${problems}")
endif()
list(LENGTH program_passes count)
list(JOIN program_passes " " program_passes)
message(STATUS "${page_name} documents the ${count} steps of --list-passes (${program_passes}) and the "
               "default --passes ${program_default}")
