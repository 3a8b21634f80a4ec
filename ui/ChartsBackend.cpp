// The only file that knows the charts are Qt Charts.
#include <QApplication>
#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QFile>
#include <QGridLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QPainter>
#include <QStackedBarSeries>
#include <QSvgGenerator>
#include <QToolTip>
#include <QValueAxis>
#include <array>
#include <functional>
#include <map>
#include <optional>

#include "engine/core/Error.h"
#include "model/RunComparison.h"
#include "ui/Charts.h"
#include "ui/Units.h"

namespace blobbench {
namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}
double millis(Nanos n) {
    return static_cast<double>(n.count()) / 1e6;
}

// The chart view with a text overlay for what cannot be drawn.
class ChartFrame : public QWidget {
public:
    explicit ChartFrame(QWidget* parent) : QWidget(parent), m_chart(new QChart), m_view(new QChartView(m_chart, this)) {
        auto* layout = new QGridLayout(this);
        layout->setContentsMargins(0, 0, 0, 0);
        m_view->setRenderHint(QPainter::Antialiasing);
        applyTheme();
        m_chart->legend()->setAlignment(Qt::AlignRight);
        m_chart->setMargins(QMargins(4, 4, 4, 4));
        m_notice = new QLabel(this);
        m_notice->setWordWrap(true);
        m_notice->setAlignment(Qt::AlignCenter);
        m_notice->setMaximumWidth(520);
        m_notice->setStyleSheet(
            QStringLiteral("QLabel { background: palette(base); border: 1px solid palette(mid); "
                           "border-radius: 4px; padding: 8px; }"));
        m_notice->hide();
        layout->addWidget(m_view, 0, 0);
        layout->addWidget(m_notice, 0, 0, Qt::AlignCenter);
    }
    QChart* chart() const { return m_chart; }
    QChartView* view() const { return m_view; }
    void showNotice(const QString& text) {
        m_notice->setText(text);
        m_notice->setVisible(!text.isEmpty());
    }
    QString xAxisTitle() const {
        const auto axes = m_chart->axes(Qt::Horizontal);
        return axes.isEmpty() ? QString() : axes.front()->titleText();
    }
    // Called after a theme change: the chart rebuilds its series so their colours come from the
    // new theme (the markers and legend are drawn with colours taken at build time).
    std::function<void()> onThemeChanged;

protected:
    void changeEvent(QEvent* event) override {
        if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange) {
            applyTheme();
        }
        QWidget::changeEvent(event);
    }

private:
    // The theme by the palette's lightness, the background and text from the palette itself, so a
    // palette switched at run time (dark mode) shows without a restart.
    void applyTheme() {
        const QPalette p = palette();
        const QString key =
            p.color(QPalette::Base).name() + p.color(QPalette::Text).name() + p.color(QPalette::Window).name();
        if (key == m_themeKey) {
            return;  // PaletteChange and ApplicationPaletteChange come together
        }
        m_themeKey = key;
        const bool dark = p.color(QPalette::Window).lightness() < 128;
        m_chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
        m_chart->setBackgroundBrush(p.color(QPalette::Base));
        m_chart->setTitleBrush(p.color(QPalette::Text));
        m_chart->legend()->setLabelColor(p.color(QPalette::Text));
        m_chart->legend()->setAlignment(Qt::AlignRight);
        m_chart->setMargins(QMargins(4, 4, 4, 4));
        if (onThemeChanged) {
            onThemeChanged();
        }
    }

    QChart* m_chart;
    QChartView* m_view;
    QLabel* m_notice = nullptr;
    QString m_themeKey;
};

// One colour a series: the chart themes cycle after five, which gave two of the seven reference
// scenarios the same colour. Ten distinct hues (Tableau 10), readable on light and dark palettes.
QColor seriesColor(std::size_t index) {
    static const QRgb palette[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                   0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
    QColor c = QColor::fromRgb(palette[index % std::size(palette)]);
    return index < std::size(palette) ? c : c.darker(140);  // a second round, darker
}

QImage markerImage(const QColor& color, int size) {
    const qreal ratio = qApp->devicePixelRatio();
    QImage image(QSize(size, size) * ratio, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(ratio);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(color.darker(130), 1));
    painter.setBrush(color);
    painter.drawEllipse(QRectF(0.5, 0.5, size - 1, size - 1));
    return image;
}

// Calls back with the mouse position over a chart view, or nothing when the mouse leaves.
class HoverWatcher : public QObject {
public:
    HoverWatcher(QChartView* view, std::function<void(std::optional<QPoint>)> onHover)
        : QObject(view), m_onHover(std::move(onHover)) {
        view->setMouseTracking(true);
        view->viewport()->setMouseTracking(true);
        view->viewport()->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::MouseMove) {
            m_onHover(static_cast<QMouseEvent*>(event)->position().toPoint());
        } else if (event->type() == QEvent::Leave) {
            m_onHover(std::nullopt);
        }
        return QObject::eventFilter(watched, event);
    }

private:
    std::function<void(std::optional<QPoint>)> m_onHover;
};

