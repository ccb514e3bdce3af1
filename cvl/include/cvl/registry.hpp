// Finds a backend by name; each CVL library registers one factory here.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cvl/backend.hpp"

namespace cvl {

// The backend called `name` ("cpu", "cuda"), or nullptr if this build does not have it.
std::unique_ptr<Backend> make_backend(std::string_view name, const BackendOptions& options);

// Names of the backends compiled into this build.
std::vector<std::string> available_backends();

}  // namespace cvl
