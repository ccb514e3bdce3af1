#include "nesl/result_reader.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <unordered_map>
#include <vector>

namespace nesl {
namespace {

const char* const kNoResult = "Error while running VCODE.";

// One slot of the stack dump.
struct Slot {
  bool segdes = false;
  std::vector<std::string> tokens;
};

std::vector<Slot> parse_slots(std::string_view text) {
  std::vector<Slot> slots;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && line[i] == ' ') ++i;
      std::size_t j = i;
      while (j < line.size() && line[j] != ' ') ++j;
      if (j > i) words.emplace_back(line.substr(i, j - i));
      i = j;
    }
    if (words.empty()) continue;
    Slot slot;
    const std::string open = words.front();
    const std::string close = words.back();
    if (words.size() < 2 || !((open == "(" && close == ")") || (open == "[" && close == "]")))
      throw ResultError(kNoResult);  // a pair, or output that is not a result
    slot.segdes = open == "[";
    slot.tokens.assign(words.begin() + 1, words.end() - 1);
    slots.push_back(std::move(slot));
  }
  return slots;
}

Type substitute(const Type& type, const std::unordered_map<const TypeNode*, Type>& by) {
  Type t = resolve(type);
  if (t->kind == TypeNode::Kind::Variable) {
    auto found = by.find(t.get());
    return found == by.end() ? t : found->second;
  }
  if (t->children.empty()) return t;
  auto copy = std::make_shared<TypeNode>(*t);
  for (Type& child : copy->children) child = substitute(child, by);
  return copy;
}

std::int64_t parse_integer(const std::string& token) {
  std::int64_t x = 0;
  auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), x);
  if (error != std::errc() || end != token.data() + token.size()) throw ResultError(kNoResult);
  return x;
}

// The classic reads each float with the Lisp reader: `inf` and `nan` are symbols it refuses,
// named in upper case as Lisp prints them.
double parse_float(const std::string& token) {
  char* end = nullptr;
  double x = std::strtod(token.c_str(), &end);
  if (end != token.c_str() + token.size() || !std::isfinite(x)) {
    std::string message = "Returning ";
    for (char c : token) message += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    message += ": infinity and not-a-number (NAN) are not supported.";
    throw ResultError(message);
  }
  return x == 0 ? 0.0 : x;  // the classic's reader gave 0.0 for -0.0
}

class Reader {
 public:
  Reader(std::vector<Slot> slots, const std::map<std::string, Type>& constructors)
      : slots_(std::move(slots)), constructors_(constructors) {}

  // `count` values of `type`, from the slots at the cursor.
  std::vector<Value> read(const Type& type, std::size_t count) {
    Type t = resolve(type);
    switch (t->kind) {
      case TypeNode::Kind::Base: return read_base(t->base, count);
      case TypeNode::Kind::Sequence: {
        const Slot& slot = next(true, count);
        std::vector<std::size_t> lengths;
        std::size_t total = 0;
        for (const std::string& token : slot.tokens) {
          std::int64_t length = parse_integer(token);
          if (length < 0) throw ResultError(kNoResult);
          lengths.push_back(static_cast<std::size_t>(length));
          total += lengths.back();
        }
        Type element = resolve(t->children[0]);
        const bool of_chars =
            element->kind == TypeNode::Kind::Base && element->base == BaseType::Char;
        std::vector<Value> elements = read(element, total);
        std::vector<Value> out;
        std::size_t at = 0;
        for (std::size_t length : lengths) {
          std::vector<Value> part(std::make_move_iterator(elements.begin() + at),
                                  std::make_move_iterator(elements.begin() + at + length));
          at += length;
          out.push_back(Value::sequence(std::move(part), of_chars));
          out.back().element_type = type_source(element);
        }
        return out;
      }
      case TypeNode::Kind::Pair: {
        std::vector<Value> left = read(t->children[0], count);
        std::vector<Value> right = read(t->children[1], count);
        std::vector<Value> out;
        for (std::size_t i = 0; i < count; ++i)
          out.push_back(Value::pair(std::move(left[i]), std::move(right[i])));
        return out;
      }
      case TypeNode::Kind::Datatype: {
        std::vector<Value> fields = read(datatype_fields(t, constructors_), count);
        std::vector<Value> out;
        for (Value& field : fields) out.push_back(Value::datatype(t->name, std::move(field)));
        return out;
      }
      case TypeNode::Kind::Variable:
      case TypeNode::Kind::Function: break;
    }
    throw ResultError("Can't handle the result type " + print_type(t) + ".");
  }

