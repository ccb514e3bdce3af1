// The NESL fuzzer's list of known compiler bugs (nesl_known_bugs.txt): each with a small program
// that must still show it, the run where it shows, and the generator features left out while it
// stands. A listed bug that no longer reproduces fails the run, so the list stays honest.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace fuzz {

struct KnownNeslBug {
  std::string name;
  std::string program;        // a path, relative to the list's directory when not absolute
  std::string run;            // the run that disagrees: a variant's name, "compile" or "in-process"
  std::set<std::string> avoid;  // generator features left out while the bug stands
  std::string why;
};

// Reads the list; throws std::runtime_error naming the file and line of anything malformed.
std::vector<KnownNeslBug> load_known_nesl_bugs(const std::string& path);

}  // namespace fuzz
