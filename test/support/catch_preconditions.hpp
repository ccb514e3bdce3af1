// Catch2 2 has no SKIP. A test case that cannot run without something a machine may lack (the
// shared corpus, a kernel feature) carries that thing's tag, and its executable's main runs the
// session through run_with_preconditions(). For each precondition that does not hold:
//  - a run whose every selected test needs it reports itself skipped: exit 77, which CMake's
//    SKIP_RETURN_CODE turns into "Skipped" (CTest runs one test case per process);
//  - a run of the whole executable (no test named) leaves those tests out, and says so;
//  - a run that names them runs them, and they fail, saying what is missing.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <initializer_list>
#include <iostream>
#include <string>

namespace nesl_test {

inline constexpr int kSkipReturnCode = 77;

struct Precondition {
  const char* tag;  // without brackets: "shared"
  bool (*holds)();
  const char* missing;  // what a skipped run prints: "../shared/corpus not found"
};

inline int run_with_preconditions(int argc, char* argv[],
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
