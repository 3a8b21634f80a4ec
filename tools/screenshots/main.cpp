// blobbench-screenshots: the workbench window driven for the docs' screenshots (not installed): a
// project opened, runs, sweeps, comparisons, the What-if dock, the Load tab or a reproduced
// publication made as a user makes them, then the window grabbed to a PNG. Run it on a real display
// (Xvfb with a window manager) at the sizes the docs show.
#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QPainter>
#include <QSpinBox>
#include <QStyleFactory>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "ui/Charts.h"
#include "ui/ConnectionDialog.h"
#include "ui/HistoryPanel.h"
#include "ui/MainWindow.h"
#include "ui/PrepareDialog.h"
#include "ui/ReproduceWindow.h"
#include "ui/StorageChart.h"
#include "ui/SweepEditor.h"
#include "ui/WhatIfPanel.h"

namespace {

// A dark palette (Fusion's roles), to show and screenshot the window as dark-mode users see it.
QPalette darkPalette() {
    QPalette p;
    const QColor window(0x2b, 0x2b, 0x2b), base(0x1e, 0x1e, 0x1e), text(0xe0, 0xe0, 0xe0);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x65, 0xca));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x70, 0x70, 0x70));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x70, 0x70, 0x70));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x70, 0x70, 0x70));
    return p;
}

// The window with its open dialog drawn over it, centred, as the user sees them.
QImage grabWithDialog(QWidget* window, QWidget* dialog) {
    QImage image = window->grab().toImage();
    if (dialog != nullptr) {
        const QPixmap over = dialog->grab();
        QPainter painter(&image);
        const QPoint at((image.width() - over.width()) / 2, (image.height() - over.height()) / 2);
        painter.fillRect(QRect(at + QPoint(4, 4), over.size()), QColor(0, 0, 0, 60));  // a shadow
        painter.drawPixmap(at, over);
        painter.setPen(QColor(0x60, 0x60, 0x60));
        painter.drawRect(QRect(at, over.size()).adjusted(0, 0, -1, -1));
    }
    return image;
}

}  // namespace

