#include "watcher.h"

#include "servicevalues.h"
#include "verdicts.h"

#include <QDBusError>
#include <QDBusMessage>
#include <QDBusMetaType>
#include <QDBusPendingCallWatcher>
#include <QGuiApplication>
#include <QSignalBlocker>
#include <QScreen>

#include <algorithm>
#include <cmath>

namespace KeyboardAdapter {

using namespace detail;

namespace {
// The session service's name, object and interface (Interfaces/org.keyboardadapter.Watcher2.xml).
const QString service = QStringLiteral("org.keyboardadapter.Watcher");
const QString path = QStringLiteral("/org/keyboardadapter/Watcher");
const QString interface = QStringLiteral("org.keyboardadapter.Watcher2");
const QString busName = QStringLiteral("org.freedesktop.DBus");
// How long a call may take, the bus starting the service included.
constexpr int callTimeout = 25000;
// Input-method panels sit beside the caret: a bar need not dodge them.
const QString keyboardKind = QStringLiteral("keyboard");

bool onX11() {
    return QGuiApplication::platformName() == QLatin1String("xcb");
}
} // namespace

Watcher::Watcher(QObject *parent) : Watcher(QDBusConnection::sessionBus(), parent) {}

Watcher::Watcher(const QDBusConnection &bus, QObject *parent)
    : QObject(parent), m_bus(bus), m_verdicts(std::make_unique<Verdicts>()) {
    // Subscribe's "window_ids" is an array of uint64 (at).
    qDBusRegisterMetaType<QList<qulonglong>>();
    m_again.setSingleShot(true);
    m_again.setInterval(1000);
    connect(&m_again, &QTimer::timeout, this, &Watcher::subscribe);
    // Once the event loop runs: a QML screen or an app sets the window first.
    QTimer::singleShot(0, this, &Watcher::start);
}

Watcher::~Watcher() {
    // Quietly: what is connected to this watcher may be going away too.
    const QSignalBlocker quiet(this);
    unsubscribe();
}

void Watcher::start() {
    if (m_started) return;
    m_started = true;
    if (!m_bus.isConnected()) {
        emit failed(QStringLiteral("no session bus: %1").arg(m_bus.lastError().message()));
        return;
    }
    // The signals first, so that none sent after Subscribe is missed. Any sender's are taken in and
    // all but the service's own connection's dropped (fromService): anyone may address a signal to
    // this connection, whatever its match rules say.
    m_bus.connect(QString(), path, interface, QStringLiteral("Event"), this, SLOT(eventSignal(QDBusMessage)));
    m_bus.connect(QString(), path, interface, QStringLiteral("SubscriberEvent"), this,
                  SLOT(subscriberEventSignal(QDBusMessage)));
    m_bus.connect(QString(), path, interface, QStringLiteral("Progress"), this, SLOT(progressSignal(QDBusMessage)));
    m_bus.connect(QString(), path, interface, QStringLiteral("Verdict"), this, SLOT(verdictSignal(QDBusMessage)));
    m_bus.connect(busName, QStringLiteral("/org/freedesktop/DBus"), busName, QStringLiteral("NameOwnerChanged"),
                  {service}, QString(), this, SLOT(nameOwnerChanged(QDBusMessage)));
    remeasure();
    subscribe();
}

bool Watcher::fromService(const QDBusMessage &message) const {
    return !m_left && !m_owner.isEmpty() && message.service() == m_owner && message.signature() == QLatin1String("a{sv}");
}

void Watcher::subscribe() {
    if (m_left) return;
    if (m_subscribing) {
        m_resubscribe = true;
        return;
    }
    m_subscribing = true;
    m_resubscribe = false;
    if (!m_owner.isEmpty()) {
        sendSubscribe();
        return;
    }
    // Whose signals to believe: the bus says who owns the name now (a reply's sender cannot tell,
    // as Qt 6.8 and later leave it out of QDBusMessage::service()). Asked before Subscribe, so that
    // a Verdict sent right after its answer is believed; a service this call starts is named by
    // the bus's NameOwnerChanged before it can answer.
    QDBusMessage ask = QDBusMessage::createMethodCall(busName, QStringLiteral("/org/freedesktop/DBus"), busName,
                                                      QStringLiteral("GetNameOwner"));
    ask.setArguments({service});
    auto *call = new QDBusPendingCallWatcher(m_bus.asyncCall(ask, callTimeout), this);
    connect(call, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *finished) {
        finished->deleteLater();
        if (m_left) {
            m_subscribing = false;
            return;
        }
        const QDBusMessage reply = finished->reply();
        // An error (no owner yet): Subscribe starts the service.
        if (reply.type() == QDBusMessage::ReplyMessage && m_owner.isEmpty())
            m_owner = reply.arguments().value(0).toString();
        sendSubscribe();
    });
}

