// Catch2's implementation, compiled once for every test executable (it is most of each one's
// compile time), and the session runner of catch_preconditions.hpp, which needs Catch's internals.
// Executables with a main of their own link nesl_catch; the others link nesl_catch_main.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <algorithm>
#include <iostream>
#include <string>

#include "catch_preconditions.hpp"

namespace nesl_test {

int run_with_preconditions(int argc, char* argv[],
                           std::initializer_list<Precondition> preconditions) {
  Catch::Session session;
  if (int status = session.applyCommandLine(argc, argv); status != 0) return status;
  Catch::ConfigData data = session.configData();
  const bool listing = data.listTests || data.listTestNamesOnly || data.listTags ||
                       data.listReporters || data.showHelp;
  if (listing) return session.run();

  const bool whole_executable = data.testsOrTags.empty();
  std::string left_out;
  for (const Precondition& p : preconditions) {
    if (p.holds()) continue;
    if (p.tag == nullptr) {
      std::cout << "skipped: " << p.missing << "\n";
      return kSkipReturnCode;
    }
    const Catch::Config& config = session.config();
    const auto selected =
        Catch::filterTests(Catch::getAllTestCasesSorted(config), config.testSpec(), config);
    const bool all_need_it =
        !selected.empty() && std::all_of(selected.begin(), selected.end(), [&](const auto& test) {
          return std::find(test.tags.begin(), test.tags.end(), p.tag) != test.tags.end();
        });
    if (all_need_it) {
      std::cout << "skipped: " << p.missing << "\n";
      return kSkipReturnCode;
    }
    if (whole_executable) {
      left_out += std::string("~[") + p.tag + "]";
      std::cout << "left out: the tests tagged [" << p.tag << "] (" << p.missing << ")\n";
    }
  }
  if (!left_out.empty()) {
    data.testsOrTags.push_back(left_out);
    session.useConfigData(data);
  }
  return session.run();
}

}  // namespace nesl_test
