#include "nesl/result_types.hpp"

#include <cctype>
#include <set>

#include "nesl/result_reader.hpp"

namespace nesl {
namespace {

constexpr std::string_view kFirstLine = "{ NESL result types (vinterp --print-nesl):";
constexpr std::string_view kResult = "it : ";
constexpr std::string_view kDatatype = "datatype ";

// The datatypes `type` holds, its fields' datatypes included, each once, in order of appearance.
void collect_datatypes(const Type& type, const std::map<std::string, Type>& constructors,
                       std::set<std::string>& seen, std::vector<std::string>& found) {
  const Type t = resolve(type);
  if (t->kind == TypeNode::Kind::Datatype && seen.insert(t->name).second) {
    if (auto constructor = constructors.find(t->name); constructor != constructors.end()) {
      found.push_back(t->name);
      collect_datatypes(resolve(constructor->second)->children[0], constructors, seen, found);
    }
  }
  for (const Type& child : t->children) collect_datatypes(child, constructors, seen, found);
}

// `'a`, `'b`, ...: written with a quote, so that a parameter is never read as a datatype's name.
std::string parameter_name(std::size_t index) {
  std::string name = "'";
  name += static_cast<char>('a' + index % 26);
  return index < 26 ? name : name + std::to_string(index / 26);
}

// `datatype NAME('a, 'b) = FIELDS`, from the datatype's constructor.
std::string declaration(const std::string& name, const Type& constructor_type) {
  const Type constructor = resolve(constructor_type);
  const Type made = resolve(constructor->children[1]);
  VariableNames names;
  std::string text = std::string(kDatatype) + name;
  for (std::size_t i = 0; i < made->children.size(); ++i) {
    names[resolve(made->children[i]).get()] = parameter_name(i);
    text += (i == 0 ? "(" : ", ") + parameter_name(i);
  }
  if (!made->children.empty()) text += ")";
  return text + " = " + type_source(constructor->children[0], names);
}

[[noreturn]] void unreadable(const std::string& line, const std::string& why) {
  throw ResultError("the NESL result types at the end of the VCODE cannot be read: " + why + " in '" + line + "'");
}

// One type as type_source writes it; `parameters` are the names a declaration's fields may use.
class TypeText {
 public:
  TypeText(std::string_view text, const std::map<std::string, Type>& parameters)
      : text_(text), parameters_(parameters) {}

  Type whole() {
    Type type = next();
    skip_blanks();
    if (at_ < text_.size()) fail("unexpected '" + std::string(1, text_[at_]) + "'");
    return type;
  }

 private:
  Type next() {
    skip_blanks();
    if (take('[')) {
      Type element = next();
      expect(']');
      return make_sequence(element);
    }
    if (take('(')) return right_nested(list());
    const bool parameter = take('\'');
    const std::string name = word();
    if (name.empty()) fail("a type expected");
    if (parameter) {
      auto found = parameters_.find("'" + name);
      if (found == parameters_.end()) fail("unknown parameter '" + name);
      return found->second;
    }
    if (name == "int") return make_base(BaseType::Int);
    if (name == "float") return make_base(BaseType::Float);
    if (name == "bool") return make_base(BaseType::Bool);
    if (name == "char") return make_base(BaseType::Char);
    skip_blanks();
    return make_datatype(name, take('(') ? list() : std::vector<Type>{});
  }

  // Types separated by commas, up to `)`, which was opened before.
  std::vector<Type> list() {
    std::vector<Type> types{next()};
    skip_blanks();
    while (take(',')) {
      types.push_back(next());
      skip_blanks();
    }
    expect(')');
    return types;
  }

  static Type right_nested(const std::vector<Type>& parts) {
    Type type = parts.back();
    for (std::size_t i = parts.size() - 1; i-- > 0;) type = make_pair(parts[i], type);
    return type;
  }

  std::string word() {
    const std::size_t start = at_;
    while (at_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_')) ++at_;
    return std::string(text_.substr(start, at_ - start));
  }
  void skip_blanks() {
    while (at_ < text_.size() && text_[at_] == ' ') ++at_;
  }
  bool take(char c) {
    if (at_ < text_.size() && text_[at_] == c) return ++at_, true;
    return false;
  }
  void expect(char c) {
    skip_blanks();
    if (!take(c)) fail(std::string("'") + c + "' expected");
  }
  [[noreturn]] void fail(const std::string& why) const { unreadable(std::string(text_), why); }

  std::string_view text_;
  std::size_t at_ = 0;
  const std::map<std::string, Type>& parameters_;
};

// `datatype NAME('a, 'b) = FIELDS` into the result's constructors.
void read_declaration(std::string_view line, ResultTypes& types) {
  const std::string whole(line);
  line.remove_prefix(kDatatype.size());
  const std::size_t equals = line.find(" = ");
  if (equals == std::string_view::npos) unreadable(whole, "' = ' expected");
  const std::string_view head = line.substr(0, equals);
  const std::string name(head.substr(0, head.find('(')));
  if (name.empty()) unreadable(whole, "a datatype's name expected");
  std::map<std::string, Type> parameters;
  std::vector<Type> made;
  if (head.size() > name.size()) {
    if (head.back() != ')') unreadable(whole, "')' expected");
    std::string_view list = head.substr(name.size() + 1, head.size() - name.size() - 2);
    while (!list.empty()) {
      const std::size_t comma = list.find(", ");
      const std::string parameter(list.substr(0, comma));
      if (parameter.size() < 2 || parameter[0] != '\'') unreadable(whole, "a parameter 'a expected");
      made.push_back(make_variable());
      parameters[parameter] = made.back();
      list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 2);
    }
  }
  const Type fields = TypeText(line.substr(equals + 3), parameters).whole();
  types.constructors[name] = make_function(fields, make_datatype(name, made));
}

}  // namespace

std::string result_types_comment(const ResultTypes& types) {
  std::set<std::string> seen;
  std::vector<std::string> datatypes;
  for (const Type& type : types.results) collect_datatypes(type, types.constructors, seen, datatypes);
  std::string text = std::string(kFirstLine) + "\n";
  for (const std::string& name : datatypes)
    text += "  " + declaration(name, types.constructors.at(name)) + "\n";
  for (const Type& type : types.results) text += "  " + std::string(kResult) + type_source(type) + "\n";
  return text + "}\n";
}

std::optional<ResultTypes> read_result_types(std::string_view vcode) {
  const std::size_t close = vcode.find_last_not_of(" \t\r\n");
  if (close == std::string_view::npos || vcode[close] != '}') return std::nullopt;
  const std::size_t open = vcode.rfind('{', close);
  if (open == std::string_view::npos || !vcode.substr(open).starts_with(kFirstLine)) return std::nullopt;
  std::string_view body = vcode.substr(open + kFirstLine.size(), close - open - kFirstLine.size());
  ResultTypes types;
  while (!body.empty()) {
    const std::size_t end = body.find('\n');
    std::string_view line = body.substr(0, end);
    body = end == std::string_view::npos ? std::string_view{} : body.substr(end + 1);
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") + 1 - first);
    if (line.starts_with(kDatatype)) {
      read_declaration(line, types);
    } else if (line.starts_with(kResult)) {
      const std::map<std::string, Type> no_parameters;
      types.results.push_back(TypeText(line.substr(kResult.size()), no_parameters).whole());
    } else {
      unreadable(std::string(line), "'it : TYPE' or 'datatype' expected");
    }
  }
  return types;
}

}  // namespace nesl
