#include "ui/charts/SweepChart.h"

#include <QApplication>
#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QGridLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "model/RunComparison.h"
#include "ui/Units.h"
#include "ui/charts/ChartBasics.h"
#include "ui/charts/ChartFrame.h"

namespace blobbench::charts {
namespace {

QString sweepTitle(SweepMetric metric) {
    switch (metric) {
        case SweepMetric::BytesReceived:
            return QApplication::translate("SampleChart", "Sweep: median bytes received per point");
        case SweepMetric::RoundTrips:
            return QApplication::translate("SampleChart", "Sweep: median round trips per point");
        case SweepMetric::Time:
            break;
    }
    return chartTitle(ChartKind::Sweep);
}

// The latest sweep: its tunable on x, per scenario (and value of a grid's other axis) the median
// elapsed time with a band from the fastest to the slowest repetition, or the median bytes received
// or round trips (SweepMetric). Samples outside a sweep are not drawn here.
class SweepChart final : public SampleChart {
public:
    explicit SweepChart(QWidget* parent) : m_frame(new ChartFrame(parent)) {
        m_frame->chart()->setTitle(chartTitle(ChartKind::Sweep));
        m_metricBox = new QComboBox(m_frame);
        m_metricBox->setObjectName(QStringLiteral("sweepMetric"));
        m_metricBox->addItem(tr("Median time"), static_cast<int>(SweepMetric::Time));
        m_metricBox->addItem(tr("Bytes received"), static_cast<int>(SweepMetric::BytesReceived));
        m_metricBox->addItem(tr("Round trips"), static_cast<int>(SweepMetric::RoundTrips));
        m_metricBox->setToolTip(tr("What the sweep chart plots on y"));
        static_cast<QGridLayout*>(m_frame->layout())->addWidget(m_metricBox, 0, 0, Qt::AlignTop | Qt::AlignLeft);
        QObject::connect(m_metricBox, &QComboBox::activated, m_frame, [this](int index) {
            setSweepMetric(static_cast<SweepMetric>(m_metricBox->itemData(index).toInt()));
        });
        m_frame->onThemeChanged = [this] { rebuild(); };
        rebuild();
    }
    ChartKind kind() const override { return ChartKind::Sweep; }
    QWidget* widget() override { return m_frame; }
    void setSamples(const std::vector<Sample>& samples) override {
        m_samples.clear();
        m_ordinals.clear();
        m_seen = 0;
        m_predictedMs.clear();
        m_predictionLabel.clear();
        for (const Sample& s : samples) {
            if (!s.point.empty()) {
                m_samples.push_back(s);
                m_ordinals.push_back(m_seen);
            }
            ++m_seen;
        }
        rebuild();
    }
    void addSample(const Sample& s) override { addSamples({s}); }
    void addSamples(const std::vector<Sample>& samples) override {
        bool any = false;
        for (const Sample& s : samples) {
            if (!s.point.empty()) {
                m_samples.push_back(s);
                m_ordinals.push_back(m_seen);
                any = true;
            }
            ++m_seen;
        }
        if (any)
            rebuild();
    }
    // The what-if: per point, the median predicted time of its samples, dashed beside the measured
    // median (the time metric only).
    void setPredicted(const std::vector<double>& millisBySample, const QString& label) override {
        if (m_predictionLabel.isEmpty() && millisBySample.empty())
            return;  // off and staying off
        m_predictedMs = millisBySample;
        m_predictionLabel = millisBySample.empty() ? QString() : label;
        rebuild();
    }
    std::vector<double> drawnMillis(bool predicted) const override {
        return predicted ? m_predictedDrawn : std::vector<double>{};
    }
    QStringList predictedSeriesNames() const override { return m_predictedNames; }
    void clear() override { setSamples({}); }
    void setLogScale(bool on) override {
        if (on != m_log) {
            m_log = on;
            rebuild();
        }
    }
    void setParameterSpecs(const std::vector<ParameterSpec>& specs) override {
        m_units.clear();
        for (const ParameterSpec& spec : specs)
            m_units[spec.id] = qs(spec.unit);
        rebuild();
    }
    void setSweepMetric(SweepMetric metric) override {
        m_metricBox->setCurrentIndex(m_metricBox->findData(static_cast<int>(metric)));
        if (metric != m_metric) {
            m_metric = metric;
            rebuild();
        }
    }
    int pointCount() const override { return m_points; }
    QString notice() const override { return m_notice; }
    QStringList seriesNames() const override { return m_names; }
    QColor backgroundColor() const override { return m_frame->chart()->backgroundBrush().color(); }
    QColor titleColor() const override { return m_frame->chart()->titleBrush().color(); }
    QString xAxisTitle() const override { return m_frame->xAxisTitle(); }
    QString yAxisTitle() const override {
        const auto axes = m_frame->chart()->axes(Qt::Vertical);
        return axes.isEmpty() ? QString() : axes.front()->titleText();
    }
    QStringList xAxisLabels() const override { return m_xLabels; }

private:
    static QString tr(const char* text) { return QApplication::translate("SampleChart", text); }

