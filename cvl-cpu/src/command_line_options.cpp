// cvl-cpu's command-line options (cvl/backend_option_group.hpp), which every backend built on it
// takes (cpu, and mpi for its blocks), and the defaults of a command line that gives none.
#include "cvl/backend_option_group.hpp"
#include "cvl_cpu/cvl_cpu.hpp"

namespace cvl {
namespace {

constexpr BackendOption options[] = {
    {.name = "math",
     .argument = OptionArgument::Text,
     .argument_name = "exact|fast",
     .description = "transcendental functions (cpu): the C library's, as the classic\n"
                    "(exact), or vectorized within 1 ulp (fast); default fast, exact\n"
                    "with --threads 1"},
    {.name = "huge-pages",
     .argument = OptionArgument::Text,
     .argument_name = "auto|on|off",
     .description = "cpu: transparent huge pages for vector memory; auto (the\n"
                    "default) is off where the kernel gives free pages back to a hypervisor"},
    {.name = "eager",
     .description = "cpu, cuda: compute each elementwise op when it runs (default: a chain of\n"
                    "them on long vectors in one pass, where its result is first read)"},
};

void apply(const GivenOptions& given, BackendOptions& options) {
  // Exact results are what --threads 1 promises; more threads already regroup FLOAT sums.
  options.fast_math = options.threads != 1;
  if (given.has("math")) {
    const std::string& math = given.text("math");
    if (math != "exact" && math != "fast") throw OptionError("--math must be exact or fast");
    options.fast_math = math == "fast";
  }
  options.lazy_elementwise = !given.has("eager");
  if (given.has("huge-pages")) {
    const std::string& huge = given.text("huge-pages");
    if (huge == "on") options.huge_pages = HugePages::On;
    else if (huge == "off") options.huge_pages = HugePages::Off;
    else if (huge != "auto") throw OptionError("--huge-pages must be auto, on or off");
  }
}

}  // namespace

const BackendOptionGroup cpu_option_group{.options = options, .apply = &apply};

}  // namespace cvl
