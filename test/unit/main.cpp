// Catch2's main for the unit tests. A test tagged [shared] needs the shared corpus
// (NESL_SHARED_DIR); where it is absent, such tests are skipped (catch_preconditions.hpp).
#include <filesystem>

#include "catch_preconditions.hpp"

int main(int argc, char* argv[]) {
  return nesl_test::run_with_preconditions(
      argc, argv,
      {{"shared", [] { return std::filesystem::exists(std::filesystem::path(NESL_SHARED_DIR) / "corpus"); },
        NESL_SHARED_DIR "/corpus not found"}});
}
