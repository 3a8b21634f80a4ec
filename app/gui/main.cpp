// blobbench: the workbench window, opened on the project open last (or a new one on the SQLite
// reference suite) so a first-time user only presses Run. The docs' screenshots are made by
// tools/screenshots (blobbench-screenshots), which drives the same window.
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QIcon>
#include <QStyleFactory>
#include <QTimer>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "app/gui/QuitOnSignal.h"
#include "ui/ConnectionDialog.h"
#include "ui/MainWindow.h"

namespace {

// A dark palette (Fusion's roles), for users who want the window dark whatever the desktop says.
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
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size WxH."), QStringLiteral("size"));
    const QCommandLineOption startup(QStringLiteral("startup-time"),
                                     QStringLiteral("Print the time from start to a shown window, then quit."));
    const QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Start with a dark palette."));
    const QCommandLineOption fresh(QStringLiteral("new"),
                                   QStringLiteral("Start on a new project instead of the one open last."));
    parser.addOptions({size, startup, dark, fresh});
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
    if (!parser.positionalArguments().isEmpty()) {
        window.files()->openProjectFile(parser.positionalArguments().constFirst());
    } else if (!parser.isSet(fresh)) {
        // As an editor does: the project open last, while its file is still there (a failed load
        // says why in the window and leaves the new project).
        const QStringList recent = window.files()->recentProjects();
        if (!recent.isEmpty() && QFileInfo(recent.constFirst()).isFile())
            window.files()->openProjectFile(recent.constFirst());
    }
    // Asked at connect time when neither the session, the keyring nor the engine's own places have a
    // password.
    window.connections()->setPasswordPrompt([&window](const blobbench::ConnectionProfile& profile)
                                                -> std::optional<blobbench::ConnectionController::PasswordAnswer> {
        const auto answer = blobbench::ConnectionDialog::askPassword(&window, profile);
        if (!answer)
            return std::nullopt;
        return blobbench::ConnectionController::PasswordAnswer{answer->password, answer->remember};
    });
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        window.resize(wh.value(0).toInt(), wh.value(1).toInt());
    }
    window.show();
    if (parser.isSet(startup)) {
        QTimer::singleShot(0, &app, [&] {
            std::printf("window ready in %lld ms\n", static_cast<long long>(started.elapsed()));
            app.quit();
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
