// blobbench: the workbench window, opened on the default project (the SQLite reference suite) so
// a first-time user only presses Run. The --grab-* options write screenshots for the docs.
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTimer>
#include <cstdio>

#include "ui/MainWindow.h"

int main(int argc, char* argv[]) {
    QElapsedTimer started;
    started.start();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("blobbench"));
    QApplication::setApplicationName(QStringLiteral("blobbench"));
    QApplication::setApplicationVersion(QStringLiteral(BLOBBENCH_VERSION));
    QApplication::setApplicationDisplayName(QStringLiteral("BlobBench"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("BlobBench workbench: how databases move large values"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption grabIdle(QStringLiteral("grab-idle"), QStringLiteral("Write the idle window to <png>."),
                                      QStringLiteral("png"));
    const QCommandLineOption grabRun(QStringLiteral("grab-run"),
                                     QStringLiteral("Run all scenarios, write the window to <png>, quit."),
                                     QStringLiteral("png"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size WxH."), QStringLiteral("size"));
    const QCommandLineOption startup(QStringLiteral("startup-time"),
                                     QStringLiteral("Print the time from start to a shown window, then quit."));
    const QCommandLineOption chart(QStringLiteral("chart"),
                                   QStringLiteral("Chart tab to show: bytes, round-trips, phases, throughput."),
                                   QStringLiteral("name"));
    const QCommandLineOption repeat(QStringLiteral("repeat"), QStringLiteral("Measured executions per scenario."),
                                    QStringLiteral("n"));
    parser.addOptions({grabIdle, grabRun, size, startup, chart, repeat});
    parser.addPositionalArgument(QStringLiteral("project"), QStringLiteral("A *.blobbench.json project to open."));
    parser.process(app);

    blobbench::MainWindow window;
    if (!parser.positionalArguments().isEmpty()) {
        window.openProjectFile(parser.positionalArguments().constFirst());
    }
    if (parser.isSet(grabRun)) {
        window.setSuppressUnsavedPrompt(true);
    }
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        window.resize(wh.value(0).toInt(), wh.value(1).toInt());
    }
    if (parser.isSet(repeat)) {
        window.setRepetitions(parser.value(repeat).toInt());
    }
    const QString chartName = parser.value(chart);
    if (chartName == QLatin1String("round-trips")) {
        window.showChart(blobbench::ChartKind::TimeVsRoundTrips);
    } else if (chartName == QLatin1String("phases")) {
        window.showChart(blobbench::ChartKind::Phases);
    } else if (chartName == QLatin1String("throughput")) {
        window.showChart(blobbench::ChartKind::LiveThroughput);
    } else if (chartName == QLatin1String("bytes")) {
        window.showChart(blobbench::ChartKind::TimeVsBytes);
    }
    window.show();

    if (parser.isSet(startup)) {
        QTimer::singleShot(0, &app, [&] {
            std::printf("window ready in %lld ms\n", static_cast<long long>(started.elapsed()));
            app.quit();
        });
    }
    if (parser.isSet(grabIdle) || parser.isSet(grabRun)) {
        QTimer::singleShot(300, &app, [&] {
            if (parser.isSet(grabIdle)) {
                window.grab().save(parser.value(grabIdle));
            }
            if (!parser.isSet(grabRun)) {
                app.quit();
                return;
            }
            QObject::connect(&window, &blobbench::MainWindow::runFinished, &app, [&] {
                QTimer::singleShot(500, &app, [&] {
                    window.grab().save(parser.value(grabRun));
                    app.quit();
                });
            });
            window.runAll();
        });
    }
    return QApplication::exec();
}
