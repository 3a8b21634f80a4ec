#pragma once

#include <QString>

class QBoxLayout;
class QLabel;
class QPushButton;
class QWidget;

namespace blobbench {

// The window's error banner: a red line over the panes with the start of the last error, and under
// it "Prepare data set…" when the error is a missing data set (ui/PrepareDialog.h). Hidden until
// an error is shown.
class ErrorBanner {
public:
    // Adds the banner and its offer to `layout`, as children of `parent`.
    ErrorBanner(QBoxLayout* layout, QWidget* parent);
    void show(const QString& message);
    void clear();
    // The message in full while the banner shows it; empty when no error is shown.
    QString text() const;
    QPushButton* prepareOffer() const { return m_prepareOffer; }

private:
    QLabel* m_label;
    QPushButton* m_prepareOffer;
    QString m_message;  // in full: the banner shows at most its start
};

// A line for the window's log: at most 4,000 characters, with a break opportunity every 80 (see
// ErrorBanner.cpp).
QString boundedLogLine(const QString& text);

}  // namespace blobbench
