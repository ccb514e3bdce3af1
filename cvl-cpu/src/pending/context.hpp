// What each operation of a cvl-cpu backend reads: its threads, its options, its memory budget,
// and what computes its pending results. The backend object (backend.cpp) makes one.
#pragma once

#include <memory>

#include "cvl/backend.hpp"
#include "memory/memory_budget.hpp"
#include "pending/evaluator.hpp"
#include "threads/parallel.hpp"

namespace cvl::cpu {

struct Context {
  Parallel par;
  FloatRankOrder float_rank = FloatRankOrder::Correct;
  // Transcendentals from families/vector_math.hpp (BackendOptions::fast_math).
  bool fast_math = false;
  bool lazy = false;  // long elementwise results computed when read (lazy_elementwise.hpp)
  // What this backend's vectors may hold (--max-memory), charged by every operation it runs
  // (MemoryScope); never null in a backend's context.
  std::shared_ptr<MemoryBudget> memory = std::make_shared<MemoryBudget>();
  // Computes pending results (the FUSED evaluator: fused/fused.hpp); never null in a backend's
  // context.
  const Evaluator* evaluator = nullptr;
};

}  // namespace cvl::cpu