// Either axis type, swapped when the log scale is toggled.
QAbstractAxis* makeAxis(bool log, const QString& title, double lo, double hi) {
    if (log) {
        auto* axis = new QLogValueAxis;
        axis->setBase(10);
        axis->setLabelFormat(QStringLiteral("%g"));
        axis->setMinorTickCount(8);
        axis->setTitleText(title + QStringLiteral(" (log)"));
        axis->setRange(std::max(lo, 1e-3), std::max(hi, lo * 10));
        return axis;
    }
    auto* axis = new QValueAxis;
    axis->setLabelFormat(QStringLiteral("%.5g"));
    axis->setTitleText(title);
    axis->setRange(lo, hi);
    axis->applyNiceNumbers();
    return axis;
}

class ScatterChart final : public SampleChart {
public:
    ScatterChart(ChartKind kind, QWidget* parent) : m_kind(kind), m_frame(new ChartFrame(parent)) {
        m_frame->chart()->setTitle(chartTitle(kind));
        new HoverWatcher(m_frame->view(), [this](std::optional<QPoint> at) { showPointAt(at); });
        m_frame->onThemeChanged = [this] { rebuild(); };
        rebuildAxes();
        updateNotice();
    }
    QColor backgroundColor() const override { return m_frame->chart()->backgroundBrush().color(); }
    QColor titleColor() const override { return m_frame->chart()->titleBrush().color(); }
    QString xAxisTitle() const override { return m_frame->xAxisTitle(); }
    ChartKind kind() const override { return m_kind; }
    QWidget* widget() override { return m_frame; }

    void setSamples(const std::vector<Sample>& samples) override {
        clearData();
        for (const Sample& s : samples) {
            record(s);
        }
        rebuild();
    }
    void addSample(const Sample& s) override {
        const double oldX = m_maxX;
        const double oldY = m_maxY;
        Series* series = record(s);
        const AxisUnit xu = xUnit();
        const AxisUnit yu = timeAxisUnit(m_maxY);
        // A new unit means every point moves: rebuild. Otherwise appending one point is enough.
        if (series == nullptr) {
            updateNotice();
            return;
        }
        if (series->series == nullptr || xu.divisor != xUnitFor(oldX).divisor ||
            yu.divisor != timeAxisUnit(oldY).divisor) {
            rebuild();
            return;
        }
        const QPointF p = series->raw.back();
        if (plottable(p)) {
            series->series->append(p.x() / xu.divisor, p.y() / yu.divisor);
        }
        updateRanges();
        updateNotice();
    }
    void addSamples(const std::vector<Sample>& samples) override {
        if (samples.size() == 1) {
            addSample(samples.front());
            return;
        }
        for (const Sample& s : samples) {
            record(s);
        }
        rebuild();
    }
    void clear() override {
        clearData();
        rebuild();
    }
    void setLogScale(bool on) override {
        if (on != m_log) {
            m_log = on;
            rebuild();
        }
    }
    int pointCount() const override {
        int n = 0;
        for (const auto& [id, s] : m_series) {
            n += s.series != nullptr ? static_cast<int>(s.series->count()) : 0;
        }
        return n;
    }
    QString notice() const override { return m_noticeText; }
    QStringList seriesNames() const override {
        QStringList names;
        for (const QString& id : m_order) {
            names << m_series.at(id).title;
        }
        return names;
    }

private:
    struct Series {
        QString title;
        std::vector<QPointF> raw;       // bytes or round trips, milliseconds
        QLineSeries* series = nullptr;  // drawn as light markers only: see rebuild()
    };

