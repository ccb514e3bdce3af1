// Reads nesl_known_bugs.txt (nesl_known_bugs.hpp): `[name]` starts an entry, then `key = value`
// lines (program, run, avoid, why); `#` starts a comment line.
#include "nesl_known_bugs.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fuzz {

namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

std::vector<KnownNeslBug> load_known_nesl_bugs(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  const std::filesystem::path directory = std::filesystem::path(path).parent_path();
  std::vector<KnownNeslBug> bugs;
  std::string line;
  int number = 0;
  auto fail = [&](const std::string& what) {
    throw std::runtime_error(path + ":" + std::to_string(number) + ": " + what);
  };
  auto finish = [&] {
    if (bugs.empty()) return;
    const KnownNeslBug& last = bugs.back();
    if (last.program.empty() || last.run.empty() || last.why.empty())
      fail("entry [" + last.name + "] needs program, run and why");
  };
  while (std::getline(in, line)) {
    ++number;
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    if (line.front() == '[') {
      if (line.back() != ']' || line.size() < 3) fail("expected [name]");
      finish();
      bugs.push_back({});
      bugs.back().name = line.substr(1, line.size() - 2);
      continue;
    }
    const auto equals = line.find('=');
    if (equals == std::string::npos) fail("expected key = value");
    if (bugs.empty()) fail("a key before the first [name]");
    const std::string key = trim(line.substr(0, equals)), value = trim(line.substr(equals + 1));
    KnownNeslBug& bug = bugs.back();
    if (key == "program") {
      const std::filesystem::path p(value);
      bug.program = (p.is_absolute() ? p : directory / p).string();
    } else if (key == "run") {
      bug.run = value;
    } else if (key == "avoid") {
      std::istringstream words(value);
      for (std::string w; words >> w;) bug.avoid.insert(w);
    } else if (key == "why") {
      bug.why = value;
    } else {
      fail("unknown key " + key);
    }
  }
  finish();
  return bugs;
}

}  // namespace fuzz
