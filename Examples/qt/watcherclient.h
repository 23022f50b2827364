// The session service (`kbwatch --serve`) through QtDBus: which keyboards are up, and where.
#pragma once

#include <QDBusConnection>
#include <QHash>
#include <QList>
#include <QObject>
#include <QRect>
#include <QString>
#include <QTimer>
#include <QVariantMap>

#include <functional>
#include <optional>

class QDBusMessage;
class QDBusServiceWatcher;

// Subscribes (which starts the service when it is installed and not running: D-Bus activation),
// asks GetState for the keyboards already up, then follows the Event signals the service sends
// everyone, and its Progress signals, which say where a sliding keyboard is now. When the service
// goes away its keyboards are forgotten, and a second later the client subscribes again, which
// starts a new one. It prints `subscribed`, `EVENT NAME` per event, `visible NAME` per keyboard
// GetState lists, and `service gone`.
class WatcherClient : public QObject {
    Q_OBJECT
public:
    explicit WatcherClient(const QDBusConnection &bus, QObject *parent = nullptr);

    // Starts following, with Subscribe's options (a{sv}: "progress", "window_ids", "pids", ...).
    void start(const QVariantMap &options);
    // Leaves, waiting a second at most for the reply, without starting a service to leave.
    void unsubscribe();
    // Asks the keyboard to show or hide; a refusal is printed, never fatal.
    void show();
    void hide();

    // The frames, in the screen's pixels, of the keyboards up whose place is known.
    QList<QRect> frames() const;
    // Whether a keyboard is up (or coming up), where it is known or not.
    bool isVisible() const { return !m_keyboards.isEmpty(); }
    // Whether a keyboard is between a will event and its did event.
    bool isAnimating() const { return !m_transitions.isEmpty(); }
    // The longest of the transitions under way, in seconds; 0 when unknown or none.
    double animationDuration() const;

signals:
    // After any change to the keyboards, their frames or their transitions.
    void keyboardsChanged();
    // The service answered a call with an error: the app cannot go on.
    void failed(const QString &message);

private slots:
    // Slots by name: QtDBus connects signals to SLOT() signatures.
    void event(const QDBusMessage &message);
    void progress(const QDBusMessage &message);
    void ownerChanged(const QString &name, const QString &oldOwner, const QString &newOwner);

private:
    struct Transition {
        uint show = 0;       // the number of the show it belongs to
        double duration = 0; // seconds, 0 when unknown
    };

    void subscribe();
    void getState();
    // Calls `method` without waiting; `done` gets the reply. An error is printed and, when
    // `fatal`, is `failed`.
    void call(const QString &method, const QVariantList &arguments, std::function<void(const QDBusMessage &)> done,
              bool fatal);

    QDBusConnection m_bus;
    QDBusServiceWatcher *m_watcher = nullptr;
    QVariantMap m_options;
    QTimer m_again; // subscribing again after the service went away
    // id -> frame (nothing while up at an unknown place), for the keyboards up.
    QHash<QString, std::optional<QRect>> m_keyboards;
    // id -> the transition under way, between a will event and its did event.
    QHash<QString, Transition> m_transitions;
};