    AxisUnit xUnitFor(double maxX) const {
        return m_kind == ChartKind::TimeVsBytes ? byteAxisUnit(maxX) : AxisUnit{tr("count"), 1};
    }
    AxisUnit xUnit() const { return xUnitFor(m_maxX); }
    static QString tr(const char* text) { return QApplication::translate("SampleChart", text); }
    bool plottable(const QPointF& p) const { return !m_log || (p.x() > 0 && p.y() > 0); }

    Series* record(const Sample& s) {
        if (s.status != SampleStatus::Complete) {
            return nullptr;  // a failed or cancelled fetch's time means nothing on these axes
        }
        double x = static_cast<double>(s.contentBytes);
        if (m_kind == ChartKind::TimeVsRoundTrips) {
            const WireStats* wire =
                s.tap.available ? &s.tap : (s.nativePhysical.available ? &s.nativePhysical : nullptr);
            if (wire == nullptr || !wire->counters.roundTrips) {
                ++m_unmeasured;
                m_unmeasuredReason =
                    wire == nullptr ? qs(s.tap.unavailableReason) : tr("the counters have no round trips");
                return nullptr;
            }
            x = static_cast<double>(*wire->counters.roundTrips);
        }
        const QString id = qs(s.scenarioId);
        auto [it, inserted] = m_series.try_emplace(id);
        if (inserted) {
            it->second.title = qs(s.scenarioTitle);
            m_order << id;
        }
        it->second.raw.emplace_back(x, millis(s.phases.elapsed()));
        m_maxX = std::max(m_maxX, x);
        m_maxY = std::max(m_maxY, millis(s.phases.elapsed()));
        return &it->second;
    }

    void clearData() {
        m_series.clear();
        m_order.clear();
        m_maxX = 0;
        m_maxY = 0;
        m_unmeasured = 0;
        m_unmeasuredReason.clear();
    }

    void rebuild() {
        QChart* chart = m_frame->chart();
        chart->removeAllSeries();
        rebuildAxes();
        const AxisUnit xu = xUnit();
        const AxisUnit yu = timeAxisUnit(m_maxY);
        std::size_t index = 0;
        for (const QString& id : m_order) {
            Series& s = m_series.at(id);
            // A line series with no line and a light marker (an image drawn a point) instead of a
            // QScatterSeries, which makes one graphics item a point: 10,000 points would take a
            // second to lay out.
            s.series = new QLineSeries;
            s.series->setName(s.title);
            QList<QPointF> points;
            points.reserve(static_cast<qsizetype>(s.raw.size()));
            for (const QPointF& p : s.raw) {
                if (plottable(p)) {
                    points.append(QPointF(p.x() / xu.divisor, p.y() / yu.divisor));
                }
            }
            s.series->replace(points);
            chart->addSeries(s.series);
            const QColor color = seriesColor(index++);
            s.series->setColor(color);
            QPen pen(color);
            pen.setStyle(Qt::NoPen);
            s.series->setPen(pen);
            s.series->setMarkerSize(9);
            s.series->setPointsVisible(true);
            s.series->setLightMarker(markerImage(color, 9));
            for (QLegendMarker* marker : chart->legend()->markers(s.series)) {
                marker->setBrush(color);
                marker->setPen(QPen(color.darker(130)));
            }
            s.series->attachAxis(m_xAxis);
            s.series->attachAxis(m_yAxis);
        }
        updateRanges();
        updateNotice();
    }

    // The tooltip of the data point nearest the mouse, when one is within a few pixels.
    void showPointAt(std::optional<QPoint> at) {
        if (!at) {
            QToolTip::hideText();
            return;
        }
        QChart* chart = m_frame->chart();
        const QPointF scene = m_frame->view()->mapToScene(*at);
        double best = 8 * 8;
        const Series* bestSeries = nullptr;
        QPointF bestPoint;
        for (const auto& [id, s] : m_series) {
            if (s.series == nullptr)
                continue;
            for (qsizetype i = 0; i < s.series->count(); ++i) {
                const QPointF p = s.series->at(i);
                const QPointF d = chart->mapToPosition(p, s.series) - scene;
                const double distance = d.x() * d.x() + d.y() * d.y();
                if (distance < best) {
                    best = distance;
                    bestSeries = &s;
                    bestPoint = p;
                }
            }
        }
        if (bestSeries == nullptr) {
            QToolTip::hideText();
            return;
        }
        const AxisUnit xu = xUnit();
        const AxisUnit yu = timeAxisUnit(m_maxY);
        const QString x = m_kind == ChartKind::TimeVsBytes ? formatBytes(bestPoint.x() * xu.divisor)
                                                           : tr("%1 round trips").arg(bestPoint.x(), 0, 'f', 0);
        QToolTip::showText(
            m_frame->view()->mapToGlobal(*at),
            bestSeries->title + QLatin1Char('\n') + x + QStringLiteral(", ") + formatMillis(bestPoint.y() * yu.divisor),
            m_frame->view());
    }