    // The figure plotted for one scenario and point: median, min, max (the band; time only).
    std::optional<std::array<double, 3>> figure(const PointSummary& p) const {
        switch (m_metric) {
            case SweepMetric::Time:
                if (p.elapsed.count == 0)
                    return std::nullopt;
                return std::array<double, 3>{p.elapsed.median, p.elapsed.min, p.elapsed.max};
            case SweepMetric::BytesReceived:
                if (!p.medianRecvBytes)
                    return std::nullopt;
                return std::array<double, 3>{*p.medianRecvBytes, *p.medianRecvBytes, *p.medianRecvBytes};
            case SweepMetric::RoundTrips:
                if (!p.medianRoundTrips)
                    return std::nullopt;
                return std::array<double, 3>{*p.medianRoundTrips, *p.medianRoundTrips, *p.medianRoundTrips};
        }
        return std::nullopt;
    }

    // The latest sweep run's samples (two sweeps of different tunables share no axis), with the
    // what-if's time of each (NaN: none).
    struct SweepRun {
        std::vector<Sample> samples;
        std::vector<double> predicted;
    };
    // Where the swept values sit on x: the values as numbers when they all are (log10 for a log
    // axis), else categories in the order the sweep ran them.
    struct XScale {
        std::string key;  // the tunable on x; empty: none
        QStringList categories;
        bool numeric = false;
        bool log = false;
        double lowestPositive = std::numeric_limits<double>::max();
        double position(const QString& v) const {
            if (!numeric)
                return static_cast<double>(categories.indexOf(v));
            if (!log)
                return v.toDouble();
            const double d = v.toDouble();
            return d > 0 ? std::log10(d) : std::log10(lowestPositive) - 1;
        }
    };
    struct Line {
        QString name;
        std::vector<std::array<double, 4>> points;  // x, median, min, max
    };
    struct Lines {
        std::map<QString, Line> byName;
        QStringList order;  // of first appearance
        double maxY = 0, minY = std::numeric_limits<double>::max();
        std::size_t unmeasured = 0;  // points whose figure was not measured
    };

    void rebuild() {
        QChart* chart = m_frame->chart();
        clearSeriesAndAxes(chart);
        m_points = 0;
        m_names.clear();
        m_xLabels.clear();
        m_notice.clear();
        m_predictedDrawn.clear();
        m_predictedNames.clear();
        const SweepRun run = latestRun();
        const XScale xs = xScaleOf(run.samples);
        Lines lines = measuredLines(summariseSamples(run.samples), xs);
        const std::map<QString, std::vector<QPointF>> predicted = predictedLines(run, xs, lines);
        const auto [yu, yTitle] = yUnitAndTitle(lines.maxY);
        chart->setTitle(sweepTitle(m_metric));
        QAbstractAxis* xAxis = makeXAxis(xs);
        const bool logY = m_log && lines.minY > 0 && lines.minY != std::numeric_limits<double>::max();
        QAbstractAxis* yAxis =
            makeAxis(logY, yTitle, logY ? lines.minY / yu.divisor / 1.5 : 0,
                     std::max(lines.maxY / yu.divisor * 1.1, logY ? lines.minY / yu.divisor * 4 : 1e-3));
        if (auto* v = qobject_cast<QValueAxis*>(yAxis); v != nullptr && m_metric == SweepMetric::RoundTrips)
            useIntegerTicks(v);
        chart->addAxis(xAxis, Qt::AlignBottom);
        chart->addAxis(yAxis, Qt::AlignLeft);
        std::size_t lineIndex = 0;
        for (const QString& name : std::as_const(lines.order)) {
            Line& line = lines.byName[name];
            std::sort(line.points.begin(), line.points.end());
            // Categories have no values between them: points (each series a little apart so equal
            // figures stay visible), no line and no band.
            const double offset =
                xs.numeric || lines.order.size() < 2
                    ? 0.0
                    : (static_cast<double>(lineIndex) / static_cast<double>(lines.order.size() - 1) - 0.5) * 0.3;
            const QColor color = addMeasuredLine(line, seriesColor(lineIndex++), xs.numeric, offset, yu, xAxis, yAxis);
            if (const auto p = predicted.find(name); p != predicted.end())
                addPredictedLine(name, p->second, color, xs.numeric, offset, yu, xAxis, yAxis);
        }
        updateNotice(run, lines.unmeasured);
        m_frame->fitLegend(m_names.size());
        m_frame->showNotice(m_notice);
    }

