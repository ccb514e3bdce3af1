// Catch2's main for the unit tests. A test tagged [shared] needs the shared corpus
// (NESL_SHARED_DIR); where the corpus is absent, a run that selects only such tests (CTest runs
// one test case per process) reports itself skipped: exit 77, SKIP_RETURN_CODE in CMakeLists.txt.
#define CATCH_CONFIG_RUNNER
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <iostream>

namespace {

constexpr int kSkipReturnCode = 77;

bool shared_corpus_present() {
  return std::filesystem::exists(std::filesystem::path(NESL_SHARED_DIR) / "corpus");
}

// Whether the run selects some tests and every one of them needs the shared corpus.
bool selects_only_shared_tests(Catch::Session& session) {
  const Catch::Config& config = session.config();
  const auto selected =
      Catch::filterTests(Catch::getAllTestCasesSorted(config), config.testSpec(), config);
  return !selected.empty() &&
         std::all_of(selected.begin(), selected.end(), [](const Catch::TestCase& test) {
           return std::find(test.tags.begin(), test.tags.end(), "shared") != test.tags.end();
         });
}

}  // namespace

int main(int argc, char* argv[]) {
  Catch::Session session;
  if (int status = session.applyCommandLine(argc, argv); status != 0) return status;
  const Catch::ConfigData& data = session.configData();
  const bool listing = data.listTests || data.listTestNamesOnly || data.listTags ||
                       data.listReporters || data.showHelp;
  if (!listing && !shared_corpus_present() && selects_only_shared_tests(session)) {
    std::cout << "skipped: " << NESL_SHARED_DIR << "/corpus not found\n";
    return kSkipReturnCode;
  }
  return session.run();
}
