#include "ui/charts/ChartFrame.h"

#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QGraphicsLayout>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QGridLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <algorithm>
#include <functional>

namespace blobbench::charts {
namespace {

// The legend's visible labels, top to bottom (Qt Charts draws each entry's label as a text item
// under the legend): where each is, and whether Qt left it any text. An entry the legend's layout
// squeezed below one line's height gets its label truncated to nothing: a marker with no name.
struct LegendLabel {
    QRectF rect;
    bool blank = false;
};

QList<LegendLabel> legendLabels(const QGraphicsItem* legend) {
    QList<LegendLabel> out;
    std::function<void(const QGraphicsItem*)> walk = [&](const QGraphicsItem* item) {
        for (const QGraphicsItem* child : item->childItems()) {
            if (!child->isVisible())
                continue;
            if (const auto* text = dynamic_cast<const QGraphicsTextItem*>(child))
                out << LegendLabel{child->sceneBoundingRect(), text->toPlainText().trimmed().isEmpty()};
            walk(child);
        }
    };
    walk(legend);
    std::sort(out.begin(), out.end(),
              [](const LegendLabel& a, const LegendLabel& b) { return a.rect.top() < b.rect.top(); });
    return out;
}

}  // namespace

ChartFrame::ChartFrame(QWidget* parent) : QWidget(parent), m_chart(new QChart), m_view(new QChartView(m_chart, this)) {
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

void ChartFrame::showNotice(const QString& text) {
    m_notice->setText(text);
    m_notice->setVisible(!text.isEmpty());
}

void ChartFrame::fitLegend(qsizetype series) {
    QFont font = this->font();
    // A laptop's chart strip is about 200 px high: from 7 lines on, a smaller font lists them all.
    if (series > 16)
        font.setPointSizeF(font.pointSizeF() * 0.7);
    else if (series > 6)
        font.setPointSizeF(font.pointSizeF() * 0.8);
    m_chart->legend()->setFont(font);
    arrangeLegend(true);
}

void ChartFrame::arrangeLegend(bool force) {
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
    // A new maximum width does not reach the chart's layout by itself: the legend kept the width of
    // the first, small arrangement (labels cut to "Test read short BLOBs · SQLite ...") until the
    // window was resized by hand.
    if (m_chart->layout() != nullptr) {
        m_chart->layout()->invalidate();
        m_chart->layout()->activate();
    }
    // Where Qt Charts put the labels: an entry whose label ends below the legend is cut off, and
    // one it left without text has no room either (#30: markers without names on a real display).
    const QList<LegendLabel> labels = legendLabels(legend);
    const qreal bottom = legend->mapRectToScene(legend->rect()).bottom();
    qsizetype fit = 0;
    while (fit < labels.size() && !labels[fit].blank && labels[fit].rect.bottom() <= bottom + 0.5)
        ++fit;
    if (labels.size() == listed.size() && fit < listed.size() && fit > 0) {
        const qsizetype keep = fit - 1;  // its line says "+N more"
        QStringList hidden;
        for (qsizetype i = keep; i < listed.size(); ++i) {
            listed[i]->setVisible(false);
            listed[i]->setProperty(kOverflowProperty, true);
            hidden << listed[i]->label();
        }
        showOverflowLine(hidden, labels[keep].rect);
    } else if (m_more != nullptr) {
        m_more->hide();
    }
    m_arranging = false;
}

// The legend's last line, where the first hidden entry was: "+N more series", their names in
// its tooltip.
void ChartFrame::showOverflowLine(const QStringList& hidden, const QRectF& at) {
    QLegend* legend = m_chart->legend();
    if (m_more == nullptr)
        m_more = new QGraphicsSimpleTextItem(m_chart);
    m_more->setFont(legend->font());
    m_more->setBrush(legend->labelColor());
    m_more->setText(tr("+%n more series", nullptr, static_cast<int>(hidden.size())));
    constexpr qsizetype kTipNames = 40;
    m_more->setToolTip(hidden.mid(0, kTipNames).join(QLatin1Char('\n')) +
                       (hidden.size() > kTipNames ? QStringLiteral("\n…") : QString()));
    m_more->setPos(m_chart->mapFromScene(at.topLeft()));
    m_more->setZValue(legend->zValue() + 1);
    m_more->show();
    if (m_chart->layout() != nullptr)
        m_chart->layout()->activate();
}

QString ChartFrame::xAxisTitle() const {
    const auto axes = m_chart->axes(Qt::Horizontal);
    return axes.isEmpty() ? QString() : axes.front()->titleText();
}

void ChartFrame::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange) {
        applyTheme();
    }
    QWidget::changeEvent(event);
}

// The theme by the palette's lightness, the background and text from the palette itself, so a
// palette switched at run time (dark mode) shows without a restart.
void ChartFrame::applyTheme() {
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

}  // namespace blobbench::charts
