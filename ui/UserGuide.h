#pragma once

#include <QString>
#include <QWidget>

class QLabel;
class QTextBrowser;
class QUrl;

namespace blobbench {

// docs/user-guide.md and its pictures are compiled into the application (ui/CMakeLists.txt), so
// Help > User guide (F1) shows the guide of this very build wherever it is installed, with no
// other program: an empty string only if the resource is missing from the build.
QString userGuideMarkdown();

// The guide rendered from its Markdown: its table of contents jumps within the page, a web link
// opens in the browser, a link to another file of the project's docs/ says where that file is.
class UserGuideWindow : public QWidget {
    Q_OBJECT
public:
    explicit UserGuideWindow(QWidget* parent = nullptr);
    QTextBrowser* browser() const { return m_browser; }
    // The headings of the guide as shown, top to bottom ("BlobBench user guide", "Installing", ...).
    QStringList headings() const;
    // Scrolls to the heading whose GitHub anchor is `anchor` ("first-run-on-sqlite"); false if none.
    bool showAnchor(const QString& anchor);

private:
    void followLink(const QUrl& url);
    void fitImages();

    QTextBrowser* m_browser;
    QLabel* m_note;
};

}  // namespace blobbench
