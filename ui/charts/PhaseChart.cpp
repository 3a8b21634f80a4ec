#include "ui/charts/PhaseChart.h"

#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QEvent>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <functional>
#include <map>

#include "model/SeriesNaming.h"
#include "ui/Units.h"
#include "ui/charts/ChartBasics.h"
#include "ui/charts/ChartFrame.h"

namespace blobbench::charts {
namespace {

// Calls back when the watched widget is resized.
class ResizeWatcher final : public QObject {
public:
    ResizeWatcher(QWidget* watched, std::function<void()> resized) : QObject(watched), m_resized(std::move(resized)) {
        watched->installEventFilter(this);
    }
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Resize) {
            m_resized();
        }
        return QObject::eventFilter(watched, event);
    }

private:
    std::function<void()> m_resized;
};

class PhaseChart final : public SampleChart {
public:
    explicit PhaseChart(QWidget* parent) : m_frame(new ChartFrame(parent)) {
        m_frame->chart()->setTitle(chartTitle(ChartKind::Phases));
        m_frame->onThemeChanged = [this] { rebuild(); };
        new ResizeWatcher(m_frame, [this] { relabel(); });
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
        m_naming.setConnectionNames(m_connectionNames);
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
    void setConnectionNames(const std::map<std::string, QString>& labelToName) override {
        m_connectionNames = labelToName;
        m_naming.setConnectionNames(labelToName);
    }
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
        m_lineChars = lineChars();
        QStringList labels;
        for (const QString& id : m_order) {
            const Sums& s = m_sums.at(id);
            labels << wrappedLabel(m_categories[labels.size()], m_lineChars);
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
        m_axis = x;
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
    // The characters a label line holds at the chart's width: a category's share of the plot.
    int lineChars() const {
        const int categories = std::max<int>(1, static_cast<int>(m_order.size()));
        const int width = std::max(320, m_frame->width()) * 8 / 10;  // the plot: less the axis and legend
        const int perChar = std::max(1, m_frame->fontMetrics().averageCharWidth());
        return std::clamp(width / categories / perChar - 1, 8, 30);
    }
    // A narrower or wider chart: the labels wrapped again for the new width.
    void relabel() {
        if (m_axis == nullptr || m_order.empty() || lineChars() == m_lineChars) {
            return;
        }
        m_lineChars = lineChars();
        QStringList labels;
        for (const QString& name : std::as_const(m_categories)) {
            labels << wrappedLabel(name, m_lineChars);
        }
        m_axis->setCategories(labels);
    }
    // Two lines broken at spaces (axis labels are rich text; the axis draws no more), the middle of a
    // longer name elided: the start and the end ("· compression on", "with optimize") are what tell
    // two bars apart. The tooltip names a bar in full.
    static QString wrappedLabel(const QString& name, int line) {
        constexpr int kLines = 2;
        QString text = name;
        if (text.size() > line * kLines) {
            const int keep = line * kLines - 1;
            text = text.left(keep / 2) + QStringLiteral("…") + text.right(keep - keep / 2);
        }
        QStringList lines;
        QString current;
        for (const QString& word : text.split(QLatin1Char(' '))) {
            if (!current.isEmpty() && current.size() + 1 + word.size() > line) {
                lines << current;
                current.clear();
            }
            current += (current.isEmpty() ? QString() : QStringLiteral(" ")) + word;
        }
        lines << current;
        if (lines.size() > kLines) {  // words longer than a line: the middle of the name goes
            const QString all = lines.join(QLatin1Char(' '));
            const int keep = line * kLines - 1;
            lines = {all.left(keep / 2) + QStringLiteral("…"), all.right(keep - keep / 2)};
        }
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
    QBarCategoryAxis* m_axis = nullptr;  // owned by the chart; rebuilt with it
    int m_lineChars = 0;
    std::map<QString, Sums> m_sums;
    QStringList m_order;
    QStringList m_categories;
    SeriesNaming m_naming;
    std::map<std::string, QString> m_connectionNames;
    bool m_log = false;
};

}  // namespace

std::unique_ptr<SampleChart> makePhaseChart(QWidget* parent) {
    return std::make_unique<PhaseChart>(parent);
}

}  // namespace blobbench::charts
