// Catch2's main for the CVL conformance suite. An executable whose backends cannot run on this
// machine (a GPU backend without a GPU lists none) reports itself skipped, except when Catch is
// only asked for the list of tests (catch_discover_tests does that at build time).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <iostream>

#include "support.hpp"

namespace {
constexpr int kSkipReturnCode = 77;  // SKIP_RETURN_CODE in CMakeLists.txt
}

int main(int argc, char* argv[]) {
  Catch::Session session;
  if (int status = session.applyCommandLine(argc, argv); status != 0) return status;
  const Catch::ConfigData& config = session.configData();
  const bool listing = config.listTests || config.listTestNamesOnly || config.listTags ||
                       config.listReporters || config.showHelp;
  if (!listing && cvl_test::conformance_backends().empty()) {
    std::cout << "no backend of this suite can run on this machine: skipped\n";
    return kSkipReturnCode;
  }
  return session.run();
}
