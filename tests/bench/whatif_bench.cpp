// What a latency step of the What-if dock costs on the UI thread: the window holding SAMPLES
// samples with traces (default 10,000; the target is under 50 ms), each step predicted,
// handed to the visible Time vs bytes chart, its series rebuilt and the chart repainted. Also the
// advisor and its chart (they follow a step after a pause). Prints figures, asserts nothing.
// Usage: QT_QPA_PLATFORM=offscreen whatif_bench [SAMPLES] [EXCHANGES]
#include <QApplication>
#include <QElapsedTimer>
#include <QGraphicsView>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "BenchTraces.h"
#include "ui/Charts.h"
#include "ui/MainWindow.h"
#include "ui/WhatIfPanel.h"

using namespace blobbench;

namespace {

std::vector<Sample> samples(std::size_t count, std::size_t exchanges) {
    std::mt19937 random(42);
    std::vector<Sample> out(count);
    for (std::size_t i = 0; i < count; ++i) {
        Sample& s = out[i];
        s.runId = "bench";
        s.scenarioId = "scenario-" + std::to_string(i % 7);
        s.scenarioTitle = s.scenarioId;
        s.point["fetch_size"] = std::to_string(100 * (1 + (i / 7) % 4));
        s.phases.fetch = std::chrono::milliseconds(5 + random() % 50);
        ExchangeTrace t = bench::madeUpTrace(random, exchanges);
        WireCounters c;
        c.sendBytes = t.sendBytes();
        c.recvBytes = t.recvBytes();
        c.roundTrips = exchanges;
        s.contentBytes = c.recvBytes;
        s.tap = WireStats::of(c);
        s.trace = std::move(t);
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const std::size_t count = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10'000;
    const std::size_t exchanges = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 100;
    Project project = defaultProject(QStringLiteral("/nonexistent/bench.sqlite"));
    RunRecord run;
    run.runId = QStringLiteral("bench");
    run.samples = samples(count, exchanges);
    project.history.push_back(std::move(run));
    auto* document = new ProjectDocument;
    document->reset(std::move(project));
    MainWindow window(document);
    document->setParent(&window);
    window.files()->setSuppressUnsavedPrompt(true);
    window.resize(1920, 1080);
    window.show();
    window.showWhatIf();
    WhatIfPanel* panel = window.whatIfPanel();
    panel->setOn(true);
    QWidget* chart = window.chart(ChartKind::TimeVsBytes)->widget();
    auto* view = chart->findChild<QGraphicsView*>();
    QApplication::processEvents();

    double best = 1e9, worst = 0, sum = 0;
    constexpr int kSteps = 20;
    for (int step = 0; step < kSteps; ++step) {
        QElapsedTimer timer;
        timer.start();
        panel->setLatency(10 + step * 5);  // a slider step: predict, re-plot
        QApplication::processEvents();     // the scene's updates
        view->viewport()->repaint();       // and the paint, now
        const double ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        best = std::min(best, ms);
        worst = std::max(worst, ms);
        sum += ms;
    }
    {
        SampleChart* c = window.chart(ChartKind::TimeVsBytes);
        std::vector<double> v = panel->predictedMillis();
        QElapsedTimer t;
        t.start();
        c->setPredicted(v, panel->predictionLabel());
        const double set = static_cast<double>(t.nsecsElapsed()) / 1e6;
        t.restart();
        view->viewport()->repaint();
        const double paint = static_cast<double>(t.nsecsElapsed()) / 1e6;
        t.restart();
        panel->setLatency(3);
        std::printf(
            "one step apart: chart takes the predictions %.1f ms, repaint %.1f ms; a step back to 3 ms (moves the "
            "axis) %.1f ms\n",
            set, paint, static_cast<double>(t.nsecsElapsed()) / 1e6);
    }
    QElapsedTimer timer;
    timer.start();
    panel->flushAdvice();
    const double advice = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    std::printf(
        "%zu samples x %zu exchanges: a latency step re-plotted in %.1f ms mean (best %.1f, worst %.1f: a step that "
        "moves the time axis; "
        "target < 50 ms), %zu predicted points drawn; advisor + its chart %.1f ms (after a pause, not per step)\n",
        count, exchanges, sum / kSteps, best, worst, window.chart(ChartKind::TimeVsBytes)->drawnMillis(true).size(),
        advice);
    return 0;
}