    SweepRun latestRun() const {
        SweepRun run;
        if (m_samples.empty())
            return run;
        const std::string& runId = m_samples.back().runId;
        for (std::size_t i = 0; i < m_samples.size(); ++i) {
            if (m_samples[i].runId != runId)
                continue;
            run.samples.push_back(m_samples[i]);
            run.predicted.push_back(m_ordinals[i] < m_predictedMs.size() ? m_predictedMs[m_ordinals[i]]
                                                                         : std::numeric_limits<double>::quiet_NaN());
        }
        return run;
    }

    XScale xScaleOf(const std::vector<Sample>& run) const {
        std::map<std::string, QStringList> distinct;  // tunable -> its values, in order of first appearance
        for (const Sample& s : run) {
            for (const auto& [key, value] : s.point) {
                QStringList& values = distinct[key];
                if (!values.contains(qs(value)))
                    values << qs(value);
            }
        }
        XScale xs;
        // x: the tunable with the most values (a grid's other axis makes one series per value).
        for (const auto& [key, values] : distinct) {
            if (xs.key.empty() || values.size() > distinct[xs.key].size())
                xs.key = key;
        }
        // Never sorted by name: text/binary, off/on, fetch modes stay in the order the sweep ran them.
        xs.categories = xs.key.empty() ? QStringList() : distinct[xs.key];
        xs.numeric = !xs.key.empty();
        for (const QString& v : std::as_const(xs.categories)) {
            bool ok = false;
            v.toDouble(&ok);
            xs.numeric = xs.numeric && ok;
        }
        if (xs.numeric) {
            std::sort(xs.categories.begin(), xs.categories.end(),
                      [](const QString& a, const QString& b) { return a.toDouble() < b.toDouble(); });
        }
        // A log x axis when asked, or when the values span 30x or more (a log range: 1K to 64K, 1 to 32
        // sessions).
        // A 0 among them (mmap_size 0 = off) sits one decade below the smallest positive value.
        double xHi = 0, xMin = 0;
        for (const QString& v : std::as_const(xs.categories)) {
            const double d = v.toDouble();
            xMin = std::min(xMin, d);
            if (d > 0)
                xs.lowestPositive = std::min(xs.lowestPositive, d);
            xHi = std::max(xHi, d);
        }
        xs.log = xs.numeric && xMin >= 0 && xHi > 0 && (m_log || xHi / xs.lowestPositive >= 30);
        return xs;
    }

    // A line per scenario and value of the other tunables: "title, key=value".
    static QString lineName(const QString& title, const QString& id, const PointValues& point,
                            const std::string& xKey) {
        QString name = title.isEmpty() ? id : title;
        for (const auto& [key, value] : point) {
            if (key != xKey)
                name += QStringLiteral(", ") + qs(key) + QLatin1Char('=') + qs(value);
        }
        return name;
    }

    Lines measuredLines(const std::vector<PointSummary>& summaries, const XScale& xs) const {
        Lines lines;
        for (const PointSummary& p : summaries) {
            const auto it = p.point.find(xs.key);
            if (it == p.point.end())
                continue;
            const auto f = figure(p);
            if (!f) {
                lines.unmeasured += p.elapsed.count > 0 ? 1 : 0;
                continue;
            }
            const QString name = lineName(p.scenarioTitle, p.scenarioId, p.point, xs.key);
            if (!lines.byName.count(name))
                lines.order << name;
            Line& line = lines.byName[name];
            line.name = name;
            line.points.push_back({xs.position(qs(it->second)), (*f)[0], (*f)[1], (*f)[2]});
            lines.maxY = std::max(lines.maxY, (*f)[2]);
            lines.minY = std::min(lines.minY, (*f)[1]);
        }
        return lines;
    }

