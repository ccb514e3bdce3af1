// A backend around another that checks every call against the shape contract
// (cvl/shape_rules.hpp) before passing it on, so that a caller breaking the contract is caught
// at the call (a contract::Violation, an InternalError) instead of reading out of bounds. The
// registry puts it around every backend it makes in debug builds; tests put it where they want
// the contract checked. It forwards everything else, capabilities included.
#pragma once

#include <memory>

#include "cvl/backend.hpp"

namespace cvl {

std::unique_ptr<Backend> checked(std::unique_ptr<Backend> backend);

}  // namespace cvl
