// Counts read from ops.def's columns, for tests that walk the op table and must show they
// visited every case it defines (and not none): adding an opcode or a type needs no test edit.
#pragma once

#include <bit>

#include "vcode/op.hpp"

namespace nesl_test {

// The elementwise ops times the types each takes: its type keywords, or its one implied type.
inline int elementwise_op_type_pairs() {
  int pairs = 0;
  for (const vcode::OpInfo& info : vcode::op_table)
    if (info.family == vcode::Family::Elementwise)
      pairs += info.syntax == vcode::Syntax::Type ? std::popcount(info.type_set) : 1;
  return pairs;
}

}  // namespace nesl_test
