# Keeps a man page in step with its program's --help (CTest man_*_options, label install):
#
#   cmake -DPROGRAM=build/vinterp/vinterp -DMAN_PAGE=doc/man/vinterp.1 -P check_man_options.cmake
#
# The options of --help are every option name in its output: `--name`, and `-x` for one letter
# (a cluster like `-cgt` and `-<num>` are not counted). The options of the man page are those
# named in the tags of its entries (the line after each .TP), where an option is documented.
# Fails, listing them, when an option is in one set and not in the other.
cmake_minimum_required(VERSION 3.25)
foreach(var PROGRAM MAN_PAGE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "usage: cmake -DPROGRAM=... -DMAN_PAGE=... -P check_man_options.cmake")
  endif()
endforeach()

# The option names in `text`, sorted, without repeats.
function(option_names text out)
  # Only letters, digits and hyphens stay, so that every name starts after a blank (this also
  # keeps [ ] and ; , which have meanings in CMake lists, away).
  string(REGEX REPLACE "[^A-Za-z0-9-]" " " text " ${text}")
  string(REGEX MATCHALL " --?[A-Za-z][A-Za-z0-9-]*" words "${text}")
  set(names)
  foreach(word IN LISTS words)
    string(STRIP "${word}" word)
    string(LENGTH "${word}" length)
    if(word MATCHES "^--" OR length EQUAL 2)
      list(APPEND names "${word}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES names)
  list(SORT names)
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

execute_process(COMMAND "${PROGRAM}" --help RESULT_VARIABLE status OUTPUT_VARIABLE help
                ERROR_VARIABLE help_errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} --help failed (${status}): ${help_errors}")
endif()
option_names("${help}" help_options)

# The tags: the line after each .TP, with the roff escapes that matter here undone (\- is a
# hyphen; \fB, \fI, \fR, \fP, \f(XX, \f[...] change fonts; \& and \% print nothing).
file(READ "${MAN_PAGE}" page)
string(REPLACE ";" " " page "${page}")
string(REPLACE "[" " " page "${page}")
string(REPLACE "]" " " page "${page}")
string(REPLACE "\n" ";" lines "${page}")
set(tags)
set(after_tp FALSE)
foreach(line IN LISTS lines)
  if(after_tp AND NOT line MATCHES "^\\.\\\\\"")  # not a comment line
    string(REPLACE "\\-" "-" line "${line}")
    string(REGEX REPLACE "\\\\f(\\(..|.)" "" line "${line}")
    string(REGEX REPLACE "\\\\[&%]" "" line "${line}")
    string(REGEX REPLACE "^\\.[A-Za-z]+" "" line "${line}")  # the font macro: .B, .BI, .BR, ...
    string(APPEND tags " ${line}")
    set(after_tp FALSE)
  endif()
  if(line MATCHES "^\\.TP( |$)")
    set(after_tp TRUE)
  endif()
endforeach()
option_names("${tags}" man_options)

if(NOT help_options)
  message(FATAL_ERROR "no options found in the output of ${PROGRAM} --help")
endif()
if(NOT man_options)
  message(FATAL_ERROR "no option entries (.TP) found in ${MAN_PAGE}")
endif()

set(undocumented ${help_options})
list(REMOVE_ITEM undocumented ${man_options})
set(unknown ${man_options})
list(REMOVE_ITEM unknown ${help_options})
get_filename_component(page_name "${MAN_PAGE}" NAME)
get_filename_component(program_name "${PROGRAM}" NAME)
if(undocumented OR unknown)
  foreach(list undocumented unknown)
    list(JOIN ${list} " " ${list})
    if(${list} STREQUAL "")
      set(${list} "(none)")
    endif()
  endforeach()
  message(FATAL_ERROR
          "${page_name} and `${program_name} --help` disagree\n"
          "  in --help, without an entry in ${page_name}: ${undocumented}\n"
          "  with an entry in ${page_name}, not in --help: ${unknown}")
endif()
list(LENGTH help_options count)
list(JOIN help_options " " help_options)
message(STATUS "${page_name} documents the ${count} options of ${program_name} --help: ${help_options}")
