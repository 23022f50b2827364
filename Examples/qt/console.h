// Lines on standard output, for people and for the tests that read them while the app runs.
#pragma once

#include <QObject>
#include <QString>

// Writes `line` and a newline to standard output and flushes at once: a reader must see each
// line as it happens, not when a buffer fills.
void say(const QString &line);

// The same for QML, as the `Console` singleton: console.log goes to standard error, decorated.
class Console : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    Q_INVOKABLE void print(const QString &line) const { say(line); }
};
