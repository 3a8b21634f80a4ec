#pragma once

// The storage studies' chart (issue #8): bars of inserts/s per engine and variant, time per value
// for the keyed read / write / rewrite variants, and the footprint ratio SQLite / files. Drawn with
// QPainter (horizontal bars, one labelled row each): it needs no axis arithmetic and keeps Qt Charts
// behind ChartsBackend.cpp and ui/charts/. It follows the project document: the latest run's study
// samples.

#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

#include "engine/core/Sample.h"

namespace blobbench {

class ProjectDocument;

// One row of the chart. A row without a value (not in effect, failed) shows its note instead of a bar.
struct StorageBar {
    QString label;     // "postgres bytea-lz4", "read sql + mmap (random)", "SQLite / files"
    QString group;     // engine or store: picks the bar's colour
    double value = 0;  // inserts/s, µs/value, ratio
    bool hasValue = false;
    QString valueText;  // as shown at the bar's end
    QString note;       // "not in effect: ...", "failed: ..."
    QString section;    // the scenario's title: a panel holding several scenarios shows them apart
};

struct StorageChartData {
    std::vector<StorageBar> inserts;    // inserts/s
    std::vector<StorageBar> perValue;   // µs/value
    std::vector<StorageBar> footprint;  // ratio
    // How the keyed reads were measured, one line per study: "transaction loop, mapping cold, values
    // in place, warm-up, cache_size 1000 pages, page_size 4096" (the scenario's title first when the
    // panel holds several). Shown under the time-per-value panel's title.
    QStringList method;
    bool empty() const { return inserts.empty() && perValue.empty() && footprint.empty(); }
};

// Whether a sample comes from a storage study (its scalar label is one of theirs).
bool isStudySample(const Sample& sample);
// The rows of the chart for these samples (the others are ignored), in the order measured.
StorageChartData storageChartData(const std::vector<Sample>& samples);

class StorageChart : public QWidget {
    Q_OBJECT
public:
    // With a document: shows the latest run that holds study samples, and follows new runs live.
    explicit StorageChart(ProjectDocument* document = nullptr, QWidget* parent = nullptr);

    void setSamples(const std::vector<Sample>& samples);
    void addSample(const Sample& sample);
    void clear();

    const StorageChartData& data() const { return m_data; }
    // Shows the tab page that holds the chart, in whichever tab widget it is.
    void bringToFront();
    // The panels drawn: "Inserts per second", "Time per value (µs)", "Footprint SQLite / files".
    QStringList seriesNames() const;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void showLatestRun();
    void refresh();

    ProjectDocument* m_document = nullptr;
    QString m_runId;
    std::vector<Sample> m_samples;
    StorageChartData m_data;
};

// The chart in a scroll area (its rows never shrink below a line of text), for a tab page.
QWidget* makeStoragePanel(ProjectDocument* document);

}  // namespace blobbench
