#include "ui/ErrorBanner.h"

#include <QBoxLayout>
#include <QCoreApplication>
#include <QLabel>
#include <QObject>
#include <QPushButton>

#include "ui/PrepareDialog.h"

namespace blobbench {
namespace {

// A server's error can be one unbroken word of any length (20,000 characters made the window
// 141,912 px wide; 200,000 took 8.6 GB): the banner shows its start, with a break opportunity
// every 80 characters, and the log at most 4,000 characters of a line. The whole message stays in
// the sample (results, history, exports).
constexpr qsizetype kBannerChars = 600;
constexpr qsizetype kLogLineChars = 4000;

QString shortened(const QString& text, qsizetype most) {
    if (text.size() <= most)
        return text;
    return text.left(most) + QObject::tr("… (%n more character(s))", nullptr, static_cast<int>(text.size() - most));
}

QString breakable(const QString& text) {
    QString out;
    out.reserve(text.size() + text.size() / 80);
    qsizetype run = 0;
    for (const QChar c : text) {
        run = c.isSpace() ? 0 : run + 1;
        out += c;
        if (run == 80) {
            out += QChar(0x200B);  // zero-width space: a place to wrap
            run = 0;
        }
    }
    return out;
}

}  // namespace

ErrorBanner::ErrorBanner(QBoxLayout* layout, QWidget* parent)
    : m_label(new QLabel(parent)),
      m_prepareOffer(new QPushButton(QCoreApplication::translate("MainWindow", "Prepare data set…"), parent)) {
    m_label->setObjectName(QStringLiteral("errorBanner"));
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_label->setStyleSheet(
        QStringLiteral("QLabel { background: #fde2e1; color: #7a1712; border: 1px solid #e5a29e; border-radius: 3px; "
                       "padding: 4px; }"));
    m_label->hide();
    layout->addWidget(m_label);
    m_prepareOffer->setObjectName(QStringLiteral("prepareOffer"));
    m_prepareOffer->hide();
    layout->addWidget(m_prepareOffer, 0, Qt::AlignLeft);
}

void ErrorBanner::show(const QString& message) {
    m_message = message;
    m_label->setText(breakable(shortened(message, kBannerChars)));
    m_label->show();
    m_prepareOffer->setVisible(errorOffersPrepare(message));
}

void ErrorBanner::clear() {
    m_message.clear();
    m_label->clear();
    m_label->hide();
    m_prepareOffer->hide();
}

QString ErrorBanner::text() const {
    return m_label->isVisible() ? m_message : QString();
}

QString boundedLogLine(const QString& text) {
    return breakable(shortened(text, kLogLineChars));
}

}  // namespace blobbench
