#include "ui/charts/LoadCharts.h"

#include <QApplication>
#include <QCategoryAxis>
#include <QChart>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>

#include "engine/core/LoadParameters.h"
#include "model/RunComparison.h"
#include "ui/Units.h"
#include "ui/charts/ChartBasics.h"
#include "ui/charts/ChartFrame.h"

namespace blobbench::charts {
namespace {

constexpr int kMaxCurves = 24;  // percentile curves drawn; the others are said in the notice

QString tr(const char* text) {
    return QApplication::translate("LoadChart", text);
}
QString trn(const char* text, int n) {
    return QApplication::translate("LoadChart", text, nullptr, n);
}

double metricOf(const LoadPoint& p, LoadMetric metric) {
    const Rates r = p.rates();
    switch (metric) {
        case LoadMetric::Rows:
            return r.rowsPerS;
        case LoadMetric::ContentMB:
            return r.contentMBPerS;
        case LoadMetric::WireMB:
            return r.wireMBPerS;
        case LoadMetric::Statements:
            break;
    }
    return r.statementsPerS;
}

// The y axis's title: the metric's name, short enough for a short chart.
QString axisTitle(LoadMetric metric) {
    switch (metric) {
        case LoadMetric::Rows:
            return tr("Rows/s");
        case LoadMetric::ContentMB:
            return tr("MB/s");
        case LoadMetric::WireMB:
            return tr("Wire MB/s");
        case LoadMetric::Statements:
            break;
    }
    return tr("Stmt/s");
}

// What x is: "sessions", or the one other tunable a sweep moved while sessions stayed.
std::string xKeyOf(const std::vector<const LoadPoint*>& loads) {
    std::map<std::string, std::set<std::string>> values;
    std::set<int> sessions;
    for (const LoadPoint* p : loads) {
        sessions.insert(p->sessions);
        for (const auto& [k, v] : p->point) {
            values[k].insert(v);
        }
    }
    if (sessions.size() > 1) {
        return loadparam::Sessions;
    }
    for (const auto& [k, vs] : values) {
        if (vs.size() > 1 && k != loadparam::Sessions) {
            bool numeric = true;
            for (const std::string& v : vs) {
                char* end = nullptr;
                std::strtod(v.c_str(), &end);
                numeric = numeric && end != v.c_str() && *end == '\0';
            }
            if (numeric) {
                return k;
            }
        }
    }
    return loadparam::Sessions;
}

double xOf(const LoadPoint& p, const std::string& key) {
    if (key == loadparam::Sessions) {
        return p.sessions;
    }
    const auto it = p.point.find(key);
    return it == p.point.end() ? 0 : std::strtod(it->second.c_str(), nullptr);
}

class LoadCharts final : public LoadChart {
public:
    explicit LoadCharts(QWidget* parent) : m_frame(new ChartFrame(parent)) {
        auto* boxes = new QWidget(m_frame);
        auto* row = new QHBoxLayout(boxes);
        row->setContentsMargins(0, 0, 0, 0);
        m_viewBox = new QComboBox(boxes);
        m_viewBox->setObjectName(QStringLiteral("loadView"));
        m_viewBox->addItem(tr("Throughput and p99 against sessions"), static_cast<int>(LoadView::Throughput));
        m_viewBox->addItem(tr("Latency percentiles"), static_cast<int>(LoadView::Percentiles));
        m_metricBox = new QComboBox(boxes);
        m_metricBox->setObjectName(QStringLiteral("loadMetric"));
        m_metricBox->addItem(tr("Statements/s"), static_cast<int>(LoadMetric::Statements));
        m_metricBox->addItem(tr("Rows/s"), static_cast<int>(LoadMetric::Rows));
        m_metricBox->addItem(tr("Content MB/s"), static_cast<int>(LoadMetric::ContentMB));
        m_metricBox->addItem(tr("Wire MB/s"), static_cast<int>(LoadMetric::WireMB));
        row->addWidget(m_viewBox);
        row->addWidget(m_metricBox);
        static_cast<QGridLayout*>(m_frame->layout())->addWidget(boxes, 0, 0, Qt::AlignTop | Qt::AlignLeft);
        QObject::connect(m_viewBox, &QComboBox::activated, m_frame,
                         [this](int index) { setView(static_cast<LoadView>(m_viewBox->itemData(index).toInt())); });
        QObject::connect(m_metricBox, &QComboBox::activated, m_frame, [this](int index) {
            setMetric(static_cast<LoadMetric>(m_metricBox->itemData(index).toInt()));
        });
        m_frame->onThemeChanged = [this] { rebuild(); };
        rebuild();
    }

