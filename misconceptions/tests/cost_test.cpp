// (e) The battery's cost over all keys: printed, not asserted on time.
#include <catch2/catch.hpp>
#include <algorithm>
#include <iostream>

#include "attn/mis/diagnose.hpp"
#include "subjects.hpp"

using namespace mis_test;

TEST_CASE("battery cost over all keys", "[cost]") {
  std::vector<double> cases, secs;
  for (const KeyedSubject& k : keyed_subjects()) {
    FnSubject s(k.key, k.op, k.run, k.precision);
    const auto d = attn::mis::diagnose(s, small_case(k.op), "oracle_agreement");
    cases.push_back(double(d.cases_sent));
    secs.push_back(d.seconds);
    CHECK(d.cases_sent <= attn::mis::kMaxBatteryCases);
    CHECK(d.entries_sent <= attn::mis::kMaxBatteryEntries);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::cout << "battery cost over " << cases.size() << " keys: cases sent median "
            << median(cases) << ", worst " << *std::max_element(cases.begin(), cases.end())
            << "; seconds median " << median(secs) << ", worst "
            << *std::max_element(secs.begin(), secs.end()) << "\n";
}
