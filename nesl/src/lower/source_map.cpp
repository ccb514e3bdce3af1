#include "nesl/source_map.hpp"

#include <map>
#include <tuple>

namespace nesl {

SourceMap::SourceMap(const std::vector<Location>& lines, const SourceFile* library) {
  std::map<std::tuple<const SourceFile*, int, int>, std::int32_t> known;
  std::map<std::pair<const SourceFile*, int>, std::shared_ptr<const std::string>> line_texts;
  point_of_line_.reserve(lines.size());
  for (const Location& where : lines) {
    if (!where.file || where.file->generated()) {
      point_of_line_.push_back(-1);
      continue;
    }
    auto [found, fresh] = known.emplace(std::make_tuple(where.file, where.line, where.column),
                                        static_cast<std::int32_t>(points_.size()));
    if (fresh) {
      auto& text = line_texts[{where.file, where.line}];
      if (!text) text = std::make_shared<const std::string>(where.file->line_text(where.line));
      points_.push_back({where.file->name(), where.line, where.column, text, where.file == library});
    }
    point_of_line_.push_back(found->second);
  }
}

const SourcePoint* SourceMap::at(int line) const {
  if (line < 1 || static_cast<std::size_t>(line) > point_of_line_.size()) return nullptr;
  const std::int32_t point = point_of_line_[static_cast<std::size_t>(line) - 1];
  return point < 0 ? nullptr : &points_[static_cast<std::size_t>(point)];
}

const SourcePoint* SourceMap::user_point(const std::vector<int>& lines) const {
  for (int line : lines) {
    const SourcePoint* point = at(line);
    if (point && !point->in_library) return point;
  }
  return nullptr;
}

std::string SourceMap::text() const {
  std::string out = "# nesl source map: VCODE_LINE NESL_LINE NESL_COLUMN NESL_FILE\n";
  for (std::size_t i = 0; i < point_of_line_.size(); ++i) {
    const SourcePoint* point = at(static_cast<int>(i + 1));
    if (!point || point->in_library) continue;
    out += std::to_string(i + 1) + " " + std::to_string(point->line) + " " +
           std::to_string(point->column) + " " + point->file + "\n";
  }
  return out;
}

}  // namespace nesl