    QWidget* widget() override { return m_frame; }
    void setLoads(const std::vector<LoadPoint>& loads) override {
        m_loads = loads;
        rebuild();
    }
    void setView(LoadView view) override {
        m_viewBox->setCurrentIndex(m_viewBox->findData(static_cast<int>(view)));
        if (view != m_view) {
            m_view = view;
            rebuild();
        }
    }
    void setMetric(LoadMetric metric) override {
        m_metricBox->setCurrentIndex(m_metricBox->findData(static_cast<int>(metric)));
        if (metric != m_metric) {
            m_metric = metric;
            rebuild();
        }
    }
    LoadView view() const override { return m_view; }
    int pointCount() const override { return m_points; }
    QStringList seriesNames() const override { return m_names; }
    QString xAxisTitle() const override { return m_frame->xAxisTitle(); }
    QStringList yAxisTitles() const override { return m_yTitles; }
    QStringList xAxisLabels() const override { return m_xLabels; }
    QString notice() const override { return m_notice; }
    std::vector<QPointF> throughputPoints() const override { return m_throughput; }
    std::vector<QPointF> p99Points() const override { return m_p99; }

private:
    // A line: one connection, scenario and setting (the sweep's other values); its points by x, the
    // latest run's where runs measured the same x.
    struct Line {
        QString name;
        std::map<double, const LoadPoint*> byX;
    };

    // The load points drawn: a scenario each (not the "all scenarios" one), with statements.
    std::vector<const LoadPoint*> drawable(QStringList& why) const {
        std::vector<const LoadPoint*> out;
        std::size_t empty = 0;
        for (const LoadPoint& p : m_loads) {
            if (p.scenarioId == LoadPoint::kAllScenarios) {
                continue;
            }
            if (p.combined.statements == 0 || p.window.count() <= 0) {
                ++empty;
                continue;
            }
            out.push_back(&p);
        }
        if (empty > 0) {
            why << trn("%n point(s) without a complete statement not drawn", static_cast<int>(empty));
        }
        return out;
    }

    std::map<QString, Line> lines(const std::vector<const LoadPoint*>& loads, const std::string& xKey,
                                  QStringList& order) const {
        std::set<std::string> connections;
        for (const LoadPoint* p : loads) {
            connections.insert(p->connection);
        }
        std::map<QString, Line> out;
        for (const LoadPoint* p : loads) {
            QString name = qs(p->scenarioTitle.empty() ? p->scenarioId : p->scenarioTitle);
            PointValues others;
            for (const auto& [k, v] : p->point) {
                if (k != xKey && k != loadparam::Sessions) {
                    others[k] = v;
                }
            }
            if (xKey != loadparam::Sessions) {
                others[loadparam::Sessions] = std::to_string(p->sessions);
            }
            if (!others.empty()) {
                name += QStringLiteral(" · ") + pointText(others);
            }
            if (connections.size() > 1) {
                name = qs(p->connection) + QStringLiteral(": ") + name;
            }
            if (!out.contains(name)) {
                order << name;
                out[name].name = name;
            }
            out[name].byX[xOf(*p, xKey)] = p;  // later runs replace earlier ones at the same x
        }
        return out;
    }

    void rebuild() {
        QChart* chart = m_frame->chart();
        clearSeriesAndAxes(chart);
        m_names.clear();
        m_yTitles.clear();
        m_xLabels.clear();
        m_throughput.clear();
        m_p99.clear();
        m_points = 0;
        QStringList why;
        const std::vector<const LoadPoint*> loads = drawable(why);
        m_metricBox->setVisible(m_view == LoadView::Throughput);
        if (loads.empty()) {
            chart->setTitle(tr("Load: many sessions at once"));
            m_notice = tr("Runs of many sessions are drawn here: set Load: sessions above 1 (or sweep it) and run.");
            if (!why.isEmpty()) {
                m_notice += QStringLiteral(" ") + why.join(QStringLiteral("; "));
            }
            m_frame->showNotice(m_notice);
            return;
        }
        if (m_view == LoadView::Throughput) {
            buildThroughput(chart, loads);
        } else {
            buildPercentiles(chart, loads, why);
        }
        m_notice = why.join(QStringLiteral("; "));
        m_frame->showNotice(m_notice);
        m_frame->fitLegend(m_names.size());
        m_frame->arrangeLegend(true);
    }

