// Catch2 2 has no SKIP. A test case that cannot run without something a machine may lack (the
// shared corpus, a kernel feature) carries that thing's tag, and its executable's main runs the
// session through run_with_preconditions(). For each precondition that does not hold:
//  - a run whose every selected test needs it reports itself skipped: exit 77, which CMake's
//    SKIP_RETURN_CODE turns into "Skipped" (CTest runs one test case per process);
//  - a run of the whole executable (no test named) leaves those tests out, and says so;
//  - a run that names them runs them, and they fail, saying what is missing.
// A precondition with no tag is needed by every test case of its executable: where it does not
// hold, every run but a listing reports itself skipped.
#pragma once

#include <initializer_list>

namespace nesl_test {

inline constexpr int kSkipReturnCode = 77;

struct Precondition {
  const char* tag;  // without brackets: "shared"; nullptr: every test case
  bool (*holds)();
  const char* missing;  // what a skipped run prints: "../shared/corpus not found"
};

// Defined with Catch's implementation (catch_session.cpp), so that a main need not compile it.
int run_with_preconditions(int argc, char* argv[], std::initializer_list<Precondition> preconditions);

}  // namespace nesl_test
