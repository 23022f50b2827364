#include "servicevalues.h"

#include <QDBusArgument>

#include <algorithm>

namespace KeyboardAdapter::detail {

namespace {
// QtDBus unpacks the basic types of a variant itself; containers and structs stay a QDBusArgument
// to be taken apart by the caller, which must know their signature.
std::optional<QDBusArgument> argument(const QVariant &value, const char *signature) {
    if (value.metaType() != QMetaType::fromType<QDBusArgument>()) return std::nullopt;
    QDBusArgument argument = value.value<QDBusArgument>();
    if (argument.currentSignature() != QLatin1String(signature)) return std::nullopt;
    return argument;
}
} // namespace

QVariantMap dictionary(const QVariant &value) {
    if (value.metaType() == QMetaType::fromType<QVariantMap>()) return value.toMap();
    QVariantMap map;
    if (const auto packed = argument(value, "a{sv}")) *packed >> map;
    return map;
}

QList<QVariantMap> dictionaries(const QVariant &value) {
    QList<QVariantMap> list;
    const auto packed = argument(value, "aa{sv}");
    if (!packed) return list;
    packed->beginArray();
    while (!packed->atEnd()) {
        QVariantMap map;
        *packed >> map;
        list.append(map);
    }
    packed->endArray();
    return list;
}

std::optional<QRect> frame(const QVariant &value) {
    const auto packed = argument(value, "(iiii)");
    if (!packed) return std::nullopt;
    int x = 0, y = 0, width = 0, height = 0;
    packed->beginStructure();
    *packed >> x >> y >> width >> height;
    packed->endStructure();
    return QRect(x, y, width, height);
}

QString string(const QVariantMap &dictionary, const QString &key) {
    const QVariant value = dictionary.value(key);
    return value.metaType() == QMetaType::fromType<QString>() ? value.toString() : QString();
}

std::optional<QRect> clippedFrame(const QVariantMap &entry, const QString &key) {
    std::optional<QRect> keyboard = frame(entry.value(key));
    if (!keyboard) return std::nullopt;
    const std::optional<QRect> output = frame(dictionary(entry.value(QStringLiteral("output"))).value("frame"));
    if (!output) return keyboard;
    // QRect's right() and bottom() are one short of the edge: work with the edges themselves.
    const int left = std::max(keyboard->x(), output->x()), top = std::max(keyboard->y(), output->y());
    const int right = std::min(keyboard->x() + keyboard->width(), output->x() + output->width());
    const int bottom = std::min(keyboard->y() + keyboard->height(), output->y() + output->height());
    return QRect(left, top, std::max(0, right - left), std::max(0, bottom - top));
}

} // namespace KeyboardAdapter::detail
