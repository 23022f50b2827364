/*
 * kbchat: a Qt 6 QML chat screen whose input bar stays above the on-screen keyboard, fed by
 * KeyboardAdapter's session service (`kbwatch --serve`, org.keyboardadapter.Watcher on the
 * session bus) through QtDBus.
 *
 * Build (CMake, a C++17 compiler, qt6-base-dev, qt6-declarative-dev, qt6-declarative-dev-tools; to
 * run, the QML modules
 * qml6-module-qtquick, -qtquick-controls, -qtquick-layouts, -qtquick-templates, -qtquick-window
 * and qml6-module-qtqml-workerscript):
 *
 *     cmake -S Examples/qt -B build-qt && cmake --build build-qt
 *
 * Run:
 *
 *     build-qt/kbchat [--position X,Y] [--size WxH]
 *
 * Qt picks X11 or Wayland from the session; QT_QPA_PLATFORM=xcb or =wayland chooses.
 *
 * The screen (Main.qml) pads its bar by `KeyboardAdapter.keyboardRectangle`, the singleton of
 * the KeyboardAdapter QML module (qt-keyboard-adapter/, built here beside the app unless installed),
 * shaped like Qt.inputMethod (keyboardRectangle, visible, animating, animationDuration, show(),
 * hide()), whose rectangle is the keyboard's part over the window, in the window's coordinates.
 * The module subscribes to the service (which starts it when it is installed and not running,
 * D-Bus activation), follows its keyboards, and subscribes again when the service is restarted.
 *
 * Where the window is: on X11 the X server says; --position places it (with no window manager,
 * exactly there). On Wayland a window does not know where it is, so the adapter takes its
 * top-left corner to be its screen's, as for a maximized or tiled chat window (on a phone,
 * always), and kbchat shows it maximized; Qt's own decoration, where it draws one, is allowed
 * for (the window's frame margins). A window placed elsewhere would have its bar misplaced by as
 * much.
 *
 * It prints `window 0x...` (its X window id, on X11) at start, `subscribed`, `EVENT NAME` for
 * each event (`willShow xvkbd`; a keyboard already up when it subscribes too), `service gone`,
 * and after each relayout `bar bottom Y inset N` (Y: the bar's bottom edge in the screen's pixels;
 * N: the covered inset). SIGINT and SIGTERM end it with status 0; an error from the service with 1.
 */
#include "console.h"
#include "signalpipe.h"

#include <KeyboardAdapter/Watcher>

#include <QGuiApplication>
#include <QQmlEngine>
#include <QQmlApplicationEngine>
#include <QQuickWindow>
#include <QRegularExpression>

#include <csignal>
#include <cstdio>
#include <cstring>

namespace {
const char usage[] = "usage: kbchat [--position X,Y] [--size WxH]\n"
                     "A chat screen whose input bar stays above the on-screen keyboard,\n"
                     "from kbwatch's session service.\n"
                     "  --position X,Y  where the window goes, on X11 (default 240,40)\n"
                     "  --size WxH      the window's size (default 800x600)\n";

struct Options {
    int x = 240, y = 40, width = 800, height = 600;
    bool help = false;
};

// "A<separator>B" as two numbers; false when it is anything else.
bool pair(const QString &text, const char *separator, int &first, int &second) {
    const QRegularExpression form(QStringLiteral("^(-?\\d+)%1(-?\\d+)$").arg(QLatin1String(separator)));
    const QRegularExpressionMatch match = form.match(text);
    if (!match.hasMatch()) return false;
    bool good = false, alsoGood = false;
    first = match.captured(1).toInt(&good);
    second = match.captured(2).toInt(&alsoGood);
    return good && alsoGood;
}

// Reads the options (the program's name first); returns what is wrong with them, empty when
// nothing is. Unless `strict`, what it does not know is left for Qt (-platform, ...).
QString parse(const QStringList &arguments, bool strict, Options &options) {
    for (qsizetype i = 1; i < arguments.size(); i++) {
        const QString &given = arguments[i];
        if (given == QLatin1String("--help") || given == QLatin1String("-h")) {
            options.help = true;
            continue;
        }
        const QString name = given.section(QLatin1Char('='), 0, 0);
        if (name != QLatin1String("--position") && name != QLatin1String("--size")) {
            if (strict) return QStringLiteral("cannot use %1").arg(given);
            continue;
        }
        QString value;
        if (given.contains(QLatin1Char('='))) {
            value = given.section(QLatin1Char('='), 1);
        } else if (i + 1 < arguments.size()) {
            value = arguments[++i];
        } else {
            return QStringLiteral("%1 needs a value").arg(name);
        }
        const bool good = name == QLatin1String("--position")
                              ? pair(value, ",", options.x, options.y)
                              : pair(value, "x", options.width, options.height) && options.width > 0 &&
                                    options.height > 0;
        if (!good) return QStringLiteral("cannot use %1 %2").arg(name, value);
    }
    return QString();
}

int badArguments(const QString &problem) {
    std::fprintf(stderr, "kbchat: %s\n%s", qPrintable(problem), usage);
    return 2;
}
} // namespace

