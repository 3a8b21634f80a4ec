// The main of every GUI test: the offscreen platform, a QApplication, then GoogleTest.
#include <gtest/gtest.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <cstdio>

namespace {

// With BLOBBENCH_TRACE_STALLS=<ms> set, prints every event that kept the UI thread longer than
// that: the receiver's class and the event type, to find what a heartbeat stall was.
class TracingApplication final : public QApplication {
public:
    TracingApplication(int& argc, char** argv) : QApplication(argc, argv) {
        m_threshold = qEnvironmentVariableIntValue("BLOBBENCH_TRACE_STALLS");
    }
    bool notify(QObject* receiver, QEvent* event) override {
        if (m_threshold <= 0) {
            return QApplication::notify(receiver, event);
        }
        QElapsedTimer timer;
        timer.start();
        const int type = event->type();
        const char* cls = receiver->metaObject()->className();
        const QString name = receiver->objectName();
        const bool result = QApplication::notify(receiver, event);
        if (timer.elapsed() >= m_threshold) {
            std::fprintf(stderr, "stall: %lld ms in event %d to %s '%s'\n", static_cast<long long>(timer.elapsed()),
                         type, cls, qPrintable(name));
        }
        return result;
    }

private:
    int m_threshold = 0;
};

}  // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // QSettings and data paths under ~/.qttest, so tests never touch the user's settings.
    QStandardPaths::setTestModeEnabled(true);
    TracingApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("blobbench-tests"));
    QApplication::setApplicationName(QStringLiteral("blobbench-gui-tests"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
