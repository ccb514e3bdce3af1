#include "memory/huge_pages.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

namespace cvl::cpu {
namespace {

// The virtio balloon's feature bit for free page reporting (VIRTIO_BALLOON_F_REPORTING).
constexpr std::size_t kBalloonReportingBit = 5;

bool virtio_balloon_reports_free_pages() {
  std::error_code error;
  const std::filesystem::path drivers = "/sys/bus/virtio/drivers/virtio_balloon";
  for (const auto& device : std::filesystem::directory_iterator(drivers, error)) {
    // `features` is one character per feature bit, '0' or '1', bit 0 first.
    std::ifstream features(device.path() / "features");
    std::string bits;
    if (features >> bits && bits.size() > kBalloonReportingBit && bits[kBalloonReportingBit] == '1')
      return true;
  }
  return false;
}

// Hyper-V's balloon driver reports free pages wherever it is bound to a device.
bool hyperv_balloon_bound() {
  std::error_code error;
  const std::filesystem::path drivers = "/sys/bus/vmbus/drivers/hv_balloon";
  for (const auto& entry : std::filesystem::directory_iterator(drivers, error))
    if (entry.is_symlink(error)) return true;
  return false;
}

}  // namespace

bool free_pages_go_to_hypervisor() {
  static const bool reported = virtio_balloon_reports_free_pages() || hyperv_balloon_bound();
  return reported;
}

bool wants_huge_pages(HugePages policy) {
  switch (policy) {
    case HugePages::On: return true;
    case HugePages::Off: return false;
    case HugePages::Auto: break;
  }
  return !free_pages_go_to_hypervisor();
}

std::string huge_pages_description(HugePages policy) {
  const char* name = policy == HugePages::On ? "on" : policy == HugePages::Off ? "off" : "auto";
  std::string line = std::string("--huge-pages ") + name + ": " + (wants_huge_pages(policy) ? "on" : "off");
  if (policy == HugePages::Auto)
    line += free_pages_go_to_hypervisor() ? " (the kernel gives free pages back to its hypervisor)"
                                          : " (free pages stay with this kernel)";
  return line;
}

}  // namespace cvl::cpu
