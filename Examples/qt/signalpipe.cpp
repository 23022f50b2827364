#include "signalpipe.h"

#include <QSocketNotifier>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace {
// The pipe's ends, for the handler, which cannot reach an object.
int ends[2] = {-1, -1};

void handler(int number) {
    const int saved = errno; // the interrupted code may be about to read errno
    const unsigned char byte = static_cast<unsigned char>(number);
    // Non-blocking: with the pipe full a signal is already pending, and this one may be dropped.
    [[maybe_unused]] const ssize_t written = write(ends[1], &byte, 1);
    errno = saved;
}
} // namespace

SignalPipe::SignalPipe(QObject *parent) : QObject(parent) {
    if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return;
    m_notifier = new QSocketNotifier(ends[0], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &SignalPipe::readable);
}

SignalPipe::~SignalPipe() {
    delete m_notifier;
    m_notifier = nullptr;
    for (int &end : ends) {
        if (end >= 0) close(end);
        end = -1;
    }
}

bool SignalPipe::catchSignal(int number) {
    if (m_notifier == nullptr) return false;
    struct sigaction action = {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART; // calls the signal interrupts go on, rather than fail with EINTR
    return sigaction(number, &action, nullptr) == 0;
}

void SignalPipe::readable() {
    unsigned char bytes[16];
    ssize_t count;
    while ((count = read(ends[0], bytes, sizeof bytes)) > 0) {
        for (ssize_t i = 0; i < count; i++) emit received(bytes[i]);
    }
}
