// cvl-cpu's reduction for cvl-mpi (cvl_cpu.hpp: reduce_noting_first_nan): the folds of REDUCE,
// and for FLOAT MAX and MIN whether the first segment held a NaN, from the same pass. Checked
// against the model and a look at the elements, with a NaN at the first segment's first, middle
// or last element or none there (and NaNs elsewhere), for stored values and values pending until
// the fold reads them, at one thread and at two (whose parts cut segments; a cut one with a NaN
// is folded again in one part).
#include <cmath>
#include <limits>
#include <random>

#include "cvl_cpu/cvl_cpu.hpp"
#include "support.hpp"

namespace cvl_test {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();

// `values` as the backend holds it: stored, or pending where `pending` (x * 1.0, the same values,
// over a DIST of 1.0, which waits too: the expression holds one vector of that length, so it waits).
cvl::Vector values_on(cvl::Backend& b, const Floats& values, bool pending) {
  cvl::Vector v = floats(b, values);
  if (!pending) return v;
  cvl::Vector ones =
      b.distribute(floats(b, {1.0}), segdes(b, {static_cast<std::int32_t>(values.size())}));
  return ew(b, Op::Mul, Type::Float, std::move(v), std::move(ones));
}

}  // namespace

TEST_CASE("cvl-cpu reduce_noting_first_nan: the folds, and whether the first segment held a NaN",
          "[cpu][reduce]") {
  enum Where { None, First, Middle, Last };
  for (int threads : {1, 2}) {
    cvl::BackendOptions options{threads, cvl::FloatRankOrder::Correct};
    options.lazy_elementwise = true;
    const auto owner = cvl::make_cpu_backend(options);
    cvl::Backend& b = *owner;
    std::mt19937_64 rng(7);
    std::vector<Ints> layouts;
    for (Layout layout : kAllLayouts) layouts.push_back(make_lengths(layout, 200000, rng));
    layouts.push_back({150000, 3, 0, 50000});  // a long first segment, folded in pieces
    for (const Ints& lengths : layouts) {
      for (Where where : {None, First, Middle, Last}) {
        for (bool pending : {false, true}) {
          HostVector host;
          host.type = Type::Float;
          host.f = random_floats(total_of(lengths), -1000.0, 1000.0, rng);
          std::uniform_int_distribution<int> pick(0, 4999);
          for (double& x : host.f)
            if (pick(rng) == 0) x = kNan;
          // The first segment holds a NaN where `where` puts one, and none elsewhere.
          const std::size_t first = lengths.empty() ? 0 : static_cast<std::size_t>(lengths[0]);
          for (std::size_t i = 0; i < first; ++i)
            if (std::isnan(host.f[i])) host.f[i] = 0.5;
          if (first > 0 && where != None)
            host.f[where == First ? 0 : where == Middle ? first / 2 : first - 1] = kNan;
          const bool expected = first > 0 && where != None;
          for (Op op : {Op::MaxReduce, Op::MinReduce, Op::PlusReduce}) {
            INFO(threads << " threads, " << lengths.size() << " segments, first " << first
                         << ", NaN where " << where << (pending ? ", pending, " : ", ")
                         << vcode::spelling(op));
            bool first_held_nan = true;
            cvl::Vector folds = cvl::reduce_noting_first_nan(b, op, values_on(b, host.f, pending),
                                                             segdes(b, lengths), first_held_nan);
            check_equal(download(b, folds), model_reduce(op, host, lengths), op == Op::PlusReduce);
            CHECK(first_held_nan == (op != Op::PlusReduce && expected));
          }
        }
      }
    }
  }
}

}  // namespace cvl_test
