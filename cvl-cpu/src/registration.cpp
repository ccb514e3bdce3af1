// cvl-cpu's entry in the backend registry (cvl/registry.hpp).
#include "cvl/registry.hpp"
#include "cvl_cpu/cvl_cpu.hpp"

namespace cvl {
namespace {

std::string fast_math_note() { return std::string("--math fast: ") + cpu_fast_math_description(); }

}  // namespace

extern const BackendEntry cpu_backend_entry;
const BackendEntry cpu_backend_entry{.name = "cpu", .make = &make_cpu_backend,
                                     .version_note = &fast_math_note};

}  // namespace cvl