    void rebuildAxes() {
        QChart* chart = m_frame->chart();
        for (QAbstractAxis* axis : chart->axes()) {
            chart->removeAxis(axis);
            delete axis;
        }
        const AxisUnit xu = xUnit();
        const AxisUnit yu = timeAxisUnit(m_maxY);
        const QString xTitle = m_kind == ChartKind::TimeVsBytes ? tr("Content (%1)").arg(xu.name) : tr("Round trips");
        m_xAxis = makeAxis(m_log, xTitle, m_log ? 1 : 0, 1);
        m_yAxis = makeAxis(m_log, tr("Elapsed time (%1)").arg(yu.name), m_log ? 0.1 : 0, 1);
        chart->addAxis(m_xAxis, Qt::AlignBottom);
        chart->addAxis(m_yAxis, Qt::AlignLeft);
    }

    void updateRanges() {
        const AxisUnit xu = xUnit();
        const AxisUnit yu = timeAxisUnit(m_maxY);
        double minX = 0, minY = 0;
        if (m_log) {
            minX = std::numeric_limits<double>::max();
            minY = std::numeric_limits<double>::max();
            for (const auto& [id, s] : m_series) {
                for (const QPointF& p : s.raw) {
                    if (plottable(p)) {
                        minX = std::min(minX, p.x() / xu.divisor);
                        minY = std::min(minY, p.y() / yu.divisor);
                    }
                }
            }
            if (minX == std::numeric_limits<double>::max()) {
                minX = 1;
                minY = 0.1;
            }
            minX /= 2;
            minY /= 2;
        }
        // An empty chart still shows a sensible 0..1 frame rather than a range of 1e-9.
        const double maxX = m_order.isEmpty() ? 1.0 : std::max(m_maxX / xu.divisor * 1.05, minX * 4 + 1e-6);
        const double maxY = m_order.isEmpty() ? 1.0 : std::max(m_maxY / yu.divisor * 1.1, minY * 4 + 1e-6);
        m_xAxis->setRange(minX, maxX > minX ? maxX : minX + 1);
        m_yAxis->setRange(minY, maxY > minY ? maxY : minY + 1);
        if (auto* v = qobject_cast<QValueAxis*>(m_xAxis))
            v->applyNiceNumbers();
        if (auto* v = qobject_cast<QValueAxis*>(m_yAxis))
            v->applyNiceNumbers();
    }

    void updateNotice() {
        m_noticeText.clear();
        if (m_kind == ChartKind::TimeVsRoundTrips && m_unmeasured > 0) {
            m_noticeText = tr("Round trips were not measured for %n sample(s): %1.\nRound trips come from the wire "
                              "tap or the client's own counters; embedded engines have no wire.")
                               .arg(m_unmeasuredReason);
            m_noticeText.replace(QStringLiteral("%n"), QString::number(m_unmeasured));
            if (pointCount() > 0) {
                m_noticeText.clear();  // some points exist: the legend tells which scenarios
            }
        } else if (m_order.isEmpty()) {
            m_noticeText = tr("No samples yet: press Run.");
        }
        m_frame->showNotice(m_noticeText);
    }

    ChartKind m_kind;
    ChartFrame* m_frame;
    std::map<QString, Series> m_series;
    QStringList m_order;
    QAbstractAxis* m_xAxis = nullptr;
    QAbstractAxis* m_yAxis = nullptr;
    double m_maxX = 0;
    double m_maxY = 0;
    bool m_log = false;
    int m_unmeasured = 0;
    QString m_unmeasuredReason;
    QString m_noticeText;
};