    void buildThroughput(QChart* chart, const std::vector<const LoadPoint*>& loads) {
        const std::string xKey = xKeyOf(loads);
        QStringList order;
        const std::map<QString, Line> all = lines(loads, xKey, order);
        chart->setTitle(tr("Load: throughput over all sessions (solid) and p99 latency (dashed) against %1")
                            .arg(xKey == loadparam::Sessions ? tr("sessions") : qs(xKey)));
        double xMin = std::numeric_limits<double>::max(), xMax = 0, yMax = 0, pMax = 0;
        for (const auto& [name, line] : all) {
            for (const auto& [x, p] : line.byX) {
                xMin = std::min(xMin, x);
                xMax = std::max(xMax, x);
                yMax = std::max(yMax, metricOf(*p, m_metric));
                pMax = std::max(pMax, static_cast<double>(p->combined.latency.percentile(0.99)) / 1e6);
            }
        }
        QAbstractAxis* x = nullptr;
        if (xMin > 0 && xMax / xMin >= 4) {
            auto* log = new QLogValueAxis;
            log->setBase(2);
            log->setLabelFormat(QStringLiteral("%g"));
            log->setRange(xMin / 1.25, xMax * 1.25);
            log->setMinorTickCount(0);
            x = log;
        } else {
            auto* linear = new QValueAxis;
            linear->setLabelFormat(QStringLiteral("%g"));
            linear->setRange(std::min(0.0, xMin), std::max(1.0, xMax * 1.1));
            if (xKey == loadparam::Sessions) {
                useIntegerTicks(linear);
            }
            x = linear;
        }
        x->setTitleText(xKey == loadparam::Sessions ? tr("Sessions at once") : qs(xKey));
        // Over all sessions; round ticks (0, 1, 2 ... not 1.113, 2.225).
        auto* y = new QValueAxis;
        // Short axis titles: at a laptop's height the chart strip leaves the axes about 90 px, and
        // "Statements/s" and "p99 ms (dashed)" were cut to "Statement..." and "p99 ms (d...". The
        // chart's title says which line is which.
        y->setTitleText(axisTitle(m_metric));
        y->setRange(0, std::max(1e-9, yMax * 1.1));
        y->applyNiceNumbers();
        y->setLabelFormat(QStringLiteral("%.6g"));
        auto* p99 = new QValueAxis;
        p99->setTitleText(tr("p99 ms"));
        p99->setRange(0, std::max(1e-6, pMax * 1.1));
        p99->applyNiceNumbers();
        p99->setLabelFormat(QStringLiteral("%.6g"));
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        chart->addAxis(p99, Qt::AlignRight);
        m_yTitles = {y->titleText(), p99->titleText()};
        std::size_t index = 0;
        for (const QString& name : order) {
            const Line& line = all.at(name);
            const QColor color = seriesColor(index++);
            auto* measured = new QLineSeries;
            measured->setName(name);
            measured->setColor(color);
            measured->setPointsVisible(true);
            auto* latency = new QLineSeries;
            latency->setName(name + tr(" (p99)"));
            QPen dashed(color, 1.5, Qt::DashLine);
            latency->setPen(dashed);
            latency->setPointsVisible(true);
            for (const auto& [at, p] : line.byX) {
                const double v = metricOf(*p, m_metric);
                const double ms = static_cast<double>(p->combined.latency.percentile(0.99)) / 1e6;
                measured->append(at, v);
                latency->append(at, ms);
                m_throughput.emplace_back(at, v);
                m_p99.emplace_back(at, ms);
                ++m_points;
            }
            chart->addSeries(measured);
            measured->attachAxis(x);
            measured->attachAxis(y);
            chart->addSeries(latency);
            latency->attachAxis(x);
            latency->attachAxis(p99);
            for (QLegendMarker* marker : chart->legend()->markers(latency)) {
                marker->setVisible(false);  // one legend line a series: the dashed twin is said in the axis title
            }
            m_names << name;
        }
        m_xLabels = axisTickLabels(x);
    }

