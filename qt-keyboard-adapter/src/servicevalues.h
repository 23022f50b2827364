// Reading the session service's values (Interfaces/org.keyboardadapter.Watcher2.xml): updates
// and keyboards are a{sv} dictionaries whose keys are left out where a value is unknown, frames
// are (iiii) structs of x, y, width and height in the screen's pixels.
#pragma once

#include <QList>
#include <QRect>
#include <QString>
#include <QVariant>
#include <QVariantMap>

#include <optional>

namespace KeyboardAdapter::detail {

// An a{sv} value (as QtDBus hands it over: a QDBusArgument, or a map already); empty when it is
// missing or of another type.
QVariantMap dictionary(const QVariant &value);

// An aa{sv} value, one map per element; empty when missing or of another type.
QList<QVariantMap> dictionaries(const QVariant &value);

// A (iiii) frame; nothing when missing or of another type.
std::optional<QRect> frame(const QVariant &value);

// The string at `key`; empty when missing or not a string.
QString string(const QVariantMap &dictionary, const QString &key);

// The frame at `key` of an update or keyboard entry, clipped to its output's frame when that is
// known: a keyboard's window may reach past its screen, but covers nothing there.
std::optional<QRect> clippedFrame(const QVariantMap &entry, const QString &key);

} // namespace KeyboardAdapter::detail
