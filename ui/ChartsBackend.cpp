// The only file that knows the charts are Qt Charts.
#include <QApplication>
#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCursor>
#include <QFile>
#include <QGraphicsPathItem>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QGridLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QPainter>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QSvgGenerator>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "engine/core/Error.h"
#include "model/RunComparison.h"
#include "model/SeriesNaming.h"
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

// The scene rectangles of the legend's visible labels, top to bottom (Qt Charts draws each
// entry's label as a text item under the legend).
QList<QRectF> legendLabels(const QGraphicsItem* legend) {
    QList<QRectF> out;
    std::function<void(const QGraphicsItem*)> walk = [&](const QGraphicsItem* item) {
        for (const QGraphicsItem* child : item->childItems()) {
            if (!child->isVisible())
                continue;
            if (dynamic_cast<const QGraphicsTextItem*>(child) != nullptr)
                out << child->sceneBoundingRect();
            walk(child);
        }
    };
    walk(legend);
    std::sort(out.begin(), out.end(), [](const QRectF& a, const QRectF& b) { return a.top() < b.top(); });
    return out;
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
        // A new size (the window's, or an export's) fits another number of legend entries.
        QObject::connect(
            m_chart, &QChart::plotAreaChanged, this, [this] { arrangeLegend(); }, Qt::QueuedConnection);
        layout->addWidget(m_view, 0, 0);
        layout->addWidget(m_notice, 0, 0, Qt::AlignCenter);
    }
    QChart* chart() const { return m_chart; }
    QChartView* view() const { return m_view; }
    void showNotice(const QString& text) {
        m_notice->setText(text);
        m_notice->setVisible(!text.isEmpty());
    }
    // Many series (a grid of the whole suite, a suite under several settings): a smaller legend
    // keeps more of them in view.
    void fitLegend(qsizetype series) {
        QFont font = this->font();
        if (series > 16)
            font.setPointSizeF(font.pointSizeF() * 0.7);
        else if (series > 10)
            font.setPointSizeF(font.pointSizeF() * 0.8);
        m_chart->legend()->setFont(font);
        arrangeLegend(true);
    }
    // The legend stays on the right and never takes the plot's place: at most a third of the
    // width (a long name is elided, its full text in the tooltip), and where its entries do not
    // fit the height, the last line says how many more there are ("+6 more series", their names
    // in its tooltip) instead of the entries running off the bottom. Follows the chart's size
    // (on screen and when exported).
    void arrangeLegend(bool force = false) {
        // Hiding entries narrows the legend and moves the plot area: only a new chart size or new
        // entries call for another arrangement, or the two would take turns for ever.
        if (m_arranging || (!force && m_chart->size() == m_arrangedAt))
            return;
        m_arranging = true;
        m_arrangedAt = m_chart->size();
        QLegend* legend = m_chart->legend();
        legend->setShowToolTips(true);
        legend->setMaximumWidth(legend->alignment() == Qt::AlignRight ? std::max(200.0, m_chart->size().width() / 3)
                                                                      : m_chart->size().width());
        QList<QLegendMarker*> listed;
        for (QLegendMarker* marker : legend->markers()) {
            if (marker->property(kOverflowProperty).toBool()) {
                marker->setVisible(true);
                marker->setProperty(kOverflowProperty, false);
            }
            if (marker->isVisible())
                listed << marker;
        }
        if (m_chart->layout() != nullptr)
            m_chart->layout()->activate();
        // Where Qt Charts put the labels: an entry whose label ends below the legend is cut off.
        const QList<QRectF> labels = legendLabels(legend);
        const qreal bottom = legend->mapRectToScene(legend->rect()).bottom();
        qsizetype fit = 0;
        while (fit < labels.size() && labels[fit].bottom() <= bottom + 0.5)
            ++fit;
        QStringList hidden;
        if (labels.size() == listed.size() && fit < listed.size() && fit > 0) {
            const qsizetype keep = fit - 1;  // its line says "+N more"
            for (qsizetype i = keep; i < listed.size(); ++i) {
                listed[i]->setVisible(false);
                listed[i]->setProperty(kOverflowProperty, true);
                hidden << listed[i]->label();
            }
            if (m_more == nullptr)
                m_more = new QGraphicsSimpleTextItem(m_chart);
            m_more->setFont(legend->font());
            m_more->setBrush(legend->labelColor());
            m_more->setText(tr("+%n more series", nullptr, static_cast<int>(hidden.size())));
            constexpr qsizetype kTipNames = 40;
            m_more->setToolTip(hidden.mid(0, kTipNames).join(QLatin1Char('\n')) +
                               (hidden.size() > kTipNames ? QStringLiteral("\n…") : QString()));
            m_more->setPos(m_chart->mapFromScene(labels[keep].topLeft()));
            m_more->setZValue(legend->zValue() + 1);
            m_more->show();
            if (m_chart->layout() != nullptr)
                m_chart->layout()->activate();
        } else if (m_more != nullptr) {
            m_more->hide();
        }
        m_arranging = false;
    }
    QString xAxisTitle() const {
        const auto axes = m_chart->axes(Qt::Horizontal);
        return axes.isEmpty() ? QString() : axes.front()->titleText();
    }
    // Called after a theme change: the chart rebuilds its series so their colours come from the
    // new theme (the markers and legend are drawn with colours taken at build time).
    std::function<void()> onThemeChanged;
    // Set by charts whose markers are images on screen: an SVG export asks for vector shapes.
    std::function<void(bool)> setVectorMarkers;

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

    static constexpr const char* kOverflowProperty = "blobbenchLegendOverflow";
    QChart* m_chart;
    QChartView* m_view;
    QLabel* m_notice = nullptr;
    QString m_themeKey;
    QGraphicsSimpleTextItem* m_more = nullptr;
    QSizeF m_arrangedAt;
    bool m_arranging = false;
};

