// What every evaluator of a superoperator (vcode/superop.hpp) needs to know about it, worked out
// once: which nodes are evaluated at each element of the domain and which are read once per
// segment, how each operand is read, what the root does (elementwise, scan or reduce), the value
// types, and which operand fixes the domain. The VM's length checks, cvl-cpu's block evaluator,
// cvl-cuda's interpreter kernel and the CUDA kernel writer all plan from this, so they cannot
// disagree about a definition.
#pragma once

#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "vcode/op.hpp"
#include "vcode/superop.hpp"

namespace vcode {

enum class RootKind : std::uint8_t { Elementwise, Scan, Reduce };

// How an evaluator treats a node. A node shared by several parents (possible in a definition
// built in memory) takes the first role of this list that any use gives it.
enum class NodeRole : std::uint8_t {
  Element,      // a value at every element j: an elementwise op, DIST, INDEX, an operand read at j
  Constant,     // a constant used at j: the same value at every element
  SegmentLeaf,  // read at the segment of j only: a DIST value or an INDEX start/stride
  Gathered,     // read at positions its reader chooses: the $k of a Gather or of a Random
  Descriptor,   // a SEGDES operand: no values, only segments
  Fold,         // the scan or reduce root: folds `values_node` per segment
  Unused,       // needed by nothing (only in definitions built in memory)
};

struct SuperOpAnalysis {
  RootKind root_kind = RootKind::Elementwise;
  Op root_op = Op::Add;          // Scan, Reduce: the op of the root
  std::uint32_t root_segdes = 0;  // Scan, Reduce: the operand number of the root's descriptor
  // The node whose values are made at every element: the root, or the input of its fold. Nodes
  // after it (only a Fold root) are not evaluated per element.
  std::uint32_t values_node = 0;
  TypeKeyword values_type = TypeKeyword::Int;  // element type of those values (and of a fold)
  TypeKeyword result_type = TypeKeyword::Int;  // element type of the result

  std::vector<NodeRole> roles;        // per node
  std::vector<OperandUse> operands;   // per operand: how it is read (operand_uses)
  // Per operand: a descriptor whose segment of element j the per-element values need (a DIST of
  // an operand, an INDEX); the root's fold finds its segments by itself.
  std::vector<bool> segment_of_needed;

  // The domain is the length of operand `domain_operand` (the first read elementwise), or, when
  // no operand is, the total of the first descriptor.
  std::uint32_t domain_operand = 0;
  bool domain_is_total = false;

  bool divides = false;  // an INT / or % is evaluated: a divisor may trap

  // Per node: the first node evaluated at each element (at_element) that computes the same values
  // (same op, type and constants, on arguments that are the same), or the node itself. The
  // fcode-opt trees repeat a shared value at each of its uses; an evaluator computes it once.
  std::vector<std::uint32_t> same_as;
  // Structurally distinct nodes (operand leaves included): the size of the definition once each
  // repeated value is written once, as an expression built in memory writes it.
  std::size_t distinct_nodes = 0;
  // Per node evaluated at each element: the same value at every element of every call (a
  // constant, a DIST of a constant, or an elementwise op that cannot trap on such arguments), so
  // an evaluator may compute it once. Computing it with the same scalar function gives the same
  // bits as computing it at each element.
  std::vector<bool> invariant;
  // Per node evaluated at each element: the same value at every element of a call in which every
  // descriptor has one segment (the scalars of top-level code): invariant nodes, every DIST, and
  // elementwise ops that cannot trap on such arguments.
  std::vector<bool> uniform_if_one_segment;

  bool folds() const { return root_kind != RootKind::Elementwise; }
  bool at_element(std::uint32_t node) const {
    return roles[node] == NodeRole::Element || roles[node] == NodeRole::Constant;
  }
};

// The analysis of a definition that check_superop accepts (anything else gives an unspecified
// analysis, never undefined behaviour). `outputs`: nodes of an elementwise definition whose
// values an evaluator writes out besides the root's (cvl-cpu computes pending results that
// share operands in one pass), each made at every element like the root.
SuperOpAnalysis analyze(const SuperOp& op, std::span<const std::uint32_t> outputs = {});

// A node's computation with its arguments renamed (to their first equal node, or to their place
// in another expression): nodes with equal keys have equal values. same_as and distinct_nodes
// above, and cvl-cpu's pending expressions, find equal nodes by it.
using NodeKey = std::tuple<SuperOpNode::Kind, Op, TypeKeyword, TypeKeyword, std::uint32_t,
                           std::int32_t, std::uint64_t, std::uint8_t, std::uint32_t,
                           std::uint32_t, std::uint32_t>;
NodeKey node_key(const SuperOpNode& n, const std::uint32_t (&args)[3]);

// Per node: whether every node that reads it reads it at each element (an elementwise op, a
// gather's positions, a fold's values), not as a gather's source or a DIST's or INDEX's values.
// An expression built in memory keeps an operand read so apart (superop_builder.hpp).
std::vector<bool> read_at_elements_only(const SuperOp& definition);

}  // namespace vcode
