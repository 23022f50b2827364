// The on-screen keyboard as QML sees it: the `KeyboardAdapter` singleton, shaped like
// Qt.inputMethod, so that a screen which pads by Qt.inputMethod.keyboardRectangle changes one name.
#pragma once

#include <QObject>
#include <QPointF>
#include <QPointer>
#include <QRectF>
#include <QWindow>

class WatcherClient;

class KeyboardAdapter : public QObject {
    Q_OBJECT
    // The part of the window the keyboard covers at its bottom, in the window's coordinates (as
    // Qt.inputMethod's is); empty when no keyboard covers it. Of several keyboards, the one that
    // covers the most of the window's bottom. A keyboard nearer the window's top than its bottom
    // edge is left out: padding the bottom would not uncover anything it hides.
    Q_PROPERTY(QRectF keyboardRectangle READ keyboardRectangle NOTIFY keyboardRectangleChanged)
    // Whether a keyboard is up (or coming up), wherever it is.
    Q_PROPERTY(bool visible READ isVisible NOTIFY visibleChanged)
    // True between a will event and its did event: the keyboard is moving.
    Q_PROPERTY(bool animating READ isAnimating NOTIFY animatingChanged)
    // The seconds the transition under way takes; 0 when unknown or none.
    Q_PROPERTY(qreal animationDuration READ animationDuration NOTIFY animationDurationChanged)
    // The window measured; the application's first top-level window while none is set.
    Q_PROPERTY(QWindow *window READ window WRITE setWindow NOTIFY windowChanged)

public:
    explicit KeyboardAdapter(WatcherClient *client, QObject *parent = nullptr);

    QRectF keyboardRectangle() const { return m_rectangle; }
    bool isVisible() const { return m_visible; }
    bool isAnimating() const { return m_animating; }
    qreal animationDuration() const { return m_duration; }
    QWindow *window() const { return m_window; }
    void setWindow(QWindow *window);

    // A point of the window in the screen's pixels, the keyboards' coordinates.
    Q_INVOKABLE QPointF mapToScreen(const QPointF &point) const;

public slots:
    // Ask the keyboard to show or hide, through the session service.
    void show();
    void hide();

signals:
    void keyboardRectangleChanged();
    void visibleChanged();
    void animatingChanged();
    void animationDurationChanged();
    void windowChanged();

private:
    QWindow *measured() const;
    void follow(QWindow *window);
    void update();

    WatcherClient *m_client;
    QPointer<QWindow> m_window;   // as set
    QPointer<QWindow> m_followed; // whose geometry changes call update()
    QRectF m_rectangle;
    bool m_visible = false;
    bool m_animating = false;
    qreal m_duration = 0;
};
