// blobbench: the workbench window, opened on the default project (the SQLite reference suite) so
// a first-time user only presses Run. The --grab-* options write screenshots for the docs.
#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QIcon>
#include <QPainter>
#include <QStyleFactory>
#include <QTimer>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "app/gui/QuitOnSignal.h"
#include "ui/ConnectionDialog.h"
#include "ui/HistoryPanel.h"
#include "ui/MainWindow.h"
#include "ui/PrepareDialog.h"
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
    QElapsedTimer started;
    started.start();
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
    const QCommandLineOption startup(QStringLiteral("startup-time"),
                                     QStringLiteral("Print the time from start to a shown window, then quit."));
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
    const QCommandLineOption fresh(QStringLiteral("new"),
                                   QStringLiteral("Start on a new project instead of the one open last."));
    parser.addOptions({grabIdle, grabRun, grabSweep, grabCompare, sweep, size, startup, chart, repeat, side, bottom,
                       dark, grabStorage, grabPrepare, grabWhatIf, guide, fresh});
    parser.addPositionalArgument(QStringLiteral("project"), QStringLiteral("A *.blobbench.json project to open."));
    parser.process(app);

    if (parser.isSet(dark)) {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(darkPalette());
    }
    blobbench::MainWindow window;
    // Before a project's connection loads a client library (see QuitOnSignal.h).
    blobbench::quitOnTerminationSignals(&app, [&](int sig) {
        std::fprintf(stderr,
                     "blobbench: %s: the window closes; measured runs are kept in the project's run journal, "
                     "other unsaved changes are not saved\n",
                     sig == SIGINT    ? "SIGINT"
                     : sig == SIGTERM ? "SIGTERM"
                                      : "SIGHUP");
        window.files()->setSuppressUnsavedPrompt(true);
        window.close();  // stops a run under way
        app.exit(128 + sig);
    });
    const bool grabbing = parser.isSet(grabIdle) || parser.isSet(grabRun) || parser.isSet(grabSweep) ||
                          parser.isSet(grabCompare) || parser.isSet(grabStorage) || parser.isSet(grabPrepare) ||
                          parser.isSet(grabWhatIf);
    if (!parser.positionalArguments().isEmpty()) {
        window.files()->openProjectFile(parser.positionalArguments().constFirst());
    } else if (!grabbing && !parser.isSet(fresh)) {
        // As an editor does: the project open last, while its file is still there (a failed load
        // says why in the window and leaves the new project).
        const QStringList recent = window.files()->recentProjects();
        if (!recent.isEmpty() && QFileInfo(recent.constFirst()).isFile())
            window.files()->openProjectFile(recent.constFirst());
    }
    if (parser.isSet(grabStorage)) {
        blobbench::StorageChart storage(window.document());
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        storage.resize(parser.isSet(size) ? QSize(wh.value(0).toInt(), wh.value(1).toInt()) : storage.sizeHint());
        return storage.grab().save(parser.value(grabStorage)) ? 0 : 1;
    }
    const bool scripted = parser.isSet(grabRun) || parser.isSet(grabSweep) || parser.isSet(grabCompare) ||
                          parser.isSet(grabPrepare) || parser.isSet(grabWhatIf);
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

    if (parser.isSet(startup)) {
        QTimer::singleShot(0, &app, [&] {
            std::printf("window ready in %lld ms\n", static_cast<long long>(started.elapsed()));
            app.quit();
        });
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
    const int code = QApplication::exec();
    if (code > 128 && code <= 128 + SIGTERM) {
        // Closed by a signal: the window is closed and its run stopped. The process ends here, as the
        // signal would have ended it: the Firebird 5 client's own shutdown thread, woken by the signal,
        // otherwise races the library's teardown at exit() and crashes in fb_shutdown().
        std::fflush(nullptr);
        std::_Exit(code);
    }
    return code;
}
