// cvl-cpu's entry in the backend registry (cvl/registry.hpp).
#include "cvl/registry.hpp"
#include "cvl_cpu/cvl_cpu.hpp"
#include "memory/huge_pages.hpp"

namespace cvl {
namespace {

std::string version_note() {
  return std::string("--math fast: ") + cpu_fast_math_description() + "; " +
         cpu::huge_pages_description(HugePages::Auto);
}

constexpr const BackendOptionGroup* option_groups[] = {&cpu_option_group};

}  // namespace

extern const BackendEntry cpu_backend_entry;
const BackendEntry cpu_backend_entry{.name = "cpu", .make = &make_cpu_backend,
                                     .option_groups = option_groups, .version_note = &version_note};

}  // namespace cvl
