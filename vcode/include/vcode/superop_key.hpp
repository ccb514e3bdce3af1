// A superoperator definition as bytes (its operand kinds and nodes), so that the libraries that
// plan definitions made at run time plan each distinct one once.
#pragma once

#include <string>

#include "vcode/superop.hpp"

namespace vcode {

std::string definition_key(const SuperOp& op);

}  // namespace vcode
