#include "known_differences.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fuzz {

namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

void parse_handling(KnownDifference& d, const std::string& value, const std::string& where) {
  std::istringstream in(value);
  std::string word;
  in >> word;
  std::string rest;
  std::getline(in, rest);
  rest = trim(rest);
  if (word == "nan-equal" && rest.empty()) d.handling = KnownDifference::Handling::NanEqual;
  else if (word == "avoided" && rest.empty()) d.handling = KnownDifference::Handling::Avoided;
  else if (word == "not-compared" && rest.empty()) d.handling = KnownDifference::Handling::NotCompared;
  else if (word == "skip-marked" && !rest.empty()) {
    d.handling = KnownDifference::Handling::SkipMarked;
    d.marker = rest;
  } else if (word == "tolerance") {
    char* end = nullptr;
    d.tolerance = std::strtod(rest.c_str(), &end);
    if (rest.empty() || *end != '\0' || !(d.tolerance > 0)) throw std::runtime_error(where + ": bad tolerance");
    d.handling = KnownDifference::Handling::Tolerance;
  } else {
    throw std::runtime_error(where + ": unknown handling '" + value + "'");
  }
}

}  // namespace

std::vector<KnownDifference> load_known_differences(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<KnownDifference> known;
  std::vector<bool> has_handling;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = path + ":" + std::to_string(number);
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    if (line.front() == '[' && line.back() == ']') {
      known.push_back({});
      known.back().name = line.substr(1, line.size() - 2);
      has_handling.push_back(false);
      continue;
    }
    const auto eq = line.find('=');
    if (known.empty() || eq == std::string::npos) throw std::runtime_error(where + ": expected [name] or key = value");
    const std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    KnownDifference& d = known.back();
    if (key == "variants") {
      std::istringstream words(value);
      for (std::string w; words >> w;)
        if (w != "none") d.variants.push_back(w);
    } else if (key == "handling") {
      parse_handling(d, value, where);
      has_handling.back() = true;
    } else if (key == "why") {
      d.why = value;
    } else {
      throw std::runtime_error(where + ": unknown key '" + key + "'");
    }
  }
  for (std::size_t i = 0; i < known.size(); ++i)
    if (!has_handling[i] || known[i].why.empty())
      throw std::runtime_error(path + ": [" + known[i].name + "] needs a handling and a why");
  return known;
}

VariantRules rules_for(const std::vector<KnownDifference>& known, std::string_view variant,
                       std::string_view program_text) {
  VariantRules rules;
  const std::string name(variant);
  for (const auto& d : known) {
    const bool concerns = std::any_of(d.variants.begin(), d.variants.end(), [&](const std::string& p) {
      return fnmatch(p.c_str(), name.c_str(), 0) == 0;
    });
    if (!concerns) continue;
    switch (d.handling) {
      case KnownDifference::Handling::NanEqual:
        rules.nan_sign_free = true;
        rules.applied.push_back(d.name);
        break;
      case KnownDifference::Handling::Tolerance:
        rules.float_tolerance = std::max(rules.float_tolerance, d.tolerance);
        rules.applied.push_back(d.name);
        break;
      case KnownDifference::Handling::SkipMarked:
        if (program_text.find(d.marker) != std::string_view::npos) {
          rules.skip = true;
          rules.applied.push_back(d.name);
        }
        break;
      case KnownDifference::Handling::Avoided:
      case KnownDifference::Handling::NotCompared: break;
    }
  }
  return rules;
}

}  // namespace fuzz
