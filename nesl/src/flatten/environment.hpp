// The variables in scope while flattening. After normalize a long chain of operators is as many
// nested lets, so a name is found through an index of where each is bound, not by a search from
// the innermost one at every use.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "flatten/layout.hpp"
#include "nesl/types.hpp"

namespace nesl::flattening {

// A variable in scope: its leaves, and its type to lift it further. Its leaves hold one value per
// instance of the current context, unless it is shared (FLATTENING.md): a free sequence of an
// apply-to-each, read where it is instead of copied to each element. A shared variable's leaves
// are values of an outer context, and each current instance reads the one of its group: the
// current instances in order, one segment of `groups` per outer instance (nesting, packing and
// selecting keep the order of the instances, so those of one outer instance stay together).
struct Variable {
  std::string name;
  Leaves leaves;
  Type type;
  bool shared = false;
  Value groups = -1;  // shared: the segdes grouping the current instances; -1: all read the one
};

// The variables innermost last; a later one hides an earlier one of the same name. Iterating may
// change a variable but not its name.
class Environment {
 public:
  Environment() = default;
  // Implicit, so that a list of variables made for a branch or a body can be assigned.
  Environment(std::vector<Variable> variables) : variables_(std::move(variables)) {}

  std::size_t size() const { return variables_.size(); }
  auto begin() { return variables_.begin(); }
  auto end() { return variables_.end(); }

  void push_back(Variable variable) {
    if (indexed_) places_[variable.name].push_back(variables_.size());
    variables_.push_back(std::move(variable));
  }
  // Drops the variables bound after the first `size`.
  void resize(std::size_t size) {
    while (variables_.size() > size) {
      if (indexed_) forget(variables_.back().name);
      variables_.pop_back();
    }
  }
  void clear() {
    variables_.clear();
    places_.clear();
    indexed_ = false;
  }

  // The innermost variable of that name; null when none is in scope.
  const Variable* find(const std::string& name) const {
    if (!indexed_) {
      for (std::size_t i = 0; i < variables_.size(); ++i) places_[variables_[i].name].push_back(i);
      indexed_ = true;
    }
    auto found = places_.find(name);
    return found == places_.end() ? nullptr : &variables_[found->second.back()];
  }

 private:
  void forget(const std::string& name) {
    auto found = places_.find(name);
    found->second.pop_back();
    if (found->second.empty()) places_.erase(found);
  }

  std::vector<Variable> variables_;
  // Where each name is bound, innermost last; made at the first find after an assignment.
  mutable std::unordered_map<std::string, std::vector<std::size_t>> places_;
  mutable bool indexed_ = false;
};

}  // namespace nesl::flattening
