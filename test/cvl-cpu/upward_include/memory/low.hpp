// A header of the memory layer that includes one of the pending layer, above it: the layer check
// must name this line (cvl_cpu_layers_catch_an_upward_include).
#pragma once

#include "pending/high.hpp"
