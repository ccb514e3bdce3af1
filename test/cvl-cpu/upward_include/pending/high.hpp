// A header of the pending layer (upward_include/memory/low.hpp includes it).
#pragma once
