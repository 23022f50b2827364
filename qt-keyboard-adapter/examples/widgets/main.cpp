// kbwidgets: a Qt Widgets window, full screen as a kiosk's, whose text field stays above the
// on-screen keyboard: KeyboardAdapter::Watcher gives the part of the window the keyboard covers,
// and the layout's bottom margin leaves it free. It prints `subscribed` and then
// `keyboardRectangle X,Y WxH visible B` each time that part changes.
#include <KeyboardAdapter/Watcher>

#include <QApplication>
#include <QLineEdit>
#include <QVBoxLayout>
#include <QWidget>

#include <cstdio>

int main(int argc, char **argv) {
    QApplication app(argc, argv);
    QWidget window;
    auto *layout = new QVBoxLayout(&window);
    layout->addStretch();
    layout->addWidget(new QLineEdit);
    window.showFullScreen();

    KeyboardAdapter::Watcher keyboard;
    keyboard.setWindow(window.windowHandle());
    QObject::connect(&keyboard, &KeyboardAdapter::Watcher::subscribed, [] {
        std::puts("subscribed");
        std::fflush(stdout);
    });
    QObject::connect(&keyboard, &KeyboardAdapter::Watcher::keyboardRectangleChanged, &window, [&] {
        const QRectF covered = keyboard.keyboardRectangle();
        // From the window's bottom to the keyboard's top edge.
        const int inset = covered.isEmpty() ? 0 : int(window.height() - covered.y());
        layout->setContentsMargins(9, 9, 9, 9 + inset);
        std::printf("keyboardRectangle %g,%g %gx%g visible %s\n", covered.x(), covered.y(), covered.width(),
                    covered.height(), keyboard.isVisible() ? "true" : "false");
        std::fflush(stdout);
    });
    return app.exec();
}
