// Catch2's main for the command-line tests. A test tagged [shared] needs the shared programs
// (NESL_SHARED_DIR); where they are absent, such tests are skipped (catch_preconditions.hpp).
#include <filesystem>

#include "catch_preconditions.hpp"

int main(int argc, char* argv[]) {
  return nesl_test::run_with_preconditions(
      argc, argv,
      {{"shared", [] { return std::filesystem::exists(std::filesystem::path(NESL_SHARED_DIR) / "neslgpu-bench"); },
        NESL_SHARED_DIR "/neslgpu-bench not found"}});
}
