// A subscriber's verdicts as the service sent them (Verdict): from which show on `local` holds.
#pragma once

#include <QtGlobal>

#include <optional>
#include <utility>
#include <vector>

namespace KeyboardAdapter::detail {

/// The Verdict bookkeeping of Interfaces/org.keyboardadapter.Watcher2.xml: the `local` of an
/// Event or Progress of show N is that of the last Verdict for a show up to N; an Event with no
/// such Verdict was sent before the subscription; a Verdict for a show not after the last one
/// replaces the verdicts from that show on.
class Verdicts {
public:
    /// Records `local` (nothing: unknown) from `show` on.
    void record(std::optional<bool> local, uint show);
    /// What holds for an event of `show`: nothing when it was sent before the subscription (not
    /// for this subscriber to hear), else its `local` (itself nothing when unknown).
    std::optional<std::optional<bool>> local(uint show) const;
    /// Forgets them all: the service that sent them went away.
    void clear();

private:
    std::vector<std::pair<uint, std::optional<bool>>> m_changes; // by show, ascending
    std::optional<uint> m_first;                                   // the first show given one
    static constexpr std::size_t limit = 64;                       // the oldest dropped beyond
};

} // namespace KeyboardAdapter::detail
