// A pass of the optimizer: a name, a one-line description and a function over the module.
#pragma once

#include <string_view>

#include "fopt/ir.hpp"

namespace fopt {

// Knobs the passes read.
struct PassOptions {
  std::size_t inline_size_limit = 400;   // statements; single-call callees are always inlined
  std::size_t fuse_max_nodes = 200;      // nodes of one superoperator
  std::size_t fuse_duplicate_limit = 8;  // a multi-use value this small may be recomputed in each user
};

struct Pass {
  std::string_view name;
  std::string_view description;
  void (*run)(Module&, const PassOptions&);
};

}  // namespace fopt
