// Runs a function on a thread with a large stack: the passes recurse over the syntax tree, which
// a long chain of operators makes as deep as it has operators.
#pragma once

#include <cstddef>
#include <functional>

namespace nesl {

// The stack the compiler's passes are given: enough for the parser's limits (1,000 levels of
// nesting and 100,000 chained operators) in every pass. Pages are used only as touched.
inline constexpr std::size_t kCompilerStackBytes = std::size_t{1} << 30;

// Runs `body` on a new thread whose stack is `bytes` long and returns its result; an exception it
// throws is thrown again here. Where such a thread cannot be made, `body` runs on this one.
int run_with_stack(std::size_t bytes, const std::function<int()>& body);

}  // namespace nesl