class PhaseChart final : public SampleChart {
public:
    explicit PhaseChart(QWidget* parent) : m_frame(new ChartFrame(parent)) {
        m_frame->chart()->setTitle(chartTitle(ChartKind::Phases));
        m_frame->onThemeChanged = [this] { rebuild(); };
        rebuild();
    }
    QColor backgroundColor() const override { return m_frame->chart()->backgroundBrush().color(); }
    QColor titleColor() const override { return m_frame->chart()->titleBrush().color(); }
    QString xAxisTitle() const override { return QApplication::translate("SampleChart", "Scenario"); }
    ChartKind kind() const override { return ChartKind::Phases; }
    QWidget* widget() override { return m_frame; }
    void setSamples(const std::vector<Sample>& samples) override {
        m_sums.clear();
        m_order.clear();
        for (const Sample& s : samples) {
            record(s);
        }
        rebuild();
    }
    void addSample(const Sample& s) override {
        record(s);
        rebuild();  // a handful of bars: rebuilding is cheaper than bookkeeping
    }
    void addSamples(const std::vector<Sample>& samples) override {
        for (const Sample& s : samples) {
            record(s);
        }
        rebuild();
    }
    void clear() override { setSamples({}); }
    void setLogScale(bool on) override {
        m_log = on;
        rebuild();
    }
    int pointCount() const override { return static_cast<int>(m_order.size()) * 3; }
    QString notice() const override {
        return m_order.isEmpty() ? QStringLiteral("No samples yet: press Run.") : QString();
    }
    QStringList seriesNames() const override {
        return {QStringLiteral("Prepare"), QStringLiteral("Execute"), QStringLiteral("Fetch")};
    }

private:
    struct Sums {
        QString title;
        double prepare = 0, execute = 0, fetch = 0;
        int n = 0;
    };
    void record(const Sample& s) {
        if (s.status != SampleStatus::Complete) {
            return;
        }
        const QString id = qs(s.scenarioId);
        auto [it, inserted] = m_sums.try_emplace(id);
        if (inserted) {
            it->second.title = qs(s.scenarioTitle);
            m_order << id;
        }
        it->second.prepare += millis(s.phases.prepare);
        it->second.execute += millis(s.phases.execute);
        it->second.fetch += millis(s.phases.fetch);
        ++it->second.n;
    }
    void rebuild() {
        QChart* chart = m_frame->chart();
        chart->removeAllSeries();
        for (QAbstractAxis* axis : chart->axes()) {
            chart->removeAxis(axis);
            delete axis;
        }
        auto* prepare = new QBarSet(QStringLiteral("Prepare"));
        auto* execute = new QBarSet(QStringLiteral("Execute"));
        auto* fetch = new QBarSet(QStringLiteral("Fetch"));
        QStringList categories;
        double maxTotal = 0;
        for (const QString& id : m_order) {
            const Sums& s = m_sums.at(id);
            maxTotal = std::max(maxTotal, (s.prepare + s.execute + s.fetch) / s.n);
        }
        const AxisUnit yu = timeAxisUnit(maxTotal);
        for (const QString& id : m_order) {
            const Sums& s = m_sums.at(id);
            QString title = s.title;
            if (title.size() > 22) {
                title = title.left(20) + QStringLiteral("…");
            }
            categories << title;
            *prepare << s.prepare / s.n / yu.divisor;
            *execute << s.execute / s.n / yu.divisor;
            *fetch << s.fetch / s.n / yu.divisor;
        }
        auto* series = new QStackedBarSeries;
        series->append(prepare);
        series->append(execute);
        series->append(fetch);
        chart->addSeries(series);
        auto* x = new QBarCategoryAxis;
        x->append(categories.isEmpty() ? QStringList{QStringLiteral(" ")} : categories);
        chart->addAxis(x, Qt::AlignBottom);
        auto* y = new QValueAxis;
        y->setTitleText(QApplication::translate("SampleChart", "Mean time per execution (%1)").arg(yu.name));
        y->setRange(0, std::max(maxTotal / yu.divisor * 1.1, 1e-3));
        y->applyNiceNumbers();
        y->setLabelFormat(QStringLiteral("%.5g"));
        chart->addAxis(y, Qt::AlignLeft);
        series->attachAxis(x);
        series->attachAxis(y);
        (void)m_log;  // stacked bars stay linear: a log axis would misstate the shares
        m_frame->showNotice(notice());
    }
    ChartFrame* m_frame;
    std::map<QString, Sums> m_sums;
    QStringList m_order;
    bool m_log = false;
};