void Watcher::sendSubscribe() {
    QVariantMap options{{QStringLiteral("progress"), true}};
    if (!m_windowIds.isEmpty())
        options.insert(QStringLiteral("window_ids"), QVariant::fromValue(m_windowIds));
    QDBusMessage message = QDBusMessage::createMethodCall(service, path, interface, QStringLiteral("Subscribe"));
    message.setArguments({options});
    // Left to its default (auto start): the bus may start the service for this call.
    auto *call = new QDBusPendingCallWatcher(m_bus.asyncCall(message, callTimeout), this);
    connect(call, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *finished) {
        finished->deleteLater();
        m_subscribing = false;
        if (m_left) return;
        const QDBusMessage reply = finished->reply();
        if (reply.type() == QDBusMessage::ErrorMessage) {
            emit failed(QStringLiteral("%1: %2").arg(reply.errorName(), reply.errorMessage()));
            return;
        }
        // The connection that answered is the service's: its signals alone are believed (where Qt
        // names it; the bus named it before otherwise).
        if (!reply.service().isEmpty()) m_owner = reply.service();
        if (!m_subscribed) {
            m_subscribed = true;
            // A service that started again knows nothing of the app's wish.
            m_toldInPlace = false;
            emit serviceAvailableChanged();
        }
        tellInPlace();
        emit subscribed();
        if (m_resubscribe) subscribe(); // another window since: its id replaces the options
    });
}

void Watcher::setLeaveInPlace(bool leave) {
    if (leave == m_leaveInPlace) return;
    m_leaveInPlace = leave;
    emit leaveInPlaceChanged();
    tellInPlace();
}

// Tells the service the app's wish when it differs from what the service knows (false is what a
// service that never heard of the app does); a refusal is requestFailed().
void Watcher::tellInPlace() {
    if (!m_subscribed || m_left || m_toldInPlace == m_leaveInPlace) return;
    m_toldInPlace = m_leaveInPlace;
    const QString method = QStringLiteral("LeaveWindowsInPlace");
    QDBusMessage message = QDBusMessage::createMethodCall(service, path, interface, method);
    message.setArguments({m_leaveInPlace});
    message.setAutoStartService(false);
    auto *call = new QDBusPendingCallWatcher(m_bus.asyncCall(message, callTimeout), this);
    connect(call, &QDBusPendingCallWatcher::finished, this, [this, method](QDBusPendingCallWatcher *finished) {
        finished->deleteLater();
        const QDBusMessage reply = finished->reply();
        if (reply.type() == QDBusMessage::ErrorMessage) emit requestFailed(method, reply.errorMessage());
    });
}

void Watcher::verdictSignal(const QDBusMessage &message) {
    if (m_left || m_owner.isEmpty() || message.service() != m_owner ||
        message.signature() != QLatin1String("ua{sv}"))
        return;
    const QVariantList arguments = message.arguments();
    const QVariant local = dictionary(arguments.value(1)).value(QStringLiteral("local"));
    m_verdicts->record(local.metaType() == QMetaType::fromType<bool>() ? std::optional<bool>(local.toBool())
                                                                         : std::nullopt,
                       arguments.value(0).toUInt());
}

void Watcher::eventSignal(const QDBusMessage &message) {
    if (!fromService(message)) return;
    const QVariantMap update = dictionary(message.arguments().value(0));
    const QVariant show = update.value(QStringLiteral("show"));
    if (show.metaType() != QMetaType::fromType<uint>()) return;
    // Sent before this subscription (no verdict holds for it): the SubscriberEvents tell of it.
    const auto holding = m_verdicts->local(show.toUInt());
    if (!holding) return;
    apply(update, *holding);
}

void Watcher::subscriberEventSignal(const QDBusMessage &message) {
    if (!fromService(message)) return;
    const QVariantMap update = dictionary(message.arguments().value(0));
    const QVariant local = update.value(QStringLiteral("local"));
    apply(update, local.metaType() == QMetaType::fromType<bool>() ? std::optional<bool>(local.toBool()) : std::nullopt);
}

void Watcher::apply(const QVariantMap &update, std::optional<bool> local) {
    const QString event = string(update, QStringLiteral("event"));
    const QVariantMap keyboard = dictionary(update.value(QStringLiteral("keyboard")));
    const QString id = string(keyboard, QStringLiteral("id"));
    const QString name = string(keyboard, QStringLiteral("name"));
    if (event.isEmpty() || id.isEmpty()) return;
    const std::optional<QRect> end = clippedFrame(update, QStringLiteral("end_frame"));
    emit keyboardEvent(event, name, end.value_or(QRect()), local.value_or(false));
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
        if (visible) {
            Keyboard &entry = m_keyboards[id];
            if (!entry.frame) entry.frame = clippedFrame(update, QStringLiteral("begin_frame"));
            entry.local = local.value_or(false);
        } else if (m_keyboards.contains(id)) {
            m_keyboards[id].local = local.value_or(false);
        }
    } else if (visible) {
        // A jump (or a slide of unknown length): the end frame is where it is, or will be at once.
        m_keyboards.insert(id, {end, local.value_or(false)});
    } else {
        m_keyboards.remove(id);
    }
    remeasure();
}

