// Catch's plain main, for test executables that need nothing before the session runs.
#include "catch_preconditions.hpp"

int main(int argc, char* argv[]) { return nesl_test::run_with_preconditions(argc, argv, {}); }