class ThroughputChart final : public SampleChart {
public:
    explicit ThroughputChart(QWidget* parent) : m_frame(new ChartFrame(parent)), m_series(new QLineSeries) {
        QChart* chart = m_frame->chart();
        chart->setTitle(chartTitle(ChartKind::LiveThroughput));
        m_series->setName(QStringLiteral("Content MB/s"));
        chart->addSeries(m_series);
        m_x = new QValueAxis;
        m_x->setTitleText(QApplication::translate("SampleChart", "Time since the run started (s)"));
        m_x->setLabelFormat(QStringLiteral("%.4g"));
        m_y = new QValueAxis;
        m_y->setTitleText(QApplication::translate("SampleChart", "Content throughput (MB/s)"));
        m_y->setLabelFormat(QStringLiteral("%.5g"));
        chart->addAxis(m_x, Qt::AlignBottom);
        chart->addAxis(m_y, Qt::AlignLeft);
        m_series->attachAxis(m_x);
        m_series->attachAxis(m_y);
        clear();
    }
    ChartKind kind() const override { return ChartKind::LiveThroughput; }
    QColor backgroundColor() const override { return m_frame->chart()->backgroundBrush().color(); }
    QColor titleColor() const override { return m_frame->chart()->titleBrush().color(); }
    QString xAxisTitle() const override { return m_frame->xAxisTitle(); }
    QWidget* widget() override { return m_frame; }
    void setSamples(const std::vector<Sample>&) override {}
    void addSample(const Sample&) override {}
    void addThroughput(double seconds, double mbps) override {
        m_series->append(seconds, mbps);
        // Axes grow in steps: changing a range relayouts the chart, which is the expensive part.
        if (seconds > m_maxX) {
            m_x->setRange(0, std::max(1.0, seconds * 1.5));
            m_x->applyNiceNumbers();
            m_maxX = m_x->max();
        }
        if (mbps > m_maxY) {
            m_y->setRange(0, std::max(1.0, mbps * 1.25));
            m_y->applyNiceNumbers();
            m_maxY = m_y->max();
        }
        if (m_series->count() == 1)
            m_frame->showNotice({});
    }
    void clear() override {
        m_series->clear();
        m_maxX = m_maxY = 0;
        m_x->setRange(0, 1);
        m_y->setRange(0, 1);
        m_frame->showNotice(notice());
    }
    void setLogScale(bool) override {}
    int pointCount() const override { return static_cast<int>(m_series->count()); }
    QString notice() const override {
        return m_series->count() == 0 ? QApplication::translate("SampleChart", "Throughput is drawn live during a run.")
                                      : QString();
    }
    QStringList seriesNames() const override { return {m_series->name()}; }

private:
    ChartFrame* m_frame;
    QLineSeries* m_series;
    QValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
    double m_maxX = 0, m_maxY = 0;
};

// The latest sweep: its tunable on x, the median elapsed time of each scenario on y, with a band
// from the fastest to the slowest repetition. Samples outside a sweep are not drawn here.
class SweepChart final : public SampleChart {
public:
    explicit SweepChart(QWidget* parent) : m_frame(new ChartFrame(parent)) {
        m_frame->chart()->setTitle(chartTitle(ChartKind::Sweep));
        m_frame->onThemeChanged = [this] { rebuild(); };
        rebuild();
    }
    ChartKind kind() const override { return ChartKind::Sweep; }
    QWidget* widget() override { return m_frame; }
    void setSamples(const std::vector<Sample>& samples) override {
        m_samples.clear();
        for (const Sample& s : samples) {
            if (!s.point.empty())
                m_samples.push_back(s);
        }
        rebuild();
    }
    void addSample(const Sample& s) override { addSamples({s}); }
    void addSamples(const std::vector<Sample>& samples) override {
        bool any = false;
        for (const Sample& s : samples) {
            if (!s.point.empty()) {
                m_samples.push_back(s);
                any = true;
            }
        }
        if (any)
            rebuild();
    }
    void clear() override { setSamples({}); }
    void setLogScale(bool on) override {
        if (on != m_log) {
            m_log = on;
            rebuild();
        }
    }
    int pointCount() const override { return m_points; }
    QString notice() const override { return m_notice; }
    QStringList seriesNames() const override { return m_names; }
    QColor backgroundColor() const override { return m_frame->chart()->backgroundBrush().color(); }
    QColor titleColor() const override { return m_frame->chart()->titleBrush().color(); }
    QString xAxisTitle() const override { return m_frame->xAxisTitle(); }

private:
    static QString tr(const char* text) { return QApplication::translate("SampleChart", text); }

