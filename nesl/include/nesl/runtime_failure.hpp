// What `nesl` says when the VM stops a program on its data (not a bug, not the device) without
// a check of the compiled program's own having caught it first: the classic's RUNTIME ERROR line,
// in NESL's words, since the VM's message names its instructions, positions and options.
#pragma once

#include <string>

namespace nesl {

// "RUNTIME ERROR: ..." for the VM's message of a data failure (as vm::Failure holds it): a
// recursion too deep, memory run out, a negative length, an index outside its sequence; any
// other keeps the VM's message after "RUNTIME ERROR: ".
std::string runtime_error_line(const std::string& vm_message);

}  // namespace nesl
