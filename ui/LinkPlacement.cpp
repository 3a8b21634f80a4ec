#include "ui/LinkPlacement.h"

#include <QEvent>
#include <QTabWidget>
#include <QVBoxLayout>

#include "model/SeriesNaming.h"
#include "ui/LinkPanel.h"

namespace blobbench {

LinkPlacement::LinkPlacement(QTabWidget* tabs, QVBoxLayout* underTunables, LinkPanel* link)
    : QObject(tabs), m_tabs(tabs), m_under(underTunables), m_link(link) {
    m_page = new QWidget;
    m_page->setObjectName(QStringLiteral("linkTab"));
    auto* layout = new QVBoxLayout(m_page);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addStretch(1);
    m_tabs->installEventFilter(this);
    connect(m_link, &LinkPanel::changed, this, &LinkPlacement::updateTitle);
}

bool LinkPlacement::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_tabs && (event->type() == QEvent::Resize || event->type() == QEvent::Show))
        place();
    return QObject::eventFilter(watched, event);
}

void LinkPlacement::place() {
    const bool tab = m_tabs->height() < kTabBelowHeight;
    if (tab == m_inTab)
        return;
    m_inTab = tab;
    QWidget* current = m_tabs->currentWidget();
    if (tab) {
        m_under->removeWidget(m_link);
        static_cast<QVBoxLayout*>(m_page->layout())->insertWidget(0, m_link);
        m_tabs->insertTab(1, m_page, QString());
    } else {
        m_page->layout()->removeWidget(m_link);
        m_under->addWidget(m_link);
        const bool wasShown = current == m_page;
        m_tabs->removeTab(m_tabs->indexOf(m_page));
        if (wasShown)
            current = m_tabs->widget(0);  // the tunables, where the link is now
    }
    m_link->setVisible(true);
    m_tabs->setCurrentWidget(current);
    updateTitle();
}

void LinkPlacement::updateTitle() {
    const int index = m_tabs->indexOf(m_page);
    if (index < 0)
        return;
    // A link that differs per direction reads "shaped": its whole description is the tooltip.
    const QString link = QString::fromStdString(shortLinkText(m_link->summary().toStdString()));
    const QString state = !m_link->useWireTap() ? tr("not measured") : link.size() <= 20 ? link : tr("shaped");
    m_tabs->setTabText(index, tr("Link: %1").arg(state));
    m_tabs->setTabVisible(index, m_link->networked());  // an embedded engine has no wire: no tab
    m_tabs->setTabToolTip(index, tr("Link emulation: %1. %2").arg(m_link->summary(), m_link->countingText()));
}

}  // namespace blobbench