  bool finished() const { return cursor_ == slots_.size(); }

 private:
  const Slot& next(bool segdes, std::size_t count) {
    if (cursor_ >= slots_.size()) throw ResultError(kNoResult);
    const Slot& slot = slots_[cursor_++];
    if (slot.segdes != segdes || slot.tokens.size() != count) throw ResultError(kNoResult);
    return slot;
  }

  std::vector<Value> read_base(BaseType base, std::size_t count) {
    const Slot& slot = next(false, count);
    std::vector<Value> out;
    out.reserve(count);
    for (const std::string& token : slot.tokens) {
      switch (base) {
        case BaseType::Int: out.push_back(Value::of_int(parse_integer(token))); break;
        case BaseType::Char: out.push_back(Value::of_char(parse_integer(token))); break;
        case BaseType::Float: out.push_back(Value::of_float(parse_float(token))); break;
        case BaseType::Bool:
          if (token != "T" && token != "F") throw ResultError(kNoResult);
          out.push_back(Value::of_bool(token == "T"));
          break;
      }
    }
    return out;
  }

  std::vector<Slot> slots_;
  std::size_t cursor_ = 0;
  const std::map<std::string, Type>& constructors_;
};

}  // namespace

Type datatype_fields(const Type& type, const std::map<std::string, Type>& constructors) {
  Type t = resolve(type);
  auto found = constructors.find(t->name);
  if (found == constructors.end()) throw ResultError("Can't handle the result type " + t->name + ".");
  Type constructor = resolve(found->second);
  Type made = resolve(constructor->children[1]);
  std::unordered_map<const TypeNode*, Type> by;
  for (std::size_t i = 0; i < made->children.size() && i < t->children.size(); ++i) {
    Type parameter = resolve(made->children[i]);
    if (parameter->kind == TypeNode::Kind::Variable) by[parameter.get()] = t->children[i];
  }
  return substitute(constructor->children[0], by);
}

std::string type_source(const Type& type, const VariableNames& variables) {
  Type t = resolve(type);
  switch (t->kind) {
    case TypeNode::Kind::Variable:
      if (auto named = variables.find(t.get()); named != variables.end()) return named->second;
      return print_type(t);
    case TypeNode::Kind::Base:
    case TypeNode::Kind::Function: return print_type(t);
    case TypeNode::Kind::Sequence: {
      std::string text = "[";
      text += type_source(t->children[0], variables);
      return text + "]";
    }
    case TypeNode::Kind::Pair: {
      std::string text = "(";
      text += type_source(t->children[0], variables);
      text += ", ";
      text += type_source(t->children[1], variables);
      return text + ")";
    }
    case TypeNode::Kind::Datatype: {
      if (t->children.empty()) return t->name;
      std::string text = t->name + "(";
      for (std::size_t i = 0; i < t->children.size(); ++i)
        text += (i ? ", " : "") + type_source(t->children[i], variables);
      return text + ")";
    }
  }
  return print_type(t);
}

Value read_result(std::string_view stack, const Type& type,
                  const std::map<std::string, Type>& constructors) {
  return std::move(read_results(stack, {type}, constructors).front());
}

std::vector<Value> read_results(std::string_view stack, const std::vector<Type>& types,
                                const std::map<std::string, Type>& constructors) {
  Reader reader(parse_slots(stack), constructors);
  std::vector<Value> values;
  for (const Type& type : types) values.push_back(std::move(reader.read(type, 1).front()));
  if (!reader.finished()) throw ResultError(kNoResult);
  return values;
}

}  // namespace nesl
