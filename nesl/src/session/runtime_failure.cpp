#include "nesl/runtime_failure.hpp"

#include <regex>

namespace nesl {
namespace {

struct Rewrite {
  std::regex vm;           // the VM's message, whole
  std::string in_nesl;     // with $1, $2, ... from it
};

// The VM's messages (vinterp's machine and the vector libraries' errors), each said as the
// classic's checks say theirs: a sentence after "RUNTIME ERROR: ".
const std::vector<Rewrite>& rewrites() {
  static const std::vector<Rewrite> table = {
      {std::regex(R"(call depth limit exceeded: (\d+) calls deep.*)"),
       "Recursion deeper than $1 calls (the call depth limit)."},
      {std::regex(R"(out of vector memory: (\d+) bytes requested, (\d+) in use, limit (\d+).*)"),
       "Out of memory: $1 more bytes with $2 in use would pass the memory limit, $3 bytes."},
      {std::regex(R"(out of vector memory: (\d+) bytes requested, the system has none \((\d+) in use\).*)"),
       "Out of memory: the system has no $1 more bytes ($2 in use)."},
      {std::regex(R"(ran out of memory)"), "Out of memory."},
      {std::regex(R"([A-Z_]+: negative segment length (-?\d+) at position \d+)"),
       "A sequence of negative length ($1)."},
      {std::regex(R"([A-Z_]+: a segment of (\d+) elements, more than a vector may hold \((\d+)\))"),
       "A sequence of $1 elements, more than the $2 a sequence may hold."},
      {std::regex(R"([A-Z_]+: index (-?\d+) at position \d+ is outside its segment of length (\d+))"),
       "Index $1 out of bounds for a sequence of length $2."},
      {std::regex(R"(RAND: bound 0 at position \d+)"), "Rand only works with positive numbers."},
      {std::regex(R"(FOPEN is not allowed with --sandbox)"), "Files cannot be opened in a sandboxed run (--sandbox)."},
      {std::regex(R"(SPAWN is not allowed with --sandbox)"),
       "Other programs cannot be run in a sandboxed run (--sandbox)."},
  };
  return table;
}

}  // namespace

std::string runtime_error_line(const std::string& vm_message) {
  for (const Rewrite& rewrite : rewrites()) {
    std::smatch match;
    if (std::regex_match(vm_message, match, rewrite.vm)) return "RUNTIME ERROR: " + match.format(rewrite.in_nesl);
  }
  return "RUNTIME ERROR: " + vm_message;
}

}  // namespace nesl
