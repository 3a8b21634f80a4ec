#include "ui/charts/ScatterChart.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QGridLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "model/SeriesNaming.h"
#include "ui/Units.h"
#include "ui/charts/ChartBasics.h"
#include "ui/charts/ChartFrame.h"
#include "ui/charts/RingOverlay.h"

namespace blobbench::charts {
namespace {

class ScatterChart final : public SampleChart {
public:
    ScatterChart(ChartKind kind, QWidget* parent)
        : m_kind(kind), m_frame(new ChartFrame(parent)), m_rings(new RingOverlay(m_frame->chart())) {
        m_frame->chart()->setTitle(chartTitle(kind));
        new HoverWatcher(m_frame->view(), [this](std::optional<QPoint> at) { showPointAt(at); });
        m_frame->onThemeChanged = [this] { rebuild(); };
        m_frame->setVectorMarkers = [this](bool on) {
            m_vectorMarkers = on;
            rebuild();
        };
        if (kind == ChartKind::TimeVsBytes) {
            m_axisBox = new QComboBox(m_frame);
            m_axisBox->setObjectName(QStringLiteral("bytesAxis"));
            m_axisBox->addItem(tr("x: bytes received on the wire"), static_cast<int>(BytesAxis::WireReceived));
            m_axisBox->addItem(tr("x: bytes sent on the wire"), static_cast<int>(BytesAxis::WireSent));
            m_axisBox->addItem(tr("x: content bytes"), static_cast<int>(BytesAxis::Content));
            static_cast<QGridLayout*>(m_frame->layout())->addWidget(m_axisBox, 0, 0, Qt::AlignTop | Qt::AlignLeft);
            QObject::connect(m_axisBox, &QComboBox::activated, m_frame, [this](int index) {
                const auto axis = static_cast<BytesAxis>(m_axisBox->itemData(index).toInt());
                setBytesAxis(axis);
                if (m_axisChosen)
                    m_axisChosen(axis);
            });
        }
        rebuild();
    }
    QColor backgroundColor() const override { return m_frame->chart()->backgroundBrush().color(); }
    QColor titleColor() const override { return m_frame->chart()->titleBrush().color(); }
    QString xAxisTitle() const override { return m_frame->xAxisTitle(); }
    QStringList xAxisLabels() const override { return axisTickLabels(m_xAxis); }
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
        const double oldX = maxX();
        const double oldY = yMax();
        const BytesAxis oldAxis = bytesAxis();
        const QStringList oldKeys = m_naming.differingKeys();
        Series* series = record(s);
        if (series == nullptr) {
            updateNotice();
            return;
        }
        // A new unit, axis or series name means every point or label moves: rebuild. Otherwise
        // appending one point is enough.
        if (series->series == nullptr || showsPredictions() || bytesAxis() != oldAxis ||
            m_naming.differingKeys() != oldKeys || xUnit().divisor != xUnitFor(oldX).divisor ||
            timeAxisUnit(yMax()).divisor != timeAxisUnit(oldY).divisor) {
            rebuild();
            return;
        }
        const AxisUnit xu = xUnit();
        const AxisUnit yu = timeAxisUnit(yMax());
        if (const auto p = drawn(series->raw.back())) {
            series->series->append(p->x() / xu.divisor, p->y() / yu.divisor);
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
    void setConnectionNames(const std::map<std::string, QString>& labelToName) override {
        m_connectionNames = labelToName;
        m_naming.setConnectionNames(labelToName);
    }
    void setLogScale(bool on) override {
        if (on != m_log) {
            m_log = on;
            rebuild();
        }
    }
    void setBytesAxis(BytesAxis axis) override {
        if (m_kind == ChartKind::TimeVsBytes && axis != m_askedAxis) {
            m_askedAxis = axis;
            rebuild();
        }
    }
    void onBytesAxisChosen(std::function<void(BytesAxis)> handler) override { m_axisChosen = std::move(handler); }
    BytesAxis bytesAxis() const override {
        if (m_kind != ChartKind::TimeVsBytes || m_wireSamples == 0)
            return BytesAxis::Content;
        return m_askedAxis;
    }
    int pointCount() const override {
        int n = 0;
        for (const auto& [id, s] : m_series) {
            if (s.series == nullptr)
                continue;
            if (!showsPredictions()) {
                n += static_cast<int>(s.series->count());
                continue;
            }
            for (const Raw& r : s.raw)  // the overlay draws them: see rebuild()
                n += drawn(r) ? 1 : 0;
        }
        return n;
    }
    QString notice() const override { return m_noticeText; }
    QStringList seriesNames() const override {
        QStringList names;
        for (const QString& id : m_order) {
            names << m_naming.label(m_series.at(id).first);
        }
        return names;
    }
    void setPredicted(const std::vector<double>& millisBySample, const QString& label) override {
        const bool wasShown = showsPredictions();
        if (!wasShown && millisBySample.empty())
            return;  // the what-if is off and stays off: nothing to redraw
        const double oldUnit = timeAxisUnit(yMax()).divisor;
        m_predictedMs = millisBySample;
        m_predictionLabel = millisBySample.empty() ? QString() : label;
        m_maxPredictedY = 0;
        for (auto& [id, s] : m_series) {
            for (Raw& r : s.raw) {
                r.predictedMs = r.ordinal < m_predictedMs.size() ? m_predictedMs[r.ordinal]
                                                                 : std::numeric_limits<double>::quiet_NaN();
                if (!std::isnan(r.predictedMs) && drawn(r))
                    m_maxPredictedY = std::max(m_maxPredictedY, r.predictedMs);
            }
        }
        if (wasShown && showsPredictions() && timeAxisUnit(yMax()).divisor == oldUnit && replacePredictedPoints())
            return;
        rebuild();
    }
    std::vector<double> drawnMillis(bool predicted) const override {
        std::vector<std::pair<std::size_t, double>> drawnPoints;
        for (const auto& [id, s] : m_series) {
            for (const Raw& r : s.raw) {
                const bool shown = predicted ? showsPredictions() && !std::isnan(r.predictedMs) : true;
                if (shown && drawn(r))
                    drawnPoints.emplace_back(r.ordinal, predicted ? r.predictedMs : r.ms);
            }
        }
        std::sort(drawnPoints.begin(), drawnPoints.end());
        std::vector<double> out;
        out.reserve(drawnPoints.size());
        for (const auto& p : drawnPoints)
            out.push_back(p.second);
        return out;
    }
    QStringList predictedSeriesNames() const override {
        QStringList names;
        for (const QString& id : m_order) {
            if (const QXYSeries* p = m_series.at(id).predicted)
                names << p->name();
        }
        return names;
    }

private:
    // One sample's figures: the x of each axis (absent where not measured) and milliseconds.
    struct Raw {
        double content = 0;
        std::optional<double> received, sent, roundTrips;
        double ms = 0;
        std::size_t ordinal = 0;                                        // the sample's place in what was given
        double predictedMs = std::numeric_limits<double>::quiet_NaN();  // the what-if; NaN: none
    };
    struct Series {
        Sample first;  // its settings name the series
        std::vector<Raw> raw;
        QXYSeries* series = nullptr;     // drawn as light markers only: see rebuild()
        QXYSeries* predicted = nullptr;  // the what-if's legend entry (m_rings draws its points)
        QColor color;
        MarkerShape shape = MarkerShape::Circle;
    };

    std::optional<double> xOf(const Raw& r) const {
        if (m_kind == ChartKind::TimeVsRoundTrips)
            return r.roundTrips;
        switch (bytesAxis()) {
            case BytesAxis::WireReceived:
                return r.received;
            case BytesAxis::WireSent:
                return r.sent;
            case BytesAxis::Content:
                break;
        }
        return r.content;
    }
    // The point as drawn (raw units), or nothing when this axis has no figure or the log axis
    // cannot show it.
    std::optional<QPointF> drawn(const Raw& r) const {
        const auto x = xOf(r);
        if (!x || (m_log && (*x <= 0 || r.ms <= 0)))
            return std::nullopt;
        return QPointF(*x, r.ms);
    }
    double maxX() const {
        if (m_kind == ChartKind::TimeVsRoundTrips)
            return m_max.roundTrips.value_or(0);
        switch (bytesAxis()) {
            case BytesAxis::WireReceived:
                return m_max.received.value_or(0);
            case BytesAxis::WireSent:
                return m_max.sent.value_or(0);
            case BytesAxis::Content:
                break;
        }
        return m_max.content;
    }
    AxisUnit xUnitFor(double maxX) const {
        return m_kind == ChartKind::TimeVsBytes ? byteAxisUnit(maxX) : AxisUnit{tr("count"), 1};
    }
    AxisUnit xUnit() const { return xUnitFor(maxX()); }
    static QString tr(const char* text) { return QApplication::translate("SampleChart", text); }

    Series* record(const Sample& s) {
        const std::size_t ordinal = m_seen++;
        if (s.status != SampleStatus::Complete) {
            return nullptr;  // a failed or cancelled fetch's time means nothing on these axes
        }
        Raw r;
        r.ordinal = ordinal;
        if (ordinal < m_predictedMs.size()) {
            r.predictedMs = m_predictedMs[ordinal];
        }
        r.content = static_cast<double>(s.contentBytes);
        r.ms = millis(s.phases.elapsed());
        if (const WireStats* wire = wireStatsOf(s)) {
            r.received = static_cast<double>(wire->counters.recvBytes);
            r.sent = static_cast<double>(wire->counters.sendBytes);
            if (wire->counters.roundTrips)
                r.roundTrips = static_cast<double>(*wire->counters.roundTrips);
            ++m_wireSamples;
        } else {
            m_noWireReason = qs(s.tap.unavailableReason);
        }
        if (m_kind == ChartKind::TimeVsRoundTrips && !r.roundTrips) {
            ++m_unmeasured;
            m_unmeasuredReason =
                wireStatsOf(s) == nullptr ? qs(s.tap.unavailableReason) : tr("the counters have no round trips");
            return nullptr;
        }
        m_naming.add(s);
        const QString id = SeriesNaming::seriesKey(s);
        auto [it, inserted] = m_series.try_emplace(id);
        if (inserted) {
            it->second.first = s;
            m_order << id;
        }
        it->second.raw.push_back(r);
        const auto grow = [](std::optional<double>& max, const std::optional<double>& x) {
            if (x)
                max = std::max(max.value_or(0), *x);
        };
        m_max.content = std::max(m_max.content, r.content);
        grow(m_max.received, r.received);
        grow(m_max.sent, r.sent);
        grow(m_max.roundTrips, r.roundTrips);
        m_maxY = std::max(m_maxY, r.ms);
        return &it->second;
    }

    void clearData() {
        m_series.clear();
        m_order.clear();
        m_naming = SeriesNaming();
        m_naming.setConnectionNames(m_connectionNames);
        m_max = Raw();
        m_maxY = 0;
        m_wireSamples = 0;
        m_noWireReason.clear();
        m_unmeasured = 0;
        m_unmeasuredReason.clear();
        m_seen = 0;
        m_predictedMs.clear();
        m_predictionLabel.clear();
        m_maxPredictedY = 0;
    }

    // The y axis holds the measured and the predicted times.
    double yMax() const { return std::max(m_maxY, m_maxPredictedY); }
    bool showsPredictions() const { return !m_predictionLabel.isEmpty(); }

    QList<QPointF> predictedPoints(const Series& s, const AxisUnit& xu, const AxisUnit& yu) const {
        QList<QPointF> points;
        for (const Raw& r : s.raw) {
            if (const auto p = drawn(r); p && !std::isnan(r.predictedMs) && (!m_log || r.predictedMs > 0)) {
                points.append(QPointF(p->x() / xu.divisor, r.predictedMs / yu.divisor));
            }
        }
        return points;
    }
    QString predictedName(const Series& s) const {
        return m_naming.label(s.first) + QStringLiteral(" — ") + m_predictionLabel;
    }

    // A new link moves only the predicted points: when the same series get some and the time unit
    // stays, the overlay takes the new points and the legend the new names, nothing is rebuilt.
    bool replacePredictedPoints() {
        const AxisUnit xu = xUnit();
        const AxisUnit yu = timeAxisUnit(yMax());
        std::vector<RingOverlay::Group> groups = measuredGroups(xu, yu);
        for (const QString& id : m_order) {
            Series& s = m_series.at(id);
            QList<QPointF> points = predictedPoints(s, xu, yu);
            if (points.isEmpty() != (s.predicted == nullptr))
                return false;
            if (s.predicted != nullptr)
                groups.push_back(RingOverlay::Group{s.predicted, s.color, std::move(points), false, s.shape});
        }
        for (const QString& id : m_order) {
            Series& s = m_series.at(id);
            if (s.predicted != nullptr)
                s.predicted->setName(predictedName(s));
        }
        m_rings->setGroups(std::move(groups), m_vectorMarkers);
        followPredictedRange();
        return true;
    }

    // A new range redraws every measured point (~40 ms for 10,000): while the link is dragged the
    // time axis moves in steps, when the predictions outgrow it or shrink to a third of it.
    void followPredictedRange() {
        auto* y = qobject_cast<QValueAxis*>(m_yAxis);
        if (y == nullptr) {
            updateRanges();
            return;
        }
        const double top = std::max(yMax() / timeAxisUnit(yMax()).divisor * 1.1, 1e-6);
        if (top > y->max() || top * 3 < y->max()) {
            QValueAxis nice;  // the nice range first: one change of the axis, not two
            nice.setRange(y->min(), top * 1.5);
            nice.applyNiceNumbers();
            y->setRange(nice.min(), nice.max());
            y->setTickCount(nice.tickCount());
        }
    }

    // The series of the predicted points holds none: it names them in the legend and carries the
    // axes; the overlay draws the points (a line series strokes its whole path on every change,
    // ~150 ms for 10,000 points, too slow to follow a slider).
    void addPredictedSeries(Series& s, const AxisUnit& xu, const AxisUnit& yu,
                            std::vector<RingOverlay::Group>& groups) {
        QList<QPointF> points = predictedPoints(s, xu, yu);
        if (points.isEmpty()) {
            return;
        }
        QChart* chart = m_frame->chart();
        s.predicted = new QLineSeries;
        s.predicted->setName(predictedName(s));
        chart->addSeries(s.predicted);
        s.predicted->setColor(s.color);
        for (QLegendMarker* marker : chart->legend()->markers(s.predicted)) {
            marker->setBrush(Qt::NoBrush);
            marker->setPen(QPen(s.color, 1.8));
        }
        s.predicted->attachAxis(m_xAxis);
        s.predicted->attachAxis(m_yAxis);
        groups.push_back(RingOverlay::Group{s.predicted, s.color, std::move(points), false, s.shape});
    }

    QList<QPointF> measuredPoints(const Series& s, const AxisUnit& xu, const AxisUnit& yu) const {
        QList<QPointF> points;
        points.reserve(static_cast<qsizetype>(s.raw.size()));
        for (const Raw& r : s.raw) {
            if (const auto p = drawn(r))
                points.append(QPointF(p->x() / xu.divisor, p->y() / yu.divisor));
        }
        return points;
    }
    // While predictions are shown the measured points are the overlay's too (their series hold
    // none): a new time range then costs a repaint, not a new geometry of 10,000 points.
    std::vector<RingOverlay::Group> measuredGroups(const AxisUnit& xu, const AxisUnit& yu) const {
        std::vector<RingOverlay::Group> groups;
        for (const QString& id : m_order) {
            const Series& s = m_series.at(id);
            if (s.series != nullptr)
                groups.push_back(RingOverlay::Group{s.series, s.color, measuredPoints(s, xu, yu), true, s.shape});
        }
        return groups;
    }

    void rebuild() {
        QChart* chart = m_frame->chart();
        chart->removeAllSeries();
        for (auto& [id, s] : m_series) {
            s.series = nullptr;
            s.predicted = nullptr;
        }
        rebuildAxes();
        const AxisUnit xu = xUnit();
        const AxisUnit yu = timeAxisUnit(yMax());
        const LegendPlan plan = planLegend();
        chart->legend()->setMarkerShape(QLegend::MarkerShapeDefault);
        for (std::size_t index = 0; index < static_cast<std::size_t>(m_order.size()); ++index) {
            Series& s = m_series.at(m_order[static_cast<qsizetype>(index)]);
            s.shape = plan.grouped ? plan.shapeOf.at(s.first.scenarioTitle) : MarkerShape::Circle;
            addMeasuredSeries(s, plan.grouped ? plan.colorOf.at(m_naming.settingsText(s.first)) : seriesColor(index),
                              xu, yu);
        }
        std::vector<RingOverlay::Group> rings;
        if (showsPredictions()) {  // after the measured ones: their legend entries follow
            rings = measuredGroups(xu, yu);
            for (const QString& id : m_order) {
                addPredictedSeries(m_series.at(id), xu, yu, rings);
            }
        }
        m_rings->setGroups(std::move(rings), m_vectorMarkers);
        updateAxisBox();
        m_frame->fitLegend(plan.grouped ? addGroupedLegend(plan) : chart->series().size());
        updateRanges();
        updateNotice();
    }

    // The legend by settings and scenario (#30): with several scenarios measured under several
    // settings, a colour per setting ("PostgreSQL 15 · format text") and a shape per scenario list
    // every series in sets + scenarios lines, where a line per series would not fit a laptop's
    // chart strip (15 series, 9 lines: "+6 more series"). Each point's tooltip names it in full.
    struct LegendPlan {
        bool grouped = false;
        std::vector<std::pair<QString, QColor>> sets;  // in the order first measured
        std::vector<std::pair<QString, MarkerShape>> scenarios;
        std::map<QString, QColor> colorOf;
        std::map<std::string, MarkerShape> shapeOf;
    };
    LegendPlan planLegend() const {
        LegendPlan plan;
        for (const QString& id : m_order) {
            const Sample& first = m_series.at(id).first;
            const QString set = m_naming.settingsText(first);
            if (plan.colorOf.try_emplace(set, seriesColor(plan.sets.size())).second)
                plan.sets.emplace_back(set, plan.colorOf.at(set));
            const auto shape = static_cast<MarkerShape>(plan.scenarios.size() % kMarkerShapes);
            if (plan.shapeOf.try_emplace(first.scenarioTitle, shape).second)
                plan.scenarios.emplace_back(
                    first.scenarioTitle.empty() ? qs(first.scenarioId) : qs(first.scenarioTitle), shape);
        }
        const std::size_t lines = plan.sets.size() + plan.scenarios.size() + (showsPredictions() ? 1 : 0);
        plan.grouped = plan.sets.size() > 1 && plan.scenarios.size() > 1 && plan.scenarios.size() <= kMarkerShapes &&
                       !plan.colorOf.count(QString()) && lines < static_cast<std::size_t>(m_order.size());
        return plan;
    }
    // Legend lines only: empty series with the set's colour or the scenario's shape; the series
    // themselves leave the legend. Returns the number of lines.
    qsizetype addGroupedLegend(const LegendPlan& plan) {
        QChart* chart = m_frame->chart();
        for (QAbstractSeries* series : chart->series()) {
            for (QLegendMarker* marker : chart->legend()->markers(series))
                marker->setVisible(false);
        }
        chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
        const QColor neutral = m_frame->palette().color(QPalette::Text);
        const auto line = [&](const QString& name, const QColor& fill, const QColor& border, MarkerShape shape) {
            auto* entry = new QScatterSeries;
            entry->setName(name);
            entry->setProperty(ChartFrame::kLegendOnlyProperty, true);
            entry->setMarkerSize(10);
            entry->setMarkerShape(qtShape(shape));
            entry->setColor(fill);
            entry->setBorderColor(border);
            chart->addSeries(entry);
            entry->attachAxis(m_xAxis);
            entry->attachAxis(m_yAxis);
        };
        for (const auto& [name, color] : plan.sets)
            line(name, color, color.darker(130), MarkerShape::Circle);
        for (const auto& [name, shape] : plan.scenarios)
            line(name, Qt::transparent, neutral, shape);
        if (showsPredictions())
            line(m_predictionLabel + tr(" (hollow)"), Qt::transparent, neutral, MarkerShape::Circle);
        return static_cast<qsizetype>(plan.sets.size() + plan.scenarios.size()) + (showsPredictions() ? 1 : 0);
    }
    static QScatterSeries::MarkerShape qtShape(MarkerShape shape) {
        switch (shape) {
            case MarkerShape::Circle:
                break;
            case MarkerShape::Square:
                return QScatterSeries::MarkerShapeRectangle;
            case MarkerShape::Triangle:
                return QScatterSeries::MarkerShapeTriangle;
            case MarkerShape::Diamond:
                return QScatterSeries::MarkerShapeRotatedRectangle;
            case MarkerShape::Pentagon:
                return QScatterSeries::MarkerShapePentagon;
            case MarkerShape::Star:
                return QScatterSeries::MarkerShapeStar;
        }
        return QScatterSeries::MarkerShapeCircle;
    }

    // A line series with no line and a light marker (an image drawn a point) instead of a
    // QScatterSeries, which makes one graphics item a point: 10,000 points would take a second to
    // lay out. An SVG export takes the scatter series for vector markers. While predictions are
    // shown the overlay draws the measured points and the series holds none.
    void addMeasuredSeries(Series& s, const QColor& color, const AxisUnit& xu, const AxisUnit& yu) {
        QChart* chart = m_frame->chart();
        s.color = color;
        if (m_vectorMarkers) {
            auto* scatter = new QScatterSeries;
            scatter->setMarkerSize(9);
            scatter->setMarkerShape(qtShape(s.shape));
            scatter->setBorderColor(color.darker(130));
            s.series = scatter;
        } else {
            s.series = new QLineSeries;
        }
        s.series->setName(m_naming.label(s.first));
        QList<QPointF> points = showsPredictions() ? QList<QPointF>() : measuredPoints(s, xu, yu);
        // In x order: the (invisible) line through the markers that Qt Charts strokes on every new
        // range is then short, not a zigzag across the plot (cheaper, at 10,000 points).
        std::sort(points.begin(), points.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
        s.series->replace(points);
        chart->addSeries(s.series);
        s.series->setColor(color);
        if (!m_vectorMarkers) {
            QPen pen(color);
            pen.setStyle(Qt::NoPen);
            s.series->setPen(pen);
            s.series->setMarkerSize(9);
            s.series->setPointsVisible(true);
            s.series->setLightMarker(markerImage(color, 9, false, s.shape));
        }
        for (QLegendMarker* marker : chart->legend()->markers(s.series)) {
            marker->setBrush(color);
            marker->setPen(QPen(color.darker(130)));
        }
        s.series->attachAxis(m_xAxis);
        s.series->attachAxis(m_yAxis);
    }

    // Without wire statistics there is one axis only; the box says why.
    void updateAxisBox() {
        if (m_axisBox == nullptr)
            return;
        m_axisBox->setEnabled(m_wireSamples > 0);
        m_axisBox->setCurrentIndex(m_axisBox->findData(static_cast<int>(bytesAxis())));
        m_axisBox->setToolTip(
            m_wireSamples > 0 ? tr("What the x axis counts: compression and the result format change the "
                                   "bytes on the wire, not the content read")
                              : tr("No wire statistics in these samples (%1): content bytes only").arg(m_noWireReason));
    }

    // The data point nearest `scene` (in the axes' units) and its series, when one is within 8
    // pixels: the points as drawn, by the series or (while predictions are shown) by the overlay.
    std::pair<const Series*, QPointF> nearestPoint(const QPointF& scene) const {
        QChart* chart = m_frame->chart();
        double best = 8 * 8;
        const Series* bestSeries = nullptr;
        QPointF bestPoint;
        const AxisUnit xu = xUnit();
        const AxisUnit yu = timeAxisUnit(yMax());
        for (const auto& [id, s] : m_series) {
            if (s.series == nullptr)
                continue;
            const QList<QPointF> points = showsPredictions() ? measuredPoints(s, xu, yu) : s.series->points();
            for (const QPointF& p : points) {
                const QPointF d = chart->mapToPosition(p, s.series) - scene;
                const double distance = d.x() * d.x() + d.y() * d.y();
                if (distance < best) {
                    best = distance;
                    bestSeries = &s;
                    bestPoint = p;
                }
            }
        }
        return {bestSeries, bestPoint};
    }

    // The tooltip of the data point nearest the mouse, when one is within a few pixels.
    void showPointAt(std::optional<QPoint> at) {
        const Series* bestSeries = nullptr;
        QPointF bestPoint;
        if (at)
            std::tie(bestSeries, bestPoint) = nearestPoint(m_frame->view()->mapToScene(*at));
        if (bestSeries == nullptr) {
            QToolTip::hideText();
            return;
        }
        const AxisUnit xu = xUnit();
        const AxisUnit yu = timeAxisUnit(yMax());
        const QString x = m_kind == ChartKind::TimeVsBytes
                              ? formatBytes(bestPoint.x() * xu.divisor) + QLatin1Char(' ') + bytesWhat()
                              : tr("%1 round trips").arg(bestPoint.x(), 0, 'f', 0);
        QToolTip::showText(m_frame->view()->mapToGlobal(*at),
                           m_naming.label(bestSeries->first) + QLatin1Char('\n') + x + QStringLiteral(", ") +
                               formatMillis(bestPoint.y() * yu.divisor),
                           m_frame->view());
    }

    QString bytesWhat() const {
        switch (bytesAxis()) {
            case BytesAxis::WireReceived:
                return tr("received on the wire");
            case BytesAxis::WireSent:
                return tr("sent on the wire");
            case BytesAxis::Content:
                break;
        }
        return tr("content");
    }

    QString xTitle(const AxisUnit& xu) const {
        if (m_kind == ChartKind::TimeVsRoundTrips)
            return tr("Round trips");
        switch (bytesAxis()) {
            case BytesAxis::WireReceived:
                return tr("Bytes received on the wire (%1)").arg(xu.name);
            case BytesAxis::WireSent:
                return tr("Bytes sent on the wire (%1)").arg(xu.name);
            case BytesAxis::Content:
                break;
        }
        // Said on the axis itself: an embedded engine's chart is not a wire chart.
        return m_order.isEmpty() || m_wireSamples > 0
                   ? tr("Content bytes (%1)").arg(xu.name)
                   : tr("Content bytes (%1): no wire statistics, %2").arg(xu.name, m_noWireReason);
    }

    // The axes of the last build are kept while they stay linear or logarithmic: removed and made
    // anew, the old axes' titles and labels stayed drawn until Qt Charts deleted them later (they
    // are not children of the axis item it hides), and a project opened with another tab in front
    // showed two axis sets, "Content bytes (B)" 0-1 over the real one (#30).
    void rebuildAxes() {
        QChart* chart = m_frame->chart();
        chart->setTitle(m_kind == ChartKind::TimeVsBytes && bytesAxis() != BytesAxis::Content
                            ? tr("Elapsed time vs bytes on the wire")
                            : chartTitle(m_kind));
        const AxisUnit yu = timeAxisUnit(yMax());
        const QString xTitleText = xTitle(xUnit());
        const QString yTitleText = tr("Elapsed time (%1)").arg(yu.name);
        const auto isLog = [](const QAbstractAxis* axis) {
            return qobject_cast<const QLogValueAxis*>(axis) != nullptr;
        };
        const QList<QAbstractAxis*> present = chart->axes();
        if (present.size() == 2 && present.contains(m_xAxis) && present.contains(m_yAxis) && isLog(m_xAxis) == m_log &&
            isLog(m_yAxis) == m_log) {
            const QString suffix = m_log ? QStringLiteral(" (log)") : QString();  // as makeAxis() titles them
            m_xAxis->setTitleText(xTitleText + suffix);
            m_yAxis->setTitleText(yTitleText + suffix);
            return;
        }
        for (QAbstractAxis* axis : present) {
            chart->removeAxis(axis);
            delete axis;
        }
        m_xAxis = makeAxis(m_log, xTitleText, m_log ? 1 : 0, 1);
        m_yAxis = makeAxis(m_log, yTitleText, m_log ? 0.1 : 0, 1);
        chart->addAxis(m_xAxis, Qt::AlignBottom);
        chart->addAxis(m_yAxis, Qt::AlignLeft);
    }

    void updateRanges() {
        const AxisUnit xu = xUnit();
        const AxisUnit yu = timeAxisUnit(yMax());
        double minX = 0, minY = 0;
        if (m_log) {
            minX = std::numeric_limits<double>::max();
            minY = std::numeric_limits<double>::max();
            for (const auto& [id, s] : m_series) {
                for (const Raw& r : s.raw) {
                    if (const auto p = drawn(r)) {
                        minX = std::min(minX, p->x() / xu.divisor);
                        minY = std::min(minY, p->y() / yu.divisor);
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
        // An empty chart, or one whose points all sit at 0 (a scenario that read no content bytes),
        // still shows a sensible 0..1 frame rather than a range of 1e-6 ("2e-07 ... 1e-06", #30).
        const bool flatX = m_order.isEmpty() || (!m_log && this->maxX() <= 0);
        const bool flatY = m_order.isEmpty() || (!m_log && yMax() <= 0);
        const double maxX = flatX ? 1.0 : std::max(this->maxX() / xu.divisor * 1.05, minX * 4 + 1e-6);
        const double maxY = flatY ? 1.0 : std::max(yMax() / yu.divisor * 1.1, minY * 4 + 1e-6);
        m_xAxis->setRange(minX, maxX > minX ? maxX : minX + 1);
        m_yAxis->setRange(minY, maxY > minY ? maxY : minY + 1);
        if (auto* v = qobject_cast<QValueAxis*>(m_xAxis)) {
            v->applyNiceNumbers();
            if (m_kind == ChartKind::TimeVsRoundTrips)
                useIntegerTicks(v);  // a round trip is a whole exchange: no "0.5" ticks
        }
        if (auto* v = qobject_cast<QValueAxis*>(m_yAxis))
            v->applyNiceNumbers();
        m_rings->refresh();
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
        } else if (pointCount() == 0 && bytesAxis() != BytesAxis::Content) {
            m_noticeText = tr("None of these samples has wire statistics: pick \"x: content bytes\".");
        }
        m_frame->showNotice(m_noticeText);
    }

    ChartKind m_kind;
    ChartFrame* m_frame;
    RingOverlay* m_rings;  // the what-if's predicted points
    QComboBox* m_axisBox = nullptr;
    std::function<void(BytesAxis)> m_axisChosen;
    std::map<QString, Series> m_series;
    QStringList m_order;
    SeriesNaming m_naming;
    std::map<std::string, QString> m_connectionNames;
    QAbstractAxis* m_xAxis = nullptr;
    QAbstractAxis* m_yAxis = nullptr;
    Raw m_max;  // the largest x of each axis
    double m_maxY = 0;
    std::size_t m_seen = 0;             // samples given since the last setSamples() or clear()
    std::vector<double> m_predictedMs;  // the what-if, by sample ordinal
    QString m_predictionLabel;          // "predicted at …"; empty: no what-if shown
    double m_maxPredictedY = 0;
    bool m_log = false;
    bool m_vectorMarkers = false;
    BytesAxis m_askedAxis = BytesAxis::WireReceived;
    int m_wireSamples = 0;
    QString m_noWireReason;
    int m_unmeasured = 0;
    QString m_unmeasuredReason;
    QString m_noticeText;
};

}  // namespace

std::unique_ptr<SampleChart> makeScatterChart(ChartKind kind, QWidget* parent) {
    return std::make_unique<ScatterChart>(kind, parent);
}

}  // namespace blobbench::charts
