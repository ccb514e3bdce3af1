// A superoperator definition built in memory node by node, as cvl-cpu's and cvl-cuda's pending
// results build theirs: each computation is one node however often it is read (x * x reads one
// node), and each operand one $k, so that equal expressions give equal definitions (the same
// definition_key, one plan) and node limits count work, not repetitions. The libraries keep
// what the operands are (their vectors); this keeps the definition over them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "vcode/op.hpp"
#include "vcode/superop.hpp"
#include "vcode/superop_analysis.hpp"

namespace vcode {

class SuperOpBuilder {
  using Kind = SuperOpNode::Kind;

 public:
  // $k for the operand of `kind` that `identity` names (a library's handle on its storage), one
  // k for each however often it is read; `added` where it is new.
  struct OperandNumber {
    std::uint32_t k;
    bool added;
  };
  OperandNumber operand_number(TypeKeyword kind, const void* identity);
  // A node reading $k: at each element, or not (a DIST's values, a gather's source).
  std::uint32_t operand_node(std::uint32_t k, bool at_element);

  std::uint32_t elementwise(Op op, TypeKeyword type, std::span<const std::uint32_t> args);
  std::uint32_t index(std::uint32_t starts, std::uint32_t strides, std::uint32_t segments);
  std::uint32_t distribute(TypeKeyword type, std::uint32_t values, std::uint32_t segments);
  std::uint32_t gather(TypeKeyword type, std::uint32_t source, std::uint32_t positions);
  // RAND's draws from the stream that node `stream` reads, each reduced by `bound`.
  std::uint32_t random(std::uint32_t stream, std::int32_t bound);
  // A scan or reduction (`op`) of `values` per segment of `segments`: the root of a fold.
  std::uint32_t fold(Op op, TypeKeyword type, std::uint32_t values, std::uint32_t segments);

  // Each computation once: a node equal to one added already (its args nodes of this definition)
  // is that node. An operand read other than at each element (a gather's source, a DIST's
  // values) keeps a node of its own, as its role differs (superop_analysis.hpp);
  // `read_at_elements` says which (only an operand node's, and not a descriptor's, can differ).
  std::uint32_t add(const SuperOpNode& node, bool read_at_elements = true);

  // Appends the nodes of `inner`, its $k read as this definition's operand `operand_now[k]`, or,
  // where `node_now` has a node for k, as that node; returns the node of inner's root.
  std::uint32_t splice(const SuperOp& inner, std::span<const std::uint32_t> operand_now,
                       std::span<const std::optional<std::uint32_t>> node_now = {});

  std::size_t size() const { return definition_.nodes.size(); }
  TypeKeyword operand_kind(std::uint32_t k) const { return definition_.operands[k]; }

  // The definition, its root (the node added last) its last node, as a definition's root is.
  SuperOp finish() { return finish_at(last_); }
  // The same with `root` (a node added) as the root.
  SuperOp finish_at(std::uint32_t root);

 private:
  // A node of `kind` computing `op` over the nodes `args`, its values of `type` (the type keyword
  // is also the op's, as for every node but an elementwise one).
  std::uint32_t node_of(Kind kind, Op op, TypeKeyword type,
                        std::initializer_list<std::uint32_t> args, std::int32_t int_value = 0);

  SuperOp definition_;
  std::vector<const void*> operand_identity_;     // per operand
  std::map<NodeKey, std::uint32_t> index_of_;  // each node's computation, its args here
  std::uint32_t last_ = 0;
};

}  // namespace vcode
