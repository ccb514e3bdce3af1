// The backend's options from a user's settings (backend_settings.hpp).
#include "backend_settings.hpp"

#include <string_view>
#include <vector>

#include "cvl/registry.hpp"

namespace vinterp {
namespace {

bool declares(const cvl::BackendOptionGroup& group, std::string_view option) {
  for (const cvl::BackendOption& declared : group.options)
    if (declared.name == option) return true;
  return false;
}

bool takes(const cvl::BackendEntry& entry, const cvl::BackendOptionGroup& group) {
  for (const cvl::BackendOptionGroup* taken : entry.option_groups)
    if (taken == &group) return true;
  return false;
}

// An option of a group that other backends refuse, given for one that does not take it.
void require_backend_takes(std::string_view option, const cvl::BackendOptionGroup& group,
                           const std::string& backend) {
  std::vector<std::string> takers;
  for (const cvl::BackendEntry* entry : cvl::registered_backends())
    if (takes(*entry, group)) takers.emplace_back(entry->name);
  for (const std::string& taker : takers)
    if (taker == backend) return;
  std::string message = "--" + std::string(option) + " is for --backend";
  for (std::size_t i = 0; i < takers.size(); ++i) message += (i ? " or " : " ") + takers[i];
  if (takers.empty()) message += "s this build does not have";
  throw cvl::OptionError(message);
}

}  // namespace

cvl::BackendOptions backend_options(const BackendSettings& settings) {
  if (settings.threads < 0) throw cvl::OptionError("--threads must be 0 (all cores) or more");
  cvl::BackendOptions options;
  options.threads = settings.threads;
  options.float_rank = settings.float_rank;
  options.device = settings.device;
  options.max_memory = settings.max_memory;
  for (const cvl::BackendOptionGroup* group : cvl::backend_option_groups())
    group->apply(settings.given, options);
  for (std::string_view option : settings.given.names())
    for (const cvl::BackendOptionGroup* group : cvl::backend_option_groups())
      if (group->refused_by_others && declares(*group, option))
        require_backend_takes(option, *group, settings.backend);
  return options;
}

}  // namespace vinterp
