// The main of every GUI test: the offscreen platform, a QApplication, then GoogleTest.
#include <gtest/gtest.h>

#include <QApplication>
#include <QStandardPaths>

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // QSettings and data paths under ~/.qttest, so tests never touch the user's settings.
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("blobbench-tests"));
    QApplication::setApplicationName(QStringLiteral("blobbench-gui-tests"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
