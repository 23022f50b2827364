/**
 * @file
 * KeyboardAdapter::Watcher: the on-screen keyboard over a Qt window, from KeyboardAdapter's
 * session service (`kbwatch --serve`, org.keyboardadapter.Watcher on the session bus).
 *
 * In QML it is the `KeyboardAdapter` singleton of the module of that name, shaped like
 * Qt.inputMethod:
 *
 *     import KeyboardAdapter
 *     Item { anchors.bottomMargin: KeyboardAdapter.keyboardRectangle.height }
 *
 * In a widget app it is a QObject of its own:
 *
 *     KeyboardAdapter::Watcher watcher;
 *     watcher.setWindow(widget.windowHandle());
 *     QObject::connect(&watcher, &KeyboardAdapter::Watcher::keyboardRectangleChanged, ...);
 */
#pragma once

#include <QDBusConnection>
#include <QDBusMessage>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPointF>
#include <QPointer>
#include <QRect>
#include <QRectF>
#include <QString>
#include <QTimer>
#include <QWindow>
#include <QtQml/qqmlregistration.h>

#include <memory>
#include <optional>


namespace KeyboardAdapter {

namespace detail {
class Verdicts;
}

/**
 * The on-screen keyboard as the session service sees it, and the part of one window it covers.
 *
 * A watcher subscribes to the service on the next turn of the event loop after it is made (or
 * when start() is called); the bus starts the service when it is installed and not running. It
 * follows the service's keyboards (`Event`, `SubscriberEvent`, and `Progress` while a keyboard
 * slides), takes `local` for each show from the `Verdict`s the service sends it alone, and believes
 * a signal only from the connection that owns org.keyboardadapter.Watcher now, as the bus says.
 * When the service goes away its keyboards are forgotten and a second later the watcher subscribes
 * again, which starts a new one; a service that appears later (installed, or started by hand) is
 * subscribed to when it takes the name. Input-method panels, which sit beside the caret, are left
 * out: only keyboards count.
 *
 * On X11 the window's place comes from the X server and its X window id is given to the service,
 * which then judges `local` for it. On Wayland a window does not know where it is: it is taken to
 * fill its screen from the top-left corner (below Qt's own decoration, its frame margins), as a
 * maximized, tiled or phone app's window does.
 */
class Watcher : public QObject {
    Q_OBJECT
    QML_NAMED_ELEMENT(KeyboardAdapter)
    QML_SINGLETON
    /// The part of the window the keyboard covers at its bottom, in the window's coordinates (as
    /// Qt.inputMethod's); empty when no keyboard covers it. Of several keyboards, the one that covers
    /// the most of the window's bottom; one nearer the window's top than its bottom is left out.
    Q_PROPERTY(QRectF keyboardRectangle READ keyboardRectangle NOTIFY keyboardRectangleChanged)
    /// Whether a keyboard is up (or coming up), wherever it is.
    Q_PROPERTY(bool visible READ isVisible NOTIFY visibleChanged)
    /// True between a will event and its did event: a keyboard is moving.
    Q_PROPERTY(bool animating READ isAnimating NOTIFY animatingChanged)
    /// The seconds the transition under way takes; 0 when unknown or none.
    Q_PROPERTY(qreal animationDuration READ animationDuration NOTIFY animationDurationChanged)
    /// Whether a keyboard up came up for this app (its process, or its window on X11), as the
    /// service judged it for this subscriber; false when it came up for another app or nobody knows.
    Q_PROPERTY(bool local READ isLocal NOTIFY localChanged)
    /// Whether the watcher is subscribed to a running service.
    Q_PROPERTY(bool serviceAvailable READ isServiceAvailable NOTIFY serviceAvailableChanged)
    /// The window measured; the application's first top-level window while none is set.
    Q_PROPERTY(QWindow *window READ window WRITE setWindow NOTIFY windowChanged)
    /// Whether the app asks the display server to leave its windows where they are when a keyboard
    /// opens, because it makes room for the keyboard itself: GNOME Shell otherwise slides the
    /// focused window up by its keyboard's height. The service's LeaveWindowsInPlace, for this
    /// process's windows alone, told again to a service that starts again; false by default.
    Q_PROPERTY(bool leaveInPlace READ leavesInPlace WRITE setLeaveInPlace NOTIFY leaveInPlaceChanged)

public:
    /// A watcher on the session bus; it subscribes once the event loop runs.
    explicit Watcher(QObject *parent = nullptr);
    /// A watcher on `bus`; it subscribes once the event loop runs.
    explicit Watcher(const QDBusConnection &bus, QObject *parent = nullptr);
    /// Unsubscribes (without starting a service to leave).
    ~Watcher() override;