    void rebuild() {
        QChart* chart = m_frame->chart();
        chart->removeAllSeries();
        for (QAbstractAxis* axis : chart->axes()) {
            chart->removeAxis(axis);
            delete axis;
        }
        m_points = 0;
        m_names.clear();
        m_notice.clear();
        // Only the latest sweep run: two sweeps of different tunables share no axis.
        std::vector<Sample> run;
        if (!m_samples.empty()) {
            const std::string& runId = m_samples.back().runId;
            for (const Sample& s : m_samples) {
                if (s.runId == runId)
                    run.push_back(s);
            }
        }
        std::map<std::string, QStringList> distinct;  // tunable -> its values, in order of first appearance
        for (const Sample& s : run) {
            for (const auto& [key, value] : s.point) {
                QStringList& values = distinct[key];
                if (!values.contains(qs(value)))
                    values << qs(value);
            }
        }
        std::string xKey;
        for (const auto& [key, values] : distinct) {
            if (xKey.empty() || values.size() > distinct[xKey].size())
                xKey = key;
        }
        const std::vector<PointSummary> summaries = summariseSamples(run);
        // x positions: the values as numbers when they all are, else categories in natural order.
        QStringList categories;
        bool numeric = !xKey.empty();
        for (const PointSummary& p : summaries) {
            const auto it = p.point.find(xKey);
            if (it == p.point.end())
                continue;
            const QString v = qs(it->second);
            if (!categories.contains(v))
                categories << v;
            bool ok = false;
            v.toDouble(&ok);
            numeric = numeric && ok;
        }
        // A log x axis when asked, or when the values span two decades or more (a log range).
        double xLo = std::numeric_limits<double>::max(), xHi = 0;
        for (const QString& v : categories) {
            xLo = std::min(xLo, v.toDouble());
            xHi = std::max(xHi, v.toDouble());
        }
        const bool logX = numeric && !categories.isEmpty() && xLo > 0 && (m_log || xHi / xLo >= 100);
        struct Line {
            QString name;
            std::vector<std::array<double, 4>> points;  // x, median, min, max (ms)
        };
        std::map<QString, Line> lines;
        QStringList order;
        double maxY = 0, minY = std::numeric_limits<double>::max();
        for (const PointSummary& p : summaries) {
            const auto it = p.point.find(xKey);
            if (it == p.point.end() || p.elapsed.count == 0)
                continue;
            QString name = p.scenarioTitle.isEmpty() ? p.scenarioId : p.scenarioTitle;
            for (const auto& [key, value] : p.point) {
                if (key != xKey)
                    name += QStringLiteral(", ") + qs(key) + QLatin1Char('=') + qs(value);
            }
            if (!lines.count(name))
                order << name;
            Line& line = lines[name];
            line.name = name;
            const double x = numeric ? qs(it->second).toDouble() : categories.indexOf(qs(it->second));
            line.points.push_back({x, p.elapsed.median, p.elapsed.min, p.elapsed.max});
            maxY = std::max(maxY, p.elapsed.max);
            minY = std::min(minY, p.elapsed.min);
        }
        const AxisUnit yu = timeAxisUnit(maxY);
        QAbstractAxis* xAxis = nullptr;
        const QString xTitle = xKey.empty() ? tr("Swept tunable") : qs(xKey);
        if (numeric && !categories.isEmpty()) {
            double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
            for (const QString& v : categories) {
                lo = std::min(lo, v.toDouble());
                hi = std::max(hi, v.toDouble());
            }
            if (logX) {
                xAxis = makeAxis(true, xTitle, lo / 1.5, hi * 1.5);
            } else {
                const double pad = hi > lo ? (hi - lo) * 0.04 : 1;
                xAxis = makeAxis(false, xTitle, lo >= 0 ? std::max(0.0, lo - pad) : lo - pad, hi + pad);
            }
        } else {
            auto* axis = new QCategoryAxis;
            axis->setTitleText(xTitle);
            axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
            for (int i = 0; i < categories.size(); ++i)
                axis->append(categories[i], i);
            axis->setRange(-0.5, std::max<double>(0.5, categories.size() - 0.5));
            xAxis = axis;
        }
        const bool logY = m_log && minY > 0 && minY != std::numeric_limits<double>::max();
        QAbstractAxis* yAxis =
            makeAxis(logY, tr("Median elapsed time (%1)").arg(yu.name), logY ? minY / yu.divisor / 1.5 : 0,
                     std::max(maxY / yu.divisor * 1.1, logY ? minY / yu.divisor * 4 : 1e-3));
        chart->addAxis(xAxis, Qt::AlignBottom);
        chart->addAxis(yAxis, Qt::AlignLeft);
        std::size_t lineIndex = 0;
        for (const QString& name : std::as_const(order)) {
            Line& line = lines[name];
            std::sort(line.points.begin(), line.points.end());
            auto* median = new QLineSeries;
            median->setName(name);
            auto* upper = new QLineSeries;
            auto* lower = new QLineSeries;
            for (const auto& [x, med, lo, hi] : line.points) {
                median->append(x, med / yu.divisor);
                upper->append(x, hi / yu.divisor);
                lower->append(x, lo / yu.divisor);
            }
            chart->addSeries(median);
            median->setColor(seriesColor(lineIndex++));
            median->setPointsVisible(true);
            median->setMarkerSize(7);
            median->attachAxis(xAxis);
            median->attachAxis(yAxis);
            // The min-max band in the line's colour, faint, behind it and out of the legend.
            auto* band = new QAreaSeries(upper, lower);
            band->setName(name + tr(" min-max"));
            QColor fill = median->color();
            fill.setAlpha(50);
            band->setBrush(fill);
            band->setPen(Qt::NoPen);
            chart->addSeries(band);
            band->attachAxis(xAxis);
            band->attachAxis(yAxis);
            for (QLegendMarker* marker : chart->legend()->markers(band))
                marker->setVisible(false);
            m_points += static_cast<int>(median->count());
            m_names << name;
        }
        if (m_samples.empty()) {
            m_notice = tr("No sweep run yet: define a sweep (Sweep tab) and press Run sweep.");
        } else if (m_points == 0) {
            m_notice = tr("The latest sweep has no complete sample yet.");
        }
        m_frame->showNotice(m_notice);
    }

