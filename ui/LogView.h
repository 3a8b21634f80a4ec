#pragma once

#include <QPlainTextEdit>
#include <QStringList>

namespace blobbench {

// The window's log: follows new lines like a terminal while the user has not scrolled up, and
// stays where they scrolled to when they have (to read an earlier line during a run); scrolling
// back to the end follows again.
class LogView : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit LogView(QWidget* parent = nullptr);

    // Appends HTML lines as one batch (one relayout); scrolls to the newest when following.
    void appendLines(const QStringList& htmlLines);
    bool followsNewLines() const { return m_follow; }

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    void toEndIfFollowing();
    bool m_follow = true;
};

}  // namespace blobbench
