#include "ui/StorageChart.h"

#include <QFontMetrics>
#include <QPaintEvent>
#include <QPainter>
#include <QPen>
#include <QScrollArea>
#include <QTabWidget>
#include <algorithm>
#include <cstring>

#include "engine/storage/StorageScenario.h"
#include "model/Project.h"

namespace blobbench {
namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

std::string at(const Sample& s, const char* key) {
    const auto it = s.point.find(key);
    return it == s.point.end() ? std::string() : it->second;
}

StorageBar barOf(const Sample& s, QString label, QString group) {
    StorageBar b;
    b.label = std::move(label);
    b.group = std::move(group);
    b.section = qs(s.scenarioTitle.empty() ? s.scenarioId : s.scenarioTitle);
    if (s.status != SampleStatus::Complete) {
        b.note = qs(s.error.starts_with("not in effect") ? s.error : "failed: " + s.error);
    }
    if (s.scalar) {
        bool ok = false;
        const double v = qs(*s.scalar).toDouble(&ok);
        if (ok && s.status == SampleStatus::Complete) {
            b.value = v;
            b.hasValue = true;
            b.valueText = qs(*s.scalar);
        }
    }
    return b;
}

// Colours that read on light and dark backgrounds, one per engine or store.
QColor groupColour(const QString& group) {
    if (group == QLatin1String("sqlite"))
        return QColor(0x3b, 0x82, 0xc4);
    if (group == QLatin1String("files"))
        return QColor(0xe0, 0x8a, 0x2c);
    if (group == QLatin1String("postgres"))
        return QColor(0x4c, 0xa8, 0x6a);
    if (group == QLatin1String("firebird"))
        return QColor(0xc9, 0x4c, 0x4c);
    return QColor(0x8e, 0x6c, 0xc0);
}

}  // namespace

bool isStudySample(const Sample& sample) {
    return sample.scalarLabel == storage::kMicrosPerValue || sample.scalarLabel == storage::kInsertsPerSecond ||
           sample.scalarLabel == storage::kFootprintRatio;
}

namespace {

std::string negotiated(const Sample& s, const char* key) {
    const auto it = s.negotiated.find(key);
    return it == s.negotiated.end() ? std::string() : it->second;
}

// The method of a keyed read sample, as the Storage tab's header says it; empty for other samples.
QString methodOf(const Sample& s) {
    if (at(s, "phase") != "read" || negotiated(s, "transaction").empty()) {
        return {};
    }
    const std::string cache = negotiated(s, "cache_size");
    return qs("reads: transaction " + negotiated(s, "transaction") + ", mapping " + negotiated(s, "mapping") +
              ", values " + negotiated(s, "values") +
              (negotiated(s, "warmup") == "no" ? ", no warm-up" : ", after a warm-up") + ", cache_size " + cache +
              (cache.starts_with('-') ? " KiB" : " pages") + ", page_size " + negotiated(s, "page_size"));
}

}  // namespace

StorageChartData storageChartData(const std::vector<Sample>& samples) {
    StorageChartData d;
    std::vector<std::pair<QString, QString>> methods;  // (section, method), in the order measured
    for (const Sample& s : samples) {
        if (const QString m = methodOf(s); !m.isEmpty()) {
            const QString section = qs(s.scenarioTitle.empty() ? s.scenarioId : s.scenarioTitle);
            if (std::find(methods.begin(), methods.end(), std::make_pair(section, m)) == methods.end()) {
                methods.emplace_back(section, m);
            }
        }
        if (s.scalarLabel == storage::kInsertsPerSecond) {
            d.inserts.push_back(barOf(s, qs(at(s, "engine") + " " + at(s, "variant")), qs(at(s, "engine"))));
        } else if (s.scalarLabel == storage::kMicrosPerValue) {
            // "read sql + mmap (random)", "read files open/read/close (ascending)"; writes and
            // rewrites say what they did in their path: "sqlite insert, bind, one transaction".
            const std::string store = at(s, "store");
            const std::string label =
                at(s, "phase") == "read"
                    ? "read " + (store == "files" ? "files " : std::string()) + at(s, "path") + " (" + at(s, "order") +
                          ")"
                    : store + " " + at(s, "path") + (at(s, "phase") == "update" ? " (" + at(s, "order") + ")" : "");
            d.perValue.push_back(barOf(s, qs(label), qs(store)));
        } else if (s.scalarLabel == storage::kFootprintRatio) {
            StorageBar b = barOf(s, QStringLiteral("SQLite / files"), QStringLiteral("sqlite"));
            const auto sq = s.negotiated.find("sqliteBytes");
            const auto fi = s.negotiated.find("filesBytes");
            if (b.hasValue && sq != s.negotiated.end() && fi != s.negotiated.end()) {
                b.valueText += QStringLiteral("  (%1 MB / %2 MB)")
                                   .arg(qs(sq->second).toDouble() / 1e6, 0, 'f', 1)
                                   .arg(qs(fi->second).toDouble() / 1e6, 0, 'f', 1);
            }
            d.footprint.push_back(std::move(b));
        }
    }
    for (const auto& [section, m] : methods) {
        d.method << (methods.size() > 1 ? section + QStringLiteral(": ") + m : m);
    }
    return d;
}

