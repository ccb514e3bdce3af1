// Shrinks a failing program by deleting lines while it still fails (delta debugging over lines:
// chunks of halving size, complements only).
#pragma once

#include <functional>
#include <string>

namespace fuzz {

// The smallest text found (by whole lines) for which `still_fails` holds; `text` itself must
// fail. Stops after `max_tests` calls of `still_fails`.
std::string minimize_lines(const std::string& text, const std::function<bool(const std::string&)>& still_fails,
                           int max_tests = 3000);

}  // namespace fuzz
