#include "verdicts.h"

#include <algorithm>

namespace KeyboardAdapter::detail {

void Verdicts::record(std::optional<bool> local, uint show) {
    m_changes.erase(std::remove_if(m_changes.begin(), m_changes.end(),
                                   [show](const auto &change) { return change.first >= show; }),
                    m_changes.end());
    m_changes.emplace_back(show, local);
    if (m_changes.size() > limit) m_changes.erase(m_changes.begin(), m_changes.end() - limit);
    m_first = m_first ? std::min(*m_first, show) : show;
}

std::optional<std::optional<bool>> Verdicts::local(uint show) const {
    if (!m_first || show < *m_first) return std::nullopt;
    for (auto change = m_changes.rbegin(); change != m_changes.rend(); ++change) {
        if (change->first <= show) return change->second;
    }
    return std::optional<bool>();
}

void Verdicts::clear() {
    m_changes.clear();
    m_first.reset();
}

} // namespace KeyboardAdapter::detail
