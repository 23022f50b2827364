#include "watcherclient.h"

#include "console.h"
#include "servicevalues.h"

#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusServiceWatcher>

#include <algorithm>

using namespace ServiceValues;

namespace {
// The session service's name, object and interface (Interfaces/org.keyboardadapter.Watcher2.xml).
const QString service = QStringLiteral("org.keyboardadapter.Watcher");
const QString path = QStringLiteral("/org/keyboardadapter/Watcher");
const QString interface = QStringLiteral("org.keyboardadapter.Watcher2");
// How long a call may take, the bus starting the service included.
constexpr int callTimeout = 25000;
// Input-method panels sit beside the caret: a bar need not dodge them.
const QString keyboardKind = QStringLiteral("keyboard");
} // namespace

WatcherClient::WatcherClient(const QDBusConnection &bus, QObject *parent) : QObject(parent), m_bus(bus) {
    m_again.setSingleShot(true);
    m_again.setInterval(1000);
    connect(&m_again, &QTimer::timeout, this, &WatcherClient::subscribe);
}

void WatcherClient::start(const QVariantMap &options) {
    m_options = options;
    // The signals first, so that none sent after Subscribe is missed. With the service's name as
    // the sender, QtDBus takes them from whoever owns that name now, a restarted service too.
    m_bus.connect(service, path, interface, QStringLiteral("Event"), this, SLOT(event(QDBusMessage)));
    m_bus.connect(service, path, interface, QStringLiteral("Progress"), this, SLOT(progress(QDBusMessage)));
    m_watcher = new QDBusServiceWatcher(service, m_bus, QDBusServiceWatcher::WatchForOwnerChange, this);
    connect(m_watcher, &QDBusServiceWatcher::serviceOwnerChanged, this, &WatcherClient::ownerChanged);
    subscribe();
}

void WatcherClient::call(const QString &method, const QVariantList &arguments,
                         std::function<void(const QDBusMessage &)> done, bool fatal) {
    QDBusMessage message = QDBusMessage::createMethodCall(service, path, interface, method);
    message.setArguments(arguments);
    // Left to its default (auto start): the bus may start the service for this call.
    auto *watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(message, callTimeout), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this,
            [this, method, done, fatal](QDBusPendingCallWatcher *finished) {
                finished->deleteLater();
                const QDBusMessage reply = finished->reply();
                if (reply.type() == QDBusMessage::ErrorMessage) {
                    say(QStringLiteral("kbwatch service: %1: %2").arg(method, reply.errorMessage()));
                    if (fatal) emit failed(reply.errorMessage());
                    return;
                }
                if (done) done(reply);
            });
}

void WatcherClient::subscribe() {
    call(QStringLiteral("Subscribe"), {m_options},
         [this](const QDBusMessage &) {
             say(QStringLiteral("subscribed"));
             getState();
         },
         true);
}

void WatcherClient::getState() {
    // Answered after every event sent before it: its keyboards replace what those said.
    call(QStringLiteral("GetState"), {},
         [this](const QDBusMessage &reply) {
             if (reply.signature() != QLatin1String("a{sv}")) return;
             const QVariantMap state = dictionary(reply.arguments().value(0));
             m_keyboards.clear();
             for (const QVariantMap &entry : dictionaries(state.value(QStringLiteral("keyboards")))) {
                 const QVariantMap keyboard = dictionary(entry.value(QStringLiteral("keyboard")));
                 const QString id = string(keyboard, QStringLiteral("id"));
                 const QString name = string(keyboard, QStringLiteral("name"));
                 if (!name.isEmpty()) say(QStringLiteral("visible %1").arg(name));
                 if (!id.isEmpty() && string(keyboard, QStringLiteral("kind")) == keyboardKind)
                     m_keyboards.insert(id, clippedFrame(entry, QStringLiteral("frame")));
             }
             emit keyboardsChanged();
         },
         true);
}

void WatcherClient::event(const QDBusMessage &message) {
    if (message.signature() != QLatin1String("a{sv}")) return;
    const QVariantMap update = dictionary(message.arguments().value(0));
    const QString event = string(update, QStringLiteral("event"));
    const QVariantMap keyboard = dictionary(update.value(QStringLiteral("keyboard")));
    const QString id = string(keyboard, QStringLiteral("id"));
    const QString name = string(keyboard, QStringLiteral("name"));
    if (event.isEmpty() || id.isEmpty() || name.isEmpty()) return;
    say(QStringLiteral("%1 %2").arg(event, name));
    if (string(keyboard, QStringLiteral("kind")) != keyboardKind) return;

    const bool will = event.startsWith(QLatin1String("will"));
    const double duration = std::max(0.0, update.value(QStringLiteral("animation_duration")).toDouble());
    const bool visible = update.value(QStringLiteral("visible")).toBool();
    if (will) {
        m_transitions.insert(id, {update.value(QStringLiteral("show")).toUInt(), duration});
    } else {
        m_transitions.remove(id);
    }
    if (will && duration > 0) {
        // A slide: the keyboard is still where it was. Progress moves it frame by frame, the did
        // event lands it. A keyboard not known yet starts from where the slide begins.
        if (!m_keyboards.contains(id) && visible)
            m_keyboards.insert(id, clippedFrame(update, QStringLiteral("begin_frame")));
    } else if (visible) {
        // A jump (or a slide of unknown length): the end frame is where it is, or will be at once.
        m_keyboards.insert(id, clippedFrame(update, QStringLiteral("end_frame")));
    } else {
        m_keyboards.remove(id);
    }
    emit keyboardsChanged();
}

void WatcherClient::progress(const QDBusMessage &message) {
    if (message.signature() != QLatin1String("a{sv}")) return;
    const QVariantMap frame = dictionary(message.arguments().value(0));
    const QString id = string(dictionary(frame.value(QStringLiteral("keyboard"))), QStringLiteral("id"));
    // Only inside a transition this client saw begin: a late frame must not undo a did event.
    const auto transition = m_transitions.constFind(id);
    if (transition == m_transitions.cend() || transition->show != frame.value(QStringLiteral("show")).toUInt())
        return;
    const std::optional<QRect> now = clippedFrame(frame, QStringLiteral("frame"));
    if (!now || m_keyboards.value(id) == now) return;
    m_keyboards.insert(id, now);
    emit keyboardsChanged();
}

void WatcherClient::ownerChanged(const QString &, const QString &oldOwner, const QString &) {
    if (oldOwner.isEmpty()) return; // started (by this client's call, or by another client)
    say(QStringLiteral("service gone"));
    m_keyboards.clear();
    m_transitions.clear();
    emit keyboardsChanged();
    m_again.start();
}

void WatcherClient::unsubscribe() {
    if (!m_bus.isConnected()) return;
    QDBusMessage message = QDBusMessage::createMethodCall(service, path, interface, QStringLiteral("Unsubscribe"));
    // Leaving is polite, never a reason to start the service: not running, nothing to leave.
    message.setAutoStartService(false);
    m_bus.call(message, QDBus::Block, 1000);
}

void WatcherClient::show() {
    call(QStringLiteral("Show"), {}, nullptr, false);
}

void WatcherClient::hide() {
    call(QStringLiteral("Hide"), {}, nullptr, false);
}

QList<QRect> WatcherClient::frames() const {
    QList<QRect> frames;
    for (const std::optional<QRect> &frame : m_keyboards) {
        if (frame) frames.append(*frame);
    }
    return frames;
}

double WatcherClient::animationDuration() const {
    double longest = 0;
    for (const Transition &transition : m_transitions) longest = std::max(longest, transition.duration);
    return longest;
}