    void buildPercentiles(QChart* chart, const std::vector<const LoadPoint*>& loads, QStringList& why) {
        chart->setTitle(tr("Load: latency percentiles of each point"));
        // Latest run first for each series and sessions: the same key as the throughput lines, per x.
        const std::string xKey = xKeyOf(loads);
        QStringList order;
        const std::map<QString, Line> all = lines(loads, xKey, order);
        struct Curve {
            QString name;
            const LoadPoint* point;
        };
        std::vector<Curve> curves;
        for (const QString& name : order) {
            for (const auto& [at, p] : all.at(name).byX) {
                const QString label = xKey == loadparam::Sessions
                                          ? trn("%1, %n session(s)", p->sessions).arg(name)
                                          : QStringLiteral("%1, %2=%3").arg(name, qs(xKey), QString::number(at));
                curves.push_back({label, p});
            }
        }
        if (curves.size() > static_cast<std::size_t>(kMaxCurves)) {
            why << tr("%1 of %2 points drawn (the first ones)").arg(kMaxCurves).arg(curves.size());
            curves.resize(kMaxCurves);
        }
        const double quantiles[] = {0.0,  0.1,   0.25,  0.5,    0.75,   0.9,     0.95,
                                    0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99995, 0.99999};
        auto position = [](double q) { return -std::log10(1 - q); };
        double yMin = std::numeric_limits<double>::max(), yMax = 0, xMax = 1;
        std::vector<std::vector<QPointF>> points(curves.size());
        for (std::size_t c = 0; c < curves.size(); ++c) {
            const LatencyHistogram& h = curves[c].point->combined.latency;
            const double n = static_cast<double>(h.count());
            for (const double q : quantiles) {
                if (q > 0 && 1 - q < 1 / n) {
                    break;  // fewer statements than this percentile needs
                }
                const double ms = static_cast<double>(h.percentile(q)) / 1e6;
                points[c].emplace_back(position(q), ms);
            }
            points[c].emplace_back(std::min(5.0, std::log10(std::max(1.0, n))), static_cast<double>(h.max()) / 1e6);
            for (const QPointF& p : points[c]) {
                yMin = std::min(yMin, p.y());
                yMax = std::max(yMax, p.y());
                xMax = std::max(xMax, p.x());
            }
        }
        auto* x = new QCategoryAxis;
        x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
        x->setTitleText(tr("Percentile (the nines spread out; the last point of a curve is its maximum)"));
        const std::pair<double, const char*> ticks[] = {{0, "0%"},    {position(0.5), "50%"}, {1, "90%"},    {2, "99%"},
                                                        {3, "99.9%"}, {4, "99.99%"},          {5, "99.999%"}};
        QStringList tickLabels;
        for (const auto& [at, label] : ticks) {
            if (at <= std::ceil(xMax)) {
                x->append(QString::fromLatin1(label), at);
                tickLabels << QString::fromLatin1(label);
            }
        }
        x->setRange(0, std::max(1.0, std::ceil(xMax)));
        QAbstractAxis* y = nullptr;
        if (yMin > 0 && yMax / yMin >= 10) {
            auto* log = new QLogValueAxis;
            log->setBase(10);
            log->setLabelFormat(QStringLiteral("%g"));
            log->setRange(yMin / 1.2, yMax * 1.2);
            y = log;
        } else {
            auto* linear = new QValueAxis;
            linear->setRange(0, std::max(1e-6, yMax * 1.1));
            linear->setLabelFormat(QStringLiteral("%.4g"));
            y = linear;
        }
        y->setTitleText(tr("Latency (ms)"));
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        m_yTitles = {y->titleText()};
        for (std::size_t c = 0; c < curves.size(); ++c) {
            auto* series = new QLineSeries;
            series->setName(curves[c].name);
            series->setColor(seriesColor(c));
            series->setPointsVisible(true);
            for (const QPointF& p : points[c]) {
                series->append(p);
            }
            chart->addSeries(series);
            series->attachAxis(x);
            series->attachAxis(y);
            m_names << curves[c].name;
            ++m_points;
        }
        m_xLabels = tickLabels;
    }

    ChartFrame* m_frame;
    QComboBox* m_viewBox = nullptr;
    QComboBox* m_metricBox = nullptr;
    std::vector<LoadPoint> m_loads;
    LoadView m_view = LoadView::Throughput;
    LoadMetric m_metric = LoadMetric::Statements;
    int m_points = 0;
    QStringList m_names;
    QStringList m_yTitles;
    QStringList m_xLabels;
    QString m_notice;
    std::vector<QPointF> m_throughput;
    std::vector<QPointF> m_p99;
};

}  // namespace

std::unique_ptr<LoadChart> makeLoadCharts(QWidget* parent) {
    return std::make_unique<LoadCharts>(parent);
}

}  // namespace blobbench::charts
