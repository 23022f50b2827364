// The Verdict bookkeeping against the rules of Interfaces/org.keyboardadapter.Watcher2.xml; exits
// 1 and names the rule when one does not hold.
#include "verdicts.h"

#include <cstdio>

namespace {
int failures = 0;

using Holding = std::optional<std::optional<bool>>;
const Holding beforeSubscription = std::nullopt;
const Holding unknown = std::optional<bool>();
const Holding local = std::optional<bool>(true);
const Holding notLocal = std::optional<bool>(false);

void expect(const Holding &got, const Holding &wanted, const char *rule) {
    if (got == wanted) return;
    std::fprintf(stderr, "verdicts: %s\n", rule);
    failures++;
}
} // namespace

int main() {
    KeyboardAdapter::detail::Verdicts verdicts;
    expect(verdicts.local(1), beforeSubscription, "an Event with no Verdict was sent before the subscription");

    verdicts.record(true, 5);
    expect(verdicts.local(4), beforeSubscription, "an Event of a show before the first Verdict's is not heard");
    expect(verdicts.local(5), local, "a Verdict holds for its own show");
    expect(verdicts.local(9), local, "a Verdict holds for every later show");

    verdicts.record(false, 8);
    expect(verdicts.local(7), local, "a later Verdict leaves the shows before it");
    expect(verdicts.local(8), notLocal, "the last Verdict for a show up to N holds");

    verdicts.record(std::nullopt, 6);
    expect(verdicts.local(5), local, "a Verdict for an earlier show leaves the shows before it");
    expect(verdicts.local(6), unknown, "a Verdict without local: unknown");
    expect(verdicts.local(8), unknown, "a Verdict for a show not after the last replaces those from it on");

    verdicts.record(true, 3);
    expect(verdicts.local(3), local, "a Verdict for a show before the first one is heard");
    expect(verdicts.local(8), local, "... and replaces every later one");

    for (uint show = 10; show < 200; show++) verdicts.record(show % 2 == 0, show);
    expect(verdicts.local(199), notLocal, "many Verdicts: the last holds");
    expect(verdicts.local(198), local, "many Verdicts: each holds for its show");

    verdicts.clear();
    expect(verdicts.local(199), beforeSubscription, "forgotten with the service that sent them");
    return failures == 0 ? 0 : 1;
}