StorageChart::StorageChart(ProjectDocument* document, QWidget* parent) : QWidget(parent), m_document(document) {
    setObjectName(QStringLiteral("storageChart"));
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    if (m_document == nullptr) {
        return;
    }
    connect(m_document, &ProjectDocument::projectReset, this, &StorageChart::showLatestRun);
    connect(m_document, &ProjectDocument::runStarted, this, [this](const QString& runId) {
        m_runId = runId;
        clear();
    });
    connect(m_document, &ProjectDocument::sampleAppended, this, [this](const QString& runId, const Sample& sample) {
        if (runId != m_runId || !isStudySample(sample)) {
            return;
        }
        const bool first = m_data.empty();
        addSample(sample);
        if (first) {  // a study's first figures bring the chart to the front
            bringToFront();
        }
    });
    showLatestRun();
}

void StorageChart::bringToFront() {
    for (QWidget* page = this; page != nullptr; page = page->parentWidget()) {
        for (QWidget* w = page->parentWidget(); w != nullptr; w = w->parentWidget()) {
            if (auto* tabs = qobject_cast<QTabWidget*>(w); tabs != nullptr && tabs->indexOf(page) >= 0) {
                tabs->setCurrentWidget(page);
                return;
            }
        }
    }
}

QWidget* makeStoragePanel(ProjectDocument* document) {
    auto* area = new QScrollArea;
    area->setObjectName(QStringLiteral("storagePanel"));
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setWidget(new StorageChart(document));
    return area;
}

void StorageChart::showLatestRun() {
    const auto& history = m_document->project().history;
    const auto latest = std::find_if(history.rbegin(), history.rend(), [](const RunRecord& run) {
        return std::any_of(run.samples.begin(), run.samples.end(), isStudySample);
    });
    if (latest != history.rend()) {
        m_runId = latest->runId;
        setSamples(latest->samples);
        return;
    }
    clear();
}

void StorageChart::setSamples(const std::vector<Sample>& samples) {
    m_samples.clear();
    std::copy_if(samples.begin(), samples.end(), std::back_inserter(m_samples), isStudySample);
    refresh();
}

void StorageChart::addSample(const Sample& sample) {
    if (isStudySample(sample)) {
        m_samples.push_back(sample);
        refresh();
    }
}

void StorageChart::clear() {
    m_samples.clear();
    refresh();
}

void StorageChart::refresh() {
    m_data = storageChartData(m_samples);
    setMinimumHeight(m_data.empty() ? 0 : sizeHint().height());
    updateGeometry();
    update();
}

QStringList StorageChart::seriesNames() const {
    QStringList names;
    if (!m_data.inserts.empty())
        names << tr("Inserts per second");
    if (!m_data.perValue.empty())
        names << tr("Time per value (µs)");
    if (!m_data.footprint.empty())
        names << tr("Footprint SQLite / files");
    return names;
}

namespace {
// Sections are shown when a panel holds bars of more than one scenario.
bool sectioned(const std::vector<StorageBar>& rows) {
    return std::any_of(rows.begin(), rows.end(),
                       [&](const StorageBar& b) { return b.section != rows.front().section; });
}
int lineCount(const std::vector<StorageBar>& rows) {
    int n = static_cast<int>(rows.size());
    if (sectioned(rows)) {
        for (std::size_t i = 0; i < rows.size(); ++i) {
            n += i == 0 || rows[i].section != rows[i - 1].section ? 1 : 0;
        }
    }
    return n;
}
}  // namespace

QSize StorageChart::sizeHint() const {
    const int rowHeight = fontMetrics().height() + 6;
    const int rows = lineCount(m_data.inserts) + lineCount(m_data.perValue) + lineCount(m_data.footprint);
    const int methodLines = static_cast<int>(m_data.method.size());
    return {720, std::max(240, 24 + (rows + methodLines) * rowHeight + 3 * (fontMetrics().height() + 18))};
}