int main(int argc, char **argv) {
    // First before Qt starts, which needs a display: --help, and the values of kbchat's options.
    Options options;
    QStringList given;
    for (int i = 0; i < argc; i++) given.append(QString::fromLocal8Bit(argv[i]));
    const QString problem = parse(given, false, options);
    if (!problem.isEmpty()) return badArguments(problem);
    if (options.help) {
        std::fputs(usage, stdout);
        return 0;
    }
    QGuiApplication app(argc, argv); // takes Qt's own options (-platform, ...) out of the arguments
    QGuiApplication::setApplicationName(QStringLiteral("kbchat"));
    // Then what Qt left: nothing but kbchat's options.
    const QString left = parse(QGuiApplication::arguments(), true, options);
    if (!left.isEmpty()) return badArguments(left);

    Console console;
    qmlRegisterSingletonInstance("Kbchat", 1, 0, "Console", &console);

    QQmlApplicationEngine engine;
    engine.addImportPath(QStringLiteral(KBCHAT_QML_IMPORT_DIR));
    engine.load(QUrl(QStringLiteral("qrc:/Main.qml")));
    QQuickWindow *window =
        engine.rootObjects().isEmpty() ? nullptr : qobject_cast<QQuickWindow *>(engine.rootObjects().first());
    if (window == nullptr) {
        std::fprintf(stderr, "kbchat: qrc:/Main.qml did not make a window\n");
        return 1;
    }
    // The screen's singleton, the module's KeyboardAdapter::Watcher: it subscribes once the event
    // loop runs, with the window Main.qml gave it.
    auto *adapter = engine.singletonInstance<KeyboardAdapter::Watcher *>(
        qmlTypeId("KeyboardAdapter", 1, 0, "KeyboardAdapter"));
    if (adapter == nullptr) {
        std::fprintf(stderr, "kbchat: no KeyboardAdapter singleton\n");
        return 1;
    }
    window->setGeometry(options.x, options.y, options.width, options.height);
    if (QGuiApplication::platformName().startsWith(QLatin1String("wayland"))) {
        // The compositor places the window, and the keyboard adapter takes its top-left corner to
        // be its screen's: maximized, it is (a fixed size would have it float, centred).
        window->showMaximized();
    } else {
        // One size: the bar's place is checked against the window's bottom edge.
        window->setMinimumSize(QSize(options.width, options.height));
        window->setMaximumSize(QSize(options.width, options.height));
        window->show();
    }

    if (QGuiApplication::platformName() == QLatin1String("xcb"))
        say(QStringLiteral("window 0x%1").arg(window->winId(), 0, 16));

    using KeyboardAdapter::Watcher;
    QObject::connect(adapter, &Watcher::subscribed, [] { say(QStringLiteral("subscribed")); });
    QObject::connect(adapter, &Watcher::serviceGone, [] { say(QStringLiteral("service gone")); });
    QObject::connect(adapter, &Watcher::keyboardEvent, [](const QString &event, const QString &name) {
        say(QStringLiteral("%1 %2").arg(event, name));
    });
    QObject::connect(adapter, &Watcher::requestFailed, [](const QString &method, const QString &message) {
        say(QStringLiteral("kbwatch service: %1: %2").arg(method, message));
    });
    bool failed = false;
    QObject::connect(adapter, &Watcher::failed, &app, [&failed](const QString &message) {
        say(QStringLiteral("kbwatch service: Subscribe: %1").arg(message));
        failed = true;
        QGuiApplication::exit(1);
    });
    SignalPipe interrupts;
    QObject::connect(&interrupts, &SignalPipe::received, &app, [] { QGuiApplication::quit(); });
    if (!interrupts.catchSignal(SIGINT) || !interrupts.catchSignal(SIGTERM)) {
        std::fprintf(stderr, "kbchat: cannot catch SIGINT and SIGTERM\n");
        return 1;
    }

    const int status = app.exec();
    adapter->unsubscribe();
    return failed ? 1 : status;
}
