// The VM's messages of a stop on the program's data, as `nesl` says them: the classic's
// RUNTIME ERROR line in NESL's words. The messages are the VM's and the vector libraries' own
// (vinterp's machine.cpp, cvl/memory_limit.hpp, cvl-cpu's buffer cache and segment descriptors);
// runtime_errors/ runs the call depth and a negative length through the VM itself.
#include <catch2/catch.hpp>

#include "nesl/runtime_failure.hpp"

TEST_CASE("the VM's data failures are said in NESL's words", "[nesl][runtime]") {
  using nesl::runtime_error_line;
  CHECK(runtime_error_line("call depth limit exceeded: 1000000 calls deep (--max-call-depth 1000000)") ==
        "RUNTIME ERROR: Recursion deeper than 1000000 calls (the call depth limit).");
  CHECK(runtime_error_line("out of vector memory: 800000000 bytes requested, 64 in use, limit 1000000 (--max-memory)") ==
        "RUNTIME ERROR: Out of memory: 800000000 more bytes with 64 in use would pass the memory limit, 1000000 bytes.");
  CHECK(runtime_error_line("out of vector memory: 4096 bytes requested, the system has none (0 in use)") ==
        "RUNTIME ERROR: Out of memory: the system has no 4096 more bytes (0 in use).");
  CHECK(runtime_error_line("MAKE_SEGDES: negative segment length -5 at position 0") ==
        "RUNTIME ERROR: A sequence of negative length (-5).");
  CHECK(runtime_error_line("MAKE_SEGDES: a segment of 8000000000 elements, more than a vector may hold (2147483647)") ==
        "RUNTIME ERROR: A sequence of 8000000000 elements, more than the 2147483647 a sequence may hold.");
  CHECK(runtime_error_line("REPLACE: index 9 at position 0 is outside its segment of length 4") ==
        "RUNTIME ERROR: Index 9 out of bounds for a sequence of length 4.");
  CHECK(runtime_error_line("RAND: bound 0 at position 3") == "RUNTIME ERROR: Rand only works with positive numbers.");
  CHECK(runtime_error_line("FOPEN is not allowed with --sandbox") ==
        "RUNTIME ERROR: Files cannot be opened in a sandboxed run (--sandbox).");
  CHECK(runtime_error_line("SPAWN is not allowed with --sandbox") ==
        "RUNTIME ERROR: Other programs cannot be run in a sandboxed run (--sandbox).");
  // Any other keeps the VM's message.
  CHECK(runtime_error_line("something else") == "RUNTIME ERROR: something else");
}
