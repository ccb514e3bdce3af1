#include "flatten/free_variables.hpp"

#include <memory>
#include <vector>

#include "nesl/primitives.hpp"

namespace nesl::flattening {

void pattern_names(const core::Pattern& pattern, std::set<std::string>& out) {
  if (pattern.kind == core::Pattern::Kind::Variable) {
    out.insert(pattern.name);
    return;
  }
  for (const auto& child : pattern.children) pattern_names(*child, out);
}

namespace {

// Binds the names of `pattern` that `bound` does not hold yet, for as long as it lives (so that
// a long chain of lets is not a copy of the bound names per let).
class Binding {
 public:
  Binding(const core::Pattern& pattern, std::set<std::string>& bound) : bound_(bound) {
    std::set<std::string> names;
    pattern_names(pattern, names);
    for (const std::string& name : names) {
      if (bound_.insert(name).second) added_.push_back(name);
    }
  }
  ~Binding() {
    for (const std::string& name : added_) bound_.erase(name);
  }
  Binding(const Binding&) = delete;
  Binding& operator=(const Binding&) = delete;

 private:
  std::set<std::string>& bound_;
  std::vector<std::string> added_;
};

void collect_free(const core::Expr& e, std::set<std::string>& bound, std::set<std::string>& out) {
  switch (e.kind) {
    case core::Kind::Variable:
      if (!bound.count(e.name)) out.insert(e.name);
      return;
    case core::Kind::Let: {
      collect_free(*e.children[0], bound, out);
      const Binding binding(*e.pattern, bound);
      collect_free(*e.children[1], bound, out);
      return;
    }
    case core::Kind::Over: {
      for (const core::Generator& g : e.generators) collect_free(*g.sequence, bound, out);
      std::vector<std::unique_ptr<Binding>> bindings;
      for (const core::Generator& g : e.generators) bindings.push_back(std::make_unique<Binding>(*g.pattern, bound));
      collect_free(*e.children[0], bound, out);
      return;
    }
    default:
      for (const core::ExprPtr& child : e.children) collect_free(*child, bound, out);
  }
}

}  // namespace

void free_variables(const core::Expr& e, std::set<std::string> bound, std::set<std::string>& out) {
  collect_free(e, bound, out);
}

std::set<std::string> free_variables(const core::Expr& e) {
  std::set<std::string> out;
  free_variables(e, {}, out);
  return out;
}

bool is_simple(const core::Expr& e) {
  if (e.kind == core::Kind::Pair) return is_simple(*e.children[0]) && is_simple(*e.children[1]);
  return e.kind == core::Kind::Variable || e.kind == core::Kind::Constant;
}

bool can_fail(const core::Expr& e) {
  switch (e.kind) {
    case core::Kind::Call: return true;
    case core::Kind::Primitive: {
      const Primitive* p = find_primitive(e.name);
      if (!p) return true;
      switch (p->kind) {
        case PrimitiveKind::Elementwise:
        case PrimitiveKind::Complement:
        case PrimitiveKind::CompareToZero:
        case PrimitiveKind::Negate:
        case PrimitiveKind::Abs:
        case PrimitiveKind::Identity:
        case PrimitiveKind::Constant:
        case PrimitiveKind::OneLike:
        case PrimitiveKind::ZeroLike:
        case PrimitiveKind::Reduce:
        case PrimitiveKind::Count:
        case PrimitiveKind::Scan:
        case PrimitiveKind::Length:
        case PrimitiveKind::Flatten:
        case PrimitiveKind::Append:
        case PrimitiveKind::Timer:
        case PrimitiveKind::Print: break;
        default: return true;
      }
      break;
    }
    case core::Kind::Over:
      if (e.generators.size() > 1) return true;
      for (const core::Generator& g : e.generators) {
        if (can_fail(*g.sequence)) return true;
      }
      break;
    default: break;
  }
  for (const core::ExprPtr& child : e.children) {
    if (can_fail(*child)) return true;
  }
  return false;
}

bool scalar_arithmetic(const core::Expr& e) {
  switch (e.kind) {
    case core::Kind::Variable:
    case core::Kind::Constant: return true;
    case core::Kind::Pair: return scalar_arithmetic(*e.children[0]) && scalar_arithmetic(*e.children[1]);
    case core::Kind::Primitive: {
      const Primitive* p = find_primitive(e.name);
      if (!p) return false;
      switch (p->kind) {
        case PrimitiveKind::Elementwise:
        case PrimitiveKind::Complement:
        case PrimitiveKind::CompareToZero:
        case PrimitiveKind::Negate:
        case PrimitiveKind::Abs:
        case PrimitiveKind::Identity:
        case PrimitiveKind::CheckedDivide:
        case PrimitiveKind::CheckedSqrt:
        case PrimitiveKind::Constant:
        case PrimitiveKind::OneLike: break;
        default: return false;
      }
      for (const core::ExprPtr& child : e.children) {
        if (!scalar_arithmetic(*child)) return false;
      }
      return true;
    }
    default: return false;
  }
}

bool deterministic(const core::Expr& e, const std::set<std::string>& varying) {
  if (e.kind == core::Kind::Call && varying.count(e.name)) return false;
  if (e.kind == core::Kind::Primitive) {
    const Primitive* p = find_primitive(e.name);
    if (!p) return false;
    switch (p->kind) {
      case PrimitiveKind::Rand:
      case PrimitiveKind::Timer:
      case PrimitiveKind::Print:
      case PrimitiveKind::WriteString:
      case PrimitiveKind::ReadLine:
      case PrimitiveKind::WriteObject:
      case PrimitiveKind::ReadObject:
      case PrimitiveKind::Spawn:
      case PrimitiveKind::OpenFile:
      case PrimitiveKind::CloseFile:
      case PrimitiveKind::ReadString: return false;
      default: break;
    }
  }
  for (const core::ExprPtr& child : e.children) {
    if (!deterministic(*child, varying)) return false;
  }
  for (const core::Generator& g : e.generators) {
    if (!deterministic(*g.sequence, varying)) return false;
  }
  return true;
}

std::set<std::string> varying_functions(const std::vector<core::Function>& functions) {
  std::set<std::string> varying;
  for (bool grew = true; grew;) {
    grew = false;
    for (const core::Function& f : functions) {
      if (!varying.count(f.name) && !deterministic(*f.body, varying)) {
        varying.insert(f.name);
        grew = true;
      }
    }
  }
  return varying;
}

namespace {

// A call's argument: the variable itself may go anywhere in it (the call shares it).
bool argument_in_place(const core::Expr& argument, const std::string& name) {
  if (argument.kind == core::Kind::Variable) return true;
  if (argument.kind == core::Kind::Pair) {
    return argument_in_place(*argument.children[0], name) && argument_in_place(*argument.children[1], name);
  }
  return read_in_place(argument, name);
}

}  // namespace

bool read_in_place(const core::Expr& e, const std::string& name) {
  switch (e.kind) {
    case core::Kind::Variable: return e.name != name;  // any other use of it copies it
    case core::Kind::Call: return argument_in_place(*e.children[0], name);
    case core::Kind::Primitive: {
      const Primitive* p = find_primitive(e.name);
      const bool in_place = p && (p->kind == PrimitiveKind::Element || p->kind == PrimitiveKind::Get ||
                                  p->kind == PrimitiveKind::Length);
      if (!in_place) break;
      const core::Expr& argument = *e.children[0];
      const core::Expr& sequence = p->arity == 1 ? argument : *argument.children[0];
      if (sequence.kind != core::Kind::Variable || sequence.name != name) break;
      return p->arity == 1 || read_in_place(*argument.children[1], name);
    }
    default: break;
  }
  for (const core::ExprPtr& child : e.children) {
    if (!read_in_place(*child, name)) return false;
  }
  for (const core::Generator& g : e.generators) {
    if (!read_in_place(*g.sequence, name)) return false;
  }
  return true;
}

}  // namespace nesl::flattening
