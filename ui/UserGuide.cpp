#include "ui/UserGuide.h"

#include <QAbstractTextDocumentLayout>
#include <QDesktopServices>
#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QLabel>
#include <QScreen>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextFragment>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>
#include <vector>

namespace blobbench {
namespace {

constexpr const char* kGuideResource = ":/help/user-guide.md";
// The screenshots are 1366 px wide: scaled to this at most, they fit the window at 1366x768.
constexpr int kImageWidth = 760;

// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
QString anchorOf(const QString& heading) {
    QString out;
    for (const QChar c : heading.toLower()) {
        if (c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('_'))
            out += c;
        else if (c == QLatin1Char(' '))
            out += QLatin1Char('-');
    }
    return out;
}

}  // namespace

QString userGuideMarkdown() {
    QFile file(QString::fromLatin1(kGuideResource));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

UserGuideWindow::UserGuideWindow(QWidget* parent) : QWidget(parent, Qt::Window) {
    setObjectName(QStringLiteral("userGuideWindow"));
    setWindowTitle(tr("BlobBench user guide"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_browser = new QTextBrowser;
    m_browser->setObjectName(QStringLiteral("userGuideText"));
    m_browser->setOpenLinks(false);
    m_browser->setSearchPaths({QStringLiteral(":/help")});
    layout->addWidget(m_browser, 1);
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("userGuideNote"));
    m_note->setWordWrap(true);
    m_note->setContentsMargins(8, 2, 8, 4);
    m_note->hide();
    layout->addWidget(m_note);
    const QString markdown = userGuideMarkdown();
    if (markdown.isEmpty())
        m_browser->setPlainText(tr("This build has no user guide (%1 is missing).").arg(QLatin1String(kGuideResource)));
    else
        m_browser->setMarkdown(markdown);
    fitImages();
    connect(m_browser, &QTextBrowser::anchorClicked, this, &UserGuideWindow::followLink);
    // Beside the main window on a 1366x768 laptop screen, not past its bottom edge.
    const QScreen* screen = parent != nullptr ? parent->screen() : QGuiApplication::primaryScreen();
    const QRect available = screen != nullptr ? screen->availableGeometry() : QRect(0, 0, 1366, 768);
    resize(std::min(900, available.width() * 9 / 10), std::min(680, available.height() * 85 / 100));
}

QStringList UserGuideWindow::headings() const {
    QStringList out;
    for (QTextBlock b = m_browser->document()->begin(); b.isValid(); b = b.next()) {
        if (b.blockFormat().headingLevel() > 0)
            out << b.text();
    }
    return out;
}

bool UserGuideWindow::showAnchor(const QString& anchor) {
    for (QTextBlock b = m_browser->document()->begin(); b.isValid(); b = b.next()) {
        if (b.blockFormat().headingLevel() > 0 && anchorOf(b.text()) == anchor) {
            m_browser->setTextCursor(QTextCursor(b));
            const QRectF at = m_browser->document()->documentLayout()->blockBoundingRect(b);
            m_browser->verticalScrollBar()->setValue(static_cast<int>(at.top()));
            return true;
        }
    }
    return false;
}

void UserGuideWindow::followLink(const QUrl& url) {
    m_note->hide();
    if (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https")) {
        QDesktopServices::openUrl(url);
        return;
    }
    if (url.path().isEmpty() && url.hasFragment()) {
        showAnchor(url.fragment());
        return;
    }
    m_note->setText(
        tr("%1 is not part of this guide: it is in the docs/ folder of BlobBench's source.").arg(url.toString()));
    m_note->show();
}

// The markdown importer gives an image its natural size; a screenshot wider than the page is
// scaled down (the height follows the aspect ratio).
void UserGuideWindow::fitImages() {
    QTextDocument* doc = m_browser->document();
    struct Scaled {
        int position, length;
        QTextImageFormat format;
    };
    std::vector<Scaled> scaled;  // changed after the walk: a new format splits the fragments walked
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next()) {
        for (auto it = b.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            if (!fragment.charFormat().isImageFormat())
                continue;
            QTextImageFormat image = fragment.charFormat().toImageFormat();
            const QImage picture(QStringLiteral(":/help/") + image.name());
            if (picture.isNull() || picture.width() <= kImageWidth)
                continue;
            image.setWidth(kImageWidth);
            image.setHeight(static_cast<double>(picture.height()) * kImageWidth / picture.width());
            scaled.push_back({fragment.position(), fragment.length(), image});
        }
    }
    for (const Scaled& s : scaled) {
        QTextCursor cursor(doc);
        cursor.setPosition(s.position);
        cursor.setPosition(s.position + s.length, QTextCursor::KeepAnchor);
        cursor.setCharFormat(s.format);
    }
}

}  // namespace blobbench
