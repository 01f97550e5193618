// hwalloc checkpoints: a GA-phase checkpoint round-trips; every kind of damage (truncation,
// another run, a state or design that does not belong, a cost that is not the one recorded, a
// bad phase, count or random-number state) is an InputError naming the file.
#include "sparsemap/dse/hwalloc/checkpoint.h"

#include <gtest/gtest.h>

#include <functional>
#include <sstream>

#include "sparsemap/error.h"
#include "sparsemap/io/confuciux_csv.h"

namespace sparsemap::dse::hwalloc {
namespace {

using nlohmann::json;

const char* kModel = "K,C,Y,X,R,S,T\n16,8,10,10,3,3,1\n16,8,10,10,3,3,1\n8,16,6,6,3,3,1\n";

// A confuciux run's state after 3 GA generations from the minimum design.
struct Saved {
  std::vector<uint8_t> bytes;
  int64_t calls = 0, lookups = 0;
  Tracker tracker;
};

Saved ga_checkpoint() {
  Problem p(io::parse_confuciux_csv(kModel, "m.csv"), ProblemOptions{});
  Tracker t;
  Rng rng(3);
  int64_t designs = 0;
  Budget b;
  b.calls = 200;
  GaState gs;
  RunState st;
  ga_finetune(p, p.minimum_design(), GaFineTuneOptions{3, 10, 4, 0.5, 0.2}, b, rng, t, designs, gs,
              [&](const GaState& s) {
                st.extra = {{"ga", s.to_json()}};
              });
  st.phase = "ga";
  st.tracker = t;
  st.designs = designs;
  std::ostringstream r;
  r << rng;
  st.rng = r.str();
  return {encode_run_state("sig", st, p), p.calls(), p.lookups(), t};
}

RunState decode(const std::vector<uint8_t>& bytes, const std::string& method = "confuciux") {
  Problem p(io::parse_confuciux_csv(kModel, "m.csv"), ProblemOptions{});
  return decode_run_state(bytes, "ck.bin", "sig", method, p);
}

// Decodes `bytes` after `edit` and expects an InputError at ck.bin whose message holds `what`.
void expect_refused(const Saved& s, const std::function<void(json&)>& edit, const std::string& what,
                    const std::string& method = "confuciux") {
  json j = json::from_cbor(s.bytes);
  edit(j);
  try {
    decode(json::to_cbor(j), method);
    ADD_FAILURE() << "accepted; expected '" << what << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "ck.bin") << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(HwallocCheckpoint, RoundTripsAGaPhaseState) {
  const Saved s = ga_checkpoint();
  Problem p(io::parse_confuciux_csv(kModel, "m.csv"), ProblemOptions{});
  const RunState st = decode_run_state(s.bytes, "ck.bin", "sig", "confuciux", p);
  EXPECT_EQ(p.calls(), s.calls);      // the replayed states count as the run counted them
  EXPECT_EQ(p.lookups(), s.lookups);  // and the lookups are the run's, not the replay's
  EXPECT_GT(s.lookups, s.calls);
  EXPECT_EQ(st.phase, "ga");
  ASSERT_TRUE(st.tracker.has_best);
  EXPECT_EQ(st.tracker.best, s.tracker.best);
  EXPECT_EQ(st.tracker.best_cost.latency_cycles, s.tracker.best_cost.latency_cycles);
  EXPECT_EQ(st.extra.at("ga").at("generation").get<int>(), 3);
}

TEST(HwallocCheckpoint, DamageIsAnInputErrorNamingTheFile) {
  const Saved s = ga_checkpoint();
  std::vector<uint8_t> cut(s.bytes.begin(), s.bytes.begin() + long(s.bytes.size() / 2));
  EXPECT_THROW(decode(cut), InputError);
  EXPECT_THROW(decode({0xff, 0x00, 0x13}), InputError);
  expect_refused(
      s, [](json& j) { j["signature"] = "other"; }, "another run (other)");
  expect_refused(
      s, [](json& j) { j.erase("signature"); }, "not a hwalloc checkpoint");
  expect_refused(
      s, [](json& j) { j["states"][5][1] = 0; }, "does not belong");  // 0 PEs
  expect_refused(
      s, [](json& j) { j["states"][5][0] = 1; }, "does not belong");  // shared shape
  expect_refused(
      s, [](json& j) { j["states"][5][3] = 1; }, "does not belong");  // shi on dla
  expect_refused(
      s, [](json& j) { j["phase"] = "baseline"; }, "not a phase of --method confuciux");
  expect_refused(
      s, [](json& j) { j["phase"] = "ga"; }, "not a phase of --method rl", "rl");
  expect_refused(
      s, [](json& j) { j["designs"] = -1; }, "negative design count");
  expect_refused(
      s, [](json& j) { j["rng"] = "x"; }, "random-number state");
  expect_refused(
      s, [](json& j) { j["lookups"] = 3; }, "lookup count below");
  expect_refused(
      s, [](json& j) { j.erase("lookups"); }, "not a hwalloc checkpoint");
  expect_refused(
      s, [](json& j) { j["extra"] = 3; }, "'extra' is not an object");
  expect_refused(
      s, [](json& j) { j["extra"]["worst"] = "x"; }, "'worst' is not a number");
  expect_refused(
      s, [](json& j) { j["tracker"]["best"].erase(2); }, "not a design of this run");
  expect_refused(
      s,
      [](json& j) {
        j["tracker"]["best"][2] = {127, 11, 0};
      },  // a state never evaluated
      "never evaluated");
  expect_refused(
      s, [](json& j) { j["tracker"]["best_cost"][5] = 1.0; }, "not the one recorded");
  expect_refused(
      s, [](json& j) { j["extra"]["ga"]["population"][0][0][2] = 2; }, "not a design of this run");
  expect_refused(
      s, [](json& j) { j["extra"]["ga"]["generation"] = -4; }, "negative GA generation");
  expect_refused(
      s, [](json& j) { j["tracker"]["best"] = "x"; }, "not a hwalloc checkpoint");
}

}  // namespace
}  // namespace sparsemap::dse::hwalloc
