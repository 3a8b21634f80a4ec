// Issue #17's smaller defects of the window: the connection named once in an error line, the log
// following new lines, the chart choices kept in the project, the export size, the parameters'
// "not in effect" visible at a laptop's size.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QWheelEvent>

#include "GuiTestSupport.h"
#include "WindowSupport.h"
#include "engine/core/ErrorLine.h"
#include "support/TestSupport.h"
#include "ui/ChartSettings.h"
#include "ui/ExportSizeDialog.h"
#include "ui/LogView.h"
#include "ui/MainWindow.h"
#include "ui/ParameterPanel.h"

using namespace blobbench;
using blobbench::test::TempDir;

namespace {

std::unique_ptr<MainWindow> windowOn(ProjectDocument* document, QSize size = QSize(1280, 860)) {
    QSettings().remove(QStringLiteral("window"));
    auto window = std::make_unique<MainWindow>(document);
    test::adoptAndShow(*window, document, size);
    return window;
}

Sample wireSample() {
    Sample s;
    s.scenarioId = "short";
    s.scenarioTitle = "Short BLOBs";
    s.engine = "firebird";
    s.contentBytes = 1000000;
    s.rows = 10;
    s.phases.fetch = std::chrono::milliseconds(3);
    WireCounters c;
    c.recvBytes = 2000000;
    c.sendBytes = 20000;
    c.roundTrips = 40;
    s.tap = WireStats::of(c);
    return s;
}

// Log lines as the window writes them: some long enough to wrap, errors in a coloured span.
QStringList lines(int from, int count) {
    QStringList out;
    for (int i = from; i < from + count; ++i) {
        QString text = QStringLiteral("line %1").arg(i);
        if (i % 3 == 0)
            text +=
                QStringLiteral(" firebird:inet://127.0.0.1:3050//var/tmp/blob_test.fdb: connect: ") + QString(80, u'x');
        out << (i % 5 == 0 ? QStringLiteral("<span style=\"color:#c0392b\">%1</span>").arg(text) : text);
    }
    return out;
}

}  // namespace

TEST(ErrorLines, AFailedConnectNamesTheConnectionOnce) {
    TempDir dir;
    auto* document = new ProjectDocument;
    document->reset(defaultProject(QString::fromStdString(dir.file("unused.sqlite"))));
    ConnectionProfile broken;
    broken.name = QStringLiteral("broken");
    broken.engine = QStringLiteral("sqlite");
    broken.target = QStringLiteral("sqlite:") + QString::fromStdString(dir.file("no/such/dir/x.sqlite"));
    document->setCurrentConnection(document->addConnection(broken));
    auto window = windowOn(document);

    QSignalSpy tested(window->controller(), &RunController::connectionTested);
    window->testConnection();
    ASSERT_TRUE(tested.wait(10000));
    ASSERT_FALSE(tested.at(0).at(0).toBool());
    const QString testLine = window->errorText();
    // Once as the prefix; the hint that follows may name the file again (how to prepare it).
    const QString prefix = broken.target + QStringLiteral(": ");
    EXPECT_EQ(testLine.count(prefix), 1) << testLine.toStdString();
    EXPECT_TRUE(testLine.startsWith(broken.target + QStringLiteral(": connect: "))) << testLine.toStdString();

    QSignalSpy finished(window.get(), &MainWindow::runFinished);
    window->runCurrent();
    ASSERT_TRUE(finished.wait(10000));
    const QString runLine = window->errorText();
    EXPECT_EQ(runLine.count(prefix), 1) << runLine.toStdString();
    const QString log = window->logView()->toPlainText();
    EXPECT_FALSE(log.contains(broken.target + QStringLiteral(": ") + broken.target)) << log.toStdString();
}

TEST(ErrorLines, PrefixedOnceLeavesAMessageThatAlreadyNamesItsContext) {
    EXPECT_EQ(prefixedOnce("pg:x", "pg:x: connect: refused"), "pg:x: connect: refused");
    EXPECT_EQ(prefixedOnce("pg:x", "connect: refused"), "pg:x: connect: refused");
    EXPECT_EQ(prefixedOnce("pg:x", "pg:xy: refused"), "pg:x: pg:xy: refused") << "another target is context";
    EXPECT_EQ(prefixedOnce("", "refused"), "refused");
}

