// A backend that exists only to show what adding one takes: this folder, this entry and one CMake
// line (CMakeLists.txt here). It is cvl-cpu behind a CheckingBackend, so every call the program
// tests make is also checked against the shape contract; the tests run only in a program built
// for them (vinterp_with_test_backends), never in vinterp.
#include "cvl/checking_backend.hpp"
#include "cvl/registry.hpp"
#include "cvl_cpu/cvl_cpu.hpp"

namespace cvl {
namespace {

std::unique_ptr<Backend> make_example_backend(const BackendOptions& options) {
  return checked(make_cpu_backend(options));
}

constexpr const BackendOptionGroup* option_groups[] = {&cpu_option_group};

}  // namespace

extern const BackendEntry example_backend_entry;
const BackendEntry example_backend_entry{.name = "example", .make = &make_example_backend,
                                         .option_groups = option_groups};

}  // namespace cvl
