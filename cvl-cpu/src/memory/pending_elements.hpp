// Elements computed when first read: what a buffer made without memory holds until something
// takes their address (Buffer::bytes). The pending layer's expressions
// (pending/lazy_elementwise.hpp) and the reductions it folds together (pending/fold_group.hpp)
// are the kinds; memory knows only how to ask for the elements and drop them.
#pragma once

#include "cvl/types.hpp"

namespace cvl::cpu {

class PendingElements {
 public:
  virtual ~PendingElements() = default;

  // The elements, computed once, when the buffer `self` is first read.
  virtual Vector compute(const Storage* self) = 0;

 protected:
  PendingElements() = default;
  PendingElements(const PendingElements&) = default;
  PendingElements(PendingElements&&) = default;
  PendingElements& operator=(const PendingElements&) = default;
  PendingElements& operator=(PendingElements&&) = default;
};

}  // namespace cvl::cpu
