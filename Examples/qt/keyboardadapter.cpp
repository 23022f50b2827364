#include "keyboardadapter.h"

#include "watcherclient.h"

#include <QGuiApplication>
#include <QScreen>

#include <algorithm>
#include <cmath>

namespace {
bool onX11() {
    return QGuiApplication::platformName() == QLatin1String("xcb");
}
} // namespace

KeyboardAdapter::KeyboardAdapter(WatcherClient *client, QObject *parent) : QObject(parent), m_client(client) {
    connect(m_client, &WatcherClient::keyboardsChanged, this, &KeyboardAdapter::update);
}

void KeyboardAdapter::setWindow(QWindow *window) {
    if (m_window == window) return;
    m_window = window;
    emit windowChanged();
    update();
}

QWindow *KeyboardAdapter::measured() const {
    if (m_window) return m_window;
    const QWindowList windows = QGuiApplication::topLevelWindows();
    return windows.isEmpty() ? nullptr : windows.first();
}

void KeyboardAdapter::follow(QWindow *window) {
    if (m_followed == window) return;
    if (m_followed) disconnect(m_followed, nullptr, this, nullptr);
    m_followed = window;
    if (!window) return;
    // Moved, resized, shown, or on another screen: it covers another part of the keyboards.
    for (auto changed : {&QWindow::xChanged, &QWindow::yChanged, &QWindow::widthChanged, &QWindow::heightChanged})
        connect(window, changed, this, &KeyboardAdapter::update);
    connect(window, &QWindow::visibleChanged, this, &KeyboardAdapter::update);
    connect(window, &QWindow::screenChanged, this, &KeyboardAdapter::update);
}

QPointF KeyboardAdapter::mapToScreen(const QPointF &point) const {
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
    // On Wayland a window does not know where it is: it is taken to fill its screen from the
    // top-left corner, as a maximized or tiled chat window does (on a phone, always). Qt's own
    // window decoration, where it draws one, is part of that window, above and beside the
    // content (its frame margins). The compositor's coordinates, the service's, are Qt's logical
    // ones there.
    const QMargins decoration = window->frameMargins();
    return screen + QPointF(decoration.left(), decoration.top()) + point;
}

void KeyboardAdapter::update() {
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
        for (const QRect &keyboard : m_client->frames()) {
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
    if (m_client->isVisible() != m_visible) {
        m_visible = m_client->isVisible();
        emit visibleChanged();
    }
    // The duration first: a screen that starts an animation when `animating` turns true reads it.
    if (m_client->animationDuration() != m_duration) {
        m_duration = m_client->animationDuration();
        emit animationDurationChanged();
    }
    if (m_client->isAnimating() != m_animating) {
        m_animating = m_client->isAnimating();
        emit animatingChanged();
    }
}

void KeyboardAdapter::show() {
    m_client->show();
}

void KeyboardAdapter::hide() {
    m_client->hide();
}