int main(int argc, char* argv[]) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("blobbench"));
    QApplication::setApplicationName(QStringLiteral("blobbench"));
    QGuiApplication::setDesktopFileName(QStringLiteral(BLOBBENCH_APP_ID));
    QIcon icon;
    for (const int size : {32, 64, 256}) {
        icon.addFile(QStringLiteral(":/icons/blobbench-%1.png").arg(size), QSize(size, size));
    }
    QApplication::setWindowIcon(icon);
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
    const QCommandLineOption chart(QStringLiteral("chart"),
                                   QStringLiteral("Chart tab to show: bytes, round-trips, phases, throughput."),
                                   QStringLiteral("name"));
    const QCommandLineOption repeat(QStringLiteral("repeat"), QStringLiteral("Measured executions per scenario."),
                                    QStringLiteral("n"));
    const QCommandLineOption grabSweep(
        QStringLiteral("grab-sweep"),
        QStringLiteral("Run the sweep named by --sweep (or the first), write the window to "
                       "<png>, quit."),
        QStringLiteral("png"));
    const QCommandLineOption grabCompare(
        QStringLiteral("grab-compare"),
        QStringLiteral("Run all twice, compare the two runs, write the window with the comparison to <png>, quit."),
        QStringLiteral("png"));
    const QCommandLineOption sweep(QStringLiteral("sweep"), QStringLiteral("The sweep --grab-sweep runs."),
                                   QStringLiteral("name"));
    const QCommandLineOption side(QStringLiteral("side"), QStringLiteral("Side tab to show: parameters, sweep."),
                                  QStringLiteral("tab"));
    const QCommandLineOption bottom(QStringLiteral("bottom"),
                                    QStringLiteral("Bottom tab to show: results, history, storage."),
                                    QStringLiteral("tab"));
    const QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Start with a dark palette."));
    const QCommandLineOption guide(QStringLiteral("user-guide"),
                                   QStringLiteral("Open Help > User guide (F1) at start (for screenshots)."));
    const QCommandLineOption grabStorage(
        QStringLiteral("grab-storage"),
        QStringLiteral("Write the storage chart of the project's latest study run to <png> (--size WxH), quit."),
        QStringLiteral("png"));
    const QCommandLineOption grabPrepare(
        QStringLiteral("grab-prepare"),
        QStringLiteral("Prepare the current connection's data set from Connection > Prepare data set, write the "
                       "window with the dialog to <png>, quit."),
        QStringLiteral("png"));
    const QCommandLineOption grabWhatIf(
        QStringLiteral("grab-whatif"),
        QStringLiteral("Show the What-if dock switched on at the project's what-if link (nothing is run), write the "
                       "window to <png>, quit."),
        QStringLiteral("png"));
    const QCommandLineOption grabLoad(
        QStringLiteral("grab-load"),
        QStringLiteral("Show the Load tab of the project's runs of many sessions (nothing is run), write the window "
                       "to <png>, quit."),
        QStringLiteral("png"));
    const QCommandLineOption loadView(QStringLiteral("load-view"),
                                      QStringLiteral("The Load tab's view: throughput (default) or percentiles."),
                                      QStringLiteral("view"));
    const QCommandLineOption grabReproduce(
        QStringLiteral("grab-reproduce"),
        QStringLiteral("Open File > Reproduce a publication for --publication, run it (--rows), write its window "
                       "to <png>, quit."),
        QStringLiteral("png"));
    const QCommandLineOption publication(QStringLiteral("publication"),
                                         QStringLiteral("The publication --grab-reproduce runs."),
                                         QStringLiteral("name"));
    const QCommandLineOption rows(QStringLiteral("rows"),
                                  QStringLiteral("Rows (or KiB) the reproduced publication runs at."),
                                  QStringLiteral("n"));
    parser.addOptions({grabIdle, grabRun,  grabSweep, grabCompare,   sweep,       size,        chart,
                       repeat,   side,     bottom,    dark,          grabStorage, grabPrepare, grabWhatIf,
                       guide,    grabLoad, loadView,  grabReproduce, publication, rows});
    parser.addPositionalArgument(QStringLiteral("project"), QStringLiteral("A *.blobbench.json project to open."));
    parser.process(app);

    if (parser.isSet(dark)) {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(darkPalette());
    }
    blobbench::MainWindow window;
    // A project given, else the default one: never the project open last (a script's output must not
    // depend on the user's recent files).
    if (!parser.positionalArguments().isEmpty()) {
        window.files()->openProjectFile(parser.positionalArguments().constFirst());
    }
    if (parser.isSet(grabStorage)) {
        blobbench::StorageChart storage(window.document());
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        storage.resize(parser.isSet(size) ? QSize(wh.value(0).toInt(), wh.value(1).toInt()) : storage.sizeHint());
        return storage.grab().save(parser.value(grabStorage)) ? 0 : 1;
    }
    const bool scripted = parser.isSet(grabRun) || parser.isSet(grabSweep) || parser.isSet(grabCompare) ||
                          parser.isSet(grabPrepare) || parser.isSet(grabWhatIf) || parser.isSet(grabLoad) ||
                          parser.isSet(grabReproduce);
    if (scripted) {
        window.files()->setSuppressUnsavedPrompt(true);
    } else {
        // Asked at connect time when neither the session, the keyring nor the engine's own places
        // have a password; scripted runs never wait for one.
        window.connections()->setPasswordPrompt([&window](const blobbench::ConnectionProfile& profile)
                                                    -> std::optional<blobbench::ConnectionController::PasswordAnswer> {
            const auto answer = blobbench::ConnectionDialog::askPassword(&window, profile);
            if (!answer)
                return std::nullopt;
            return blobbench::ConnectionController::PasswordAnswer{answer->password, answer->remember};
        });
    }
    if (parser.value(side) == QLatin1String("sweep")) {
        window.showSweepEditor();
    }
    if (parser.value(bottom) == QLatin1String("history")) {
        window.showHistory();
    } else if (parser.value(bottom) == QLatin1String("storage")) {
        window.findChild<blobbench::StorageChart*>()->bringToFront();
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
    if (parser.isSet(guide)) {
        if (auto* action = window.findChild<QAction*>(QStringLiteral("userGuide")))
            action->trigger();
    }

    if (parser.isSet(grabIdle) || scripted) {
        QTimer::singleShot(300, &app, [&] {
            if (parser.isSet(grabIdle)) {
                window.grab().save(parser.value(grabIdle));
            }
            if (parser.isSet(grabRun)) {
                QObject::connect(&window, &blobbench::MainWindow::runFinished, &app, [&] {
                    QTimer::singleShot(500, &app, [&] {
                        window.grab().save(parser.value(grabRun));
                        app.quit();
                    });
                });
                window.runAll();
                if (!window.isRunning()) {  // refused (no scenario, another process runs the project)
                    std::fprintf(stderr, "blobbench: %s\n", qPrintable(window.errorText()));
                    app.exit(1);
                }
            } else if (parser.isSet(grabSweep)) {
                const auto& sweeps = window.document()->project().sweeps;
                int index = sweeps.empty() ? -1 : 0;
                for (std::size_t i = 0; i < sweeps.size(); ++i) {
                    if (sweeps[i].name == parser.value(sweep))
                        index = static_cast<int>(i);
                }
                window.showSweepEditor();
                window.sweepEditor()->setCurrentSweep(index);
                QObject::connect(&window, &blobbench::MainWindow::runFinished, &app, [&] {
                    QTimer::singleShot(500, &app, [&] {
                        window.grab().save(parser.value(grabSweep));
                        app.quit();
                    });
                });
                window.runSweep(index);
                if (!window.isRunning()) {
                    std::fprintf(stderr, "blobbench: %s\n", qPrintable(window.errorText()));
                    app.exit(1);
                }
            } else if (parser.isSet(grabCompare)) {
                auto runs = std::make_shared<int>(0);
                QObject::connect(&window, &blobbench::MainWindow::runFinished, &app, [&, runs] {
                    if (++*runs < 2) {
                        QTimer::singleShot(0, &app, [&] { window.runAll(); });
                        return;
                    }
                    const int n = static_cast<int>(window.document()->project().history.size());
                    window.showHistory();
                    window.historyPanel()->selectRuns({n - 2, n - 1});
                    blobbench::CompareDialog* dialog = window.compareRuns(n - 2, n - 1);
                    QTimer::singleShot(500, &app, [&, dialog] {
                        grabWithDialog(&window, dialog).save(parser.value(grabCompare));
                        app.quit();
                    });
                });
                window.runAll();
            } else if (parser.isSet(grabLoad)) {
                window.showLoadChart();
                if (parser.value(loadView) == QLatin1String("percentiles"))
                    window.loadChart()->setView(blobbench::LoadView::Percentiles);
                QTimer::singleShot(500, &app, [&] { app.exit(window.grab().save(parser.value(grabLoad)) ? 0 : 1); });
            } else if (parser.isSet(grabReproduce)) {
                blobbench::ReproduceWindow* reproduce = window.openReproduce(parser.value(publication).toStdString());
                if (reproduce == nullptr) {
                    std::fprintf(stderr, "blobbench-screenshots: no publication '%s'\n",
                                 qPrintable(parser.value(publication)));
                    app.exit(2);
                    return;
                }
                if (parser.isSet(size)) {
                    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
                    reproduce->resize(wh.value(0).toInt(), wh.value(1).toInt());
                }
                if (parser.isSet(rows))
                    reproduce->rowsBox()->setValue(parser.value(rows).toInt());
                QObject::connect(reproduce, &blobbench::ReproduceWindow::finished, &app, [&, reproduce](bool ok) {
                    if (!ok)
                        std::fprintf(stderr, "blobbench-screenshots: %s\n", qPrintable(reproduce->errorText()));
                    QTimer::singleShot(500, &app, [&, reproduce] {
                        app.exit(reproduce->grab().save(parser.value(grabReproduce)) ? 0 : 1);
                    });
                });
                reproduce->start();
            } else if (parser.isSet(grabWhatIf)) {
                window.showWhatIf();
                window.whatIfPanel()->setOn(true);
                window.whatIfPanel()->flushAdvice();
                QTimer::singleShot(500, &app, [&] { app.exit(window.grab().save(parser.value(grabWhatIf)) ? 0 : 1); });
            } else if (parser.isSet(grabPrepare)) {
                window.prepareDataset();
                auto* dialog = window.findChild<blobbench::PrepareDialog*>();
                if (dialog == nullptr) {
                    std::fprintf(stderr, "blobbench: %s\n", qPrintable(window.errorText()));
                    app.exit(1);
                    return;
                }
                QObject::connect(dialog, &blobbench::PrepareDialog::preparedDataset, &app, [&, dialog] {
                    QTimer::singleShot(300, &app, [&, dialog] {
                        grabWithDialog(&window, dialog).save(parser.value(grabPrepare));
                        app.quit();
                    });
                });
                dialog->start();
            } else {
                app.quit();
            }
        });
    }
    return QApplication::exec();
}
