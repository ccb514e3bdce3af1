// The printed forms of values (spec/VCODE.md §5), the final stack dump and the traces.
#include <charconv>
#include <cstring>

#include "machine.hpp"

namespace vm {

namespace {

void append_int(std::string& out, std::int32_t x) {
  char text[16];
  auto end = std::to_chars(text, text + sizeof text, x).ptr;
  out.append(text, end);
}

// C's printf("%.14e"), including inf, -inf, nan and -nan as glibc prints them.
void append_float(std::string& out, double x) {
  char text[40];
  auto end = std::to_chars(text, text + sizeof text, x, std::chars_format::scientific, 14).ptr;
  out.append(text, end);
}

// `pair(Int,Bool) `, with the trailing space of the classic format.
void append_pair(std::string& out, const Value& v) {
  out += "pair(";
  out += kind_name(pair_of(v).first.kind);
  out += ',';
  out += kind_name(pair_of(v).second.kind);
  out += ") ";
}

template <typename T, typename Append>
void append_elements(std::string& out, cvl::Backend& backend, const Value& v, Append append) {
  constexpr std::size_t chunk = 1 << 16;  // bounded host buffer for huge vectors
  std::vector<T> buffer(std::min(v.length(), chunk));
  cvl::Vector handle = v.vector();
  for (std::size_t first = 0; first < v.length(); first += chunk) {
    std::size_t count = std::min(chunk, v.length() - first);
    backend.download(handle, first, count, buffer.data());
    for (std::size_t i = 0; i < count; ++i) {
      out += ' ';
      append(out, buffer[i]);
    }
  }
}

}  // namespace

std::string Machine::format_value(const Value& v) {
  std::string out;
  switch (v.kind) {
    case Kind::Int:
      out += '(';
      append_elements<std::int32_t>(out, backend_, v, append_int);
      out += " )";
      break;
    case Kind::Float:
      out += '(';
      append_elements<double>(out, backend_, v, append_float);
      out += " )";
      break;
    case Kind::Bool:
      out += '(';
      append_elements<std::uint8_t>(out, backend_, v,
                                    [](std::string& o, std::uint8_t b) { o += b ? 'T' : 'F'; });
      out += " )";
      break;
    case Kind::Segdes: {
      out += '[';
      Value lengths = Value::of(backend_.segment_lengths(v.segdes()));
      append_elements<std::int32_t>(out, backend_, lengths, append_int);
      out += " ]";
      break;
    }
    case Kind::Pair:
      append_pair(out, v);
      break;
  }
  out += '\n';
  return out;
}

// Every process formats (reading a value may involve them all); the io root prints.
void Machine::dump_stack() {
  for (const Value& v : stack_) {
    std::string line = format_value(v);
    if (!io_.is_io_root()) continue;
    if (options_.final_stack) {
      *options_.final_stack += line;
      continue;
    }
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
  }
}

std::string Machine::stack_shapes() const {
  std::string out;
  for (const Value& v : stack_) {
    if (v.kind == Kind::Pair) {
      append_pair(out, v);
      continue;
    }
    if (v.kind == Kind::Segdes) {  // segments/elements
      out += std::to_string(v.segments());
      out += '/';
      out += std::to_string(v.total());
    } else {
      out += std::to_string(v.length());
    }
    out += '(';
    out += kind_name(v.kind);
    out += ") ";
  }
  return out;
}

// The text is made on every process (stack_shapes reads lengths, format_value the values: they
// may involve them all); the io root prints it.
void Machine::trace(const vcode::Instruction& ins) {
  const auto& d = options_.debug;
  const bool prints = io_.is_io_root();
  if ((options_.trace || d.command) && prints) {
    std::fprintf(stderr, "%s:%d %s: %s\n", program_.file.c_str(), ins.where.line,
                 program_.functions[ins.function].name.c_str(),
                 vcode::instruction_text(program_, ins).c_str());
  }
  if (options_.trace || d.stack || d.values) {
    const std::string shapes = stack_shapes();
    if (prints) std::fprintf(stderr, "  stack: %s\n", shapes.c_str());
  }
  if (d.values)
    for (const Value& v : stack_) {
      const std::string text = format_value(v);
      if (prints) std::fprintf(stderr, "\t%s", text.c_str());
    }
}

}  // namespace vm
