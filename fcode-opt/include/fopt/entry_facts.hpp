// Length facts that hold whenever a function is entered: the relations every call of it passes
// (arguments of equal lengths, a scalar equal to a descriptor's total, a one-element vector), so
// that a callee's body knows what its callers know. fcode-opt's functions are NESL's, called
// with vectors their callers built together; without this, each body starts knowing nothing.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "fopt/ir.hpp"
#include "fopt/length_facts.hpp"

namespace fopt {

class EntryFacts {
 public:
  // The facts of every lifted function called only from lifted functions (the entry function and
  // those an unoptimized function calls get none): the relations that hold at each of its calls,
  // a fixpoint over the call graph (recursive calls included).
  explicit EntryFacts(const Module& module);

  // Unites in `facts` what holds whenever `f` is entered.
  void assume(const Function& f, LengthFacts& facts) const;

 private:
  // Over a function's k parameters, the nodes one, length(p0), sum(p0), ..., sum(p(k-1)): each
  // node's class (the first node of it), in every call seen so far.
  using Partition = std::vector<std::uint32_t>;

  void record_calls(const Module& module, const Block& block, LengthFacts& facts,
                    std::unordered_map<std::string, Partition>& seen) const;

  std::unordered_map<std::string, Partition> entry_;
};

}  // namespace fopt