void Watcher::progressSignal(const QDBusMessage &message) {
    if (!fromService(message)) return;
    const QVariantMap frame = dictionary(message.arguments().value(0));
    const QString id = string(dictionary(frame.value(QStringLiteral("keyboard"))), QStringLiteral("id"));
    // Only inside a transition this watcher saw begin: a late frame must not undo a did event.
    const auto transition = m_transitions.constFind(id);
    if (transition == m_transitions.cend() || transition->show != frame.value(QStringLiteral("show")).toUInt())
        return;
    const std::optional<QRect> now = clippedFrame(frame, QStringLiteral("frame"));
    const auto keyboard = m_keyboards.find(id);
    if (!now || keyboard == m_keyboards.end() || keyboard->frame == now) return;
    keyboard->frame = now;
    remeasure();
}

void Watcher::nameOwnerChanged(const QDBusMessage &message) {
    // Only the bus itself says who owns a name.
    if (m_left || message.service() != busName || message.signature() != QLatin1String("sss")) return;
    const QVariantList arguments = message.arguments();
    if (arguments.value(0).toString() != service) return;
    const QString oldOwner = arguments.value(1).toString(), newOwner = arguments.value(2).toString();
    if (!oldOwner.isEmpty() && (oldOwner == m_owner || m_subscribed)) forget();
    m_owner = newOwner;
    // A service that appears while none is subscribed to (started by hand, or installed after a
    // call failed) is subscribed to at once; one this watcher's call starts answers that call.
    if (!newOwner.isEmpty() && !m_subscribed && !m_subscribing && m_started) {
        m_again.stop();
        subscribe();
    }
}

void Watcher::forget() {
    const bool wasSubscribed = m_subscribed;
    m_owner.clear();
    m_keyboards.clear();
    m_transitions.clear();
    m_verdicts->clear();
    m_subscribed = false;
    emit serviceGone();
    if (wasSubscribed) emit serviceAvailableChanged();
    remeasure();
    if (wasSubscribed) m_again.start();
}

void Watcher::unsubscribe() {
    if (m_left) return;
    // Left for good: nothing the service sends is heard from now on, and no call subscribes again.
    m_left = true;
    m_started = true;
    m_again.stop();
    const bool wasSubscribed = m_subscribed;
    m_subscribed = false;
    m_keyboards.clear();
    m_transitions.clear();
    m_verdicts->clear();
    if (wasSubscribed) emit serviceAvailableChanged();
    if (!signalsBlocked()) remeasure();
    if (!wasSubscribed || !m_bus.isConnected()) return;
    QDBusMessage message = QDBusMessage::createMethodCall(service, path, interface, QStringLiteral("Unsubscribe"));
    // Leaving is polite, never a reason to start the service: not running, nothing to leave.
    message.setAutoStartService(false);
    m_bus.call(message, QDBus::Block, 1000);
}

void Watcher::show() {
    const QString method = QStringLiteral("Show");
    auto *call = new QDBusPendingCallWatcher(
        m_bus.asyncCall(QDBusMessage::createMethodCall(service, path, interface, method), callTimeout), this);
    connect(call, &QDBusPendingCallWatcher::finished, this, [this, method](QDBusPendingCallWatcher *finished) {
        finished->deleteLater();
        if (finished->isError()) emit requestFailed(method, finished->error().message());
    });
}

void Watcher::hide() {
    const QString method = QStringLiteral("Hide");
    auto *call = new QDBusPendingCallWatcher(
        m_bus.asyncCall(QDBusMessage::createMethodCall(service, path, interface, method), callTimeout), this);
    connect(call, &QDBusPendingCallWatcher::finished, this, [this, method](QDBusPendingCallWatcher *finished) {
        finished->deleteLater();
        if (finished->isError()) emit requestFailed(method, finished->error().message());
    });
}

QList<QRect> Watcher::keyboardFrames() const {
    QList<QRect> frames;
    for (const Keyboard &keyboard : m_keyboards) {
        if (keyboard.frame) frames.append(*keyboard.frame);
    }
    return frames;
}

void Watcher::setWindow(QWindow *window) {
    if (m_window == window) return;
    m_window = window;
    emit windowChanged();
    remeasure();
}

