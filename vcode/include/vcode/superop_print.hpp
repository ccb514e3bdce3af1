// Prints FCODE superoperator definitions in the notation of vcode/superop.hpp; parsing the text
// gives back an equal SuperOp (FLOAT constants are printed exactly).
#pragma once

#include <cstdint>
#include <string>

#include "vcode/superop.hpp"

namespace vcode {

// `SUPEROP n ( kinds ) expression`, without a line end. Nodes used more than once (a DAG built
// in memory) are printed at every use, so the text reads back as a tree.
std::string superop_text(const SuperOp& op);

// The expression rooted at `node`: `$k`, `(CONST INT 5)`, `(+ INT $0 $1)`, ...
std::string superop_expression_text(const SuperOp& op, std::uint32_t node);

}  // namespace vcode