    // The what-if: the median predicted time per line and x (the time metric only); the y range
    // of `lines` grows to hold them.
    std::map<QString, std::vector<QPointF>> predictedLines(const SweepRun& run, const XScale& xs, Lines& lines) const {
        std::map<QString, std::map<double, std::vector<double>>> predictedByX;
        if (m_metric == SweepMetric::Time && !m_predictionLabel.isEmpty()) {
            for (std::size_t i = 0; i < run.samples.size(); ++i) {
                const Sample& s = run.samples[i];
                const auto it = s.point.find(xs.key);
                if (s.status != SampleStatus::Complete || std::isnan(run.predicted[i]) || it == s.point.end())
                    continue;
                const QString name = lineName(qs(s.scenarioTitle), qs(s.scenarioId), s.point, xs.key);
                if (lines.byName.count(name))
                    predictedByX[name][xs.position(qs(it->second))].push_back(run.predicted[i]);
            }
        }
        std::map<QString, std::vector<QPointF>> out;
        for (auto& [name, byX] : predictedByX) {
            for (auto& [x, ms] : byX) {
                std::sort(ms.begin(), ms.end());
                const std::size_t n = ms.size();
                const double median = n % 2 == 1 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
                out[name].emplace_back(x, median);
                lines.maxY = std::max(lines.maxY, median);
                lines.minY = std::min(lines.minY, median);
            }
        }
        return out;
    }

    std::pair<AxisUnit, QString> yUnitAndTitle(double maxY) const {
        switch (m_metric) {
            case SweepMetric::Time: {
                const AxisUnit yu = timeAxisUnit(maxY);
                return {yu, tr("Median elapsed time (%1)").arg(yu.name)};
            }
            case SweepMetric::BytesReceived: {
                const AxisUnit yu = byteAxisUnit(maxY);
                return {yu, tr("Median bytes received (%1)").arg(yu.name)};
            }
            case SweepMetric::RoundTrips:
                break;
        }
        return {AxisUnit{QString(), 1}, tr("Median round trips")};
    }

    // Ticks at the swept values, labelled in the tunable's unit ("64K", "1M", "2 Mbit/s"), on a
    // log10 scale for a log axis; categories for text values. Fills m_xLabels.
    QAbstractAxis* makeXAxis(const XScale& xs) {
        const QStringList& categories = xs.categories;
        QString xTitle = xs.key.empty() ? tr("Swept tunable") : qs(xs.key);
        const QString unit = m_units.count(xs.key) ? m_units.at(xs.key) : QString();
        if (!unit.isEmpty() && xs.numeric)
            xTitle += QStringLiteral(" (") + unit + (xs.log ? tr(", log") : QString()) + QLatin1Char(')');
        else if (xs.log)
            xTitle += tr(" (log)");
        auto* xAxis = new QCategoryAxis;
        xAxis->setTitleText(xTitle);
        xAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
        // At most about 12 labels: every n-th value when there are more. On a numeric axis a label
        // closer than a twelfth of the axis to the one before is left out (0 and 1K on a linear axis to
        // 64K drew on top of each other); the last value keeps its label, the one before gives way.
        const int step = std::max<qsizetype>(1, (categories.size() + 11) / 12);
        const double span =
            categories.isEmpty() || !xs.numeric ? 0 : xs.position(categories.back()) - xs.position(categories.front());
        const double minGap = span / 12;
        std::vector<std::pair<QString, double>> ticks;
        for (int i = 0; i < categories.size(); i += step) {
            QString label = xs.numeric ? formatTunableValue(categories[i].toDouble(), unit) : categories[i];
            const auto taken = [&](const QString& l) {
                return std::any_of(ticks.begin(), ticks.end(), [&](const auto& t) { return t.first == l; });
            };
            if (taken(label))
                label = categories[i];  // "1M" twice (10^6 and 2^20): the raw numbers
            if (taken(label))
                continue;
            const double at = xs.position(categories[i]);
            const bool last = i + step >= categories.size();
            if (!ticks.empty() && at - ticks.back().second < minGap) {
                if (!last || ticks.size() == 1)
                    continue;
                ticks.pop_back();
            }
            ticks.emplace_back(label, at);
        }
        for (const auto& [label, at] : ticks) {
            xAxis->append(label, at);
            m_xLabels << label;
        }
        if (categories.isEmpty()) {
            xAxis->setRange(-0.5, 0.5);
        } else if (!xs.numeric) {
            xAxis->setRange(-0.5, std::max<double>(0.5, categories.size() - 0.5));
        } else {
            const double lo = xs.position(categories.front()), hi = xs.position(categories.back());
            const double pad = hi > lo ? (hi - lo) * 0.05 : 1;
            xAxis->setRange(lo - pad, hi + pad);
        }
        return xAxis;
    }

