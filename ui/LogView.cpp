#include "ui/LogView.h"

#include <QScrollBar>

namespace blobbench {

LogView::LogView(QWidget* parent) : QPlainTextEdit(parent) {
    setReadOnly(true);
    setMaximumBlockCount(5000);
    // Only the user's own scrolling (wheel, the bar, keys) decides whether the log follows:
    // QPlainTextEdit's test (the last block wholly in view, the widget visible) lost the end
    // after lines that came while the log was hidden, and the bar's range moves on every relayout.
    QScrollBar* bar = verticalScrollBar();
    connect(bar, &QScrollBar::actionTriggered, this,
            [this, bar](int) { m_follow = bar->sliderPosition() >= bar->maximum(); });
    connect(bar, &QScrollBar::rangeChanged, this, &LogView::toEndIfFollowing);
}

void LogView::appendLines(const QStringList& htmlLines) {
    if (htmlLines.isEmpty())
        return;
    appendHtml(htmlLines.join(QStringLiteral("<br>")));
    toEndIfFollowing();
}

void LogView::keyPressEvent(QKeyEvent* event) {
    QPlainTextEdit::keyPressEvent(event);
    const QScrollBar* bar = verticalScrollBar();
    m_follow = bar->value() >= bar->maximum();  // Page Up, Ctrl+Home, Ctrl+End
}

void LogView::toEndIfFollowing() {
    if (m_follow)
        verticalScrollBar()->setValue(verticalScrollBar()->maximum());
}

}  // namespace blobbench
