// The CVL conformance suite's main. An executable whose backends cannot run on this machine (a
// GPU backend without a GPU lists none) reports itself skipped, except when Catch is only asked
// for the list of tests (catch_discover_tests does that at build time).
#include "catch_preconditions.hpp"
#include "support.hpp"

int main(int argc, char* argv[]) {
  return nesl_test::run_with_preconditions(
      argc, argv,
      {{nullptr, [] { return !cvl_test::conformance_backends().empty(); },
        "no backend of this suite can run on this machine"}});
}