    // The medians of one line, with the min-max band behind them (time on a numeric axis); returns
    // the line's colour.
    QColor addMeasuredLine(const Line& line, const QColor& color, bool numeric, double offset, const AxisUnit& yu,
                           QAbstractAxis* xAxis, QAbstractAxis* yAxis) {
        QChart* chart = m_frame->chart();
        QXYSeries* median = numeric ? static_cast<QXYSeries*>(new QLineSeries) : new QScatterSeries;
        median->setName(line.name);
        auto* upper = new QLineSeries;
        auto* lower = new QLineSeries;
        for (const auto& [x, med, lo, hi] : line.points) {
            median->append(x + offset, med / yu.divisor);
            upper->append(x, hi / yu.divisor);
            lower->append(x, lo / yu.divisor);
        }
        chart->addSeries(median);
        median->setColor(color);
        median->setPointsVisible(true);
        median->setMarkerSize(numeric ? 7 : 11);
        median->attachAxis(xAxis);
        median->attachAxis(yAxis);
        if (m_metric == SweepMetric::Time && numeric) {
            // The min-max band in the line's colour, faint, behind it and out of the legend.
            auto* band = new QAreaSeries(upper, lower);
            band->setName(line.name + tr(" min-max"));
            QColor fill = median->color();
            fill.setAlpha(50);
            band->setBrush(fill);
            band->setPen(Qt::NoPen);
            chart->addSeries(band);
            band->attachAxis(xAxis);
            band->attachAxis(yAxis);
            for (QLegendMarker* marker : chart->legend()->markers(band))
                marker->setVisible(false);
        } else {
            delete upper;
            delete lower;
        }
        m_points += static_cast<int>(median->count());
        m_names << line.name;
        return median->color();
    }

    // The what-if's medians of one line, dashed (points on a category axis) in its colour.
    void addPredictedLine(const QString& name, const std::vector<QPointF>& points, const QColor& color, bool numeric,
                          double offset, const AxisUnit& yu, QAbstractAxis* xAxis, QAbstractAxis* yAxis) {
        QXYSeries* guess = numeric ? static_cast<QXYSeries*>(new QLineSeries) : new QScatterSeries;
        guess->setName(name + QStringLiteral(" — ") + m_predictionLabel);
        for (const QPointF& point : points) {
            guess->append(point.x() + offset, point.y() / yu.divisor);
            m_predictedDrawn.push_back(point.y());
        }
        m_frame->chart()->addSeries(guess);
        if (auto* scatter = qobject_cast<QScatterSeries*>(guess)) {
            scatter->setMarkerSize(11);
            scatter->setBrush(Qt::NoBrush);
            scatter->setPen(QPen(color, 1.8));
        } else {
            guess->setPen(QPen(color, 1.6, Qt::DashLine));
            guess->setPointsVisible(true);
            guess->setMarkerSize(7);
        }
        guess->attachAxis(xAxis);
        guess->attachAxis(yAxis);
        m_predictedNames << guess->name();
    }

    void updateNotice(const SweepRun& run, std::size_t unmeasured) {
        if (m_samples.empty()) {
            m_notice = tr("No sweep run yet: define a sweep (Sweep tab) and press Run sweep.");
        } else if (m_points == 0 && unmeasured > 0) {
            const QString what = m_metric == SweepMetric::RoundTrips ? tr("Round trips") : tr("Bytes received");
            QString why;
            for (const Sample& s : run.samples) {
                if (!s.tap.available && !s.nativePhysical.available && !s.tap.unavailableReason.empty()) {
                    why = qs(s.tap.unavailableReason);
                    break;
                }
            }
            m_notice = why.isEmpty() ? tr("%1 not measured in the latest sweep.").arg(what)
                                     : tr("%1 not measured in the latest sweep: %2").arg(what, why);
        } else if (m_points == 0) {
            m_notice = tr("The latest sweep has no complete sample yet.");
        }
    }
    ChartFrame* m_frame;
    QComboBox* m_metricBox = nullptr;
    std::vector<Sample> m_samples;
    std::vector<std::size_t> m_ordinals;  // of each of m_samples among all the samples given
    std::size_t m_seen = 0;
    std::vector<double> m_predictedMs;  // the what-if, by ordinal
    QString m_predictionLabel;
    std::vector<double> m_predictedDrawn;  // the predicted medians drawn (ms)
    QStringList m_predictedNames;
    std::map<std::string, QString> m_units;  // tunable -> its unit ("B", "bit/s")
    QStringList m_names;
    QStringList m_xLabels;
    QString m_notice;
    int m_points = 0;
    bool m_log = false;
    SweepMetric m_metric = SweepMetric::Time;
};

}  // namespace

std::unique_ptr<SampleChart> makeSweepChart(QWidget* parent) {
    return std::make_unique<SweepChart>(parent);
}

}  // namespace blobbench::charts
