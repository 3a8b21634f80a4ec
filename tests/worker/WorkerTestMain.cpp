// The main of the run worker's tests: a QCoreApplication (the worker needs an event loop, no
// widgets), then GoogleTest.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QStandardPaths>

int main(int argc, char** argv) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("blobbench-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("blobbench-worker-tests"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
