// Whether the kernel would back the mapping holding an address with transparent huge pages, as
// /proc/self/smaps says (THPeligible).
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace cvl::cpu::test {

// The THPeligible field of the mapping that holds `address`: 1 or 0; -1 when the kernel does
// not say.
inline int thp_eligible(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t from = 0, to = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> from >> dash >> to && dash == '-') {
      inside = from <= at && at < to;
    } else if (inside && line.rfind("THPeligible:", 0) == 0) {
      return std::stoi(line.substr(12));
    }
  }
  return -1;
}

}  // namespace cvl::cpu::test