void StorageChart::paintEvent(QPaintEvent* /*event*/) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    const QFontMetrics fm = fontMetrics();
    if (m_data.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap,
                   tr("Run a storage study (scenario kind keyed-read, footprint or insert: the presets SQLite vs "
                      "filesystem and LOB insert throughput) to see its figures here."));
        return;
    }
    const int margin = 12;
    const int rowHeight = fm.height() + 6;
    int labelWidth = 0;
    for (const auto* rows : {&m_data.inserts, &m_data.perValue, &m_data.footprint}) {
        for (const StorageBar& b : *rows) {
            labelWidth = std::max(labelWidth, fm.horizontalAdvance(b.label));
        }
    }
    labelWidth = std::min(labelWidth + 12, width() / 2);
    const int barLeft = margin + labelWidth;
    int valueRoom = 0;
    for (const auto* rows : {&m_data.inserts, &m_data.perValue, &m_data.footprint}) {
        for (const StorageBar& b : *rows) {
            valueRoom = std::max(valueRoom, fm.horizontalAdvance(b.valueText) + 12);
        }
    }
    const int barRoom = std::max(40, width() - barLeft - margin - valueRoom);

    // The panels share the height; rows never shrink below one line of text.
    const int panels = static_cast<int>(!m_data.inserts.empty()) + static_cast<int>(!m_data.perValue.empty()) +
                       static_cast<int>(!m_data.footprint.empty());
    const int rowsTotal = lineCount(m_data.inserts) + lineCount(m_data.perValue) + lineCount(m_data.footprint);
    const int titleHeight = fm.height() + 10;
    const int methodHeight = static_cast<int>(m_data.method.size()) * rowHeight;
    const int step = std::max(
        rowHeight, (height() - 2 * margin - methodHeight - panels * (titleHeight + 8)) / std::max(1, rowsTotal));
    int y = margin;

    auto panel = [&](const QString& title, const std::vector<StorageBar>& rows, const QString& unitNote,
                     double reference, const QStringList& method = {}) {
        if (rows.empty()) {
            return;
        }
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRect(margin, y, width() - 2 * margin, titleHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   title + QStringLiteral("  ") + unitNote);
        p.setFont(font());
        y += titleHeight;
        for (const QString& line : method) {  // how the figures below were measured
            p.setPen(pal.color(QPalette::PlaceholderText));
            p.drawText(QRect(margin, y, width() - 2 * margin, rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(line, Qt::ElideRight, width() - 2 * margin));
            y += rowHeight;
        }
        double maximum = reference;
        for (const StorageBar& b : rows) {
            if (b.hasValue)
                maximum = std::max(maximum, b.value);
        }
        const bool sections = sectioned(rows);
        const int top = y;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const StorageBar& b = rows[i];
            if (sections && (i == 0 || b.section != rows[i - 1].section)) {
                QFont italic = font();
                italic.setItalic(true);
                p.setFont(italic);
                p.setPen(pal.color(QPalette::PlaceholderText));
                p.drawText(QRect(margin, y, width() - 2 * margin, step), Qt::AlignLeft | Qt::AlignVCenter,
                           fm.elidedText(b.section, Qt::ElideRight, width() - 2 * margin));
                p.setFont(font());
                y += step;
            }
            const QRect labelRect(margin, y, labelWidth - 8, step);
            p.setPen(pal.color(QPalette::Text));
            p.drawText(labelRect, Qt::AlignRight | Qt::AlignVCenter,
                       fm.elidedText(b.label, Qt::ElideMiddle, labelWidth - 8));
            const int barHeight = std::min(step - 4, fm.height() + 4);
            const int barTop = y + (step - barHeight) / 2;
            if (b.hasValue && maximum > 0) {
                const int w = std::max(1, static_cast<int>(barRoom * b.value / maximum));
                p.fillRect(QRect(barLeft, barTop, w, barHeight), groupColour(b.group));
                p.setPen(pal.color(QPalette::Text));
                p.drawText(QRect(barLeft + w + 6, y, width() - barLeft - w - 6, step), Qt::AlignLeft | Qt::AlignVCenter,
                           b.valueText);
            } else {
                p.setPen(pal.color(QPalette::PlaceholderText));
                p.drawText(QRect(barLeft, y, width() - barLeft - margin, step), Qt::AlignLeft | Qt::AlignVCenter,
                           fm.elidedText(b.note.isEmpty() ? tr("no figure") : b.note, Qt::ElideRight,
                                         width() - barLeft - margin));
            }
            y += step;
        }
        if (reference > 0 && maximum > 0) {  // the line the ratios are read against
            const int x = barLeft + static_cast<int>(barRoom * reference / maximum);
            p.setPen(QPen(pal.color(QPalette::Text), 1, Qt::DashLine));
            p.drawLine(x, top, x, y);
        }
        y += 8;
    };
    panel(tr("Inserts per second"), m_data.inserts, tr("(higher is better)"), 0);
    panel(tr("Time per value (µs)"), m_data.perValue, tr("(lower is better; blue SQLite, orange files)"), 0,
          m_data.method);
    panel(tr("Footprint SQLite / files"), m_data.footprint, tr("(below 1: SQLite uses less disk; dashed: 1)"), 1.0);
}

}  // namespace blobbench