// One colour a series: the chart themes cycle after five, which gave two of the seven reference
// scenarios the same colour. Ten distinct hues (Tableau 10), readable on light and dark palettes.
QColor seriesColor(std::size_t index) {
    static const QRgb palette[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                   0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
    QColor c = QColor::fromRgb(palette[index % std::size(palette)]);
    return index < std::size(palette) ? c : c.darker(140);  // a second round, darker
}

// `hollow`: a ring, the what-if's predicted points beside the filled measured ones.
QImage markerImage(const QColor& color, int size, bool hollow = false) {
    const qreal ratio = qApp->devicePixelRatio();
    QImage image(QSize(size, size) * ratio, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(ratio);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(hollow ? color : color.darker(130), hollow ? 1.8 : 1));
    painter.setBrush(hollow ? QBrush(Qt::NoBrush) : QBrush(color));
    painter.drawEllipse(QRectF(1, 1, size - 2, size - 2));
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

// The tick labels of a value or category axis as drawn, for tests and scripts.
QStringList axisTickLabels(QAbstractAxis* axis) {
    QStringList out;
    if (auto* v = qobject_cast<QValueAxis*>(axis)) {
        const double step = v->tickType() == QValueAxis::TicksDynamic
                                ? v->tickInterval()
                                : (v->max() - v->min()) / std::max(1, v->tickCount() - 1);
        const double first = v->tickType() == QValueAxis::TicksDynamic
                                 ? v->tickAnchor() + std::ceil((v->min() - v->tickAnchor()) / step) * step
                                 : v->min();
        for (double x = first; step > 0 && x <= v->max() + step * 1e-9; x += step)
            out << QString::asprintf(v->labelFormat().toLatin1().constData(), x);
    } else if (auto* c = qobject_cast<QCategoryAxis*>(axis)) {
        out = c->categoriesLabels();
    } else if (auto* b = qobject_cast<QBarCategoryAxis*>(axis)) {
        out = b->categories();
    }
    return out;
}

// Whole-number ticks on a count axis (round trips): a step of at least 1, labels without decimals.
void useIntegerTicks(QValueAxis* axis) {
    const double lo = std::floor(axis->min());
    const double span = std::max(1.0, std::ceil(axis->max()) - lo);
    // About five to ten ticks: a step of 1, 2 or 5 times a power of ten, never below 1.
    const double raw = std::max(1.0, span / 8);
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    double step = power;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        step = m * power;
        if (step >= raw)
            break;
    }
    axis->setRange(lo, lo + std::ceil(span / step) * step);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(lo);
    axis->setTickInterval(step);
    axis->setMinorTickCount(0);
    axis->setLabelFormat(QStringLiteral("%.0f"));
}

void clearSeriesAndAxes(QChart* chart) {
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
}

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

// The wire counters a sample's bytes and round trips come from: the tap, else the client's own
// physical counters.
const WireStats* wireStatsOf(const Sample& s) {
    return s.tap.available ? &s.tap : (s.nativePhysical.available ? &s.nativePhysical : nullptr);
}

// Hollow rings at values of the chart's axes, drawn straight from the values at paint time, so a
// new set of 10,000 points costs a repaint and no geometry. Clipped to the plot area.
class RingOverlay : public QGraphicsItem {
public:
    struct Group {
        QXYSeries* axesOf;  // a series attached to the axes the values are in
        QColor color;
        QList<QPointF> values;
        bool filled = false;  // a measured point; else a predicted ring
    };
    explicit RingOverlay(QChart* chart) : QGraphicsItem(chart), m_chart(chart) {
        setZValue(10);  // over the series
        QObject::connect(chart, &QChart::plotAreaChanged, chart, [this] { refresh(); });
    }
    void setGroups(std::vector<Group> groups, bool vector) {
        m_groups = std::move(groups);
        m_vector = vector;
        m_rings.clear();
        for (const Group& g : m_groups)
            m_rings.push_back(markerImage(g.color, kSize, !g.filled));
        refresh();
    }
    void refresh() {
        prepareGeometryChange();
        update();
    }
    QRectF boundingRect() const override { return m_chart->plotArea().adjusted(-kSize, -kSize, kSize, kSize); }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override {
        painter->save();
        painter->setClipRect(m_chart->plotArea().adjusted(-kSize / 2.0, -kSize / 2.0, kSize / 2.0, kSize / 2.0));
        const QPointF half(kSize / 2.0, kSize / 2.0);
        for (std::size_t i = 0; i < m_groups.size(); ++i) {
            const Group& g = m_groups[i];
            if (m_vector) {  // an SVG export: vector shapes
                painter->setRenderHint(QPainter::Antialiasing);
                painter->setPen(g.filled ? QPen(g.color.darker(130), 1) : QPen(g.color, 1.8));
                painter->setBrush(g.filled ? QBrush(g.color) : QBrush(Qt::NoBrush));
            }
            for (const QPointF& v : g.values) {
                const QPointF at = m_chart->mapToPosition(v, g.axesOf);
                if (m_vector)
                    painter->drawEllipse(at, kSize / 2.0 - 1, kSize / 2.0 - 1);
                else
                    painter->drawImage(at - half, m_rings[i]);
            }
        }
        painter->restore();
    }

private:
    static constexpr int kSize = 9;
    QChart* m_chart;
    std::vector<Group> m_groups;
    std::vector<QImage> m_rings;
    bool m_vector = false;
};

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
                groups.push_back(RingOverlay::Group{s.predicted, s.color, std::move(points), false});
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
        groups.push_back(RingOverlay::Group{s.predicted, s.color, std::move(points), false});
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
                groups.push_back(RingOverlay::Group{s.series, s.color, measuredPoints(s, xu, yu), true});
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
        std::size_t index = 0;
        for (const QString& id : m_order) {
            Series& s = m_series.at(id);
            // A line series with no line and a light marker (an image drawn a point) instead of a
            // QScatterSeries, which makes one graphics item a point: 10,000 points would take a
            // second to lay out. An SVG export takes the scatter series for vector markers.
            const QColor color = seriesColor(index++);
            s.color = color;
            if (m_vectorMarkers) {
                auto* scatter = new QScatterSeries;
                scatter->setMarkerSize(9);
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
                s.series->setLightMarker(markerImage(color, 9));
            }
            for (QLegendMarker* marker : chart->legend()->markers(s.series)) {
                marker->setBrush(color);
                marker->setPen(QPen(color.darker(130)));
            }
            s.series->attachAxis(m_xAxis);
            s.series->attachAxis(m_yAxis);
        }
        std::vector<RingOverlay::Group> rings;
        if (showsPredictions()) {  // after the measured ones: their legend entries follow
            rings = measuredGroups(xu, yu);
            for (const QString& id : m_order) {
                addPredictedSeries(m_series.at(id), xu, yu, rings);
            }
        }
        m_rings->setGroups(std::move(rings), m_vectorMarkers);
        if (m_axisBox != nullptr) {
            // Without wire statistics there is one axis only; the box says why.
            m_axisBox->setEnabled(m_wireSamples > 0);
            m_axisBox->setCurrentIndex(m_axisBox->findData(static_cast<int>(bytesAxis())));
            m_axisBox->setToolTip(
                m_wireSamples > 0
                    ? tr("What the x axis counts: compression and the result format change the "
                         "bytes on the wire, not the content read")
                    : tr("No wire statistics in these samples (%1): content bytes only").arg(m_noWireReason));
        }
        m_frame->fitLegend(chart->series().size());
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
        const AxisUnit xu0 = xUnit();
        const AxisUnit yu0 = timeAxisUnit(yMax());
        for (const auto& [id, s] : m_series) {
            if (s.series == nullptr)
                continue;
            // The points as drawn, by the series or (while predictions are shown) by the overlay.
            const QList<QPointF> points = showsPredictions() ? measuredPoints(s, xu0, yu0) : s.series->points();
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

    void rebuildAxes() {
        QChart* chart = m_frame->chart();
        for (QAbstractAxis* axis : chart->axes()) {
            chart->removeAxis(axis);
            delete axis;
        }
        chart->setTitle(m_kind == ChartKind::TimeVsBytes && bytesAxis() != BytesAxis::Content
                            ? tr("Elapsed time vs bytes on the wire")
                            : chartTitle(m_kind));
        const AxisUnit yu = timeAxisUnit(yMax());
        m_xAxis = makeAxis(m_log, xTitle(xUnit()), m_log ? 1 : 0, 1);
        m_yAxis = makeAxis(m_log, tr("Elapsed time (%1)").arg(yu.name), m_log ? 0.1 : 0, 1);
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
        // An empty chart still shows a sensible 0..1 frame rather than a range of 1e-9.
        const double maxX = m_order.isEmpty() ? 1.0 : std::max(this->maxX() / xu.divisor * 1.05, minX * 4 + 1e-6);
        const double maxY = m_order.isEmpty() ? 1.0 : std::max(yMax() / yu.divisor * 1.1, minY * 4 + 1e-6);
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
        m_naming = SeriesNaming();
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

    QStringList xAxisLabels() const override { return m_categories; }

private:
    struct Sums {
        Sample first;  // its settings name the category
        double prepare = 0, execute = 0, fetch = 0;
        int n = 0;
    };
    void record(const Sample& s) {
        if (s.status != SampleStatus::Complete) {
            return;
        }
        m_naming.add(s);
        const QString id = SeriesNaming::seriesKey(s);
        auto [it, inserted] = m_sums.try_emplace(id);
        if (inserted) {
            it->second.first = s;
            m_order << id;
        }
        it->second.prepare += millis(s.phases.prepare);
        it->second.execute += millis(s.phases.execute);
        it->second.fetch += millis(s.phases.fetch);
        ++it->second.n;
    }
    // Full, distinct category names: QBarCategoryAxis merges equal labels, and a cut title ("Test
    // read mixed BLOB…" twice) once put one scenario's bar under another's name.
    QStringList categoryNames() const {
        QStringList names;
        for (const QString& id : m_order) {
            const Sample& first = m_sums.at(id).first;
            QString name = m_naming.label(first);
            if (names.contains(name))
                name += QStringLiteral(" (") + qs(first.scenarioId) + QLatin1Char(')');
            for (int n = 2; names.contains(name); ++n)
                name += QStringLiteral(" #") + QString::number(n);
            names << name;
        }
        return names;
    }
    void rebuild() {
        QChart* chart = m_frame->chart();
        clearSeriesAndAxes(chart);
        auto* prepare = new QBarSet(QStringLiteral("Prepare"));
        auto* execute = new QBarSet(QStringLiteral("Execute"));
        auto* fetch = new QBarSet(QStringLiteral("Fetch"));
        m_categories = categoryNames();
        double maxTotal = 0;
        for (const QString& id : m_order) {
            const Sums& s = m_sums.at(id);
            maxTotal = std::max(maxTotal, (s.prepare + s.execute + s.fetch) / s.n);
        }
        const AxisUnit yu = timeAxisUnit(maxTotal);
        QStringList labels;
        for (const QString& id : m_order) {
            const Sums& s = m_sums.at(id);
            labels << wrappedLabel(m_categories[labels.size()]);
            *prepare << s.prepare / s.n / yu.divisor;
            *execute << s.execute / s.n / yu.divisor;
            *fetch << s.fetch / s.n / yu.divisor;
        }
        auto* series = new QStackedBarSeries;
        series->append(prepare);
        series->append(execute);
        series->append(fetch);
        chart->addSeries(series);
        // A label too long for its category is cut by the axis: the tooltip names the bar in full.
        QObject::connect(series, &QStackedBarSeries::hovered, m_frame,
                         [this](bool on, int index, QBarSet*) { showBar(on, index); });
        auto* x = new QBarCategoryAxis;
        x->append(labels.isEmpty() ? QStringList{QStringLiteral(" ")} : labels);
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
    // Up to three lines broken at spaces (axis labels are rich text), the middle of a longer name
    // elided: the start and the end ("· compression on") are what tell two bars apart.
    static QString wrappedLabel(const QString& name) {
        constexpr int kLine = 18, kLines = 3;
        QString text = name;
        if (text.size() > kLine * kLines) {
            const int keep = kLine * kLines - 1;
            text = text.left(keep / 2) + QStringLiteral("…") + text.right(keep - keep / 2);
        }
        QStringList lines;
        QString line;
        for (const QString& word : text.split(QLatin1Char(' '))) {
            if (!line.isEmpty() && line.size() + 1 + word.size() > kLine) {
                lines << line;
                line.clear();
            }
            line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
        }
        lines << line;
        for (QString& l : lines)
            l = l.toHtmlEscaped();
        return lines.join(QStringLiteral("<br>"));
    }
    void showBar(bool on, int index) {
        if (!on || index < 0 || index >= m_order.size()) {
            QToolTip::hideText();
            return;
        }
        const Sums& s = m_sums.at(m_order[index]);
        const auto ms = [&](double sum) { return formatMillis(sum / s.n); };
        QToolTip::showText(QCursor::pos(),
                           QApplication::translate("SampleChart", "%1\nprepare %2, execute %3, fetch %4 (mean of %5)")
                               .arg(m_categories.value(index), ms(s.prepare), ms(s.execute), ms(s.fetch))
                               .arg(s.n),
                           m_frame->view());
    }
    ChartFrame* m_frame;
    std::map<QString, Sums> m_sums;
    QStringList m_order;
    QStringList m_categories;
    SeriesNaming m_naming;
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

    void rebuild() {
        QChart* chart = m_frame->chart();
        chart->removeAllSeries();
        for (QAbstractAxis* axis : chart->axes()) {
            chart->removeAxis(axis);
            delete axis;
        }
        m_points = 0;
        m_names.clear();
        m_xLabels.clear();
        m_notice.clear();
        m_predictedDrawn.clear();
        m_predictedNames.clear();
        // Only the latest sweep run: two sweeps of different tunables share no axis.
        std::vector<Sample> run;
        std::vector<double> runPredicted;  // per sample of `run`: the what-if's ms, NaN: none
        if (!m_samples.empty()) {
            const std::string& runId = m_samples.back().runId;
            for (std::size_t i = 0; i < m_samples.size(); ++i) {
                if (m_samples[i].runId != runId)
                    continue;
                run.push_back(m_samples[i]);
                runPredicted.push_back(m_ordinals[i] < m_predictedMs.size() ? m_predictedMs[m_ordinals[i]]
                                                                            : std::numeric_limits<double>::quiet_NaN());
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
        // x: the tunable with the most values (a grid's other axis makes one series per value).
        std::string xKey;
        for (const auto& [key, values] : distinct) {
            if (xKey.empty() || values.size() > distinct[xKey].size())
                xKey = key;
        }
        const std::vector<PointSummary> summaries = summariseSamples(run);
        // x positions: the values as numbers when they all are, else categories in the order the
        // sweep ran them (text/binary, off/on, fetch modes), never sorted by name.
        QStringList categories = xKey.empty() ? QStringList() : distinct[xKey];
        bool numeric = !xKey.empty();
        for (const QString& v : std::as_const(categories)) {
            bool ok = false;
            v.toDouble(&ok);
            numeric = numeric && ok;
        }
        if (numeric) {
            std::sort(categories.begin(), categories.end(),
                      [](const QString& a, const QString& b) { return a.toDouble() < b.toDouble(); });
        }
        // A log x axis when asked, or when the values span two decades or more (a log range).
        // A 0 among them (mmap_size 0 = off) sits one decade below the smallest positive value.
        double xLo = std::numeric_limits<double>::max(), xHi = 0, xMin = 0;
        for (const QString& v : categories) {
            const double d = v.toDouble();
            xMin = std::min(xMin, d);
            if (d > 0)
                xLo = std::min(xLo, d);
            xHi = std::max(xHi, d);
        }
        const bool logX = numeric && xMin >= 0 && xHi > 0 && (m_log || xHi / xLo >= 100);
        const auto position = [&](const QString& v) {
            if (!numeric)
                return static_cast<double>(categories.indexOf(v));
            if (!logX)
                return v.toDouble();
            const double d = v.toDouble();
            return d > 0 ? std::log10(d) : std::log10(xLo) - 1;
        };
        struct Line {
            QString name;
            std::vector<std::array<double, 4>> points;  // x, median, min, max
        };
        std::map<QString, Line> lines;
        QStringList order;
        double maxY = 0, minY = std::numeric_limits<double>::max();
        std::size_t unmeasured = 0;
        const auto lineName = [&](const QString& title, const QString& id, const PointValues& point) {
            QString name = title.isEmpty() ? id : title;
            for (const auto& [key, value] : point) {
                if (key != xKey)
                    name += QStringLiteral(", ") + qs(key) + QLatin1Char('=') + qs(value);
            }
            return name;
        };
        for (const PointSummary& p : summaries) {
            const auto it = p.point.find(xKey);
            if (it == p.point.end())
                continue;
            const auto f = figure(p);
            if (!f) {
                unmeasured += p.elapsed.count > 0 ? 1 : 0;
                continue;
            }
            const QString name = lineName(p.scenarioTitle, p.scenarioId, p.point);
            if (!lines.count(name))
                order << name;
            Line& line = lines[name];
            line.name = name;
            line.points.push_back({position(qs(it->second)), (*f)[0], (*f)[1], (*f)[2]});
            maxY = std::max(maxY, (*f)[2]);
            minY = std::min(minY, (*f)[1]);
        }
        // The what-if: the median predicted time per line and x (the time metric only).
        std::map<QString, std::map<double, std::vector<double>>> predictedByX;
        if (m_metric == SweepMetric::Time && !m_predictionLabel.isEmpty()) {
            for (std::size_t i = 0; i < run.size(); ++i) {
                const Sample& s = run[i];
                const auto it = s.point.find(xKey);
                if (s.status != SampleStatus::Complete || std::isnan(runPredicted[i]) || it == s.point.end())
                    continue;
                const QString name = lineName(qs(s.scenarioTitle), qs(s.scenarioId), s.point);
                if (lines.count(name))
                    predictedByX[name][position(qs(it->second))].push_back(runPredicted[i]);
            }
        }
        std::map<QString, std::vector<QPointF>> predictedLines;
        for (auto& [name, byX] : predictedByX) {
            for (auto& [x, ms] : byX) {
                std::sort(ms.begin(), ms.end());
                const std::size_t n = ms.size();
                const double median = n % 2 == 1 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
                predictedLines[name].emplace_back(x, median);
                maxY = std::max(maxY, median);
                minY = std::min(minY, median);
            }
        }
        AxisUnit yu;
        QString yTitle;
        switch (m_metric) {
            case SweepMetric::Time:
                yu = timeAxisUnit(maxY);
                yTitle = tr("Median elapsed time (%1)").arg(yu.name);
                break;
            case SweepMetric::BytesReceived:
                yu = byteAxisUnit(maxY);
                yTitle = tr("Median bytes received (%1)").arg(yu.name);
                break;
            case SweepMetric::RoundTrips:
                yu = {QString(), 1};
                yTitle = tr("Median round trips");
                break;
        }
        chart->setTitle(sweepTitle(m_metric));
        // The x axis: ticks at the swept values, labelled in the tunable's unit ("64K", "1M",
        // "2 Mbit/s"), on a log10 scale for a log axis; categories for text values.
        QString xTitle = xKey.empty() ? tr("Swept tunable") : qs(xKey);
        const QString unit = m_units.count(xKey) ? m_units.at(xKey) : QString();
        if (!unit.isEmpty() && numeric)
            xTitle += QStringLiteral(" (") + unit + (logX ? tr(", log") : QString()) + QLatin1Char(')');
        else if (logX)
            xTitle += tr(" (log)");
        auto* xAxis = new QCategoryAxis;
        xAxis->setTitleText(xTitle);
        xAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
        // At most about 12 labels: every n-th value when there are more.
        const int step = std::max<qsizetype>(1, (categories.size() + 11) / 12);
        for (int i = 0; i < categories.size(); i += step) {
            QString label = numeric ? formatTunableValue(categories[i].toDouble(), unit) : categories[i];
            if (m_xLabels.contains(label))
                label = categories[i];  // "1M" twice (10^6 and 2^20): the raw numbers
            if (m_xLabels.contains(label))
                continue;
            xAxis->append(label, position(categories[i]));
            m_xLabels << label;
        }
        if (categories.isEmpty()) {
            xAxis->setRange(-0.5, 0.5);
        } else if (!numeric) {
            xAxis->setRange(-0.5, std::max<double>(0.5, categories.size() - 0.5));
        } else {
            const double lo = position(categories.front()), hi = position(categories.back());
            const double pad = hi > lo ? (hi - lo) * 0.05 : 1;
            xAxis->setRange(lo - pad, hi + pad);
        }
        const bool logY = m_log && minY > 0 && minY != std::numeric_limits<double>::max();
        QAbstractAxis* yAxis = makeAxis(logY, yTitle, logY ? minY / yu.divisor / 1.5 : 0,
                                        std::max(maxY / yu.divisor * 1.1, logY ? minY / yu.divisor * 4 : 1e-3));
        if (auto* v = qobject_cast<QValueAxis*>(yAxis); v != nullptr && m_metric == SweepMetric::RoundTrips)
            useIntegerTicks(v);
        chart->addAxis(xAxis, Qt::AlignBottom);
        chart->addAxis(yAxis, Qt::AlignLeft);
        std::size_t lineIndex = 0;
        for (const QString& name : std::as_const(order)) {
            Line& line = lines[name];
            std::sort(line.points.begin(), line.points.end());
            // Categories have no values between them: points (each series a little apart so equal
            // figures stay visible), no line and no band.
            const double offset =
                numeric || order.size() < 2
                    ? 0.0
                    : (static_cast<double>(lineIndex) / static_cast<double>(order.size() - 1) - 0.5) * 0.3;
            QXYSeries* median = numeric ? static_cast<QXYSeries*>(new QLineSeries) : new QScatterSeries;
            median->setName(name);
            auto* upper = new QLineSeries;
            auto* lower = new QLineSeries;
            for (const auto& [x, med, lo, hi] : line.points) {
                median->append(x + offset, med / yu.divisor);
                upper->append(x, hi / yu.divisor);
                lower->append(x, lo / yu.divisor);
            }
            chart->addSeries(median);
            median->setColor(seriesColor(lineIndex++));
            median->setPointsVisible(true);
            median->setMarkerSize(numeric ? 7 : 11);
            median->attachAxis(xAxis);
            median->attachAxis(yAxis);
            if (m_metric == SweepMetric::Time && numeric) {
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
            } else {
                delete upper;
                delete lower;
            }
            m_points += static_cast<int>(median->count());
            m_names << name;
            if (const auto p = predictedLines.find(name); p != predictedLines.end()) {
                QXYSeries* guess = numeric ? static_cast<QXYSeries*>(new QLineSeries) : new QScatterSeries;
                guess->setName(name + QStringLiteral(" — ") + m_predictionLabel);
                for (const QPointF& point : p->second) {
                    guess->append(point.x() + offset, point.y() / yu.divisor);
                    m_predictedDrawn.push_back(point.y());
                }
                chart->addSeries(guess);
                const QColor color = median->color();
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
        }
        if (m_samples.empty()) {
            m_notice = tr("No sweep run yet: define a sweep (Sweep tab) and press Run sweep.");
        } else if (m_points == 0 && unmeasured > 0) {
            const QString what = m_metric == SweepMetric::RoundTrips ? tr("Round trips") : tr("Bytes received");
            QString why;
            for (const Sample& s : run) {
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
        m_frame->fitLegend(m_names.size());
        m_frame->showNotice(m_notice);
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

// Base vs new per scenario and point: a QBarSeries with two sets over the categories; the min-max
// whiskers are one path item over the plot, placed from the chart's own mapping and redrawn when
// the plot area moves; a significant difference has its new bar in an accent colour and a star.
class ComparisonBars final : public ComparisonChart {
public:
    ComparisonBars(const std::vector<PointComparison>& rows, QWidget* parent)
        : m_rows(rows), m_frame(new ChartFrame(parent)) {
        m_frame->chart()->setTitle(tr("Base vs new: median elapsed time, min-max whiskers"));
        m_frame->onThemeChanged = [this] { rebuild(); };
        QObject::connect(m_frame->chart(), &QChart::plotAreaChanged, m_frame, [this] { placeWhiskers(); });
        rebuild();
    }
    QWidget* widget() override { return m_frame; }
    QStringList categories() const override { return m_categories; }
    std::vector<int> significant() const override { return m_significant; }
    int barCount() const override { return m_bars; }
    int whiskerCount() const override { return static_cast<int>(m_whiskers.size()); }
    QString yAxisTitle() const override {
        const auto axes = m_frame->chart()->axes(Qt::Vertical);
        return axes.isEmpty() ? QString() : axes.front()->titleText();
    }
    std::vector<double> medians(bool candidate) const override { return candidate ? m_newMedians : m_baseMedians; }

private:
    static QString tr(const char* text) { return QApplication::translate("SampleChart", text); }

    struct Whisker {
        double x, lo, hi;
    };

    void rebuild() {
        QChart* chart = m_frame->chart();
        chart->removeAllSeries();
        for (QAbstractAxis* axis : chart->axes()) {
            chart->removeAxis(axis);
            delete axis;
        }
        m_categories.clear();
        m_significant.clear();
        m_whiskers.clear();
        m_baseMedians.clear();
        m_newMedians.clear();
        m_bars = 0;
        double maxY = 0;
        for (const PointComparison& c : m_rows) {
            for (const auto& side : {c.base, c.candidate}) {
                if (side && side->elapsed.count > 0)
                    maxY = std::max(maxY, side->elapsed.max);
            }
        }
        const AxisUnit yu = timeAxisUnit(maxY);
        auto* baseSet = new QBarSet(tr("Base"));
        auto* newSet = new QBarSet(tr("New"));
        baseSet->setColor(seriesColor(9).darker(115));
        newSet->setColor(seriesColor(0));
        constexpr double kBarWidth = 0.7;  // of the category; each set half of it
        for (std::size_t i = 0; i < m_rows.size(); ++i) {
            const PointComparison& c = m_rows[i];
            // The mark first: a long title is elided at its end, the mark stays visible.
            QString label = c.scenarioTitle.isEmpty() ? c.scenarioId : c.scenarioTitle;
            if (!c.point.empty())
                label = pointText(c.point) + QStringLiteral(" · ") + label;
            const bool hasBase = c.base && c.base->elapsed.count > 0;
            const bool hasNew = c.candidate && c.candidate->elapsed.count > 0;
            if (c.significant && hasBase && hasNew) {
                label = (c.ratio ? QStringLiteral("* ×%1 ").arg(*c.ratio, 0, 'f', 2) : QStringLiteral("* ")) + label;
                m_significant.push_back(static_cast<int>(i));
            }
            // QBarCategoryAxis needs distinct labels.
            while (m_categories.contains(label))
                label += QLatin1Char(' ');
            m_categories << label;
            const double x = static_cast<double>(i);
            const auto add = [&](QBarSet* set, const std::optional<PointSummary>& side, bool present, double offset,
                                 std::vector<double>& medians) {
                if (!present) {
                    set->append(0);
                    medians.push_back(std::numeric_limits<double>::quiet_NaN());
                    return;
                }
                set->append(side->elapsed.median / yu.divisor);
                medians.push_back(side->elapsed.median / yu.divisor);
                ++m_bars;
                if (side->elapsed.count > 1)
                    m_whiskers.push_back({x + offset, side->elapsed.min / yu.divisor, side->elapsed.max / yu.divisor});
            };
            add(baseSet, c.base, hasBase, -kBarWidth / 4, m_baseMedians);
            add(newSet, c.candidate, hasNew, kBarWidth / 4, m_newMedians);
            if (c.significant && hasBase && hasNew) {
                newSet->selectBar(static_cast<int>(i));
            }
        }
        // One accent for a significant difference, either way: the label's ratio says which way.
        newSet->setSelectedColor(QColor(0xe0, 0x7b, 0x24));
        auto* series = new QBarSeries;
        series->setBarWidth(kBarWidth);
        series->append(baseSet);
        series->append(newSet);
        chart->addSeries(series);
        auto* xAxis = new QBarCategoryAxis;
        xAxis->append(m_categories);
        xAxis->setTitleText(tr("Scenario and point (* significant at 0.05: × new / base)"));
        auto* yAxis = new QValueAxis;
        yAxis->setTitleText(tr("Median (%1)").arg(yu.name));
        yAxis->setRange(0, std::max(maxY / yu.divisor * 1.08, 1e-3));
        yAxis->setLabelFormat(QStringLiteral("%.4g"));
        yAxis->applyNiceNumbers();
        chart->addAxis(xAxis, Qt::AlignBottom);
        chart->addAxis(yAxis, Qt::AlignLeft);
        series->attachAxis(xAxis);
        series->attachAxis(yAxis);
        m_series = series;
        if (m_whiskerItem == nullptr) {
            m_whiskerItem = new QGraphicsPathItem(chart);
            m_whiskerItem->setZValue(100);
        }
        m_whiskerItem->setPen(QPen(m_frame->palette().color(QPalette::Text), 1.3));
        m_frame->showNotice(m_rows.empty() ? tr("The two runs have no scenario in common.") : QString());
        placeWhiskers();
    }

    void placeWhiskers() {
        if (m_whiskerItem == nullptr || m_series == nullptr)
            return;
        QChart* chart = m_frame->chart();
        QPainterPath path;
        const double cap = 0.06;  // of a category
        for (const Whisker& w : m_whiskers) {
            const QPointF top = chart->mapToPosition(QPointF(w.x, w.hi), m_series);
            const QPointF bottom = chart->mapToPosition(QPointF(w.x, w.lo), m_series);
            const double half = (chart->mapToPosition(QPointF(w.x + cap, w.hi), m_series).x() - top.x());
            path.moveTo(top);
            path.lineTo(bottom);
            path.moveTo(top.x() - half, top.y());
            path.lineTo(top.x() + half, top.y());
            path.moveTo(bottom.x() - half, bottom.y());
            path.lineTo(bottom.x() + half, bottom.y());
        }
        m_whiskerItem->setPath(path);
    }

    std::vector<PointComparison> m_rows;
    ChartFrame* m_frame;
    QBarSeries* m_series = nullptr;
    QGraphicsPathItem* m_whiskerItem = nullptr;
    QStringList m_categories;
    std::vector<int> m_significant;
    std::vector<Whisker> m_whiskers;
    std::vector<double> m_baseMedians, m_newMedians;
    int m_bars = 0;
};

class PredictionCurves final : public CurveChart {
public:
    explicit PredictionCurves(QWidget* parent) : m_frame(new ChartFrame(parent)) {
        m_frame->onThemeChanged = [this] { rebuild(); };
        rebuild();
    }
    QWidget* widget() override { return m_frame; }
    void setCurves(const std::vector<PredictionCurve>& curves, const QString& title, bool bandwidthAxis, double marker,
                   const QString& notice) override {
        m_curves = curves;
        m_title = title;
        m_bandwidth = bandwidthAxis;
        m_marker = marker;
        m_notice = curves.empty() ? notice : QString();
        rebuild();
    }
    int curveCount() const override { return static_cast<int>(m_curves.size()); }
    QString xAxisTitle() const override { return m_frame->xAxisTitle(); }
    QString notice() const override { return m_notice; }

private:
    static QString tr(const char* text) { return QApplication::translate("SampleChart", text); }

    void rebuild() {
        QChart* chart = m_frame->chart();
        clearSeriesAndAxes(chart);
        chart->setTitle(m_title);
        double maxY = 0, minX = std::numeric_limits<double>::max(), maxX = 0;
        for (const PredictionCurve& c : m_curves) {
            for (const QPointF& p : c.points) {
                maxY = std::max(maxY, p.y());
                minX = std::min(minX, p.x());
                maxX = std::max(maxX, p.x());
            }
        }
        const AxisUnit yu = timeAxisUnit(maxY);
        QAbstractAxis* x = nullptr;
        if (m_bandwidth) {
            auto* axis = new QLogValueAxis;
            axis->setBase(10);
            axis->setLabelFormat(QStringLiteral("%.0e"));
            axis->setTitleText(tr("Bandwidth, each way (bit/s)"));
            axis->setRange(m_curves.empty() ? 1e4 : minX, m_curves.empty() ? 1e9 : maxX);
            x = axis;
        } else {
            x = makeAxis(false, tr("One-way latency (ms)"), 0, m_curves.empty() ? 200 : maxX);
        }
        QAbstractAxis* y =
            makeAxis(false, tr("Predicted time (%1)").arg(yu.name), 0, maxY > 0 ? maxY / yu.divisor * 1.1 : 1);
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        std::size_t index = 0;
        for (const PredictionCurve& c : m_curves) {
            auto* line = new QLineSeries;
            line->setName(c.name);
            QList<QPointF> points;
            for (const QPointF& p : c.points)
                points.append(QPointF(p.x(), p.y() / yu.divisor));
            line->replace(points);
            chart->addSeries(line);
            QPen pen(seriesColor(index++), c.best ? 3 : 1.6);
            line->setPen(pen);
            line->attachAxis(x);
            line->attachAxis(y);
        }
        if (!m_curves.empty()) {  // the chosen link
            auto* marker = new QLineSeries;
            marker->setName(tr("chosen link"));
            marker->replace({QPointF(m_marker, 0), QPointF(m_marker, maxY / yu.divisor * 1.1)});
            chart->addSeries(marker);
            marker->setPen(QPen(m_frame->palette().color(QPalette::Mid), 1.2, Qt::DashLine));
            marker->attachAxis(x);
            marker->attachAxis(y);
        }
        m_frame->fitLegend(chart->series().size());
        m_frame->showNotice(m_notice);
    }

    ChartFrame* m_frame;
    std::vector<PredictionCurve> m_curves;
    QString m_title, m_notice;
    bool m_bandwidth = false;
    double m_marker = 0;
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

std::unique_ptr<ComparisonChart> makeComparisonChart(const std::vector<PointComparison>& rows, QWidget* parent) {
    return std::make_unique<ComparisonBars>(rows, parent);
}

namespace {

// Paints the chart laid out at `size` into `device`, the widget on screen untouched: the chart
// item is resized in its scene for the paint and given its size back. `vector`: markers drawn as
// shapes (an SVG), not images.
void paintChartAt(QWidget* widget, QPaintDevice* device, QSize size, bool vector) {
    QPainter painter;
    if (!painter.begin(device))
        throw Error(ErrorKind::Io, "cannot paint the chart");
    painter.setRenderHint(QPainter::Antialiasing);
    auto* frame = dynamic_cast<ChartFrame*>(widget);
    if (frame == nullptr) {
        widget->render(&painter);
        return;
    }
    QChart* chart = frame->chart();
    const QSizeF onScreen = chart->size();
    if (vector && frame->setVectorMarkers)
        frame->setVectorMarkers(true);
    // A chart rebuilt with no event loop in between (a script, a test, a hidden tab) still holds
    // the graphics of its removed axes and series (Qt Charts deletes them later) and pending
    // layout requests: the paint must see neither.
    const auto settle = [chart] {
        for (QGraphicsItem* item : chart->scene()->items()) {
            if (QGraphicsObject* object = item->toGraphicsObject())
                QCoreApplication::sendPostedEvents(object, QEvent::DeferredDelete);
        }
        QCoreApplication::sendPostedEvents();
        if (chart->layout() != nullptr) {
            chart->layout()->invalidate();
            chart->layout()->activate();
        }
        QCoreApplication::sendPostedEvents();
    };
    chart->resize(size);
    settle();
    frame->arrangeLegend();  // the export's height fits another number of legend entries
    settle();
    const QRectF source(chart->scenePos(), QSizeF(size));
    painter.fillRect(QRect(QPoint(0, 0), size), chart->backgroundBrush());
    chart->scene()->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), source, Qt::IgnoreAspectRatio);
    painter.end();
    chart->resize(onScreen);
    settle();
    frame->arrangeLegend();
    if (vector && frame->setVectorMarkers)
        frame->setVectorMarkers(false);
}

}  // namespace

void exportChartPng(QWidget* chart, const QString& path, QSize size) {
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(chart->palette().color(QPalette::Base));
    paintChartAt(chart, &image, size, false);
    if (!image.save(path, "PNG")) {
        throw Error(ErrorKind::Io, path.toStdString() + ": cannot write the PNG");
    }
}

void exportChartSvg(QWidget* chart, const QString& path, const QString& title, QSize size) {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(title);
    generator.setDescription(QStringLiteral("BlobBench chart"));
    try {
        paintChartAt(chart, &generator, size, true);
    } catch (const Error&) {
        throw Error(ErrorKind::Io, path.toStdString() + ": cannot write the SVG");
    }
    if (!QFile::exists(path)) {
        throw Error(ErrorKind::Io, path.toStdString() + ": cannot write the SVG");
    }
}

std::unique_ptr<CurveChart> makeCurveChart(QWidget* parent) {
    return std::make_unique<PredictionCurves>(parent);
}

}  // namespace blobbench
