// The CPU vector library: the reference semantics of spec/CVL.md, vectorized and multithreaded.
#pragma once

#include <memory>

#include "cvl/backend.hpp"

namespace cvl {

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options);

}  // namespace cvl
