// SIGINT and SIGTERM as a Qt signal, so that they end the event loop like a closed window.
#pragma once

#include <QObject>

class QSocketNotifier;

// A handler may only do async-signal-safe things: it writes the signal's number to a pipe, and
// a QSocketNotifier on the pipe's other end emits `received` from the event loop. One per process.
class SignalPipe : public QObject {
    Q_OBJECT
public:
    explicit SignalPipe(QObject *parent = nullptr);
    ~SignalPipe() override;
    // Sends `number` to this pipe from now on; false when it cannot be installed.
    bool catchSignal(int number);

signals:
    void received(int number);

private:
    void readable();
    QSocketNotifier *m_notifier = nullptr;
};
