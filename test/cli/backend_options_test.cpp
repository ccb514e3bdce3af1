// The one policy that turns a user's settings into BackendOptions (vinterp/src/backend_settings.hpp):
// vinterp's command line and nesl's in-process runs make the same backend from the same settings,
// and the backends' own options are taken or refused as their groups say.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "backend_settings.hpp"
#include "cvl/registry.hpp"
#include "cvl_cpu/cvl_cpu.hpp"
#include "nesl/vm_run.hpp"
#include "vinterp.hpp"

namespace {

// A backend that keeps the options it was made with (cvl-cpu's, which it then makes).
std::optional<cvl::BackendOptions> made_with;

std::unique_ptr<cvl::Backend> make_recording_backend(const cvl::BackendOptions& options) {
  made_with = options;
  return cvl::make_cpu_backend(options);
}

constexpr const cvl::BackendOptionGroup* recording_groups[] = {&cvl::cpu_option_group};
const cvl::BackendEntry recording_entry{.name = "recording", .make = &make_recording_backend,
                                        .option_groups = recording_groups};
const bool registered = [] {
  cvl::register_backend(recording_entry);
  return true;
}();

// The options vinterp makes its backend with for this command line (before the file's name).
cvl::BackendOptions vinterp_options(std::vector<std::string> args) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "backend_options_test.vcode";
  std::ofstream(file) << "FUNC MAIN\nRET\n";
  unsetenv("VINTERP_OPTIONS");
  args.insert(args.begin(), {"vinterp", "--backend", "recording"});
  args.push_back(file.string());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  made_with.reset();
  const int status = vinterp::run(static_cast<int>(argv.size()), argv.data());
  std::filesystem::remove(file);
  REQUIRE(status == 0);
  REQUIRE(made_with);
  return *made_with;
}

cvl::BackendOptions nesl_options(int threads) {
  nesl::VmSettings settings;
  settings.backend = "recording";
  settings.threads = threads;
  made_with.reset();
  REQUIRE(nesl::make_vm_backend(settings));
  REQUIRE(made_with);
  return *made_with;
}

}  // namespace

TEST_CASE("vinterp and nesl make a backend with the same options from the same settings",
          "[backend-options]") {
  REQUIRE(registered);
  for (const int threads : {0, 1, 3}) {
    INFO("--threads " << threads);
    const cvl::BackendOptions from_vinterp = vinterp_options({"--threads", std::to_string(threads)});
    CHECK(from_vinterp == nesl_options(threads));
    // The policy itself: exact transcendentals at one thread only, elementwise ops lazy.
    CHECK(from_vinterp.fast_math == (threads != 1));
    CHECK(from_vinterp.lazy_elementwise);
    CHECK(from_vinterp.threads == threads);
  }
  // And the shared function gives them: what both entry points call.
  vinterp::BackendSettings settings;
  settings.backend = "recording";
  settings.threads = 1;
  CHECK(vinterp::backend_options(settings) == nesl_options(1));
}

TEST_CASE("cvl-cpu's options change what its group decides, and only that",
          "[backend-options]") {
  const cvl::BackendOptions plain = vinterp_options({"--threads", "1"});
  cvl::BackendOptions expected = plain;
  expected.fast_math = true;
  expected.lazy_elementwise = false;
  expected.huge_pages = cvl::HugePages::Off;
  CHECK(vinterp_options({"--threads", "1", "--math", "fast", "--eager", "--huge-pages", "off"}) ==
        expected);
}

TEST_CASE("a group's bad value and an option refused by the backend are OptionErrors",
          "[backend-options]") {
  const auto message = [](vinterp::BackendSettings settings) -> std::string {
    try {
      vinterp::backend_options(settings);
    } catch (const cvl::OptionError& e) {
      return e.what();
    }
    return "";
  };
  vinterp::BackendSettings settings;
  settings.given.set("math", std::string("quick"));
  CHECK(message(settings) == "--math must be exact or fast");

  vinterp::BackendSettings negative;
  negative.given.set("host-threshold", -1LL);
  CHECK(message(negative) == "--host-threshold must be 0 or more");

  // --emulate-async: the emulation's alone; the other backends refuse it.
  vinterp::BackendSettings seeded;
  seeded.given.set("emulate-async", 7ULL);
  const bool emulated = cvl::find_backend("cuda-emulated") != nullptr;
  CHECK(message(seeded) == (emulated ? "--emulate-async is for --backend cuda-emulated"
                                     : "--emulate-async is for --backends this build does not have"));
  if (emulated) {
    seeded.backend = "cuda-emulated";
    CHECK(vinterp::backend_options(seeded).emulate_async_seed == 7);
  }
}
