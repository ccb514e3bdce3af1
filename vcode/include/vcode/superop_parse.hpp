// Reads FCODE `SUPEROP` definitions (the notation of vcode/superop.hpp) from the VCODE token
// stream; the VCODE parser calls it for each definition it meets between functions.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "vcode/diagnostics.hpp"
#include "vcode/lexer.hpp"
#include "vcode/superop.hpp"

namespace vcode {

// A parsed definition and where each of its nodes was written (for check_superop's messages).
struct ParsedSuperOp {
  SuperOp op;
  std::vector<SourceLocation> node_where;  // parallel to op.nodes
};

// Parses the definition starting at tokens[pos] (the word SUPEROP) and moves pos past it. On a
// syntax error appends a diagnostic and returns nullopt (pos is then unspecified). Only the
// syntax is checked here; types, arities and the other rules are check_superop's.
std::optional<ParsedSuperOp> parse_superop(std::span<const Token> tokens, std::size_t& pos,
                                           std::vector<Diagnostic>& errors);

}  // namespace vcode
