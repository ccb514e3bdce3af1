// The REPL's history entry for a form typed over several lines: one entry, its lines as typed.
#include <catch2/catch.hpp>

#include "nesl/history_entry.hpp"

TEST_CASE("a form typed over several lines is one history entry, its lines joined by newlines", "[repl]") {
  CHECK(nesl::history_entry("function sq(x) =\n  x *\n  x;\n") == "function sq(x) =\n  x *\n  x;");
  CHECK(nesl::history_entry("1 + 2;\n") == "1 + 2;");
  // Blank lines before it and blanks after it are not kept; those inside it are.
  CHECK(nesl::history_entry("\n  \nx = [1,\n\n  2];  \n") == "x = [1,\n\n  2];");
  // A string over several lines keeps its newline, so that the form runs again the same.
  CHECK(nesl::history_entry("\"two\nlines\";\n") == "\"two\nlines\";");
}

TEST_CASE("blank text makes no history entry", "[repl]") {
  CHECK(nesl::history_entry("") == "");
  CHECK(nesl::history_entry(" \t\n\n") == "");
}