QWindow *Watcher::measured() const {
    if (m_window) return m_window;
    const QWindowList windows = QGuiApplication::topLevelWindows();
    return windows.isEmpty() ? nullptr : windows.first();
}

void Watcher::follow(QWindow *window) {
    if (m_followed != window) {
        if (m_followed) disconnect(m_followed, nullptr, this, nullptr);
        m_followed = window;
        if (window) {
            // Moved, resized, shown, or on another screen: it covers another part of the keyboards.
            for (auto changed : {&QWindow::xChanged, &QWindow::yChanged, &QWindow::widthChanged, &QWindow::heightChanged})
                connect(window, changed, this, &Watcher::remeasure);
            connect(window, &QWindow::visibleChanged, this, &Watcher::remeasure);
            connect(window, &QWindow::screenChanged, this, &Watcher::remeasure);
        }
    }
    // On X11 the service judges `local` by the window's id: given again when the window changes.
    QList<qulonglong> ids;
    if (window && onX11() && m_started) ids.append(window->winId());
    if (ids != m_windowIds) {
        m_windowIds = ids;
        if (m_subscribed || m_subscribing) subscribe();
    }
}

QPointF Watcher::mapToScreen(const QPointF &point) const {
    QWindow *window = measured();
    if (!window || !window->screen()) return point;
    const QPointF screen = window->screen()->geometry().topLeft();
    if (onX11()) {
        // The X server knows where the window is (mapToGlobal asks it). Qt scales its coordinates
        // by the device pixel ratio from each screen's top-left corner, which it leaves as it is;
        // the service counts the X screen's own pixels.
        const QPointF global = window->mapToGlobal(point);
        return screen + (global - screen) * window->devicePixelRatio();
    }
    // On Wayland the window is taken to fill its screen from the top-left corner, below Qt's own
    // decoration where it draws one (its frame margins); the compositor's coordinates, the
    // service's, are Qt's logical ones there.
    const QMargins decoration = window->frameMargins();
    return screen + QPointF(decoration.left(), decoration.top()) + point;
}

void Watcher::remeasure() {
    QWindow *window = measured();
    follow(window);
    QRectF rectangle;
    if (window) {
        // The window's edges in the screen's pixels.
        const QPointF topLeft = mapToScreen(QPointF(0, 0));
        const QPointF bottomRight = mapToScreen(QPointF(window->width(), window->height()));
        const int left = int(std::lround(topLeft.x())), top = int(std::lround(topLeft.y()));
        const int right = int(std::lround(bottomRight.x())), bottom = int(std::lround(bottomRight.y()));
        int inset = 0;
        for (const QRect &keyboard : keyboardFrames()) {
            // The part of the window the keyboard covers, as edges (QRect's right() is one short).
            const int coveredLeft = std::max(keyboard.x(), left), coveredTop = std::max(keyboard.y(), top);
            const int coveredRight = std::min(keyboard.x() + keyboard.width(), right);
            const int coveredBottom = std::min(keyboard.y() + keyboard.height(), bottom);
            if (coveredLeft >= coveredRight || coveredTop >= coveredBottom) continue; // none of it
            // Kept free at the bottom when it reaches the bottom edge or is nearer the bottom than
            // the top (as KeyboardAdapter's WindowGeometry.insets does).
            const bool atBottom = coveredBottom >= bottom || bottom - coveredTop <= coveredBottom - top;
            if (!atBottom || bottom - coveredTop <= inset) continue;
            inset = bottom - coveredTop;
            const qreal ratio = onX11() ? window->devicePixelRatio() : 1.0;
            rectangle = QRectF((coveredLeft - left) / ratio, (coveredTop - top) / ratio,
                               (coveredRight - coveredLeft) / ratio, (coveredBottom - coveredTop) / ratio);
        }
    }
    if (rectangle != m_rectangle) {
        m_rectangle = rectangle;
        emit keyboardRectangleChanged();
    }
    if (isVisible() != m_wasVisible) {
        m_wasVisible = isVisible();
        emit visibleChanged();
    }
    bool local = false;
    for (const Keyboard &keyboard : m_keyboards) local = local || keyboard.local;
    if (local != m_local) {
        m_local = local;
        emit localChanged();
    }
    // The duration first: a screen that starts an animation when `animating` turns true reads it.
    double duration = 0;
    for (const Transition &transition : m_transitions) duration = std::max(duration, transition.duration);
    if (duration != m_duration) {
        m_duration = duration;
        emit animationDurationChanged();
    }
    if (isAnimating() != m_wasAnimating) {
        m_wasAnimating = isAnimating();
        emit animatingChanged();
    }
}

} // namespace KeyboardAdapter