    /// See the keyboardRectangle property.
    QRectF keyboardRectangle() const { return m_rectangle; }
    /// See the visible property.
    bool isVisible() const { return !m_keyboards.isEmpty(); }
    /// See the animating property.
    bool isAnimating() const { return !m_transitions.isEmpty(); }
    /// See the animationDuration property.
    qreal animationDuration() const { return m_duration; }
    /// See the local property.
    bool isLocal() const { return m_local; }
    /// See the serviceAvailable property.
    bool isServiceAvailable() const { return m_subscribed; }
    /// See the window property.
    QWindow *window() const { return m_window; }
    /// See the leaveInPlace property.
    bool leavesInPlace() const { return m_leaveInPlace; }
    /// Asks (or stops asking) to have the app's windows left in place; see the leaveInPlace property.
    void setLeaveInPlace(bool leave);
    /// Measures `window` from now on (nullptr: the first top-level window); on X11 its id is given
    /// to the service again, so that `local` is judged for it.
    void setWindow(QWindow *window);

    /// The frames, in the screen's pixels, of the keyboards up whose place is known, each clipped to
    /// its output.
    QList<QRect> keyboardFrames() const;

    /// A point of the window in the screen's pixels, the keyboards' coordinates.
    Q_INVOKABLE QPointF mapToScreen(const QPointF &point) const;

public slots:
    /// Subscribes now rather than on the next turn of the event loop; once only.
    void start();
    /// Leaves the service for good, waiting a second at most, without starting a service to
    /// leave: the keyboards are forgotten and nothing the service sends is heard from then on.
    void unsubscribe();
    /// Asks the keyboard to show, through the service; a refusal is requestFailed().
    void show();
    /// Asks the keyboard to hide, through the service; a refusal is requestFailed().
    void hide();

signals:
    /// The keyboardRectangle property changed.
    void keyboardRectangleChanged();
    /// The visible property changed.
    void visibleChanged();
    /// The animating property changed (animationDuration has changed before it).
    void animatingChanged();
    /// The animationDuration property changed.
    void animationDurationChanged();
    /// The local property changed.
    void localChanged();
    /// The serviceAvailable property changed.
    void serviceAvailableChanged();
    /// The window property changed.
    void windowChanged();
    /// The leaveInPlace property changed.
    void leaveInPlaceChanged();
    /// The service accepted the subscription (again: after its restart, or with another window's
    /// id).
    void subscribed();
    /// The service went away; its keyboards are forgotten.
    void serviceGone();
    /// A keyboard's event: `event` is willShow, didShow, willHide, didHide, willChangeFrame or
    /// didChangeFrame, `endFrame` where the keyboard ends (screen pixels; empty when unknown),
    /// `local` whether the show is this app's (false when unknown).
    void keyboardEvent(const QString &event, const QString &keyboardName, const QRect &endFrame, bool local);
    /// Subscribing failed (no session bus, no service installed, a service without a display):
    /// `message` says why. The watcher subscribes when a service takes the name later.
    void failed(const QString &message);
    /// The service refused `method` (Show or Hide): `message` says why.
    void requestFailed(const QString &method, const QString &message);

private slots:
    // Slots by name: QtDBus connects signals to SLOT() signatures.
    void eventSignal(const QDBusMessage &message);
    void subscriberEventSignal(const QDBusMessage &message);
    void progressSignal(const QDBusMessage &message);
    void verdictSignal(const QDBusMessage &message);
    void nameOwnerChanged(const QDBusMessage &message);

private:
    struct Transition {
        uint show = 0;       // the show it belongs to
        double duration = 0; // seconds, 0 when unknown
    };
    struct Keyboard {
        std::optional<QRect> frame; // nothing while up at an unknown place
        bool local = false;
    };

    void subscribe();
    void sendSubscribe();
    void tellInPlace();
    void forget();
    void apply(const QVariantMap &update, std::optional<bool> local);
    bool fromService(const QDBusMessage &message) const;
    QWindow *measured() const;
    void follow(QWindow *window);
    void remeasure();

    QDBusConnection m_bus;
    bool m_started = false;
    bool m_left = false; // unsubscribe() was called
    bool m_subscribing = false;
    bool m_subscribed = false;
    bool m_resubscribe = false; // the options changed while a Subscribe was under way
    bool m_leaveInPlace = false;
    bool m_toldInPlace = false; // what the service subscribed to last was told
    QString m_owner;            // the unique name of the service's connection, as the bus said
    QList<qulonglong> m_windowIds;
    QTimer m_again; // subscribing again after the service went away
    QHash<QString, Keyboard> m_keyboards;
    QHash<QString, Transition> m_transitions;
    std::unique_ptr<detail::Verdicts> m_verdicts;
    QPointer<QWindow> m_window;
    QPointer<QWindow> m_followed;
    QRectF m_rectangle;
    qreal m_duration = 0;
    bool m_local = false;
    bool m_wasVisible = false;
    bool m_wasAnimating = false;
};

} // namespace KeyboardAdapter
