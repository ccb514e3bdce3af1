// Whether the vector memory asks for transparent huge pages: the choice behind --huge-pages.
#pragma once

#include <string>

#include "cvl/backend.hpp"

namespace cvl::cpu {

// True where the kernel gives free memory back to the hypervisor it runs under (a virtio balloon
// with free page reporting, or Hyper-V's balloon): there a page freed a few seconds ago is no
// longer backed, and a huge page faulted afresh costs several times the 512 small pages it
// replaces, because the kernel reports exactly the 2 MiB blocks a huge page is made of.
bool free_pages_go_to_hypervisor();

// What `policy` means on this machine.
bool wants_huge_pages(HugePages policy);

// One line for `vinterp --version`: "--huge-pages auto: off (...)".
std::string huge_pages_description(HugePages policy);

}  // namespace cvl::cpu