TEST(LogPane, FollowsNewLinesUntilTheUserScrollsUp) {
    LogView log;
    log.resize(400, 150);
    log.appendLines(lines(0, 30));  // the window logs before it is shown
    log.show();
    QScrollBar* bar = log.verticalScrollBar();
    int next = 30;
    for (int size : {1, 40, 3, 200, 1, 1, 60}) {
        log.appendLines(lines(next, size));  // a batch is one block of lines, as during a run
        next += size;
        QCoreApplication::processEvents();
        ASSERT_GT(bar->maximum(), 0);
        EXPECT_EQ(bar->value(), bar->maximum()) << "after a batch of " << size << ": the newest line in view";
    }
    log.hide();  // another tab over it, or a minimised window
    log.appendLines(lines(next, 20));
    log.show();
    QCoreApplication::processEvents();
    EXPECT_EQ(bar->value(), bar->maximum()) << "lines that came while it was hidden";
    EXPECT_TRUE(log.followsNewLines());

    QWheelEvent up(QPointF(50, 50), log.viewport()->mapToGlobal(QPointF(50, 50)), QPoint(), QPoint(0, 120),
                   Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(log.viewport(), &up);  // the user scrolls up to read
    EXPECT_FALSE(log.followsNewLines()) << "the wheel";
    bar->triggerAction(QAbstractSlider::SliderPageStepSub);
    QCoreApplication::processEvents();
    const int readingAt = bar->value();
    EXPECT_LT(readingAt, bar->maximum());
    EXPECT_FALSE(log.followsNewLines());
    log.appendLines(lines(1000, 40));
    QCoreApplication::processEvents();
    EXPECT_EQ(bar->value(), readingAt) << "stays where the user scrolled to";
    EXPECT_LT(bar->value(), bar->maximum());

    bar->triggerAction(QAbstractSlider::SliderToMaximum);  // back at the end: following again
    EXPECT_TRUE(log.followsNewLines());
    log.appendLines(lines(2000, 3));
    QCoreApplication::processEvents();
    EXPECT_EQ(bar->value(), bar->maximum());
    EXPECT_TRUE(log.toPlainText().endsWith(QStringLiteral("line 2002")));
}

TEST(ChartSettingsFile, ReadsDefaultsForMissingOrBadValuesAndKeepsOtherKeys) {
    EXPECT_EQ(readChartSettings({}), ChartSettings{});
    EXPECT_EQ(readChartSettings({}).exportSize, QSize(1600, 900));
    const QJsonObject bad{
        {QStringLiteral("timeVsBytesAxis"), QStringLiteral("sideways")},
        {QStringLiteral("exportSize"), QJsonObject{{QStringLiteral("width"), 5}, {QStringLiteral("height"), 900}}}};
    EXPECT_EQ(readChartSettings(bad), ChartSettings{});
    const ChartSettings chosen{BytesAxis::WireSent, QSize(1200, 700)};
    const QJsonObject written = writeChartSettings({{QStringLiteral("x"), QStringLiteral("kept")}}, chosen);
    EXPECT_EQ(written.value(QStringLiteral("x")).toString(), QStringLiteral("kept"));
    EXPECT_EQ(written.value(QStringLiteral("timeVsBytesAxis")).toString(), QStringLiteral("wireSent"));
    EXPECT_EQ(readChartSettings(written), chosen);
}

TEST(ChartSettingsFile, TheBytesAxisChoiceIsSavedAndRestoredOnOpen) {
    TempDir dir;
    auto* document = new ProjectDocument;
    document->reset(defaultProject(QString::fromStdString(dir.file("unused.sqlite"))));
    auto window = windowOn(document);
    auto* box = window->findChild<QComboBox*>(QStringLiteral("bytesAxis"));
    ASSERT_NE(box, nullptr);
    const int sent = box->findData(static_cast<int>(BytesAxis::WireSent));
    ASSERT_GE(sent, 0);
    EXPECT_FALSE(document->isDirty());
    box->setCurrentIndex(sent);
    emit box->activated(sent);  // what a click on the item sends
    EXPECT_TRUE(document->isDirty()) << "a project setting changed";
    EXPECT_EQ(window->exports()->chartSettings().bytesAxis, BytesAxis::WireSent);
    const QString path = QString::fromStdString(dir.file("axis.blobbench.json"));
    ASSERT_TRUE(window->files()->saveProjectTo(path));
    window.reset();

    auto* other = new ProjectDocument;
    other->reset(defaultProject(QString::fromStdString(dir.file("unused.sqlite"))));
    auto reopened = windowOn(other);
    SampleChart* chart = reopened->chart(ChartKind::TimeVsBytes);
    chart->setSamples({wireSample()});
    EXPECT_EQ(chart->bytesAxis(), BytesAxis::WireReceived) << "the default before the project is opened";
    ASSERT_TRUE(reopened->files()->openProjectFile(path));
    chart->setSamples({wireSample()});
    EXPECT_EQ(chart->bytesAxis(), BytesAxis::WireSent) << "restored on open";
    EXPECT_FALSE(other->isDirty()) << "restoring is not an edit";
}

TEST(ChartSettingsFile, ChartsExportAtTheProjectsSizeAndKeepAChosenOne) {
    TempDir dir;
    auto* document = new ProjectDocument;
    Project project = defaultProject(QString::fromStdString(dir.file("unused.sqlite")));
    project.chartSettings = writeChartSettings({}, ChartSettings{BytesAxis::WireReceived, QSize(800, 450)});
    document->reset(project);
    auto window = windowOn(document);
    window->chart(ChartKind::TimeVsBytes)->setSamples({wireSample()});

    const QString saved = QString::fromStdString(dir.file("saved.png"));
    ASSERT_TRUE(window->exports()->exportChart(saved));
    EXPECT_EQ(QImage(saved).size(), QSize(800, 450));
    EXPECT_FALSE(document->isDirty());

    const QString chosen = QString::fromStdString(dir.file("chosen.png"));
    ASSERT_TRUE(window->exports()->exportChart(chosen, QSize(1000, 500)));
    EXPECT_EQ(QImage(chosen).size(), QSize(1000, 500));
    EXPECT_EQ(window->exports()->chartSettings().exportSize, QSize(1000, 500)) << "offered next time";
    EXPECT_TRUE(document->isDirty());
    EXPECT_TRUE(window->logView()->toPlainText().contains(QStringLiteral("(1000 x 500)")));
}

TEST(ChartSettingsFile, TheExportSizeDialogOffersTheCurrentSizeAndTheDefault) {
    ExportSizeDialog dialog(QSize(1000, 500));
    auto* width = dialog.findChild<QSpinBox*>(QStringLiteral("exportWidth"));
    auto* height = dialog.findChild<QSpinBox*>(QStringLiteral("exportHeight"));
    ASSERT_NE(width, nullptr);
    ASSERT_NE(height, nullptr);
    EXPECT_EQ(dialog.chosenSize(), QSize(1000, 500));
    width->setValue(1920);
    height->setValue(1080);
    EXPECT_EQ(dialog.chosenSize(), QSize(1920, 1080));
    width->setValue(20);  // below the minimum: clamped
    EXPECT_EQ(dialog.chosenSize().width(), kMinExportSide);
    QPushButton* reset = nullptr;
    for (QPushButton* b : dialog.findChildren<QPushButton*>()) {
        if (b->text() == QStringLiteral("1600 x 900"))
            reset = b;
    }
    ASSERT_NE(reset, nullptr);
    reset->click();
    EXPECT_EQ(dialog.chosenSize(), QSize(1600, 900));
}

// At a laptop's default window (1284x706) and a large screen's, the reason a tunable is not in
// effect shows above the tunables without scrolling.
class NotInEffectVisible : public ::testing::TestWithParam<QSize> {};

TEST_P(NotInEffectVisible, AboveTheScrolledTunables) {
    TempDir dir;
    auto* document = new ProjectDocument;
    Project project = defaultProject(QString::fromStdString(dir.file("unused.sqlite")));
    ConnectionProfile fb;
    fb.name = QStringLiteral("Firebird 3");
    fb.engine = QStringLiteral("firebird");
    fb.target = QStringLiteral("inet://127.0.0.1:1/nowhere.fdb");  // the background Test fails at once
    project.connections.push_back(fb);
    project.currentConnection = static_cast<int>(project.connections.size()) - 1;
    document->reset(project);
    auto window = windowOn(document, GetParam());
    ParameterEffect inlineOff;
    inlineOff.id = "max_inline_blob_size";
    inlineOff.inEffect = false;
    inlineOff.reason = "not in effect (needs client and server >= 5.0.3: the server 3.0.12 is older)";
    ParameterEffect cacheOff = inlineOff;
    cacheOff.id = "max_blob_cache_size";
    window->parameterPanel()->setEffects({inlineOff, cacheOff});
    QCoreApplication::processEvents();

    auto* summary = window->findChild<QLabel*>(QStringLiteral("notInEffectSummary"));
    ASSERT_NE(summary, nullptr);
    EXPECT_TRUE(summary->isVisible());
    EXPECT_TRUE(summary->text().contains(QStringLiteral("the server 3.0.12 is older")))
        << summary->text().toStdString();
    EXPECT_EQ(summary->text().count(QStringLiteral("Not in effect"), Qt::CaseInsensitive), 1) << "one line a reason";
    EXPECT_TRUE(summary->text().contains(QStringLiteral(", "))) << "both tunables named";
    EXPECT_GE(summary->height(), summary->heightForWidth(summary->width())) << "not cut";
    EXPECT_EQ(summary->visibleRegion().boundingRect(), summary->rect()) << "wholly in view, nothing over it";

    window->parameterPanel()->clearEffects();
    EXPECT_FALSE(summary->isVisible());
}

INSTANTIATE_TEST_SUITE_P(WindowSizes, NotInEffectVisible, ::testing::Values(QSize(1284, 706), QSize(1804, 993)));
