// VINTERP_OPTIONS: options for toolchains that call `vinterp -m N FILE` with fixed arguments
// (the NESL REPL): the variable's words go before the command line's own.
#pragma once

#include <string>
#include <vector>

namespace vinterp {

inline constexpr const char* options_variable = "VINTERP_OPTIONS";

// The variable's words, split as a Unix shell splits them (blanks, quotes, backslashes); none
// when it is unset or blank.
std::vector<std::string> environment_options();

}  // namespace vinterp
