#include "fopt/inline_calls.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "fopt/substitute.hpp"
#include "fopt/visitor.hpp"

namespace fopt {

namespace {

// Call edges between lifted functions, and how often each function is called anywhere.
struct CallGraph {
  std::map<std::string, std::set<std::string>> callees;
  std::map<std::string, std::size_t> call_sites;
};

CallGraph call_graph(Module& module) {
  CallGraph graph;
  for (Function& f : module.functions) {
    graph.callees[f.name];
    if (f.lifted) {
      struct Calls : Mutator {
        CallGraph& graph;
        const std::string& caller;
        Calls(CallGraph& g, const std::string& c) : graph(g), caller(c) {}
        void visit_Call(Stmt& s) override {
          graph.callees[caller].insert(s.callee);
          ++graph.call_sites[s.callee];
        }
      } calls(graph, f.name);
      calls.block(f.body);
    } else {
      for (std::uint32_t i = f.original_first; i < f.original_end; ++i)
        if (module.original.code[i].op == vcode::Op::Call) {
          graph.callees[f.name].insert(module.original.code[i].callee);
          ++graph.call_sites[module.original.code[i].callee];
        }
    }
  }
  return graph;
}

// Strongly connected components, callees before callers (Tarjan's order).
std::vector<std::vector<std::string>> components(const CallGraph& graph) {
  std::map<std::string, int> index, low;
  std::set<std::string> on_stack;
  std::vector<std::string> stack;
  std::vector<std::vector<std::string>> result;
  int next = 0;
  std::function<void(const std::string&)> visit = [&](const std::string& v) {
    index[v] = low[v] = next++;
    stack.push_back(v);
    on_stack.insert(v);
    auto it = graph.callees.find(v);
    if (it != graph.callees.end())
      for (const std::string& w : it->second) {
        if (!graph.callees.contains(w)) continue;  // an undefined function: the linker said so
        if (!index.contains(w)) {
          visit(w);
          low[v] = std::min(low[v], low[w]);
        } else if (on_stack.contains(w)) {
          low[v] = std::min(low[v], index[w]);
        }
      }
    if (low[v] == index[v]) {
      std::vector<std::string> component;
      std::string w;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack.erase(w);
        component.push_back(w);
      } while (w != v);
      result.push_back(std::move(component));
    }
  };
  for (const auto& [name, callees] : graph.callees)
    if (!index.contains(name)) visit(name);
  return result;
}

class Inliner {
 public:
  Inliner(Module& module, const PassOptions& options, const CallGraph& graph,
          const std::set<std::string>& recursive)
      : module_(module), options_(options), graph_(graph), recursive_(recursive) {}

  void expand(Function& f) {
    Substitution results;
    expand_block(f.body, results);
    substitute(f.body, results);
  }

 private:
  bool wanted(const Stmt& s) const {
    if (s.kind != StmtKind::Call || recursive_.contains(s.callee)) return false;
    const Function* callee = module_.find(s.callee);
    if (!callee || !callee->lifted || callee->body.diverges) return false;
    auto sites = graph_.call_sites.find(s.callee);
    const bool once =
        sites != graph_.call_sites.end() && sites->second == 1 && s.callee != module_.entry;
    return once || stmt_count(callee->body) <= options_.inline_size_limit;
  }

  void expand_block(Block& block, Substitution& results) {
    std::vector<Stmt> out;
    out.reserve(block.stmts.size());
    for (Stmt& s : block.stmts) {
      for (Block& b : s.branches) expand_block(b, results);
      if (!wanted(s)) {
        out.push_back(std::move(s));
        continue;
      }
      const Function& callee = *module_.find(s.callee);
      Substitution rename;
      for (std::size_t i = 0; i < callee.params.size(); ++i) rename[callee.params[i]] = s.args[i];
      Block copy = clone(callee.body, rename);
      for (Stmt& inner : copy.stmts) out.push_back(std::move(inner));
      for (std::size_t i = 0; i < s.results.size(); ++i) results[s.results[i]] = copy.yields[i];
    }
    block.stmts = std::move(out);
  }

  // A copy of `block` with fresh variables for everything it defines.
  Block clone(const Block& block, Substitution& rename) {
    Block copy;
    copy.diverges = block.diverges;
    for (const Stmt& s : block.stmts) {
      Stmt c = s;
      for (VarId& v : c.args) v = resolve(rename, v);
      c.branches.clear();
      for (const Block& b : s.branches) c.branches.push_back(clone(b, rename));
      for (VarId& v : c.results) {
        const VarId fresh = module_.new_var(module_.var_types[v]);
        rename[v] = fresh;
        v = fresh;
      }
      copy.stmts.push_back(std::move(c));
    }
    for (VarId v : block.yields) copy.yields.push_back(resolve(rename, v));
    return copy;
  }

  Module& module_;
  const PassOptions& options_;
  const CallGraph& graph_;
  const std::set<std::string>& recursive_;
};

// Drops functions that the entry cannot reach.
void drop_unreachable(Module& module) {
  const CallGraph graph = call_graph(module);
  std::set<std::string> reached{module.entry};
  std::vector<std::string> work{module.entry};
  while (!work.empty()) {
    const std::string f = work.back();
    work.pop_back();
    auto it = graph.callees.find(f);
    if (it == graph.callees.end()) continue;
    for (const std::string& g : it->second)
      if (reached.insert(g).second) work.push_back(g);
  }
  std::erase_if(module.functions, [&](const Function& f) { return !reached.contains(f.name); });
}

}  // namespace

void inline_calls(Module& module, const PassOptions& options) {
  const CallGraph graph = call_graph(module);
  std::set<std::string> recursive;
  const auto order = components(graph);
  for (const auto& component : order) {
    if (component.size() > 1)
      recursive.insert(component.begin(), component.end());
    else if (graph.callees.at(component[0]).contains(component[0]))
      recursive.insert(component[0]);
  }
  Inliner inliner(module, options, graph, recursive);
  for (const auto& component : order)
    for (const std::string& name : component)
      if (Function* f = module.find(name); f && f->lifted) inliner.expand(*f);
  drop_unreachable(module);
}

}  // namespace fopt