    ChartFrame* m_frame;
    std::vector<Sample> m_samples;
    QStringList m_names;
    QString m_notice;
    int m_points = 0;
    bool m_log = false;
};

}  // namespace

QString chartTitle(ChartKind kind) {
    switch (kind) {
        case ChartKind::TimeVsBytes:
            return QApplication::translate("SampleChart", "Elapsed time vs content bytes");
        case ChartKind::TimeVsRoundTrips:
            return QApplication::translate("SampleChart", "Elapsed time vs round trips");
        case ChartKind::Phases:
            return QApplication::translate("SampleChart", "Time by phase, per scenario");
        case ChartKind::Sweep:
            return QApplication::translate("SampleChart", "Sweep: median time per point");
        case ChartKind::LiveThroughput:
            break;
    }
    return QApplication::translate("SampleChart", "Live throughput");
}

std::unique_ptr<SampleChart> makeChart(ChartKind kind, QWidget* parent) {
    switch (kind) {
        case ChartKind::TimeVsBytes:
        case ChartKind::TimeVsRoundTrips:
            return std::make_unique<ScatterChart>(kind, parent);
        case ChartKind::Phases:
            return std::make_unique<PhaseChart>(parent);
        case ChartKind::Sweep:
            return std::make_unique<SweepChart>(parent);
        case ChartKind::LiveThroughput:
            break;
    }
    return std::make_unique<ThroughputChart>(parent);
}

void exportChartPng(QWidget* chart, const QString& path) {
    if (!chart->grab().save(path, "PNG")) {
        throw Error(ErrorKind::Io, path.toStdString() + ": cannot write the PNG");
    }
}

void exportChartSvg(QWidget* chart, const QString& path, const QString& title) {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(chart->size());
    generator.setViewBox(QRect(QPoint(0, 0), chart->size()));
    generator.setTitle(title);
    generator.setDescription(QStringLiteral("BlobBench chart"));
    {
        QPainter painter;
        if (!painter.begin(&generator)) {
            throw Error(ErrorKind::Io, path.toStdString() + ": cannot write the SVG");
        }
        chart->render(&painter);
    }
    if (!QFile::exists(path)) {
        throw Error(ErrorKind::Io, path.toStdString() + ": cannot write the SVG");
    }
}

}  // namespace blobbench
