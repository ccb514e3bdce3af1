// The known-differences file (known_differences.txt): the one list of what may legitimately differ
// between the classic interpreter and our variants, read by the differential fuzzer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fuzz {

struct KnownDifference {
  enum class Handling { NanEqual, Tolerance, SkipMarked, Avoided, NotCompared };
  std::string name;
  std::vector<std::string> variants;  // shell patterns; empty for `none`
  Handling handling = Handling::Avoided;
  double tolerance = 0.0;   // Tolerance
  std::string marker;       // SkipMarked
  std::string why;
};

// How one variant's output is compared for one program.
struct VariantRules {
  bool skip = false;         // the program is not run in this variant
  double float_tolerance = 0.0;
  bool nan_sign_free = false;
  std::vector<std::string> applied;  // the names of the entries that relaxed something
};

// Reads the file; throws std::runtime_error naming the file and line of anything malformed.
std::vector<KnownDifference> load_known_differences(const std::string& path);

VariantRules rules_for(const std::vector<KnownDifference>& known, std::string_view variant,
                       std::string_view program_text);

}  // namespace fuzz
